/*
 * Every kernel variant (kernel_variants.c) compiles to CUBIN, without
 * warnings, for sm_75, 80, 86, 89, 90 and every newer architecture this
 * NVRTC supports; compiles run on parallel threads. Then the failure paths:
 * a broken source, an unknown source, architectures NVRTC cannot target.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "embedded.h"
#include "error.h"
#include "jit/nvrtc_compile.h"
#include "jit_test.h"
#include "kernel_variants.h"
#include "../needs_libs.h"

#define MAX_ARCHS 32
#define MAX_JOBS 4096
#define MAX_VARIANTS 256

typedef struct {
    const jit_kernel_variant *v;
    int sm;
    prnnStatus_t status;
    double ms;
    size_t size;
    int elf_ok;
    char *log; /* the thread's log after the compile, when non-empty */
} job;

static job jobs[MAX_JOBS];
static int num_jobs;
static int next_job;

/* The hand-written variants, then the persistent kernels' (their defines
 * the planner's, kept in requests). */
static jit_kernel_variant variants[MAX_VARIANTS];
static prnn_kernel_request requests[MAX_VARIANTS];
static int num_variants;

static void collect_variants(void)
{
    for (int v = 0; v < jit_kernel_variant_count && num_variants < MAX_VARIANTS; v++)
        variants[num_variants++] = jit_kernel_variants[v];
    for (int p = 0; p < jit_persistent_variant_count && num_variants < MAX_VARIANTS; p++) {
        char why[512];
        if (jit_persistent_variant_build(&jit_persistent_variants[p], &requests[p],
                                         &variants[num_variants], why, sizeof(why))) {
            fprintf(stderr, "kernel_variants.c: \"%s\": %s\n", jit_persistent_variants[p].kernel,
                    why);
            test_failures++;
            continue;
        }
        num_variants++;
    }
    CHECK(jit_kernel_variant_count + jit_persistent_variant_count <= MAX_VARIANTS);
}

static int defines_count(const jit_kernel_variant *v)
{
    int n = 0;
    while (n < JIT_VARIANT_MAX_DEFINES && v->defines[n])
        n++;
    return n;
}

static void run_job(job *j)
{
    prnn_compile_request req = {j->v->source, j->v->defines, defines_count(j->v),
                                j->sm,        j->v->kernel,  NULL};
    void *cubin = NULL;
    prnn_log_clear();
    j->status = prnn_nvrtc_compile(&req, &cubin, &j->size, &j->ms);
    if (j->status == PRNN_STATUS_SUCCESS) {
        const unsigned char *p = cubin;
        /* An ELF file for EM_CUDA (190): a cubin, not PTX. */
        j->elf_ok = j->size > 64 && memcmp(p, "\177ELF", 4) == 0 && (p[18] | p[19] << 8) == 190;
        free(cubin);
    }
    if (prnnGetLastErrorLog()[0])
        j->log = strdup(prnnGetLastErrorLog());
}

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        int i = __atomic_fetch_add(&next_job, 1, __ATOMIC_RELAXED);
        if (i >= num_jobs)
            return NULL;
        run_job(&jobs[i]);
    }
}

/* 1 if an earlier job of the same variant already printed its warnings. */
static int warned_before(int i)
{
    for (int k = 0; k < i; k++)
        if (jobs[k].v == jobs[i].v && jobs[k].log && !jobs[k].status)
            return 1;
    return 0;
}

static int build_arch_list(int *archs)
{
    static const int required[] = {75, 80, 86, 89, 90};
    int supported[MAX_ARCHS], n = 0, count = 0;
    prnnStatus_t s = prnn_nvrtc_supported_archs(supported, MAX_ARCHS, &n);
    CHECK_STATUS(s, PRNN_STATUS_SUCCESS);
    if (s)
        return 0;
    if (n > MAX_ARCHS)
        n = MAX_ARCHS;
    printf("NVRTC supports:");
    for (int i = 0; i < n; i++)
        printf(" sm_%d", supported[i]);
    printf("\n");
    for (size_t r = 0; r < sizeof(required) / sizeof(required[0]); r++) {
        int found = 0;
        for (int i = 0; i < n; i++)
            found |= supported[i] == required[r];
        if (!found)
            fprintf(stderr, "NVRTC cannot target sm_%d, which prnn supports\n", required[r]);
        CHECK(found);
        archs[count++] = required[r];
    }
    for (int i = 0; i < n; i++)
        if (supported[i] > 90)
            archs[count++] = supported[i];
    return count;
}

static void test_variants(void)
{
    collect_variants();
    /* Every kernel source has a variant. */
    for (const prnn_embedded_file *f = prnn_kernel_files; f->name; f++) {
        size_t len = strlen(f->name);
        if (len < 3 || strcmp(f->name + len - 3, ".cu") != 0)
            continue;
        int found = 0;
        for (int v = 0; v < num_variants; v++)
            found |= strcmp(variants[v].source, f->name) == 0;
        if (!found)
            fprintf(stderr, "kernel_src/%s has no entry in tests/jit/kernel_variants.c\n", f->name);
        CHECK(found);
    }

    int archs[MAX_ARCHS];
    int num_archs = build_arch_list(archs);
    for (int v = 0; v < num_variants; v++)
        for (int a = 0; a < num_archs; a++)
            if (archs[a] >= variants[v].min_sm && num_jobs < MAX_JOBS)
                jobs[num_jobs++] =
                    (job){&variants[v], archs[a], PRNN_STATUS_INTERNAL_ERROR, 0, 0, 0, NULL};

    /* The first compile of a process also loads NVRTC's builtins: do one
     * alone so the table below shows the cost of a kernel, not of start-up. */
    double t0 = prnn_now_ms();
    job warm = {&variants[0], 90, PRNN_STATUS_SUCCESS, 0, 0, 0, NULL};
    run_job(&warm);
    printf("first compile in the process (NVRTC start-up included): %s sm_90 %.1f ms\n",
           warm.v->kernel, prnn_now_ms() - t0);
    free(warm.log);

    unsigned long before = prnn_nvrtc_compile_count();
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cpus < 2 ? 2 : cpus > 8 ? 8 : (int)cpus;
    pthread_t tid[8];
    t0 = prnn_now_ms();
    for (int i = 0; i < threads; i++)
        pthread_create(&tid[i], NULL, worker, NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(tid[i], NULL);
    double wall = prnn_now_ms() - t0;
    CHECK(prnn_nvrtc_compile_count() - before == (unsigned long)num_jobs);

    int warnings = 0;
    printf("%-36s %-8s %10s %10s\n", "variant", "arch", "cold ms", "bytes");
    for (int i = 0; i < num_jobs; i++) {
        job *j = &jobs[i];
        printf("%-36s sm_%-5d %10.1f %10zu %s\n", j->v->kernel, j->sm, j->ms, j->size,
               j->status ? prnnGetErrorString(j->status) : "");
        if (j->status) {
            fprintf(stderr, "%s for sm_%d failed:\n%s\n", j->v->kernel, j->sm,
                    j->log ? j->log : "");
            test_failures++;
            continue;
        }
        CHECK(j->elf_ok);
        /* Warnings are reported (once per variant), not failed: the kernels
         * are still being written. */
        if (j->log) {
            if (!warned_before(i))
                printf("NVRTC warnings for %s (sm_%d; other archs alike):\n%s\n", j->v->kernel,
                       j->sm, j->log);
            warnings++;
        }
    }
    for (int i = 0; i < num_jobs; i++)
        free(jobs[i].log);
    printf("%d compiles on %d threads in %.0f ms; %d with NVRTC warnings\n", num_jobs, threads,
           wall, warnings);
}

static void test_broken_source(void)
{
    static const char broken[] = "#include \"prnn_device.cuh\"\n"
                                 "extern \"C\" __global__ void broken(float *x)\n"
                                 "{\n"
                                 "    x[0] = prnn_undefined_symbol + PRNN_BROKEN;\n"
                                 "}\n";
    const char *defs[] = {"PRNN_BROKEN=1", "PRNN_OTHER=two"};
    prnn_compile_request req = {"broken_test.cu", defs, 2, 90, "broken_kernel", broken};
    void *cubin = (void *)&req;
    size_t size = 12345;
    CHECK_STATUS(prnn_nvrtc_compile(&req, &cubin, &size, NULL), PRNN_STATUS_COMPILE_FAILED);
    CHECK(cubin == (void *)&req && size == 12345); /* untouched on failure */
    const char *log = prnnGetLastErrorLog();
    CHECK(strstr(log, "broken_kernel") != NULL);
    CHECK(strstr(log, "broken_test.cu") != NULL);
    CHECK(strstr(log, "sm_90") != NULL);
    CHECK(strstr(log, "--gpu-architecture=sm_90") != NULL);
    CHECK(strstr(log, "-std=c++17") != NULL);
    CHECK(strstr(log, "-DPRNN_BROKEN=1") != NULL);
    CHECK(strstr(log, "-DPRNN_OTHER=two") != NULL);
    CHECK(strstr(log, "NVRTC log:") != NULL);
    CHECK(strstr(log, "prnn_undefined_symbol") != NULL); /* NVRTC's own words */
    CHECK(strstr(log, "-I") == NULL);                    /* no include path */
    printf("broken source, as reported:\n%s\n", log);
}

static void test_warning_is_a_note(void)
{
    static const char warns[] = "extern \"C\" __global__ void warns(float *x)\n"
                                "{\n"
                                "    int unused_variable = 3;\n"
                                "    x[0] = 1.0f;\n"
                                "}\n";
    prnn_compile_request req = {"warns_test.cu", NULL, 0, 90, "warns", warns};
    void *cubin = NULL;
    size_t size = 0;
    prnn_log_clear();
    CHECK_STATUS(prnn_nvrtc_compile(&req, &cubin, &size, NULL), PRNN_STATUS_SUCCESS);
    free(cubin);
    CHECK(jit_test_log_has("note: NVRTC warnings for kernel warns"));
    CHECK(jit_test_log_has("unused_variable"));
}

static void test_bad_requests(void)
{
    void *cubin = NULL;
    size_t size = 0;
    prnn_compile_request req = {"probe.cu", NULL, 0, 52, "prnn_probe", NULL};
    /* Older than this NVRTC supports. */
    CHECK_STATUS(prnn_nvrtc_compile(&req, &cubin, &size, NULL), PRNN_STATUS_ARCH_MISMATCH);
    CHECK(jit_test_log_has("sm_52"));
    /* Newer than this NVRTC knows: a newer NVRTC is the fix. */
    req.sm = 990;
    CHECK_STATUS(prnn_nvrtc_compile(&req, &cubin, &size, NULL),
                 PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING);
    CHECK(jit_test_log_has("sm_990"));
    CHECK(jit_test_log_has("PRNN_NVRTC_LIBRARY"));
    req.sm = 90;
    req.source_name = "no_such_kernel.cu";
    CHECK_STATUS(prnn_nvrtc_compile(&req, &cubin, &size, NULL), PRNN_STATUS_INTERNAL_ERROR);
    CHECK(jit_test_log_has("no_such_kernel.cu"));
    req.source_name = "probe.cu";
    const char *empty[] = {""};
    req.defines = empty;
    req.num_defines = 1;
    CHECK_STATUS(prnn_nvrtc_compile(&req, &cubin, &size, NULL), PRNN_STATUS_INTERNAL_ERROR);
}

int main(void)
{
    if (needs_nvrtc("jit-nvrtc-compile"))
        return 77;
    test_variants();
    test_broken_source();
    test_warning_is_a_note();
    test_bad_requests();
    return jit_test_finish("jit-nvrtc-compile: every kernel variant compiled to CUBIN for every "
                           "architecture, and the failure paths");
}
