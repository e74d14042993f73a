#include "cuda/warmup.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cublaslt_lib.h"
#include "cuda/nvrtc_lib.h"
#include "error.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;
static int started, running;

static void *warm_up(void *arg)
{
    int sm = (int)(long)arg;
    const prnn_nvrtc *nv;
    /* This thread's log is its own and goes with it. */
    if (prnn_nvrtc_get(&nv) == PRNN_STATUS_SUCCESS) {
        static const char source[] = "extern \"C\" __global__ void prnn_warm_up() {}\n";
        char arch[32];
        snprintf(arch, sizeof(arch), "--gpu-architecture=sm_%d", sm);
        const char *opts[] = {arch};
        nvrtcProgram prog = NULL;
        if (nv->nvrtcCreateProgram(&prog, source, "prnn_warm_up.cu", 0, NULL, NULL) ==
            NVRTC_SUCCESS) {
            nv->nvrtcCompileProgram(prog, 1, opts);
            nv->nvrtcDestroyProgram(&prog);
        }
    }
    /* After the compile: the first plan needs NVRTC first, its calls
     * cuBLASLt after it. */
    prnn_cublaslt_get(NULL);
    pthread_mutex_lock(&lock);
    running = 0;
    pthread_cond_broadcast(&finished);
    pthread_mutex_unlock(&lock);
    return NULL;
}

void prnn_cuda_warm_up_wait(void)
{
    pthread_mutex_lock(&lock);
    while (running)
        pthread_cond_wait(&finished, &lock);
    pthread_mutex_unlock(&lock);
}

void prnn_cuda_warm_up(int sm)
{
    const char *env = getenv("PRNN_WARMUP");
    if (env && strcmp(env, "0") == 0)
        return;
    pthread_mutex_lock(&lock);
    int first = !started;
    started = 1;
    pthread_mutex_unlock(&lock);
    if (!first)
        return;
    pthread_attr_t attr;
    pthread_t t;
    if (pthread_attr_init(&attr) != 0)
        return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* Created under the lock: the thread cannot say it finished before
     * running says it started. */
    pthread_mutex_lock(&lock);
    running = pthread_create(&t, &attr, warm_up, (void *)(long)sm) == 0;
    pthread_mutex_unlock(&lock);
    pthread_attr_destroy(&attr);
}

/* At exit and at dlclose: NVRTC must not be unloaded under a compile. */
__attribute__((destructor)) static void wait_at_unload(void)
{
    prnn_cuda_warm_up_wait();
}
