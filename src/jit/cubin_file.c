/* Naming, reading, checking and atomically writing one cubin cache file
 * (store/safe_file.h does the reading and replacing). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit/cubin_cache.h"
#include "jit/cubin_file.h"
#include "jit/sha256.h"
#include "store/cache_dir.h"
#include "store/safe_file.h"
#include "store/temp_files.h"
#include "store/trusted_path.h"

/* Bounds that no real entry comes near; a header claiming more is corrupt,
 * and checking first means a corrupt length never drives an allocation. */
#define MAX_KEY_BYTES (1u << 20)
#define MAX_PAYLOAD_BYTES (1ull << 30)

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static int all_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

int prnn_cubin_cache_is_ours(const char *file, int *is_temp)
{
    size_t n = strlen(file);
    const size_t sfx = strlen(PRNN_CUBIN_SUFFIX);
    const size_t tmp = strlen(PRNN_CUBIN_TEMP_INFIX);
    if (is_temp)
        *is_temp = 0;
    if (n < 32 || !all_hex(file, 32))
        return 0;
    if (n == 32 + sfx && strcmp(file + 32, PRNN_CUBIN_SUFFIX) == 0)
        return 1;
    /* mkstemp's six characters are letters and digits. */
    if (n == 32 + tmp + 6 && strncmp(file + 32, PRNN_CUBIN_TEMP_INFIX, tmp) == 0) {
        for (size_t i = 32 + tmp; i < n; i++) {
            char c = file[i];
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
                return 0;
        }
        if (is_temp)
            *is_temp = 1;
        return 1;
    }
    return 0;
}

static void set_why(char *why, size_t size, const char *fmt, const char *arg)
{
    if (why && size)
        snprintf(why, size, fmt, arg);
}

typedef struct {
    unsigned char bytes[PRNN_CUBIN_HEADER_SIZE];
    uint32_t key_len;
    uint64_t payload_len;
} cubin_header;

/* Reads the header and checks it and the file's size against each other:
 * NULL, or the problem. Reads nothing past the header, so the cost of a
 * junk file is 32 bytes whatever its size. */
static const char *read_header(int fd, const struct stat *st, cubin_header *h)
{
    const char *problem = prnn_safe_read_header(fd, st, h->bytes, PRNN_CUBIN_HEADER_SIZE);
    if (problem)
        return problem;
    if (memcmp(h->bytes, PRNN_CUBIN_MAGIC, 8) != 0)
        return "not a prnn cubin cache file (bad magic)";
    if (get_u32(h->bytes + 8) != PRNN_CUBIN_CACHE_FORMAT)
        return "written by another cache format version";
    h->key_len = get_u32(h->bytes + 12);
    h->payload_len = get_u64(h->bytes + 16);
    if (h->key_len == 0 || h->key_len > MAX_KEY_BYTES || h->payload_len == 0 ||
        h->payload_len > MAX_PAYLOAD_BYTES)
        return "corrupt header (impossible lengths)";
    uint64_t expect = PRNN_CUBIN_HEADER_SIZE + (uint64_t)h->key_len + h->payload_len;
    if ((uint64_t)st->st_size < expect)
        return "truncated";
    if ((uint64_t)st->st_size > expect)
        return "trailing bytes after the payload";
    return NULL;
}

/* The stored key (malloc, NUL-terminated after its key_len bytes: the
 * summary reads numbers out of it), or NULL with the problem in *problem. */
static char *read_key(int fd, const cubin_header *h, const char **problem)
{
    char *k = malloc((size_t)h->key_len + 1);
    if (!k) {
        *problem = "out of memory reading the stored key";
    } else if (prnn_safe_read_at(fd, k, h->key_len, PRNN_CUBIN_HEADER_SIZE) != 0) {
        *problem = prnn_safe_read_problem();
        free(k);
        k = NULL;
    } else {
        k[h->key_len] = '\0';
    }
    return k;
}

/* The payload (malloc), checked against the header's checksum; NULL with
 * the problem otherwise. */
static unsigned char *read_payload(int fd, const cubin_header *h, const char **problem)
{
    unsigned char *p = malloc((size_t)h->payload_len);
    if (!p) {
        *problem = "out of memory reading the payload";
        return NULL;
    }
    if (prnn_safe_read_at(fd, p, (size_t)h->payload_len,
                          PRNN_CUBIN_HEADER_SIZE + (uint64_t)h->key_len) != 0)
        *problem = prnn_safe_read_problem();
    else if (prnn_sha256_u64(p, (size_t)h->payload_len) != get_u64(h->bytes + 24))
        *problem = "payload checksum mismatch (corrupt)";
    else if (h->payload_len < 4 || memcmp(p, "\177ELF", 4) != 0)
        *problem = "payload is not an ELF cubin";
    else
        return p;
    free(p);
    return NULL;
}

prnn_cubin_lookup prnn_cubin_cache_load(const char *dir, const prnn_cubin_key *key, void **payload,
                                        size_t *size, char *why, size_t why_size)
{
    char name[64], trust[PATH_MAX + 512];
    if (why && why_size)
        why[0] = '\0';
    prnn_trusted_dir d;
    switch (prnn_trusted_dir_open(dir, &d, trust, sizeof(trust))) {
    case PRNN_TRUST_OK: break;
    case PRNN_TRUST_ABSENT: return PRNN_CUBIN_ABSENT;
    case PRNN_TRUST_REFUSED:
    case PRNN_TRUST_ERROR: set_why(why, why_size, "%s", trust); return PRNN_CUBIN_NO_DIR;
    }
    snprintf(name, sizeof(name), "%s%s", key->name, PRNN_CUBIN_SUFFIX);
    struct stat st;
    int fd = prnn_safe_open_at(d.fd, name, 1, &st);
    if (fd < 0) {
        int err = errno;
        prnn_trusted_dir_close(&d);
        if (err == ENOENT)
            return PRNN_CUBIN_ABSENT;
        set_why(why, why_size, err == ELOOP ? "%s: not loaded" : "cannot read it: %s",
                prnn_safe_open_problem(err));
        return PRNN_CUBIN_BAD;
    }
    char untrusted[512];
    int refused = prnn_trusted_file_check(&d, &st, untrusted, sizeof(untrusted));
    prnn_trusted_dir_close(&d);
    if (refused) {
        if (why && why_size)
            snprintf(why, why_size, "%s: not loaded", untrusted);
        close(fd);
        return PRNN_CUBIN_BAD;
    }
    cubin_header h;
    const char *problem = read_header(fd, &st, &h);
    /* The key before the payload: a file for another key (a hash collision,
     * or a forged entry) is reported as such, and its payload never read. */
    if (!problem && h.key_len != key->len)
        problem = "stored key differs from the expected key";
    char *stored = problem ? NULL : read_key(fd, &h, &problem);
    if (stored && memcmp(stored, key->text, key->len) != 0)
        problem = "stored key differs from the expected key";
    free(stored);
    unsigned char *p = problem ? NULL : read_payload(fd, &h, &problem);
    close(fd);
    if (problem) {
        set_why(why, why_size, "%s", problem);
        return PRNN_CUBIN_BAD;
    }
    *payload = p;
    *size = (size_t)h.payload_len;
    return PRNN_CUBIN_HIT;
}

static int is_cubin_temp(const char *name, const void *user)
{
    int temp;
    (void)user;
    return prnn_cubin_cache_is_ours(name, &temp) && temp;
}

void prnn_cubin_cache_sweep(const char *dir, long long min_age, prnn_temp_sweep_result *r)
{
    prnn_temp_sweep(dir, is_cubin_temp, NULL, min_age, r);
}

/* Why a store failed at step (errno set), into why. */
static void store_problem(prnn_safe_step step, const char *dir, const char *final_name, char *why,
                          size_t why_size)
{
    int err = errno;
    const char *failed = "rename";
    switch (step) {
    case PRNN_SAFE_DONE: return;
    case PRNN_SAFE_CREATE:
        set_why(why, why_size, "cannot create a file in it: %s", strerror(err));
        return;
    case PRNN_SAFE_CHMOD: failed = "chmod"; break;
    case PRNN_SAFE_WRITE: failed = "write"; break;
    case PRNN_SAFE_FSYNC: failed = "fsync"; break;
    case PRNN_SAFE_RENAME: break;
    case PRNN_SAFE_DIR_IN_THE_WAY:
        if (why && why_size && (err == ENOTEMPTY || err == EEXIST))
            snprintf(why, why_size,
                     "%s/%s is a directory with files in it, not a cache entry: remove it", dir,
                     final_name);
        else if (why && why_size)
            snprintf(why, why_size, "%s/%s is a directory that cannot be replaced: %s", dir,
                     final_name, strerror(err));
        return;
    }
    if (why && why_size)
        snprintf(why, why_size, "%s failed: %s", failed, strerror(err));
}

int prnn_cubin_cache_store(const char *dir, const prnn_cubin_key *key, const void *payload,
                           size_t size, char *why, size_t why_size)
{
    char final_name[64], tmp[64];
    snprintf(final_name, sizeof(final_name), "%s%s", key->name, PRNN_CUBIN_SUFFIX);
    snprintf(tmp, sizeof(tmp), "%s%sXXXXXX", key->name, PRNN_CUBIN_TEMP_INFIX);
    if (strlen(dir) + 1 + sizeof(tmp) > PATH_MAX) {
        set_why(why, why_size, "%s", "path too long");
        return -1;
    }
    if (prnn_mkdir_p(dir) != 0) {
        set_why(why, why_size, "cannot create the directory: %s", strerror(errno));
        return -1;
    }
    prnn_trusted_dir d;
    char trust[PATH_MAX + 512];
    if (prnn_trusted_dir_open(dir, &d, trust, sizeof(trust)) != PRNN_TRUST_OK) {
        set_why(why, why_size, "%s", trust);
        return -1;
    }
    unsigned char header[PRNN_CUBIN_HEADER_SIZE];
    memcpy(header, PRNN_CUBIN_MAGIC, 8);
    put_u32(header + 8, PRNN_CUBIN_CACHE_FORMAT);
    put_u32(header + 12, (uint32_t)key->len);
    put_u64(header + 16, (uint64_t)size);
    put_u64(header + 24, prnn_sha256_u64(payload, size));
    const prnn_safe_chunk chunks[] = {
        {header, sizeof(header)}, {key->text, key->len}, {payload, size}};
    /* Mode 0644: cubins are not secret, and a cache directory shared by a
     * group should be readable by it. An empty directory squatting on the
     * entry's name is replaced, or every plan would recompile. */
    prnn_safe_step step =
        prnn_safe_replace_at(d.fd, tmp, final_name, 0644, chunks, 3, PRNN_SAFE_REPLACE_EMPTY_DIR);
    if (step)
        store_problem(step, dir, final_name, why, why_size);
    if (step == PRNN_SAFE_CREATE) {
        prnn_trusted_dir_close(&d);
        return -1;
    }
    /* Killed writers' files, once they are old enough that no writer can be
     * slow rather than dead (temp_files.h). Best effort. */
    prnn_temp_sweep_result swept = {0};
    prnn_temp_sweep_at(d.fd, dir, is_cubin_temp, NULL, PRNN_TEMP_STALE_SECONDS, &swept);
    prnn_trusted_dir_close(&d);
    return step ? -1 : 0;
}

void prnn_cubin_inspect_at(int dirfd, int shared, const char *file, int check_payload,
                           prnn_cubin_entry *e)
{
    memset(e, 0, sizeof(*e));
    snprintf(e->file, sizeof(e->file), "%s", file);
    prnn_cubin_cache_is_ours(file, &e->is_temp);
    struct stat st;
    int fd = prnn_safe_open_at(dirfd, file, 1, &st);
    if (fd < 0) {
        if (errno == ENOENT)
            e->vanished = 1;
        else
            snprintf(e->problem, sizeof(e->problem), "cannot read it: %s",
                     prnn_safe_open_problem(errno));
        return;
    }
    e->has_stat = 1;
    e->file_size = (unsigned long long)st.st_size;
    e->mtime = (long long)st.st_mtime;
    const prnn_trusted_dir d = {dirfd, shared};
    char untrusted[160];
    if (prnn_trusted_file_check(&d, &st, untrusted, sizeof(untrusted)) != 0) {
        snprintf(e->problem, sizeof(e->problem), "%.130s%s", untrusted,
                 e->is_temp ? "" : ": prnn does not load it");
        close(fd);
        return;
    }
    if (e->is_temp) { /* a writer's, or a killed writer's: nothing to check */
        close(fd);
        return;
    }
    cubin_header h;
    const char *problem = read_header(fd, &st, &h);
    char *k = problem ? NULL : read_key(fd, &h, &problem);
    if (k) {
        prnn_cubin_key_summary(k, h.key_len, e);
        e->payload_size = h.payload_len;
        /* The name is the hash of the stored key: a damaged key shows up
         * here even though no expected key is at hand. */
        unsigned char dg[32];
        char name[33];
        prnn_sha256(k, h.key_len, dg);
        prnn_hex(dg, 16, name);
        free(k);
        if (strncmp(file, name, 32) != 0 || strcmp(file + 32, PRNN_CUBIN_SUFFIX) != 0)
            problem = "file name is not the hash of the stored key";
        else if (check_payload)
            free(read_payload(fd, &h, &problem));
    }
    close(fd);
    if (problem)
        snprintf(e->problem, sizeof(e->problem), "%s", problem);
    else
        e->valid = 1;
}

void prnn_cubin_cache_inspect(const char *dir, const char *file, int check_payload,
                              prnn_cubin_entry *e)
{
    prnn_trusted_dir d;
    char why[PATH_MAX + 512];
    prnn_trust_result t = prnn_trusted_dir_inspect(dir, &d, why, sizeof(why));
    if (t == PRNN_TRUST_OK || t == PRNN_TRUST_REFUSED) {
        prnn_cubin_inspect_at(d.fd, d.shared, file, check_payload, e);
        prnn_trusted_dir_close(&d);
        return;
    }
    memset(e, 0, sizeof(*e));
    snprintf(e->file, sizeof(e->file), "%s", file);
    prnn_cubin_cache_is_ours(file, &e->is_temp);
    if (t == PRNN_TRUST_ABSENT)
        e->vanished = 1;
    else
        snprintf(e->problem, sizeof(e->problem), "%.159s", why);
}

/* Copies (s, n), or only its first word, into dst, cut to fit. */
static void copy_part(char *dst, size_t size, const char *s, size_t n, int first_word)
{
    size_t w = 0;
    while (w < n && !(first_word && s[w] == ' '))
        w++;
    if (w >= size)
        w = size - 1;
    memcpy(dst, s, w);
    dst[w] = '\0';
}

/* Fills kernel, source, sm and nvrtc from the lines of a stored key. */
void prnn_cubin_key_summary(const char *key, size_t len, prnn_cubin_entry *e)
{
    const char *end = key + len;
    for (const char *line = key; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t n = (size_t)((nl ? nl : end) - line);
        if (n > 7 && memcmp(line, "kernel ", 7) == 0)
            copy_part(e->kernel, sizeof(e->kernel), line + 7, n - 7, 0);
        else if (n > 7 && memcmp(line, "source ", 7) == 0)
            copy_part(e->source, sizeof(e->source), line + 7, n - 7, 1);
        else if (n > 6 && memcmp(line, "nvrtc ", 6) == 0)
            copy_part(e->nvrtc, sizeof(e->nvrtc), line + 6, n - 6, 1);
        else if (n > 8 && memcmp(line, "arch sm_", 8) == 0)
            e->sm = atoi(line + 8);
        line = nl ? nl + 1 : end;
    }
}
