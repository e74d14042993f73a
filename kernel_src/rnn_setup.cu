// Per-call setup of every path that runs the recurrence from device-side
// step tables: per-step batch sizes and first rows from the batch runs (which
// travel in the kernel's parameters), and a clean hand-off area (step tags
// restart at every call); for a call run in place on an unpacked layout,
// its order of sequences and y's padding (prnn_setup_io_args). The module
// also holds the unpacked layouts' gather and scatter (rnn_seq_io.cuh),
// which a call with such a layout runs around an engine that cannot read
// the layout in place.

#include "prnn_kernel_abi.h"
#include "rnn_seq_io.cuh"

// y's padding: every (sequence, step) vector on a warp (grid-strided), the
// steps from the sequence's length on written unit by unit.
template <class U>
__device__ __forceinline__ void pad_fill(const prnn_setup_io_args &io)
{
    const U fill = fill_unit<U>(io.fill_bits, io.es);
    const int lane = threadIdx.x & 31, units = (int)(io.row_bytes / (long long)sizeof(U));
    const long long warps = (long long)gridDim.x * (blockDim.x / 32);
    const long long vectors = (long long)io.seqs * io.steps;
    for (long long v = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32; v < vectors;
         v += warps) {
        const int s = (int)(v / io.steps), t = (int)(v - (long long)s * io.steps);
        if (t < (io.lengths ? io.lengths[s] : io.lengths_v[s]))
            continue;
        U *row = (U *)((char *)io.pad +
                       ((long long)s * io.seq_stride + (long long)t * io.step_stride) * io.row_bytes);
        for (int c = lane; c < units; c += 32)
            row[c] = fill;
    }
}

extern "C" __global__ void prnn_rnn_setup(const prnn_setup_args a)
{
    const long tid = (long)blockIdx.x * blockDim.x + threadIdx.x;
    const long nthreads = (long)gridDim.x * blockDim.x;
    for (unsigned long long i = tid; i < a.zero_words; i += nthreads)
        a.zero[i] = 0u;
    if (a.io.order)
        for (long i = tid; i < a.io.order_count; i += nthreads)
            a.io.order[i] = a.io.order_v[i];
    if (a.io.pad) {
        switch (a.io.unit) {
        case 16: pad_fill<uint4>(a.io); break;
        case 8: pad_fill<unsigned long long>(a.io); break;
        case 4: pad_fill<unsigned>(a.io); break;
        default: pad_fill<unsigned short>(a.io); break;
        }
    }
    if (a.num_runs <= 0)
        return;
    const int t_last = a.t_end[a.num_runs - 1];
    for (long t = a.t_begin + tid; t < t_last; t += nthreads) {
        long row = a.row_base;
        int start = a.t_begin;
        for (int r = 0; r < a.num_runs; ++r) {
            int end = a.t_end[r];
            if (t < end) {
                a.batch[t] = a.run_batch[r];
                a.offset[t] = (int)(row + (t - start) * (long)a.run_batch[r]);
                break;
            }
            row += (long)(end - start) * a.run_batch[r];
            start = end;
        }
    }
}
