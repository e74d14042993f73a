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

// fill_bits' element (es bytes) repeated over a unit of type U (a whole
// number of elements).
template <class U>
__device__ __forceinline__ U fill_unit(unsigned long long bits, int es)
{
    unsigned long long pattern = bits;
    if (es == 2)
        pattern = (bits & 0xffffull) * 0x0001000100010001ull;
    else if (es == 4)
        pattern = (bits & 0xffffffffull) * 0x0000000100000001ull;
    union {
        U u;
        unsigned long long w[2];
    } f;
    f.w[0] = f.w[1] = pattern;
    return f.u;
}

// Every (vector, unit) of move m on its own thread: vectors narrower than a
// warp's worth of units (H 64 in fp16: 8 units of 16 bytes) keep every lane
// busy, and each moves 16 bytes where the layout allows.
template <class U>
__device__ __forceinline__ void seq_move_units(const prnn_seq_move_args &a, int m)
{
    const U *src = (const U *)a.src[m];
    U *dst = (U *)a.dst[m];
    const long long per_vector = (long long)a.cols[m] * a.es / (long long)sizeof(U);
    const int steps = a.steps[m];
    const bool states = a.states[m] != 0, has_fill = a.has_fill[m] != 0;
    const U fill = fill_unit<U>(a.fill_bits[m], a.es);
    const long long units = (long long)steps * a.seqs * per_vector;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < units; k += stride) {
        const long long v = k / per_vector, c = k - v * per_vector;
        const int t = (int)(v / a.seqs), i = (int)(v - (long long)t * a.seqs);
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
        if (packed < 0) {
            // padding: only a scatter writes it, and only with a fill
            if (a.to_caller && has_fill)
                dst[caller * per_vector + c] = fill;
            continue;
        }
        const long long from = a.to_caller ? packed : caller, to = a.to_caller ? caller : packed;
        dst[to * per_vector + c] = src[from * per_vector + c];
    }
}

extern "C" __global__ void prnn_seq_move(const prnn_seq_move_args a)
{
    const int m = blockIdx.y;
    if (m >= a.count)
        return;
    switch (a.unit[m]) {
    case 16: seq_move_units<uint4>(a, m); break;
    case 8: seq_move_units<unsigned long long>(a, m); break;
    case 4: seq_move_units<unsigned>(a, m); break;
    default: seq_move_units<unsigned short>(a, m); break;
    }
}
