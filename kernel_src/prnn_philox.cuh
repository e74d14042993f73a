// Philox-4x32-10 and the dropout mask defined on it: the device twin of
// src/ref/philox.c, bit for bit, so that the same seed gives the same mask
// on the GPU and on the CPU reference (src/ref/philox.h states the mask).
#pragma once

typedef unsigned int u32;

__device__ __forceinline__ void prnn_philox4x32_10(u32 c0, u32 c1, u32 c2, u32 c3, u32 k0,
                                                   u32 k1, u32 (&out)[4])
{
#pragma unroll
    for (int round = 0; round < 10; ++round) {
        const u32 lo0 = 0xD2511F53u * c0, hi0 = __umulhi(0xD2511F53u, c0);
        const u32 lo1 = 0xCD9E8D57u * c2, hi1 = __umulhi(0xCD9E8D57u, c2);
        const u32 n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
        c0 = n0;
        c1 = lo1;
        c2 = n2;
        c3 = lo0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

// The keep bits of elements 4*group .. 4*group+3 of layer `layer`'s output:
// bit i set when element 4*group + i is kept.
__device__ __forceinline__ unsigned prnn_dropout_keep4(unsigned long long seed, int layer,
                                                       unsigned long long group,
                                                       unsigned threshold)
{
    u32 r[4];
    prnn_philox4x32_10((u32)group, (u32)(group >> 32), (u32)layer, 0u, (u32)seed,
                       (u32)(seed >> 32), r);
    unsigned keep = 0;
#pragma unroll
    for (int i = 0; i < 4; ++i)
        keep |= ((r[i] >> 8) >= threshold ? 1u : 0u) << i;
    return keep;
}
