/*
 * The on-disk cubin cache.
 *
 * One file per compiled kernel, in the cache directory (store/cache_dir.h:
 * $PRNN_CACHE_DIR, else $XDG_CACHE_HOME/prnn, else ~/.cache/prnn), named
 * <32 hex digits>.cubin after a hash of the key. The key is a text listing
 * everything that can change the binary: the cache format version, the
 * kernel and source names, the SHA-256 of the source and of every embedded
 * header, the architecture, the NVRTC version (and its library's size and
 * time, since patch releases keep the version), and every option in order.
 *
 * File layout (integers little-endian):
 *   0  "PRNNCUBN"           magic, 8 bytes
 *   8  u32 format version   PRNN_CUBIN_CACHE_FORMAT
 *  12  u32 key length       bytes, no terminator
 *  16  u64 payload length   bytes of cubin
 *  24  u64 payload checksum first 8 bytes of SHA-256(payload), big-endian
 *  32  key, then payload; nothing after it.
 * A load reads the header first and checks every field and the file's size
 * against it (so a damaged or foreign file costs 32 bytes of reading, not
 * its size), then the stored key, compared with the expected key byte for
 * byte, and only then the payload, whose checksum it verifies: anything
 * else is a miss, and the entry is recompiled and replaced.
 * Trust (store/trusted_path.h): the directory must be the user's and
 * writable by nobody else (or PRNN_SHARED_CACHE_DIR), else it is neither
 * read nor written; an entry must be a regular file owned by the user or
 * root, writable by nobody else, and is opened without following links
 * (O_NOFOLLOW) relative to the directory's descriptor: anything else is a
 * miss, recompiled and replaced. The SHA-256 in the header detects damage,
 * not forgery: the key is deterministic, so only who may write the
 * directory decides what runs. Writers write a temporary file
 * (<name>.cubin.tmp.XXXXXX) in the same directory, fsync it and rename() it
 * over the final name, so a reader sees the old file, the new file or none,
 * never part of one, however many threads and processes share the directory.
 * The temporary file is flock'ed while it is written (store/temp_files.h):
 * a writer killed half-way leaves an unlocked one, which later stores
 * remove once it is PRNN_TEMP_STALE_SECONDS old, and prnn-cache clear at
 * once. An empty directory squatting on an entry's name is replaced; one
 * with files in it is reported, once per process.
 * A directory that cannot be created or written degrades to no disk caching
 * (the in-memory module cache still works) with a note in the log, once per
 * process.
 */
#ifndef PRNN_CUBIN_CACHE_H
#define PRNN_CUBIN_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "jit/nvrtc_compile.h"
#include "prnn.h"
#include "store/temp_files.h"

#define PRNN_CUBIN_CACHE_FORMAT 1u
#define PRNN_CUBIN_HEADER_SIZE 32
#define PRNN_CUBIN_MAGIC "PRNNCUBN"
#define PRNN_CUBIN_SUFFIX ".cubin"
#define PRNN_CUBIN_TEMP_INFIX ".cubin.tmp."

typedef struct {
    char *text;    /* the full key, NUL-terminated (malloc) */
    size_t len;    /* strlen(text) */
    char name[33]; /* hex of the first 128 bits of SHA-256(text) */
} prnn_cubin_key;

/* The key of req. Needs NVRTC (its version is part of the key): returns
 * RUNTIME_PREREQUISITE_MISSING without it. On failure *key is empty (text
 * NULL, name ""). */
prnnStatus_t prnn_cubin_key_build(const prnn_compile_request *req, prnn_cubin_key *key);
void prnn_cubin_key_free(prnn_cubin_key *key);

typedef enum {
    PRNN_CUBIN_ABSENT = 0, /* no entry (or no directory yet) */
    PRNN_CUBIN_HIT = 1,    /* valid entry for this key */
    PRNN_CUBIN_BAD = 2,    /* an entry that is truncated, corrupt, another
                            * user's, a link, or for another key (why says
                            * which) */
    PRNN_CUBIN_NO_DIR = 3  /* the directory is not trusted or cannot be
                            * opened (why says which): do not store there
                            * either */
} prnn_cubin_lookup;

/* Looks key up in dir. On HIT *payload (malloc, the caller frees) and *size
 * are set. Never fails otherwise: an unreadable entry is BAD. */
prnn_cubin_lookup prnn_cubin_cache_load(const char *dir, const prnn_cubin_key *key, void **payload,
                                        size_t *size, char *why, size_t why_size);

/* Writes the entry atomically (temp file, fsync, rename), creating dir if
 * needed (mode 0700). 0 on success; -1 with the reason in why, and no file
 * left behind, otherwise (an untrusted directory included). */
int prnn_cubin_cache_store(const char *dir, const prnn_cubin_key *key, const void *payload,
                           size_t size, char *why, size_t why_size);

/* The cubin for req with its key already built (it must be req's), without
 * the batches (prnn_cubin_get_keyed, jit/cubin_batch.h, has them): the disk
 * cache in dir (NULL: the default one), else NVRTC (what a batch's threads
 * run). */
prnnStatus_t prnn_cubin_fetch_keyed(const char *dir, const prnn_compile_request *req,
                                    const prnn_cubin_key *key, void **cubin, size_t *size,
                                    prnnCubinSource_t *source, double *compile_ms);

/* 1 when the default cache directory has an entry for req's key (a regular
 * file of that name, not checked further: a hint that a load will likely
 * read it rather than compile), else 0. Leaves the thread's log as it
 * was. */
int prnn_cubin_cached(const prnn_compile_request *req);

/* ---- Maintenance (tools/prnn-cache) ------------------------------------ */

typedef struct {
    char file[80];     /* base name in the directory */
    int is_temp;       /* a temporary file (a writer's, or left by a crash) */
    int vanished;      /* removed (by a concurrent clear or store) between
                        * the listing and the reading: not a problem */
    int has_stat;      /* file_size and mtime are known */
    int valid;         /* trusted, and header, sizes, name and checksum
                        * all check out */
    char problem[160]; /* why not valid ("" when valid) */
    /* From the stored key, when the header could be read ("" / 0 if not). */
    char kernel[128];
    char source[128];
    int sm;
    char nvrtc[32];
    unsigned long long payload_size;
    unsigned long long file_size;
    long long mtime; /* seconds since the epoch */
} prnn_cubin_entry;

/* Reads and checks one cache file: that prnn would trust it (owner, mode,
 * not a link), the header, the sizes, that its name is the hash of its
 * stored key, and (when check_payload) the checksum. Reads the payload only
 * when check_payload. */
void prnn_cubin_cache_inspect(const char *dir, const char *file, int check_payload,
                              prnn_cubin_entry *e);

/* 1 when a base name is one of ours (an entry or a temporary file); the
 * maintenance functions touch nothing else (the directory also holds the
 * user tuning database). */
int prnn_cubin_cache_is_ours(const char *file, int *is_temp);

/* Calls fn for each of our files in dir (sorted by name); fn returns
 * nonzero to stop. CACHE_ERROR when dir cannot be read (ENOENT included:
 * the caller decides whether a missing directory is empty). An untrusted
 * directory is scanned too (maintenance looks, it does not load): its
 * entries are checked against the rule for files all the same. */
typedef int (*prnn_cubin_entry_fn)(const prnn_cubin_entry *e, void *user);
prnnStatus_t prnn_cubin_cache_scan(const char *dir, int check_payload, prnn_cubin_entry_fn fn,
                                   void *user);

/* Removes the temporary files of dir at least min_age seconds old that no
 * live writer holds (store/temp_files.h); stores do it with
 * PRNN_TEMP_STALE_SECONDS. */
void prnn_cubin_cache_sweep(const char *dir, long long min_age, prnn_temp_sweep_result *r);

/* Removes our entries, and the temporary files no live writer holds, from
 * dir, going on past files it cannot remove: r counts what was removed,
 * kept (a live writer's) and not removed (with the first reason).
 * CACHE_ERROR when dir cannot be read or a file could not be removed. */
prnnStatus_t prnn_cubin_cache_clear(const char *dir, prnn_temp_sweep_result *r);

#endif
