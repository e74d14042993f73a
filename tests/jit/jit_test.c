#include "jit_test.h"

#include <dirent.h>
#include <string.h>
#include <unistd.h>

#include "../test_rmtree.h"

int test_failures;

char *jit_test_tmpdir(const char *tag)
{
    char tmpl[256];
    snprintf(tmpl, sizeof(tmpl), "/tmp/prnn-%s-XXXXXX", tag);
    char *d = mkdtemp(tmpl);
    if (!d) {
        perror("mkdtemp");
        exit(1);
    }
    return strdup(d);
}

void jit_test_rmtree(const char *path)
{
    test_rmtree(path);
}

void jit_test_use_cache_dir(const char *dir)
{
    setenv("PRNN_CACHE_DIR", dir, 1);
}

prnn_cubin_key jit_test_fake_key(char d)
{
    static char text[] = "made-up key for a jit test";
    prnn_cubin_key k;
    k.text = text;
    k.len = strlen(text);
    memset(k.name, d, 32);
    k.name[32] = '\0';
    return k;
}

int jit_test_count_files(const char *dir, const char *substr)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && strstr(e->d_name, substr))
            n++;
    closedir(d);
    return n;
}

int jit_test_entries(const char *dir, char *buf, size_t size)
{
    if (size)
        buf[0] = '\0';
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 6 && strcmp(e->d_name + len - 6, ".cubin") == 0) {
            snprintf(buf, size, "%s/%s", dir, e->d_name);
            n++;
        }
    }
    closedir(d);
    return n;
}

int jit_test_log_has(const char *substr)
{
    return strstr(prnnGetLastErrorLog(), substr) != NULL;
}

int jit_test_finish(const char *what)
{
    if (test_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", what, test_failures);
        return 1;
    }
    printf("%s: all checks passed\n", what);
    return 0;
}
