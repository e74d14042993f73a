/*
 * tools/cache/prnn-cache: list, verify (exit 1 on a bad entry), clear (only
 * our files), --dir, --help, usage errors. argv[1] is the tool.
 */
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "jit/cubin_cache.h"
#include "jit/sha256.h"
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
    CHECK_STATUS(prnn_cubin_get(&req, &cubin, &size, NULL, NULL), PRNN_STATUS_SUCCESS);
    free(cubin);
}

/* A valid entry without NVRTC: the name is the hash of a made-up key, the
 * payload an ELF-looking blob. */
static void fake_entry(const char *dir, int i)
{
    static const char payload[] = "\177ELF pretend cubin";
    char text[64];
    snprintf(text, sizeof(text), "prnn cubin cache test key %d\n", i);
    prnn_cubin_key k = {text, strlen(text), ""};
    unsigned char d[32];
    prnn_sha256(text, k.len, d);
    prnn_hex(d, 16, k.name);
    char why[PATH_MAX + 512];
    CHECK(prnn_cubin_cache_store(dir, &k, payload, sizeof(payload), why, sizeof(why)) == 0);
}

/* Issue #25's misleading messages, and what needs no NVRTC. */
static void test_messages(char *out, size_t size)
{
    char *dir = jit_test_tmpdir("cache-tool-msg");
    char args[PATH_MAX * 2 + 64], path[PATH_MAX];
    char *longdir = malloc(PATH_MAX + 64);
    memset(longdir, 'a', PATH_MAX + 10);
    memcpy(longdir, "/tmp/", 5);
    longdir[PATH_MAX + 10] = '\0';

    /* --dir naming a regular file: that, not "could not remove 2 files". */
    snprintf(path, sizeof(path), "%s/plain", dir);
    FILE *f = fopen(path, "w");
    fclose(f);
    snprintf(args, sizeof(args), "--dir '%s' clear", path);
    CHECK(run(args, out, size) == 2);
    CHECK(strstr(out, "is a regular file, not a directory") != NULL);
    CHECK(strstr(out, "could not remove") == NULL);
    snprintf(args, sizeof(args), "--dir '%s' list", path);
    CHECK(run(args, out, size) == 2);
    CHECK(strstr(out, "is a regular file, not a directory") != NULL);

    /* A path longer than PATH_MAX: said as such, from --dir and from
     * PRNN_CACHE_DIR (not "set PRNN_CACHE_DIR", which is set). */
    snprintf(args, sizeof(args), "--dir '%s' list", longdir);
    CHECK(run(args, out, size) == 2);
    CHECK(strstr(out, "characters long, more than a path may have") != NULL);
    setenv("PRNN_CACHE_DIR", longdir, 1);
    CHECK(run("list", out, size) == 1);
    CHECK(strstr(out, "from PRNN_CACHE_DIR is 4106 characters long") != NULL);
    CHECK(strstr(out, "set PRNN_CACHE_DIR") == NULL);
    jit_test_use_cache_dir(dir);

    /* A FIFO named like an entry: what it is, not "Invalid argument"; a
     * temporary file that is one: no size, no age. */
    snprintf(path, sizeof(path), "%s/0123456789abcdef0123456789abcdef.cubin", dir);
    CHECK(mkfifo(path, 0600) == 0);
    snprintf(path, sizeof(path), "%s/0123456789abcdef0123456789abcdef.cubin.tmp.Ab3dE9", dir);
    CHECK(mkfifo(path, 0600) == 0);
    snprintf(args, sizeof(args), "--dir '%s' verify", dir);
    CHECK(run(args, out, size) == 1);
    CHECK(strstr(out, "a FIFO, not a regular file") != NULL);
    CHECK(strstr(out, "Invalid argument") == NULL);
    CHECK(strstr(out, " old)") == NULL && strstr(out, "(0 bytes") == NULL);
    snprintf(args, sizeof(args), "--dir '%s' clear", dir);
    run(args, out, size);
    snprintf(path, sizeof(path), "%s/0123456789abcdef0123456789abcdef.cubin", dir);
    unlink(path);

    /* A directory prnn does not trust: said; verify fails, list does not. */
    fake_entry(dir, 1);
    CHECK(chmod(dir, 0777) == 0);
    snprintf(args, sizeof(args), "--dir '%s' verify", dir);
    CHECK(run(args, out, size) == 1);
    CHECK(strstr(out, "mode 0777") && strstr(out, "neither loads nor stores"));
    CHECK(strstr(out, "ok   ") != NULL); /* the entry itself is fine */
    snprintf(args, sizeof(args), "--dir '%s' list", dir);
    CHECK(run(args, out, size) == 0);
    CHECK(chmod(dir, 0700) == 0);
    snprintf(args, sizeof(args), "--dir '%s' verify", dir);
    CHECK(run(args, out, size) == 0);

    free(longdir);
    jit_test_rmtree(dir);
    free(dir);
}

/* verify while another process clears: a file removed between the listing
 * and the reading is not BAD, has no size or age, and verify exits 0. Racy
 * by nature: tried until a run sees files vanish (or 40 runs). */
static void test_verify_during_clear(char *out, size_t size)
{
    enum { ENTRIES = 400 };
    char *dir = jit_test_tmpdir("cache-tool-race");
    char *src = jit_test_tmpdir("cache-tool-race-src");
    char args[PATH_MAX + 64], from[PATH_MAX + 64], to[PATH_MAX + 64];
    /* Made once; each run links them in (a store fsyncs: too slow). */
    for (int i = 0; i < ENTRIES; i++)
        fake_entry(src, i);
    snprintf(args, sizeof(args), "--dir '%s' verify", dir);
    int seen = 0, runs = 0, bad_runs = 0;
    for (; runs < 40 && !seen; runs++) {
        DIR *d = opendir(src);
        struct dirent *ent;
        while (d && (ent = readdir(d)) != NULL) {
            if (ent->d_name[0] == '.')
                continue;
            snprintf(from, sizeof(from), "%s/%s", src, ent->d_name);
            snprintf(to, sizeof(to), "%s/%s", dir, ent->d_name);
            CHECK(link(from, to) == 0);
        }
        if (d)
            closedir(d);
        pid_t pid = fork();
        if (pid == 0) {
            /* Let the tool list first, then clear. */
            usleep(1000 + 700 * (runs % 10));
            prnn_temp_sweep_result r;
            _exit(prnn_cubin_cache_clear(dir, &r) == PRNN_STATUS_SUCCESS ? 0 : 1);
        }
        /* Quiet: hundreds of lines per run. */
        char cmd[PATH_MAX * 2];
        snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", tool, args);
        FILE *p = popen(cmd, "r");
        size_t n = p ? fread(out, 1, size - 1, p) : 0;
        out[n] = '\0';
        int status = p ? pclose(p) : -1;
        int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        int child = 0;
        waitpid(pid, &child, 0);
        seen = strstr(out, "removed meanwhile") != NULL || strstr(out, "No such file") != NULL;
        if (rc != 0 || strstr(out, "BAD") || strstr(out, " old)")) {
            bad_runs++;
            fprintf(stderr, "verify during a clear (exit %d):\n%.2000s\n", rc, out);
        }
        prnn_temp_sweep_result r;
        prnn_cubin_cache_clear(dir, &r);
    }
    CHECK(bad_runs == 0);
    printf("verify during a concurrent clear: %d run%s, %s\n", runs, runs == 1 ? "" : "s",
           seen ? "files vanished under it and none was BAD"
                : "the race was never hit (nothing checked)");
    jit_test_rmtree(dir);
    jit_test_rmtree(src);
    free(dir);
    free(src);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cache_tool PATH-TO-prnn-cache\n");
        return 1;
    }
    tool = argv[1];
    static char out[1 << 16];
    test_messages(out, sizeof(out));
    test_verify_during_clear(out, sizeof(out));
    /* Its entries are compiled. */
    if (needs_nvrtc("tools-cache"))
        return test_failures ? 1 : 77;
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
    return jit_test_finish(
        "tools-cache: prnn-cache list, verify, clear, --dir, --help and usage errors");
}
