/*
 * tools/cache/prnn-cache: list, verify (exit 1 on a bad entry), clear (only
 * our files), --dir, --help, usage errors. argv[1] is the tool.
 */
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "error.h"
#include "jit/cubin_cache.h"
#include "jit_test.h"
#include "../needs_libs.h"

static const char *tool;

/* Runs the tool with args; returns its exit status and its output (stdout
 * and stderr) in out. */
static int run(const char *args, char *out, size_t size)
{
    char cmd[PATH_MAX * 3];
    snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", tool, args);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, size - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    printf("$ prnn-cache %s\n%s", args, out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void make_entry(const char *offset)
{
    const char *const defs[] = {offset};
    prnn_compile_request req = {"probe.cu", defs, 1, 90, "prnn_probe", NULL};
    void *cubin = NULL;
    size_t size;
    CHECK_STATUS(prnn_cubin_get(&req, &cubin, &size, NULL, NULL),
                 PRNN_STATUS_SUCCESS);
    free(cubin);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cache_tool PATH-TO-prnn-cache\n");
        return 1;
    }
    tool = argv[1];
    /* Its entries are compiled. */
    if (needs_nvrtc("tools-cache"))
        return 77;
    static char out[1 << 16];
    char *dir = jit_test_tmpdir("cache-tool");
    jit_test_use_cache_dir(dir);
    make_entry("PRNN_PROBE_OFFSET=1");
    make_entry("PRNN_PROBE_OFFSET=2");
    char path[PATH_MAX], args[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/tuning.json", dir);
    FILE *f = fopen(path, "w");
    fputs("{}", f);
    fclose(f);

    CHECK(run("--help", out, sizeof(out)) == 0);
    CHECK(strstr(out, "usage: prnn-cache") != NULL);
    CHECK(run("", out, sizeof(out)) == 2);
    CHECK(run("frobnicate", out, sizeof(out)) == 2);

    /* PRNN_CACHE_DIR is the default directory. */
    CHECK(run("list", out, sizeof(out)) == 0);
    CHECK(strstr(out, "prnn_probe") != NULL && strstr(out, "sm_90") != NULL);
    CHECK(strstr(out, "2 entries") != NULL);
    CHECK(strstr(out, "tuning.json") == NULL);

    snprintf(args, sizeof(args), "--dir '%s' verify", dir);
    CHECK(run(args, out, sizeof(out)) == 0);
    CHECK(strstr(out, "0 bad") != NULL);

    /* Damage one entry: verify finds it and fails; list still works. */
    char victim[PATH_MAX];
    CHECK(jit_test_entries(dir, victim, sizeof(victim)) == 2);
    f = fopen(victim, "r+b");
    CHECK(f != NULL);
    if (f) {
        fseek(f, -20, SEEK_END);
        int c = fgetc(f);
        fseek(f, -20, SEEK_END);
        fputc(c ^ 0xff, f);
        fclose(f);
    }
    snprintf(args, sizeof(args), "--dir '%s' verify", dir);
    CHECK(run(args, out, sizeof(out)) == 1);
    CHECK(strstr(out, "BAD") != NULL && strstr(out, "checksum") != NULL);
    CHECK(strstr(out, "1 bad") != NULL);
    snprintf(args, sizeof(args), "--dir='%s' list", dir);
    CHECK(run(args, out, sizeof(out)) == 0);

    /* clear removes our two entries and nothing else. */
    snprintf(args, sizeof(args), "--dir '%s' clear", dir);
    CHECK(run(args, out, sizeof(out)) == 0);
    CHECK(strstr(out, "removed 2 files") != NULL);
    CHECK(jit_test_count_files(dir, "") == 1);
    CHECK(jit_test_count_files(dir, "tuning.json") == 1);
    snprintf(args, sizeof(args), "--dir '%s' verify", dir);
    CHECK(run(args, out, sizeof(out)) == 0);

    /* A killed tuning-DB writer's temporary file is listed and cleared with
     * the cache's files; a file clear cannot remove (a directory with files
     * in it, named like an entry, sorted first) does not stop it: it goes
     * on, counts, says why and fails. */
    unsetenv("PRNN_TUNING_DB");
    make_entry("PRNN_PROBE_OFFSET=1");
    snprintf(path, sizeof(path), "%s/tuning.json.tmp-Kild42", dir);
    f = fopen(path, "w");
    fputs("{\"schema_", f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/00000000000000000000000000000000.cubin", dir);
    CHECK(mkdir(path, 0755) == 0);
    snprintf(path, sizeof(path), "%s/00000000000000000000000000000000.cubin/x", dir);
    fclose(fopen(path, "w"));
    snprintf(args, sizeof(args), "--dir '%s' list", dir);
    CHECK(run(args, out, sizeof(out)) == 0);
    CHECK(strstr(out, "tuning.json.tmp-Kild42  tuning DB temporary file") != NULL);
    snprintf(args, sizeof(args), "--dir '%s' clear", dir);
    CHECK(run(args, out, sizeof(out)) == 1);
    CHECK(strstr(out, "removed 2 files, could not remove 1") != NULL);
    CHECK(strstr(out, "a directory with files in it") != NULL);
    CHECK(jit_test_count_files(dir, "tmp") == 0);
    CHECK(jit_test_count_files(dir, "") == 2); /* tuning.json, the directory */
    snprintf(path, sizeof(path), "%s/00000000000000000000000000000000.cubin", dir);
    jit_test_rmtree(path);

    /* A directory that does not exist is an empty cache. */
    snprintf(args, sizeof(args), "--dir '%s/nope' list", dir);
    CHECK(run(args, out, sizeof(out)) == 0);
    CHECK(strstr(out, "does not exist") != NULL);
    snprintf(args, sizeof(args), "--dir '%s/nope' clear", dir);
    CHECK(run(args, out, sizeof(out)) == 0);

    jit_test_rmtree(dir);
    free(dir);
    return jit_test_finish("tools-cache: prnn-cache list, verify, clear, "
                           "--dir, --help and usage errors");
}
