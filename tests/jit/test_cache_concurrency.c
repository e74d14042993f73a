/*
 * 8 processes x 4 threads plan the same kernel on a cold cache directory
 * while 2 more processes keep loading the entry: every planner succeeds,
 * no reader ever sees a partial or corrupt file, and the directory ends with
 * one valid entry and no temporary files.
 */
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "jit/cubin_cache.h"
#include "jit/nvrtc_compile.h"
#include "jit_test.h"
#include "../needs_libs.h"

#define WRITERS 8
#define THREADS 4
#define READERS 2
/* After its own plan, each thread rewrites the entry this many times, so
 * renames keep replacing the file while the readers read it. */
#define REWRITES 25

static const char *const defines[] = {"PRNN_PROBE_OFFSET=7"};
static const prnn_compile_request req = {"probe.cu", defines, 1, 90, "prnn_probe", NULL};

static void wait_for_start(int fd)
{
    char c;
    /* Returns at EOF, when the parent closes its end: everyone starts at
     * once. */
    while (read(fd, &c, 1) > 0)
        ;
    close(fd);
}

static void *planner(void *arg)
{
    int *ok = arg;
    void *cubin = NULL;
    size_t size = 0;
    prnnCubinSource_t src = PRNN_CUBIN_NONE;
    prnnStatus_t s = prnn_cubin_get(&req, &cubin, &size, &src, NULL);
    *ok = s == PRNN_STATUS_SUCCESS && cubin && size > 64 && memcmp(cubin, "\177ELF", 4) == 0 &&
          (src == PRNN_CUBIN_COMPILED || src == PRNN_CUBIN_DISK_CACHE);
    if (!*ok)
        fprintf(stderr, "planner: %s\n%s\n", prnnGetErrorString(s), prnnGetLastErrorLog());
    prnn_cubin_key key;
    if (*ok && prnn_cubin_key_build(&req, &key) == PRNN_STATUS_SUCCESS) {
        char dir[PATH_MAX], why[256];
        snprintf(dir, sizeof(dir), "%s", getenv("PRNN_CACHE_DIR"));
        for (int i = 0; i < REWRITES; i++) {
            if (prnn_cubin_cache_store(dir, &key, cubin, size, why, sizeof(why))) {
                fprintf(stderr, "store: %s\n", why);
                *ok = 0;
            }
        }
        prnn_cubin_key_free(&key);
    }
    free(cubin);
    return NULL;
}

static int writer(int start_fd)
{
    wait_for_start(start_fd);
    pthread_t t[THREADS];
    int ok[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, planner, &ok[i]);
    int all = 1;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        all &= ok[i];
    }
    return all ? 0 : 1;
}

static int reader(int start_fd, const char *done_path)
{
    prnn_cubin_key key;
    /* Built before the start, so the loop below does nothing but load. */
    if (prnn_cubin_key_build(&req, &key) != PRNN_STATUS_SUCCESS) {
        fprintf(stderr, "reader: %s\n", prnnGetLastErrorLog());
        return 1;
    }
    const char *dir = getenv("PRNN_CACHE_DIR");
    wait_for_start(start_fd);
    long hits = 0, absent = 0, bad = 0;
    struct stat st;
    for (;;) {
        /* Checked before the load, so the last pass sees the final file. */
        int done = stat(done_path, &st) == 0;
        void *p = NULL;
        size_t n = 0;
        char why[256];
        switch (prnn_cubin_cache_load(dir, &key, &p, &n, why, sizeof(why))) {
        case PRNN_CUBIN_HIT:
            hits++;
            free(p);
            break;
        case PRNN_CUBIN_ABSENT: absent++; break;
        case PRNN_CUBIN_BAD:
        case PRNN_CUBIN_NO_DIR:
            if (bad++ < 5)
                fprintf(stderr, "reader saw a bad entry: %s\n", why);
            break;
        }
        if (done)
            break;
    }
    printf("reader %d: %ld loads saw the entry, %ld saw none, %ld saw a bad one\n", (int)getpid(),
           hits, absent, bad);
    prnn_cubin_key_free(&key);
    return bad == 0 && hits > 0 ? 0 : 1;
}

int main(void)
{
    if (needs_nvrtc("jit-cache-concurrency"))
        return 77;
    char *dir = jit_test_tmpdir("cache-race");
    /* The directory does not exist yet: the writers race to create it. */
    char cache[PATH_MAX], done[PATH_MAX];
    snprintf(cache, sizeof(cache), "%s/a/b/prnn", dir);
    snprintf(done, sizeof(done), "%s/done", dir);
    jit_test_use_cache_dir(cache);

    int start[2];
    if (pipe(start) != 0) {
        perror("pipe");
        return 1;
    }
    pid_t writers[WRITERS], readers[READERS];
    for (int i = 0; i < WRITERS + READERS; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) {
            close(start[1]);
            int rc = i < WRITERS ? writer(start[0]) : reader(start[0], done);
            fflush(stdout);
            _exit(rc);
        }
        if (i < WRITERS)
            writers[i] = pid;
        else
            readers[i - WRITERS] = pid;
    }
    close(start[0]);
    double t0 = prnn_now_ms();
    close(start[1]); /* go */

    for (int i = 0; i < WRITERS; i++) {
        int status;
        CHECK(waitpid(writers[i], &status, 0) == writers[i]);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    FILE *f = fopen(done, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    for (int i = 0; i < READERS; i++) {
        int status;
        CHECK(waitpid(readers[i], &status, 0) == readers[i]);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    printf("%d processes x %d threads planned one kernel in %.0f ms\n", WRITERS, THREADS,
           prnn_now_ms() - t0);

    /* One valid entry, no temporary file, and a warm hit from here. */
    char path[PATH_MAX];
    CHECK(jit_test_entries(cache, path, sizeof(path)) == 1);
    CHECK(jit_test_count_files(cache, "") == 1);
    CHECK(jit_test_count_files(cache, ".tmp.") == 0);
    if (path[0]) { /* "" when the directory has no entry */
        prnn_cubin_entry e;
        prnn_cubin_cache_inspect(cache, strrchr(path, '/') + 1, 1, &e);
        CHECK(e.valid);
    }
    unsigned long before = prnn_nvrtc_compile_count();
    void *cubin = NULL;
    size_t size;
    prnnCubinSource_t src;
    CHECK_STATUS(prnn_cubin_get(&req, &cubin, &size, &src, NULL), PRNN_STATUS_SUCCESS);
    CHECK(src == PRNN_CUBIN_DISK_CACHE);
    CHECK(prnn_nvrtc_compile_count() == before);
    free(cubin);

    jit_test_rmtree(dir);
    free(dir);
    return jit_test_finish(
        "jit-cache-concurrency: concurrent planners and readers on one cold cache directory");
}
