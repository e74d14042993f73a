/*
 * The disk cache: a cold miss writes one file, a warm hit does not call
 * NVRTC, damaged or foreign entries are detected, recompiled and replaced,
 * an unusable directory degrades to memory-only with a note, and no
 * temporary file is ever left behind. Each case has its own directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "jit/cubin_cache.h"
#include "jit/nvrtc_compile.h"
#include "jit_test.h"
#include "../needs_libs.h"

static const char *const offset3[] = {"PRNN_PROBE_OFFSET=3"};
static const char *const offset4[] = {"PRNN_PROBE_OFFSET=4"};
static const prnn_compile_request probe3 = {"probe.cu", offset3, 1, 90, "prnn_probe", NULL};
static const prnn_compile_request probe4 = {"probe.cu", offset4, 1, 90, "prnn_probe", NULL};

/* prnn_cubin_get, checking the source and whether NVRTC ran. */
static void get_expect(const prnn_compile_request *req, prnnCubinSource_t expect, void **out,
                       size_t *out_size)
{
    unsigned long before = prnn_nvrtc_compile_count();
    void *cubin = NULL;
    size_t size = 0;
    prnnCubinSource_t src = PRNN_CUBIN_NONE;
    double ms = -1;
    CHECK_STATUS(prnn_cubin_get(req, &cubin, &size, &src, &ms), PRNN_STATUS_SUCCESS);
    if (src != expect)
        fprintf(stderr, "cubin source %d, expected %d\nlog: %s\n", (int)src, (int)expect,
                prnnGetLastErrorLog());
    CHECK(src == expect);
    unsigned long compiles = prnn_nvrtc_compile_count() - before;
    CHECK(compiles == (expect == PRNN_CUBIN_COMPILED ? 1u : 0u));
    CHECK(expect == PRNN_CUBIN_COMPILED ? ms > 0 : ms == 0);
    CHECK(cubin && size > 64 && memcmp(cubin, "\177ELF", 4) == 0);
    if (out) {
        *out = cubin;
        *out_size = size;
    } else {
        free(cubin);
    }
}

/* The entry's path; checks it is the directory's only file. */
static void only_entry(const char *dir, char *path, size_t size)
{
    CHECK(jit_test_entries(dir, path, size) == 1);
    CHECK(jit_test_count_files(dir, "") == 1);
    CHECK(jit_test_count_files(dir, ".tmp.") == 0);
}

static int entry_valid(const char *dir, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) /* no entry was found: only_entry said so */
        return 0;
    prnn_cubin_entry e;
    prnn_cubin_cache_inspect(dir, slash + 1, 1, &e);
    if (!e.valid)
        fprintf(stderr, "%s: %s\n", path, e.problem);
    return e.valid;
}

static void read_all(const char *path, unsigned char **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    *data = NULL;
    *size = 0;
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *data = malloc((size_t)n + 1);
    *size = fread(*data, 1, (size_t)n, f);
    fclose(f);
}

static void write_all(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(data, 1, size, f) == size);
        fclose(f);
    }
}

static void test_cold_then_warm(void)
{
    char *dir = jit_test_tmpdir("cache-cold");
    jit_test_use_cache_dir(dir);
    void *a, *b;
    size_t na, nb;
    get_expect(&probe3, PRNN_CUBIN_COMPILED, &a, &na);
    char path[PATH_MAX];
    only_entry(dir, path, sizeof(path));
    CHECK(entry_valid(dir, path));
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
    /* Warm: the same bytes, from disk, without NVRTC. */
    get_expect(&probe3, PRNN_CUBIN_DISK_CACHE, &b, &nb);
    CHECK(na == nb && memcmp(a, b, na) == 0);
    only_entry(dir, path, sizeof(path));
    free(a);
    free(b);
    /* Another define is another entry. */
    get_expect(&probe4, PRNN_CUBIN_COMPILED, NULL, NULL);
    CHECK(jit_test_count_files(dir, ".cubin") == 2);
    get_expect(&probe4, PRNN_CUBIN_DISK_CACHE, NULL, NULL);
    jit_test_rmtree(dir);
    free(dir);
}

static void test_key(void)
{
    prnn_cubin_key k3, k3b, k4, k3arch, ktext, ktext2;
    prnn_compile_request arch = probe3;
    arch.sm = 80;
    prnn_compile_request text = probe3;
    text.source_text = "extern \"C\" __global__ void prnn_probe() {}\n";
    prnn_compile_request text2 = probe3;
    text2.source_text = "extern \"C\" __global__ void prnn_probe() { }\n";
    int before = test_failures;
    CHECK_STATUS(prnn_cubin_key_build(&probe3, &k3), PRNN_STATUS_SUCCESS);
    CHECK_STATUS(prnn_cubin_key_build(&probe3, &k3b), PRNN_STATUS_SUCCESS);
    CHECK_STATUS(prnn_cubin_key_build(&probe4, &k4), PRNN_STATUS_SUCCESS);
    CHECK_STATUS(prnn_cubin_key_build(&arch, &k3arch), PRNN_STATUS_SUCCESS);
    CHECK_STATUS(prnn_cubin_key_build(&text, &ktext), PRNN_STATUS_SUCCESS);
    CHECK_STATUS(prnn_cubin_key_build(&text2, &ktext2), PRNN_STATUS_SUCCESS);
    /* A failed build leaves an empty key (text NULL): nothing to compare. */
    if (test_failures != before)
        return;
    CHECK(strcmp(k3.name, k3b.name) == 0 && strcmp(k3.text, k3b.text) == 0);
    CHECK(strlen(k3.name) == 32);
    CHECK(strcmp(k3.name, k4.name) != 0);
    CHECK(strcmp(k3.name, k3arch.name) != 0);
    CHECK(strcmp(k3.name, ktext.name) != 0);
    CHECK(strcmp(ktext.name, ktext2.name) != 0); /* one space differs */
    /* Everything that can change the binary is spelled out. */
    CHECK(strstr(k3.text, "prnn cubin cache format ") == k3.text);
    CHECK(strstr(k3.text, "\nkernel prnn_probe\n") != NULL);
    CHECK(strstr(k3.text, "\nsource probe.cu ") != NULL);
    CHECK(strstr(k3.text, "\nheader prnn_device.cuh ") != NULL);
    CHECK(strstr(k3.text, "\narch sm_90\n") != NULL);
    CHECK(strstr(k3.text, "\nnvrtc ") != NULL);
    CHECK(strstr(k3.text, "\noption --gpu-architecture=sm_90\n") != NULL);
    CHECK(strstr(k3.text, "\noption -DPRNN_PROBE_OFFSET=3\n") != NULL);
    printf("key of probe.cu, sm_90, offset 3 (%s):\n%s", k3.name, k3.text);
    prnn_cubin_key_free(&k3);
    prnn_cubin_key_free(&k3b);
    prnn_cubin_key_free(&k4);
    prnn_cubin_key_free(&k3arch);
    prnn_cubin_key_free(&ktext);
    prnn_cubin_key_free(&ktext2);

    /* A define with a line break could alias another key: refused. */
    const char *const nl[] = {"A=1\noption -DB=2"};
    prnn_compile_request bad = {"probe.cu", nl, 1, 90, "prnn_probe", NULL};
    prnn_cubin_key kb;
    CHECK_STATUS(prnn_cubin_key_build(&bad, &kb), PRNN_STATUS_INTERNAL_ERROR);
}

typedef void (*damage_fn)(const char *path, const char *dir);

static void truncate_half(const char *path, const char *dir)
{
    (void)dir;
    struct stat st;
    CHECK(stat(path, &st) == 0);
    CHECK(truncate(path, st.st_size / 2) == 0);
}

static void truncate_header(const char *path, const char *dir)
{
    (void)dir;
    CHECK(truncate(path, 10) == 0);
}

static void truncate_empty(const char *path, const char *dir)
{
    (void)dir;
    CHECK(truncate(path, 0) == 0);
}

static void flip_payload_byte(const char *path, const char *dir)
{
    (void)dir;
    unsigned char *d;
    size_t n;
    read_all(path, &d, &n);
    CHECK(n > 100);
    d[n - 40] ^= 0x01;
    write_all(path, d, n);
    free(d);
}

static void append_garbage(const char *path, const char *dir)
{
    (void)dir;
    FILE *f = fopen(path, "ab");
    CHECK(f != NULL);
    if (f) {
        fputs("garbage", f);
        fclose(f);
    }
}

static void bad_magic(const char *path, const char *dir)
{
    (void)dir;
    unsigned char *d;
    size_t n;
    read_all(path, &d, &n);
    d[0] = 'X';
    write_all(path, d, n);
    free(d);
}

static void other_format(const char *path, const char *dir)
{
    (void)dir;
    unsigned char *d;
    size_t n;
    read_all(path, &d, &n);
    d[8] = (unsigned char)(PRNN_CUBIN_CACHE_FORMAT + 1);
    write_all(path, d, n);
    free(d);
}

/* A well-formed entry, valid checksum and all, but for another key (what a
 * hash collision would look like): probe4's file under probe3's name. */
static void forged_key(const char *path, const char *dir)
{
    void *cubin;
    size_t size;
    CHECK_STATUS(prnn_nvrtc_compile(&probe4, &cubin, &size, NULL), PRNN_STATUS_SUCCESS);
    prnn_cubin_key k4, k3;
    CHECK_STATUS(prnn_cubin_key_build(&probe4, &k4), PRNN_STATUS_SUCCESS);
    CHECK_STATUS(prnn_cubin_key_build(&probe3, &k3), PRNN_STATUS_SUCCESS);
    char why[256];
    /* Store under k4's text with k3's file name. */
    snprintf(k4.name, sizeof(k4.name), "%s", k3.name);
    CHECK(prnn_cubin_cache_store(dir, &k4, cubin, size, why, sizeof(why)) == 0);
    unsigned char *d;
    size_t n;
    read_all(path, &d, &n);
    CHECK(n > 0 && memmem(d, n, "-DPRNN_PROBE_OFFSET=4", 21) != NULL);
    free(d);
    free(cubin);
    prnn_cubin_key_free(&k4);
    prnn_cubin_key_free(&k3);
}

/* The entry's name taken by a directory: unreadable, and the rename of a
 * replacement fails too; the compile still succeeds and no temporary file
 * stays. */
static void directory_in_the_way(const char *path, const char *dir)
{
    (void)dir;
    CHECK(unlink(path) == 0);
    CHECK(mkdir(path, 0755) == 0);
    char inner[PATH_MAX];
    snprintf(inner, sizeof(inner), "%s/keep", path);
    write_all(inner, "x", 1);
}

static void test_damage(const char *name, damage_fn damage, const char *expect, int replaced)
{
    char *dir = jit_test_tmpdir("cache-damage");
    jit_test_use_cache_dir(dir);
    void *good;
    size_t ngood;
    get_expect(&probe3, PRNN_CUBIN_COMPILED, &good, &ngood);
    char path[PATH_MAX];
    only_entry(dir, path, sizeof(path));
    damage(path, dir);

    /* Detected, noted, recompiled. */
    prnn_log_clear();
    void *again;
    size_t nagain;
    get_expect(&probe3, PRNN_CUBIN_COMPILED, &again, &nagain);
    CHECK(nagain == ngood && memcmp(again, good, ngood) == 0);
    if (!jit_test_log_has(expect))
        fprintf(stderr, "%s: expected \"%s\" in the log:\n%s\n", name, expect,
                prnnGetLastErrorLog());
    CHECK(jit_test_log_has(expect));
    CHECK(jit_test_log_has("recompiling and replacing it"));
    CHECK(jit_test_count_files(dir, ".tmp.") == 0);
    if (replaced) {
        /* Replaced: valid on disk, and the next plan is a hit. */
        only_entry(dir, path, sizeof(path));
        CHECK(entry_valid(dir, path));
        get_expect(&probe3, PRNN_CUBIN_DISK_CACHE, NULL, NULL);
    }
    printf("%-22s detected (%s), recompiled%s\n", name, expect, replaced ? ", replaced" : "");
    free(good);
    free(again);
    jit_test_rmtree(dir);
    free(dir);
}

static void test_unusable_directory(void)
{
    /* A path under a regular file: mkdir fails even for root. */
    char *base = jit_test_tmpdir("cache-unusable");
    char file[PATH_MAX], dir[PATH_MAX + 8];
    snprintf(file, sizeof(file), "%s/not-a-directory", base);
    write_all(file, "x", 1);
    snprintf(dir, sizeof(dir), "%s/prnn", file);
    jit_test_use_cache_dir(dir);
    prnn_log_clear();
    get_expect(&probe3, PRNN_CUBIN_COMPILED, NULL, NULL);
    CHECK(jit_test_log_has("cached in memory only"));
    CHECK(jit_test_log_has(dir));
    /* Once per directory and process, not on every plan. */
    prnn_log_clear();
    get_expect(&probe3, PRNN_CUBIN_COMPILED, NULL, NULL);
    CHECK(!jit_test_log_has("cached in memory only"));

    /* The cache directory itself is a file. */
    jit_test_use_cache_dir(file);
    prnn_log_clear();
    get_expect(&probe3, PRNN_CUBIN_COMPILED, NULL, NULL);
    CHECK(jit_test_log_has("cached in memory only"));
    jit_test_rmtree(base);
    free(base);

    /* A read-only directory: hits still work, misses compile and note. Root
     * writes anyway, so only an ordinary user can check this. */
    if (geteuid() == 0) {
        printf("read-only directory: running as root, chmod does not stop writes; the "
               "path-under-a-file case above covers it\n");
        return;
    }
    char *ro = jit_test_tmpdir("cache-readonly");
    jit_test_use_cache_dir(ro);
    get_expect(&probe3, PRNN_CUBIN_COMPILED, NULL, NULL);
    CHECK(chmod(ro, 0555) == 0);
    get_expect(&probe3, PRNN_CUBIN_DISK_CACHE, NULL, NULL);
    prnn_log_clear();
    get_expect(&probe4, PRNN_CUBIN_COMPILED, NULL, NULL);
    CHECK(jit_test_log_has("cached in memory only"));
    CHECK(jit_test_count_files(ro, "") == 1);
    chmod(ro, 0755);
    jit_test_rmtree(ro);
    free(ro);
}

static void test_maintenance(void)
{
    static const char *const temp = "0123456789abcdef0123456789abcdef.cubin.tmp.Ab3dE9";
    int is_temp = -1;
    CHECK(prnn_cubin_cache_is_ours("0123456789abcdef0123456789abcdef.cubin", &is_temp) &&
          is_temp == 0);
    CHECK(prnn_cubin_cache_is_ours(temp, &is_temp) && is_temp == 1);
    CHECK(!prnn_cubin_cache_is_ours("tuning.json", NULL));
    CHECK(!prnn_cubin_cache_is_ours("0123456789ABCDEF0123456789abcdef.cubin", NULL));
    CHECK(!prnn_cubin_cache_is_ours("0123456789abcdef0123456789abcde.cubin", NULL));
    CHECK(!prnn_cubin_cache_is_ours("0123456789abcdef0123456789abcdef.cubin.bak", NULL));
    CHECK(!prnn_cubin_cache_is_ours("0123456789abcdef0123456789abcdef.cubin.tmp.Ab3d", NULL));

    char *dir = jit_test_tmpdir("cache-maint");
    jit_test_use_cache_dir(dir);
    get_expect(&probe3, PRNN_CUBIN_COMPILED, NULL, NULL);
    get_expect(&probe4, PRNN_CUBIN_COMPILED, NULL, NULL);
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/tuning.json", dir);
    write_all(path, "{}", 2);
    snprintf(path, sizeof(path), "%s/%s", dir, temp);
    write_all(path, "partial", 7);
    CHECK(jit_test_count_files(dir, "") == 4);

    prnn_temp_sweep_result r;
    CHECK_STATUS(prnn_cubin_cache_clear(dir, &r), PRNN_STATUS_SUCCESS);
    CHECK(r.removed == 3 && r.kept == 0 && r.failed == 0);
    /* Only ours: the tuning database stays. */
    CHECK(jit_test_count_files(dir, "") == 1);
    CHECK(jit_test_count_files(dir, "tuning.json") == 1);
    get_expect(&probe3, PRNN_CUBIN_COMPILED, NULL, NULL);
    jit_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    if (needs_nvrtc("jit-cubin-cache"))
        return 77;
    test_key();
    test_cold_then_warm();
    test_damage("truncated", truncate_half, "truncated", 1);
    test_damage("truncated header", truncate_header, "shorter than the header", 1);
    test_damage("empty file", truncate_empty, "shorter than the header", 1);
    test_damage("flipped payload byte", flip_payload_byte, "checksum mismatch", 1);
    test_damage("trailing bytes", append_garbage, "trailing bytes", 1);
    test_damage("bad magic", bad_magic, "bad magic", 1);
    test_damage("other format version", other_format, "another cache format", 1);
    test_damage("forged key", forged_key, "stored key differs", 1);
    test_damage("directory in the way", directory_in_the_way, "a directory, not a regular file", 0);
    test_unusable_directory();
    test_maintenance();
    return jit_test_finish("jit-cubin-cache: cold miss, warm hit, damaged and foreign entries, "
                           "unusable directories, maintenance");
}
