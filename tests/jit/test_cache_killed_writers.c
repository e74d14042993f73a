/*
 * Many processes on one cache, writers killed mid-write (issue #15's
 * audit: 8 processes x 4 threads, SIGKILL at random). No NVRTC: entries are
 * quarter-megabyte payloads under made-up keys, so that a kill often lands inside
 * a write. Checks:
 *  - no reader ever sees a damaged entry (rename makes writes atomic);
 *  - afterwards every entry is whole, or absent;
 *  - the temporary files the killed writers left, once old enough, are all
 *    removed by the next store (nobody holds their locks any more).
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include "jit/cubin_cache.h"
#include "jit_test.h"

enum { PROCS = 8, THREADS = 4, KEYS = 16, PAYLOAD = 256 << 10, KILLS = 80 };

static const char *dir;
static char key_text[KEYS][32];

static prnn_cubin_key key_of(int k)
{
    prnn_cubin_key key;
    snprintf(key_text[k], sizeof(key_text[k]), "stress key %d", k);
    key.text = key_text[k];
    key.len = strlen(key_text[k]);
    memset(key.name, "0123456789abcdef"[k], 32);
    key.name[32] = '\0';
    return key;
}

/* Entry k's payload: its bytes say which key they belong to. */
static unsigned char *payload_of(int k)
{
    unsigned char *p = malloc(PAYLOAD);
    memset(p, 'A' + k, PAYLOAD);
    memcpy(p, "\177ELF", 4);
    return p;
}

/* A damaged or foreign entry seen by a reader: a file the parent finds. */
static void report_bad(int k, const char *why)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/BAD-%d-%d", dir, (int)getpid(), k);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%s\n", why);
        fclose(f);
    }
}

static void *hammer(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg ^ (unsigned)getpid();
    for (;;) {
        int k = (int)(rand_r(&seed) % KEYS);
        prnn_cubin_key key = key_of(k);
        char why[512];
        if (rand_r(&seed) % 2) {
            unsigned char *p = payload_of(k);
            prnn_cubin_cache_store(dir, &key, p, PAYLOAD, why, sizeof(why));
            free(p);
        } else {
            void *got = NULL;
            size_t n = 0;
            prnn_cubin_lookup r = prnn_cubin_cache_load(dir, &key, &got, &n, why, sizeof(why));
            unsigned char *want = payload_of(k);
            if (r == PRNN_CUBIN_BAD)
                report_bad(k, why);
            else if (r == PRNN_CUBIN_HIT && (n != PAYLOAD || memcmp(got, want, n)))
                report_bad(k, "wrong payload");
            free(want);
            free(got);
        }
    }
    return NULL;
}

static pid_t spawn(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        pthread_t t[THREADS];
        for (int i = 1; i < THREADS; i++)
            pthread_create(&t[i], NULL, hammer, (void *)(uintptr_t)i);
        hammer(NULL);
        _exit(0);
    }
    return pid;
}

/* Ages every temporary file of the directory past the sweep's limit;
 * returns how many there are. */
static int age_temps(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        int temp;
        if (!prnn_cubin_cache_is_ours(e->d_name, &temp) || !temp)
            continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        struct timespec t[2];
        clock_gettime(CLOCK_REALTIME, &t[0]);
        t[0].tv_sec -= PRNN_TEMP_STALE_SECONDS + 60;
        t[1] = t[0];
        CHECK(utimensat(AT_FDCWD, path, t, 0) == 0);
        n++;
    }
    if (d)
        closedir(d);
    return n;
}

int main(void)
{
    char *tmp = jit_test_tmpdir("cache-killed");
    dir = tmp;
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++)
        pids[p] = spawn();
    unsigned seed = 12345;
    int kills = 0;
    struct timespec nap = {0, 20 * 1000 * 1000};
    for (int i = 0; i < KILLS; i++) {
        nanosleep(&nap, NULL);
        int p = (int)(rand_r(&seed) % PROCS);
        kill(pids[p], SIGKILL);
        waitpid(pids[p], NULL, 0);
        kills++;
        pids[p] = spawn();
    }
    for (int p = 0; p < PROCS; p++) {
        kill(pids[p], SIGKILL);
        waitpid(pids[p], NULL, 0);
    }
    CHECK(jit_test_count_files(dir, "BAD-") == 0);

    /* Every entry whole, or absent. */
    int whole = 0;
    for (int k = 0; k < KEYS; k++) {
        prnn_cubin_key key = key_of(k);
        void *got = NULL;
        size_t n = 0;
        char why[512];
        prnn_cubin_lookup r = prnn_cubin_cache_load(dir, &key, &got, &n, why, sizeof(why));
        if (r == PRNN_CUBIN_BAD)
            fprintf(stderr, "entry %d: %s\n", k, why);
        CHECK(r != PRNN_CUBIN_BAD);
        whole += r == PRNN_CUBIN_HIT;
        free(got);
    }
    /* The killed writers' files: swept by the next store once old. */
    int left = age_temps();
    prnn_cubin_key key = key_of(0);
    unsigned char *p = payload_of(0);
    char why[512];
    CHECK(prnn_cubin_cache_store(dir, &key, p, PAYLOAD, why, sizeof(why)) == 0);
    free(p);
    int after = jit_test_count_files(dir, PRNN_CUBIN_TEMP_INFIX);
    printf("%d processes x %d threads, %d killed: %d of %d entries whole, the rest absent; %d "
           "temporary files left by killed writers, %d after the next store\n",
           PROCS, THREADS, kills, whole, KEYS, left, after);
    CHECK(after == 0);
    jit_test_rmtree(tmp);
    free(tmp);
    return jit_test_finish("jit-cache-killed-writers: readers never see a damaged entry, killed "
                           "writers' files reclaimed");
}
