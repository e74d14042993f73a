/*
 * Compiling ahead on several threads (jit/cubin_batch.h) and filling the
 * cache for an architecture (prnnWarmKernelCache), without a GPU:
 *  - a batch compiles each distinct request once (prnn_cubin_cached then
 *    sees them), and the loads that follow on its thread take the cubins (the same bytes as a
 * compile one at a time) without NVRTC or the disk, each once; another thread does not take them;
 *  - a request that does not compile is counted, leaves no file, and the
 *    load that asks for it fails as it always did, with NVRTC's log;
 *  - a warm of a one-shape tuning DB fills the cache; a second warm
 *    compiles nothing; bad arguments are BAD_PARAM;
 *  - the warm-up thread (NVRTC, cuBLASLt) runs beside a compile, and its
 *    empty kernel is not counted.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpu/run/seq_io_plan.h"
#include "jit/cubin_batch.h"
#include "jit/nvrtc_compile.h"
#include "cuda/warmup.h"
#include "jit_test.h"
#include "../needs_libs.h"

#define N_PROBES 4
static const char *const offsets[N_PROBES][1] = {{"PRNN_PROBE_OFFSET=11"},
                                                 {"PRNN_PROBE_OFFSET=12"},
                                                 {"PRNN_PROBE_OFFSET=13"},
                                                 {"PRNN_PROBE_OFFSET=14"}};

static prnn_compile_request probe(int i)
{
    prnn_compile_request r = {"probe.cu", offsets[i], 1, 90, "prnn_probe", NULL};
    return r;
}

typedef struct {
    const prnn_compile_request *req;
    prnnCubinSource_t source;
} other_thread;

static void *get_elsewhere(void *arg)
{
    other_thread *o = arg;
    void *cubin = NULL;
    size_t size;
    if (prnn_cubin_get(o->req, &cubin, &size, &o->source, NULL) != PRNN_STATUS_SUCCESS)
        o->source = PRNN_CUBIN_NONE;
    free(cubin);
    return NULL;
}

static void test_batch(void)
{
    char *dir = jit_test_tmpdir("batch");
    jit_test_use_cache_dir(dir);
    /* Serial references, compiled with no cache involved. */
    void *ref[N_PROBES];
    size_t ref_size[N_PROBES];
    for (int i = 0; i < N_PROBES; i++) {
        prnn_compile_request r = probe(i);
        CHECK_STATUS(prnn_nvrtc_compile(&r, &ref[i], &ref_size[i], NULL), PRNN_STATUS_SUCCESS);
    }
    /* Each request twice: fetched once. */
    prnn_compile_request reqs[2 * N_PROBES];
    for (int i = 0; i < 2 * N_PROBES; i++)
        reqs[i] = probe(i % N_PROBES);
    unsigned long before = prnn_nvrtc_compile_count();
    prnn_cubin_batch_counts c;
    prnn_cubin_batch *b = prnn_cubin_batch_get(NULL, reqs, 2 * N_PROBES, 1, &c);
    CHECK(b != NULL);
    CHECK(c.requests == N_PROBES && c.compiled == N_PROBES && c.cached == 0 && c.failed == 0);
    CHECK(c.threads >= 1 && c.threads <= prnn_compile_threads(N_PROBES));
    CHECK(prnn_nvrtc_compile_count() - before == N_PROBES);
    CHECK(jit_test_count_files(dir, ".cubin") == N_PROBES);
    CHECK(jit_test_count_files(dir, ".tmp.") == 0);
    /* What planning asks before compiling ahead: in the cache or not (the
     * caller's log untouched). */
    prnn_log_clear();
    prnn_log_append("the caller's note");
    static const char *const other[] = {"PRNN_PROBE_OFFSET=99"};
    prnn_compile_request absent = {"probe.cu", other, 1, 90, "prnn_probe", NULL};
    CHECK(prnn_cubin_cached(&reqs[0]) == 1 && prnn_cubin_cached(&absent) == 0);
    CHECK(jit_test_log_has("the caller's note"));

    /* Another thread finds them on disk, not in this thread's batch. */
    other_thread o = {&reqs[0], PRNN_CUBIN_NONE};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, get_elsewhere, &o) == 0);
    pthread_join(t, NULL);
    CHECK(o.source == PRNN_CUBIN_DISK_CACHE);

    before = prnn_nvrtc_compile_count();
    for (int i = 0; i < N_PROBES; i++) {
        prnn_compile_request r = probe(i);
        void *cubin = NULL;
        size_t size = 0;
        prnnCubinSource_t src = PRNN_CUBIN_NONE;
        double ms = -1;
        CHECK_STATUS(prnn_cubin_get(&r, &cubin, &size, &src, &ms), PRNN_STATUS_SUCCESS);
        CHECK(src == PRNN_CUBIN_COMPILED && ms > 0); /* what the batch did */
        CHECK(size == ref_size[i] && cubin && memcmp(cubin, ref[i], size) == 0);
        free(cubin);
        /* taken once: the second get reads the disk */
        CHECK_STATUS(prnn_cubin_get(&r, &cubin, &size, &src, &ms), PRNN_STATUS_SUCCESS);
        CHECK(src == PRNN_CUBIN_DISK_CACHE && ms == 0);
        free(cubin);
        free(ref[i]);
    }
    CHECK(prnn_nvrtc_compile_count() == before);
    prnn_cubin_batch_end(b);

    /* A warm disk: everything cached, nothing kept without keep. */
    CHECK(prnn_cubin_batch_get(NULL, reqs, N_PROBES, 0, &c) == NULL);
    CHECK(c.requests == N_PROBES && c.cached == N_PROBES && c.compiled == 0);
    prnn_cubin_batch_end(NULL);
    jit_test_rmtree(dir);
    free(dir);
}

static void test_failure(void)
{
    char *dir = jit_test_tmpdir("batch-fail");
    jit_test_use_cache_dir(dir);
    prnn_compile_request reqs[2] = {probe(0), {"broken.cu", NULL, 0, 90, "prnn_broken", NULL}};
    reqs[1].source_text = "extern \"C\" __global__ void prnn_broken() { undeclared_name(); }\n";
    prnn_log_clear();
    prnn_log_append("the caller's note");
    prnn_cubin_batch_counts c;
    prnn_cubin_batch *b = prnn_cubin_batch_get(NULL, reqs, 2, 1, &c);
    CHECK(c.compiled == 1 && c.failed == 1 && c.first_status == PRNN_STATUS_COMPILE_FAILED);
    CHECK(strstr(c.first_failure, "undeclared_name") != NULL);
    CHECK(jit_test_log_has("the caller's note")); /* the batch's threads log on their own */
    CHECK(jit_test_count_files(dir, ".cubin") == 1);
    CHECK(jit_test_count_files(dir, ".tmp.") == 0);
    /* The load meets the failure again, as it always did. */
    void *cubin = NULL;
    size_t size;
    CHECK_STATUS(prnn_cubin_get(&reqs[1], &cubin, &size, NULL, NULL), PRNN_STATUS_COMPILE_FAILED);
    CHECK(jit_test_log_has("undeclared_name") && jit_test_log_has("prnn_broken"));
    CHECK(cubin == NULL);
    prnn_cubin_batch_end(b);
    jit_test_rmtree(dir);
    free(dir);
}

/* One shape (tanh, H 64, batch 1, both passes) of an sm_90 GPU. */
static const char warm_db[] =
    "{\"schema_version\": 1, \"entries\": [\n"
    " {\"gpu\": {\"name\": \"NVIDIA H100 80GB HBM3\", \"cc\": \"9.0\", \"sm_count\": 132},\n"
    "  \"mode\": \"tanh\", \"dtype\": \"float\", \"hidden\": 64, \"directions\": 1, \"batch\": 1,\n"
    "  \"engine\": \"small-h\", \"us_per_step\": 0.5,\n"
    "  \"config\": {\"blocks\": 1, \"threads\": 256, \"ksplit\": 8, \"lanes_k\": 1,\n"
    "   \"batch_chunk\": 1, \"reg_slots\": 16, \"smem_slots\": 0, \"mma\": 0, \"handoff\": 2,\n"
    "   \"batch_groups\": 1}},\n"
    " {\"gpu\": {\"name\": \"NVIDIA H100 80GB HBM3\", \"cc\": \"9.0\", \"sm_count\": 132},\n"
    "  \"mode\": \"tanh\", \"dtype\": \"float\", \"hidden\": 64, \"directions\": 1, \"batch\": 1,\n"
    "  \"pass\": \"backward-data\", \"engine\": \"small-h\", \"us_per_step\": 0.5,\n"
    "  \"config\": {\"blocks\": 1, \"threads\": 256, \"ksplit\": 8, \"lanes_k\": 1,\n"
    "   \"batch_chunk\": 1, \"reg_slots\": 16, \"smem_slots\": 0, \"mma\": 0, \"handoff\": 2,\n"
    "   \"batch_groups\": 1}}]}\n";

static void test_warm(void)
{
    char *dir = jit_test_tmpdir("warm");
    char db[PATH_MAX], cache[PATH_MAX];
    snprintf(db, sizeof(db), "%s/small.json", dir);
    snprintf(cache, sizeof(cache), "%s/cache", dir);
    FILE *f = fopen(db, "w");
    CHECK(f && fputs(warm_db, f) >= 0);
    if (f)
        fclose(f);
    setenv("PRNN_TUNING_DB", db, 1);

    prnnCacheWarmResult_t r;
    memset(&r, 0, sizeof(r));
    r.structSize = sizeof(r);
    CHECK_STATUS(prnnWarmKernelCache(cache, 90, PRNN_WARM_USER_DB, &r), PRNN_STATUS_SUCCESS);
    /* the setup and training kernels, the forward kernel in both forms, the
     * backward one: at least those */
    CHECK(r.shapes == 1 && r.kernels >= 5 && r.compiled == r.kernels && r.failed == 0);
    CHECK(jit_test_count_files(cache, ".cubin") == r.kernels);
    CHECK(jit_test_count_files(cache, ".tmp.") == 0);

    int kernels = r.kernels;
    unsigned long before = prnn_nvrtc_compile_count();
    memset(&r, 0, sizeof(r));
    r.structSize = sizeof(r);
    CHECK_STATUS(prnnWarmKernelCache(cache, 90, PRNN_WARM_USER_DB, &r), PRNN_STATUS_SUCCESS);
    CHECK(r.kernels == kernels && r.cached == kernels && r.compiled == 0);
    CHECK(prnn_nvrtc_compile_count() == before);

    /* Unpacked data's plans: one each for one, two and three or more
     * layers, whose forward kernels differ; then both kinds, all cached. */
    memset(&r, 0, sizeof(r));
    r.structSize = sizeof(r);
    CHECK_STATUS(prnnWarmKernelCache(cache, 90, PRNN_WARM_USER_DB | PRNN_WARM_UNPACKED_DATA, &r),
                 PRNN_STATUS_SUCCESS);
    CHECK(r.shapes == PRNN_SEQ_IO_DISTINCT_LAYERS && r.compiled > 0 && r.failed == 0);
    /* the forward kernel in both forms for each layer count, the backward
     * one (y's rows read in place): at least those are new */
    CHECK(r.compiled >= 2 * PRNN_SEQ_IO_DISTINCT_LAYERS + 1);
    const int unpacked_new = r.compiled;
    memset(&r, 0, sizeof(r));
    r.structSize = sizeof(r);
    CHECK_STATUS(
        prnnWarmKernelCache(
            cache, 90, PRNN_WARM_USER_DB | PRNN_WARM_PACKED_DATA | PRNN_WARM_UNPACKED_DATA, &r),
        PRNN_STATUS_SUCCESS);
    CHECK(r.shapes == 1 + PRNN_SEQ_IO_DISTINCT_LAYERS && r.compiled == 0 && r.cached == r.kernels);
    CHECK(jit_test_count_files(cache, ".cubin") == kernels + unpacked_new);

    /* No entry of sm_80: nothing to do. */
    CHECK_STATUS(prnnWarmKernelCache(cache, 80, PRNN_WARM_USER_DB, &r), PRNN_STATUS_SUCCESS);
    CHECK(r.shapes == 0 && r.kernels == 0);

    CHECK_STATUS(prnnWarmKernelCache(cache, 91, PRNN_WARM_USER_DB, &r), PRNN_STATUS_BAD_PARAM);
    CHECK(jit_test_log_has("sm: 91"));
    CHECK_STATUS(prnnWarmKernelCache(cache, 90, 0, &r), PRNN_STATUS_BAD_PARAM);
    CHECK_STATUS(prnnWarmKernelCache(cache, 90, PRNN_WARM_UNPACKED_DATA, &r),
                 PRNN_STATUS_BAD_PARAM); /* no database */
    CHECK(jit_test_log_has("sources: 8"));
    CHECK_STATUS(prnnWarmKernelCache(cache, 90, PRNN_WARM_USER_DB | 16, &r),
                 PRNN_STATUS_BAD_PARAM); /* a bit without a name */
    CHECK_STATUS(prnnWarmKernelCache(cache, 90, PRNN_WARM_USER_DB, NULL), PRNN_STATUS_BAD_PARAM);
    r.structSize = 8;
    CHECK_STATUS(prnnWarmKernelCache(cache, 90, PRNN_WARM_USER_DB, &r), PRNN_STATUS_BAD_PARAM);
    CHECK(jit_test_log_has("structSize"));
    unsetenv("PRNN_TUNING_DB");
    jit_test_rmtree(dir);
    free(dir);
}

/* The CUDA libraries' warm-up (what a GPU handle's creation starts): once per
 * process, beside other compiles, not counted as a compile. */
static void test_warm_up(void)
{
    unsigned long before = prnn_nvrtc_compile_count();
    prnn_cuda_warm_up(90);
    prnn_cuda_warm_up(90); /* a second call starts nothing */
    prnn_compile_request r = probe(0);
    void *cubin = NULL;
    size_t size;
    CHECK_STATUS(prnn_nvrtc_compile(&r, &cubin, &size, NULL), PRNN_STATUS_SUCCESS);
    free(cubin);
    prnn_cuda_warm_up_wait();
    CHECK(prnn_nvrtc_compile_count() - before == 1);
}

int main(void)
{
    if (needs_nvrtc("jit-cubin-batch"))
        return 77;
    test_warm_up();
    test_batch();
    test_failure();
    test_warm();
    return jit_test_finish("jit-cubin-batch: a batch compiles each request once on several "
                           "threads, its thread's loads take the same bytes; a failure is met "
                           "again by the load; warm fills the cache, a second warm compiles "
                           "nothing");
}
