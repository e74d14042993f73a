/*
 * Fills a cache directory with one file of every kind the cache tools meet,
 * written by the library's own store (no NVRTC needed): valid entries, one
 * whose payload is damaged (verify says BAD, list does not look), one cut
 * inside its header (BAD in list too), an abandoned temporary file of the
 * cache and one of the user tuning DB, the tuning DB itself and a file that
 * is not prnn's (both must survive clear).
 *
 *   cache_fixture DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit/cubin_cache.h"
#include "jit/sha256.h"

static int store(const char *dir, const char *kernel, const char *source, int sm, char name[33])
{
    char text[512], why[256], payload[300];
    snprintf(text, sizeof(text),
             "prnn cubin cache format %u\nkernel %s\nsource %s 1000 0123abcd\narch sm_%d\n"
             "nvrtc 13.0 /usr/lib/libnvrtc.so.13 1 2\noption -DX=%d\n",
             PRNN_CUBIN_CACHE_FORMAT, kernel, source, sm, sm);
    /* An ELF file's magic, as a cubin starts, then anything. */
    memcpy(payload, "\177ELF", 4);
    for (size_t i = 4; i < sizeof(payload); i++)
        payload[i] = (char)(i * 7 + (size_t)sm);
    unsigned char d[32];
    prnn_sha256(text, strlen(text), d);
    prnn_cubin_key key = {text, strlen(text), ""};
    prnn_hex(d, 16, key.name);
    memcpy(name, key.name, 33);
    if (prnn_cubin_cache_store(dir, &key, payload, sizeof(payload), why, sizeof(why)) != 0) {
        fprintf(stderr, "cache_fixture: store %s: %s\n", kernel, why);
        return -1;
    }
    return 0;
}

static int write_file(const char *dir, const char *name, const char *text)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}

/* Rewrites byte at of DIR/NAME.cubin (at < 0: truncates the file to -at
 * bytes). */
static int damage(const char *dir, const char *name, long at)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s.cubin", dir, name);
    FILE *f = fopen(path, "r+b");
    if (!f) {
        perror(path);
        return -1;
    }
    int ok;
    if (at < 0) {
        ok = truncate(path, -at) == 0;
    } else {
        int c;
        ok = fseek(f, at, SEEK_SET) == 0 && (c = fgetc(f)) != EOF && fseek(f, at, SEEK_SET) == 0 &&
             fputc(c ^ 0x5a, f) != EOF;
    }
    return fclose(f) == 0 && ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: cache_fixture DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    char a[33], b[33], c[33], bad_payload[33], cut[33];
    if (store(dir, "prnn_lstm_forward", "persistent_rnn.cu", 90, a) ||
        store(dir, "prnn_gru_backward", "persistent_rnn_bwd.cu", 80, b) ||
        store(dir, "prnn_sru_scan", "sru_scan.cu", 75, c) ||
        store(dir, "prnn_damaged_payload", "persistent_rnn.cu", 86, bad_payload) ||
        store(dir, "prnn_cut_header", "persistent_rnn.cu", 89, cut))
        return 1;
    char temp[64];
    snprintf(temp, sizeof(temp), "%s.cubin.tmp.Ab12Cd", a);
    if (damage(dir, bad_payload, PRNN_CUBIN_HEADER_SIZE + 200) || damage(dir, cut, -20) ||
        write_file(dir, temp, "half a cubin") ||
        write_file(dir, "tuning.json.tmp-Zx98Yw", "{\"schema_") ||
        write_file(dir, "tuning.json", "{}\n") || write_file(dir, "notes.txt", "not prnn's\n"))
        return 1;
    printf("cache_fixture: %s: 5 entries (2 bad), 2 temporary files, tuning.json, notes.txt\n",
           dir);
    return 0;
}
