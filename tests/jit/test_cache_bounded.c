/*
 * Bounded reads (issue #25): a cache entry's header is checked before
 * anything else of it is read, and the file's size is checked against the
 * header's lengths, so a junk or foreign file costs 32 bytes of reading
 * whatever its size. Before, a 1 GiB file at an entry's name was read whole
 * on every lookup (7.5 s and 1 GB of memory). Here 1 GiB sparse files (no
 * disk space): junk, a valid header whose key is another's, a valid header
 * claiming more than the file holds; the lookup and prnn-cache's listing
 * must each stay far below the file's size in memory (ru_maxrss) and time.
 * Without NVRTC: made-up keys.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "jit/cubin_cache.h"
#include "jit_test.h"

#define GIB (1ll << 30)

static long max_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void put_le(unsigned char *p, unsigned long long v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A sparse file of size bytes at path starting with head. */
static void sparse_file(const char *path, const void *head, size_t n, long long size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK(write(fd, head, n) == (ssize_t)n);
    CHECK(ftruncate(fd, (off_t)size) == 0);
    close(fd);
}

/* A header for a key of key_len bytes and a payload of payload_len. */
static void header(unsigned char *h, unsigned key_len, unsigned long long payload_len)
{
    memcpy(h, PRNN_CUBIN_MAGIC, 8);
    put_le(h + 8, PRNN_CUBIN_CACHE_FORMAT, 4);
    put_le(h + 12, key_len, 4);
    put_le(h + 16, payload_len, 8);
    memset(h + 24, 0, 8);
}

/* list_problem: what the listing says (it has no expected key: a foreign
 * key shows as a name that is not its hash). */
static void expect_cheap(const char *what, const char *dir, const char *name, const char *problem,
                         const char *list_problem)
{
    prnn_cubin_key k = jit_test_fake_key('b');
    void *p = NULL;
    size_t n = 0;
    char why[512] = "";
    long rss0 = max_rss_mib();
    double t0 = now_s();
    prnn_cubin_lookup r = prnn_cubin_cache_load(dir, &k, &p, &n, why, sizeof(why));
    double t_load = now_s() - t0;
    prnn_cubin_entry e;
    t0 = now_s();
    prnn_cubin_cache_inspect(dir, name, 0, &e);
    double t_inspect = now_s() - t0;
    long grown = max_rss_mib() - rss0;
    printf("%-40s load: %s (%.4f s); list: %s (%.4f s); peak memory grew %ld MiB\n", what, why,
           t_load, e.problem, t_inspect, grown);
    CHECK(r == PRNN_CUBIN_BAD);
    if (r == PRNN_CUBIN_HIT)
        free(p);
    CHECK(strstr(why, problem) != NULL);
    CHECK(!e.valid && strstr(e.problem, list_problem) != NULL);
    /* Reading the file would cost 1024 MiB and seconds. */
    CHECK(grown < 64);
    CHECK(t_load < 0.5 && t_inspect < 0.5);
}

int main(void)
{
    char *dir = jit_test_tmpdir("cache-bounded");
    char path[PATH_MAX + 64], name[64];
    prnn_cubin_key k = jit_test_fake_key('b');
    snprintf(name, sizeof(name), "%s%s", k.name, PRNN_CUBIN_SUFFIX);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    unsigned char h[32 + 64];

    sparse_file(path, "junk", 4, GIB);
    expect_cheap("1 GiB of junk", dir, name, "bad magic", "bad magic");

    /* A valid header, the right sizes, another key: the payload is never
     * read (the key is compared first). */
    const char other[] = "another key, the same length as the one looked up";
    unsigned klen = (unsigned)k.len;
    header(h, klen, (unsigned long long)(GIB - 32 - klen));
    memset(h + 32, 'x', klen);
    memcpy(h + 32, other, klen < sizeof(other) - 1 ? klen : sizeof(other) - 1);
    sparse_file(path, h, 32 + klen, GIB);
    expect_cheap("1 GiB, another key", dir, name, "stored key differs",
                 "not the hash of the stored key");

    /* A header that claims more than the file holds: truncated, unread. */
    header(h, klen, 512ull << 20);
    memcpy(h + 32, k.text, klen);
    sparse_file(path, h, 32 + klen, 256ll << 20);
    expect_cheap("256 MiB claiming 512 MiB", dir, name, "truncated", "truncated");

    /* Lengths beyond any real entry: rejected from the header alone. */
    header(h, klen, 4ull << 30);
    sparse_file(path, h, 32, GIB);
    expect_cheap("1 GiB claiming a 4 GiB payload", dir, name, "impossible lengths",
                 "impossible lengths");

    jit_test_rmtree(dir);
    free(dir);
    return jit_test_finish("jit-cache-bounded: junk, foreign and truncated 1 GiB entries rejected "
                           "from their header without reading them");
}
