#include "tuning_test.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "../test_rmtree.h"

int test_failures;

void test_check_log(const char *file, int line, const char *needle)
{
    const char *log = prnn_log_get();
    if (!strstr(log, needle)) {
        fprintf(stderr, "%s:%d: log lacks \"%s\"; log is:\n%s\n", file, line, needle, log);
        test_failures++;
    }
}

char *test_mkdtemp(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof(tmpl), "%s/prnn-tuning-test-XXXXXX", base && base[0] ? base : "/tmp");
    char *d = mkdtemp(tmpl);
    if (!d) {
        perror("mkdtemp");
        exit(1);
    }
    return strdup(d);
}

void test_rm_rf(const char *path)
{
    test_rmtree(path);
}

int test_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = strlen(text);
    int rc = fwrite(text, 1, n, f) == n ? 0 : -1;
    if (fclose(f) != 0)
        rc = -1;
    return rc;
}

char *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (cap - n - 1 == 0) {
            char *t = realloc(buf, cap *= 2);
            if (!t)
                free(buf);
            buf = t;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

int test_count_files(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
            n++;
    closedir(d);
    return n;
}

void test_entry(prnn_tuning_entry *e, int hidden, int batch, int blocks)
{
    prnn_tuning_key k = test_key(hidden, batch);
    prnn_tuning_entry_from_key(e, &k);
    prnn_tile_config c = {blocks, 256, 8, 1, 8, 128, 0, 1, 0, 1, 0};
    memset(&e->config, 0, sizeof(e->config));
    e->config.tile = c;
    e->us_per_step = 1.25;
    snprintf(e->source, sizeof(e->source), "test");
}

prnn_tuning_key test_key(int hidden, int batch)
{
    prnn_tuning_key k;
    memset(&k, 0, sizeof(k));
    k.gpu_name = "Test GPU";
    k.cc_major = 8;
    k.cc_minor = 6;
    k.sm_count = 84;
    k.rnn.mode = PRNN_LSTM;
    k.rnn.dtype = PRNN_DATA_HALF;
    k.rnn.hidden = hidden;
    k.rnn.dirs = 1;
    k.rnn.mini_batch = batch;
    k.pass = PRNN_PASS_FORWARD;
    return k;
}

int test_exact_blocks(const prnn_tuning_db *db, int hidden)
{
    prnn_tuning_key k = test_key(hidden, 8);
    prnn_tuning_result r;
    if (!prnn_tuning_search(db, NULL, &k, NULL, NULL, &r) || !r.exact)
        return 0;
    return r.entry.config.tile.blocks;
}

int test_parse(prnn_tuning_db *db, const char *text)
{
    memset(db, 0, sizeof(*db));
    return prnn_tuning_db_parse(db, text, text ? strlen(text) : 0, "test DB");
}

void test_db_of(prnn_tuning_db *db, const prnn_tuning_entry *e, size_t n)
{
    char *text = prnn_tuning_db_format(e, n);
    if (!text || test_parse(db, text) != 0 || db->count != n) {
        fprintf(stderr, "test_db_of: could not build a database:\n%s\n%s\n", text ? text : "(null)",
                prnn_log_get());
        exit(1);
    }
    free(text);
}

int test_finish(const char *what)
{
    if (test_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", what, test_failures);
        return 1;
    }
    printf("%s: all checks passed\n", what);
    return 0;
}
