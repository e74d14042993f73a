/*
 * Philox-4x32-10 known answers (the Random123 test vectors), the dropout
 * mask's definition in src/ref/philox.h, and its statistics: the GPU kernels
 * must reproduce this mask bit for bit, so it is pinned here.
 */
#include "ref_test_util.h"

static int fails;

static void kat(const uint32_t ctr[4], const uint32_t key[2], const uint32_t want[4])
{
    uint32_t out[4];
    prnn_philox4x32_10(ctr, key, out);
    int ok = memcmp(out, want, sizeof out) == 0;
    printf("philox(%08x %08x %08x %08x; %08x %08x) = %08x %08x %08x %08x %s\n", ctr[0], ctr[1],
           ctr[2], ctr[3], key[0], key[1], out[0], out[1], out[2], out[3], ok ? "ok" : "WRONG");
    if (!ok) {
        printf("  expected %08x %08x %08x %08x\n", want[0], want[1], want[2], want[3]);
        fails++;
    }
}

/* prnn_dropout_keep(seed, layer, e) is word e % 4 of the block at counter
 * {e / 4 (64 bits), layer, 0}, key = seed, compared in its top 24 bits. */
static void mask_definition(void)
{
    const unsigned long long seed = 0x0123456789abcdefull;
    const uint64_t es[6] = {0, 1, 2, 3, 4 * 1000003ull + 2, (5ull << 34) + 1};
    int bad = 0;
    for (int layer = 0; layer < 3; layer++)
        for (int k = 0; k < 6; k++) {
            uint64_t e = es[k];
            uint32_t ctr[4] = {(uint32_t)(e / 4), (uint32_t)((e / 4) >> 32), (uint32_t)layer, 0};
            uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
            uint32_t out[4];
            prnn_philox4x32_10(ctr, key, out);
            uint32_t u = out[e % 4] >> 8;
            /* a threshold just above and at u decides the outcome */
            if (prnn_dropout_keep(seed, layer, e, u) != 1 ||
                (u < 16777215u && prnn_dropout_keep(seed, layer, e, u + 1) != 0))
                bad++;
        }
    printf("dropout mask definition: %s\n", bad ? "WRONG" : "ok");
    fails += bad != 0;
}

static void threshold(void)
{
    int bad = prnn_dropout_threshold(0.0) != 0 || prnn_dropout_threshold(0.5) != 8388608u ||
              prnn_dropout_threshold(0.25) != 4194304u ||
              prnn_dropout_threshold(0.3) != (uint32_t)(0.3 * 16777216.0);
    printf("dropout thresholds: %s\n", bad ? "WRONG" : "ok");
    fails += bad;
}

static void rates(void)
{
    const double ps[5] = {0.0, 0.1, 0.3, 0.5, 0.9};
    const uint64_t n = 1 << 20;
    for (int k = 0; k < 5; k++) {
        uint32_t th = prnn_dropout_threshold(ps[k]);
        uint64_t kept = 0, same_as_layer1 = 0;
        for (uint64_t e = 0; e < n; e++) {
            int a = prnn_dropout_keep(2024, 0, e, th);
            kept += (uint64_t)a;
            same_as_layer1 += a == prnn_dropout_keep(2024, 1, e, th);
        }
        double frac = (double)kept / (double)n, want = 1.0 - ps[k];
        /* 6 standard deviations of a binomial proportion */
        double sd = sqrt(ps[k] * (1 - ps[k]) / (double)n);
        int ok = fabs(frac - want) <= 6 * sd + 1e-12;
        /* layers must get independent masks: agreement p^2 + (1-p)^2 */
        double agree = (double)same_as_layer1 / (double)n;
        double want_agree = ps[k] * ps[k] + (1 - ps[k]) * (1 - ps[k]);
        ok = ok && fabs(agree - want_agree) <=
                       6 * sqrt(want_agree * (1 - want_agree) / (double)n) + 1e-12;
        printf("p = %.1f: kept %.5f (expected %.5f), layers 0/1 agree %.5f (expected %.5f) %s\n",
               ps[k], frac, want, agree, want_agree, ok ? "ok" : "WRONG");
        fails += !ok;
    }
}

int main(void)
{
    static const uint32_t c0[4] = {0, 0, 0, 0}, k0[2] = {0, 0};
    static const uint32_t r0[4] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};
    static const uint32_t c1[4] = {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff};
    static const uint32_t k1[2] = {0xffffffff, 0xffffffff};
    static const uint32_t r1[4] = {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd};
    static const uint32_t c2[4] = {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344};
    static const uint32_t k2[2] = {0xa4093822, 0x299f31d0};
    static const uint32_t r2[4] = {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1};
    kat(c0, k0, r0);
    kat(c1, k1, r1);
    kat(c2, k2, r2);
    mask_definition();
    threshold();
    rates();
    printf(fails ? "FAILED\n" : "philox ok\n");
    return fails ? 1 : 0;
}
