// The v8 calls' unpacked layouts (SEQ_MAJOR_UNPACKED, BATCH_MAJOR_UNPACKED)
// on the GPU: the engines run on packed rows (prnn_kernel_abi.h,
// prnn_seq_move_args), so a call's x, dy and states are gathered into
// packed order in the workspace before the engine runs and its y, dx and
// states scattered back after, y's and dx's padding written with the
// descriptor's fill. Element-type agnostic (2, 4 or 8 bytes): it lives in
// the setup kernel's module, compiled once per architecture.

#pragma once

#include "prnn_kernel_abi.h"

extern "C" __global__ void prnn_seq_order(const prnn_seq_order_args a)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < a.count; i += gridDim.x * blockDim.x)
        a.order[a.base + i] = a.v[i];
}

template <class W>
__device__ __forceinline__ void seq_move_vectors(const prnn_seq_move_args &a, int m)
{
    const W *src = (const W *)a.src[m];
    W *dst = (W *)a.dst[m];
    const W fill = (W)a.fill_bits[m];
    const int steps = a.steps[m];
    const bool states = a.states[m] != 0, has_fill = a.has_fill[m] != 0;
    // one warp per (step, rank) vector, its lanes over the columns
    const long long warps = (long long)gridDim.x * blockDim.x / 32;
    const int lane = threadIdx.x & 31;
    const long long vectors = (long long)steps * a.seqs;
    for (long long v = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32; v < vectors;
         v += warps) {
        const int t = (int)(v / a.seqs), i = (int)(v % a.seqs);
        const int s = a.inline_order ? a.order_v[i] : a.order[i];
        long long caller, packed = -1;
        if (states) {
            caller = (long long)t * a.seqs + s;
            packed = (long long)t * a.seqs + i;
        } else {
            caller = a.batch_major ? (long long)s * steps + t : (long long)t * a.seqs + s;
            if (t < a.packed_steps && i < a.batch[t])
                packed = (long long)a.offset[t] + i;
        }
        const long long cols = a.cols[m];
        if (packed < 0) {
            // padding: only a scatter writes it, and only with a fill
            if (a.to_caller && has_fill)
                for (long long c = lane; c < cols; c += 32)
                    dst[caller * cols + c] = fill;
            continue;
        }
        const long long from = a.to_caller ? packed : caller, to = a.to_caller ? caller : packed;
        for (long long c = lane; c < cols; c += 32)
            dst[to * cols + c] = src[from * cols + c];
    }
}

extern "C" __global__ void prnn_seq_move(const prnn_seq_move_args a)
{
    const int m = blockIdx.y;
    if (m >= a.count)
        return;
    if (a.es == 2)
        seq_move_vectors<unsigned short>(a, m);
    else if (a.es == 8)
        seq_move_vectors<unsigned long long>(a, m);
    else
        seq_move_vectors<unsigned>(a, m);
}
