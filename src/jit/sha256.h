/*
 * SHA-256 (FIPS 180-4), for cubin cache file names and payload checksums.
 * Not for security: the cache compares the full key anyway; SHA-256 is used
 * because it is well specified and easy to test against published vectors.
 */
#ifndef PRNN_SHA256_H
#define PRNN_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t state[8];
    uint64_t bytes;
    unsigned char block[64];
    size_t used;
} prnn_sha256_ctx;

void prnn_sha256_init(prnn_sha256_ctx *h);
void prnn_sha256_update(prnn_sha256_ctx *h, const void *data, size_t size);
void prnn_sha256_final(prnn_sha256_ctx *h, unsigned char digest[32]);

/* One-shot digest. */
void prnn_sha256(const void *data, size_t size, unsigned char digest[32]);

/* Lowercase hex of the first n bytes of digest into out (2n + 1 bytes). */
void prnn_hex(const unsigned char *digest, size_t n, char *out);

/* The first 8 bytes of SHA-256(data), big-endian: the payload checksum. */
uint64_t prnn_sha256_u64(const void *data, size_t size);

#endif
