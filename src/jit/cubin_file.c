/* Reading, checking and atomically writing one cubin cache file. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit/cubin_cache.h"
#include "jit/cubin_file.h"
#include "jit/sha256.h"
#include "tuning/cache_dir.h"
#include "tuning/temp_files.h"

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

static void set_why(char *why, size_t size, const char *fmt, const char *arg)
{
    if (why && size)
        snprintf(why, size, fmt, arg);
}

int prnn_cubin_path(char *buf, size_t size, const char *dir, const char *name,
                    const char *suffix)
{
    int n = snprintf(buf, size, "%s/%s%s", dir, name, suffix);
    return (n < 0 || (size_t)n >= size) ? -1 : 0;
}

/* Reads the whole file into a malloc'ed buffer. 0, or -1 with errno. A
 * file that grows while being read (impossible with rename-only writers)
 * reads as what fstat saw, which then fails the size check. */
static int read_file(const char *path, unsigned char **data, size_t *size,
                     long long *mtime)
{
    /* O_NONBLOCK: a FIFO planted under an entry's name must not hang us. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    int bad = S_ISDIR(st.st_mode)    ? EISDIR
              : !S_ISREG(st.st_mode) ? EINVAL
              : (unsigned long long)st.st_size >
                      PRNN_CUBIN_HEADER_SIZE + MAX_KEY_BYTES + MAX_PAYLOAD_BYTES
                  ? EFBIG
                  : 0;
    if (bad) {
        close(fd);
        errno = bad;
        return -1;
    }
    size_t n = (size_t)st.st_size;
    unsigned char *buf = malloc(n ? n : 1);
    if (!buf) {
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    *data = buf;
    *size = got;
    if (mtime)
        *mtime = (long long)st.st_mtime;
    return 0;
}

/* Checks the layout of a file's bytes. Returns NULL when the header and
 * sizes are consistent (and, with check_payload, the checksum matches),
 * otherwise the problem. */
static const char *check_layout(const unsigned char *data, size_t size,
                                int check_payload, uint32_t *key_len,
                                uint64_t *payload_len)
{
    if (size < PRNN_CUBIN_HEADER_SIZE)
        return "truncated (shorter than the header)";
    if (memcmp(data, PRNN_CUBIN_MAGIC, 8) != 0)
        return "not a prnn cubin cache file (bad magic)";
    if (get_u32(data + 8) != PRNN_CUBIN_CACHE_FORMAT)
        return "written by another cache format version";
    *key_len = get_u32(data + 12);
    *payload_len = get_u64(data + 16);
    if (*key_len == 0 || *key_len > MAX_KEY_BYTES ||
        *payload_len == 0 || *payload_len > MAX_PAYLOAD_BYTES)
        return "corrupt header (impossible lengths)";
    uint64_t expect = PRNN_CUBIN_HEADER_SIZE + (uint64_t)*key_len + *payload_len;
    if ((uint64_t)size < expect)
        return "truncated";
    if ((uint64_t)size > expect)
        return "trailing bytes after the payload";
    const unsigned char *payload = data + PRNN_CUBIN_HEADER_SIZE + *key_len;
    if (check_payload &&
        prnn_sha256_u64(payload, (size_t)*payload_len) != get_u64(data + 24))
        return "payload checksum mismatch (corrupt)";
    if (check_payload && memcmp(payload, "\177ELF", 4) != 0)
        return "payload is not an ELF cubin";
    return NULL;
}

prnn_cubin_lookup prnn_cubin_cache_load(const char *dir,
                                        const prnn_cubin_key *key,
                                        void **payload, size_t *size,
                                        char *why, size_t why_size)
{
    char path[PATH_MAX];
    if (why && why_size)
        why[0] = '\0';
    if (prnn_cubin_path(path, sizeof(path), dir, key->name, PRNN_CUBIN_SUFFIX)) {
        set_why(why, why_size, "%s", "path too long");
        return PRNN_CUBIN_ABSENT;
    }
    unsigned char *data;
    size_t n;
    if (read_file(path, &data, &n, NULL) != 0) {
        if (errno == ENOENT)
            return PRNN_CUBIN_ABSENT;
        set_why(why, why_size, "cannot read it: %s", strerror(errno));
        return PRNN_CUBIN_BAD;
    }
    uint32_t key_len = 0;
    uint64_t payload_len = 0;
    const char *problem = check_layout(data, n, 0, &key_len, &payload_len);
    /* The key before the checksum: a file for another key (a hash
     * collision, or a forged entry) is reported as such. */
    if (!problem && (key_len != key->len ||
                     memcmp(data + PRNN_CUBIN_HEADER_SIZE, key->text, key->len)))
        problem = "stored key differs from the expected key";
    if (!problem)
        problem = check_layout(data, n, 1, &key_len, &payload_len);
    if (problem) {
        set_why(why, why_size, "%s", problem);
        free(data);
        return PRNN_CUBIN_BAD;
    }
    /* Hand out the payload in place: move it to the front of the buffer. */
    memmove(data, data + PRNN_CUBIN_HEADER_SIZE + key_len, (size_t)payload_len);
    *payload = data;
    *size = (size_t)payload_len;
    return PRNN_CUBIN_HIT;
}

static int write_all(int fd, const void *data, size_t size)
{
    const unsigned char *p = data;
    while (size) {
        ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        size -= (size_t)w;
    }
    return 0;
}

static int is_cubin_temp(const char *name, void *user)
{
    int temp;
    (void)user;
    return prnn_cubin_cache_is_ours(name, &temp) && temp;
}

void prnn_cubin_cache_sweep(const char *dir, long long min_age,
                            prnn_temp_sweep_result *r)
{
    prnn_temp_sweep(dir, is_cubin_temp, NULL, min_age, r);
}

/* rename(), except that an empty directory squatting on the entry's name is
 * removed first (rename cannot replace it, so every plan would recompile); a
 * directory with files in it is reported, never emptied. */
static int rename_over(const char *tmp, const char *final_path, char *why,
                       size_t why_size)
{
    if (rename(tmp, final_path) == 0)
        return 0;
    int err = errno;
    struct stat st;
    if ((err == EISDIR || err == ENOTEMPTY || err == EEXIST) &&
        lstat(final_path, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (rmdir(final_path) == 0 && rename(tmp, final_path) == 0)
            return 0;
        if (errno == ENOTEMPTY || errno == EEXIST)
            set_why(why, why_size, "%s is a directory with files in it, not a "
                    "cache entry: remove it", final_path);
        else if (why && why_size)
            snprintf(why, why_size, "%s is a directory that cannot be replaced: "
                     "%s", final_path, strerror(errno));
        return -1;
    }
    if (why && why_size)
        snprintf(why, why_size, "rename failed: %s", strerror(err));
    return -1;
}

int prnn_cubin_cache_store(const char *dir, const prnn_cubin_key *key,
                           const void *payload, size_t size, char *why,
                           size_t why_size)
{
    char final_path[PATH_MAX], tmp[PATH_MAX];
    if (prnn_cubin_path(final_path, sizeof(final_path), dir, key->name,
                        PRNN_CUBIN_SUFFIX) ||
        prnn_cubin_path(tmp, sizeof(tmp), dir, key->name,
                        PRNN_CUBIN_TEMP_INFIX "XXXXXX")) {
        set_why(why, why_size, "%s", "path too long");
        return -1;
    }
    if (prnn_mkdir_p(dir) != 0) {
        set_why(why, why_size, "cannot create the directory: %s", strerror(errno));
        return -1;
    }
    /* Locked while we write: a sweep by another process leaves it alone. */
    int fd = prnn_temp_create(tmp);
    if (fd < 0) {
        set_why(why, why_size, "cannot create a file in it: %s", strerror(errno));
        return -1;
    }
    unsigned char header[PRNN_CUBIN_HEADER_SIZE];
    memcpy(header, PRNN_CUBIN_MAGIC, 8);
    put_u32(header + 8, PRNN_CUBIN_CACHE_FORMAT);
    put_u32(header + 12, (uint32_t)key->len);
    put_u64(header + 16, (uint64_t)size);
    put_u64(header + 24, prnn_sha256_u64(payload, size));

    const char *step = NULL;
    /* mkstemp makes the file 0600; cubins are not secret, and a cache
     * directory shared by a group should be readable by it. */
    if (fchmod(fd, 0644) != 0)
        step = "chmod";
    else if (write_all(fd, header, sizeof(header)) != 0 ||
             write_all(fd, key->text, key->len) != 0 ||
             write_all(fd, payload, size) != 0)
        step = "write";
    /* Data on disk before the rename makes it visible: after a crash the
     * name holds the old entry or the whole new one, never a torn one. */
    else if (fsync(fd) != 0)
        step = "fsync";
    int err = errno;
    if (step) {
        unlink(tmp);
        close(fd);
        if (why && why_size)
            snprintf(why, why_size, "%s failed: %s", step, strerror(err));
        return -1;
    }
    /* Renamed before the close that drops the lock: a sweeper never sees
     * the file unlocked under its temporary name. */
    int rc = rename_over(tmp, final_path, why, why_size);
    if (rc != 0)
        unlink(tmp);
    close(fd);
    /* Killed writers' files, once they are old enough that no writer can be
     * slow rather than dead (temp_files.h). Best effort. */
    prnn_temp_sweep_result swept = {0};
    prnn_cubin_cache_sweep(dir, PRNN_TEMP_STALE_SECONDS, &swept);
    return rc;
}

void prnn_cubin_cache_inspect(const char *dir, const char *file,
                              int check_payload, prnn_cubin_entry *e)
{
    memset(e, 0, sizeof(*e));
    snprintf(e->file, sizeof(e->file), "%s", file);
    prnn_cubin_cache_is_ours(file, &e->is_temp);
    char path[PATH_MAX];
    if (prnn_cubin_path(path, sizeof(path), dir, file, "")) {
        snprintf(e->problem, sizeof(e->problem), "path too long");
        return;
    }
    unsigned char *data;
    size_t n;
    if (read_file(path, &data, &n, &e->mtime) != 0) {
        snprintf(e->problem, sizeof(e->problem), "cannot read: %s",
                 strerror(errno));
        return;
    }
    e->file_size = n;
    uint32_t key_len = 0;
    uint64_t payload_len = 0;
    const char *problem = check_layout(data, n, 0, &key_len, &payload_len);
    if (!problem) {
        const char *k = (const char *)data + PRNN_CUBIN_HEADER_SIZE;
        prnn_cubin_key_summary(k, key_len, e);
        e->payload_size = payload_len;
        /* The name is the hash of the stored key: a damaged key shows up
         * here even though no expected key is at hand. */
        unsigned char d[32];
        char name[33];
        prnn_sha256(k, key_len, d);
        prnn_hex(d, 16, name);
        if (!e->is_temp && (strncmp(file, name, 32) != 0 ||
                            strcmp(file + 32, PRNN_CUBIN_SUFFIX) != 0))
            problem = "file name is not the hash of the stored key";
        else if (check_payload)
            problem = check_layout(data, n, 1, &key_len, &payload_len);
    }
    if (problem)
        snprintf(e->problem, sizeof(e->problem), "%s", problem);
    else
        e->valid = 1;
    free(data);
}

/* Copies (s, n), or only its first word, into dst, cut to fit. */
static void copy_part(char *dst, size_t size, const char *s, size_t n,
                      int first_word)
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
