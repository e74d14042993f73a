/* SHA-256 against FIPS 180-4 / NIST vectors, and incremental == one-shot. */
#include <string.h>

#include "jit/sha256.h"
#include "jit_test.h"

static void check_vector(const void *data, size_t size, const char *expect)
{
    unsigned char d[32];
    char hex[65];
    prnn_sha256(data, size, d);
    prnn_hex(d, 32, hex);
    if (strcmp(hex, expect) != 0)
        fprintf(stderr, "sha256 of %zu bytes: got %s\n  expected %s\n", size, hex, expect);
    CHECK(strcmp(hex, expect) == 0);
}

int main(void)
{
    check_vector("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check_vector("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check_vector(m448, strlen(m448),
                 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjkl"
                       "mnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    check_vector(m896, strlen(m896),
                 "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");

    /* One million 'a', fed in uneven pieces: exercises the block buffer. */
    static char million[1000000];
    memset(million, 'a', sizeof(million));
    check_vector(million, sizeof(million),
                 "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    prnn_sha256_ctx h;
    prnn_sha256_init(&h);
    size_t off = 0, step = 1;
    while (off < sizeof(million)) {
        size_t n = step < sizeof(million) - off ? step : sizeof(million) - off;
        prnn_sha256_update(&h, million + off, n);
        off += n;
        step = step * 7 % 131 + 1;
    }
    unsigned char d1[32], d2[32];
    prnn_sha256_final(&h, d1);
    prnn_sha256(million, sizeof(million), d2);
    CHECK(memcmp(d1, d2, 32) == 0);

    /* Lengths around the padding boundary (55, 56, 63, 64, 65 bytes). */
    for (size_t n = 50; n < 130; n++) {
        prnn_sha256_init(&h);
        for (size_t i = 0; i < n; i++)
            prnn_sha256_update(&h, million + i, 1);
        prnn_sha256_final(&h, d1);
        prnn_sha256(million, n, d2);
        CHECK(memcmp(d1, d2, 32) == 0);
    }

    /* The checksum is the digest's first 8 bytes, big-endian. */
    CHECK(prnn_sha256_u64("abc", 3) == 0xba7816bf8f01cfeaull);
    return jit_test_finish(
        "jit-sha256: SHA-256 against the FIPS 180-4 / NIST vectors, incremental == one-shot");
}
