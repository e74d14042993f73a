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

// y's padding, a block per sequence (grid-strided): steps lengths[s] ..
// steps - 1 of sequence s, element by element (es bytes).
template <class U>
__device__ __forceinline__ void pad_fill(const prnn_setup_io_args &io)
{
    const U fill = (U)io.fill_bits;
    for (int s = blockIdx.x; s < io.seqs; s += gridDim.x) {
        const int len = io.lengths ? io.lengths[s] : io.lengths_v[s];
        const long long count = (long long)(io.steps - len) * io.cols;
        for (long long k = threadIdx.x; k < count; k += blockDim.x) {
            const int t = len + (int)(k / io.cols), c = (int)(k % io.cols);
            ((U *)io.pad)[((long long)s * io.seq_stride + (long long)t * io.step_stride) * io.cols +
                          c] = fill;
        }
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
        switch (a.io.es) {
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
