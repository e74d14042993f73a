// Per-call setup of every path that runs the recurrence from device-side
// step tables: per-step batch sizes and first rows from the batch runs (which
// travel in the kernel's parameters), and a clean hand-off area (step tags
// restart at every call). The module also holds the unpacked layouts'
// gather and scatter (rnn_seq_io.cuh), which every call with such a layout
// runs around its engine.

#include "prnn_kernel_abi.h"
#include "rnn_seq_io.cuh"

extern "C" __global__ void prnn_rnn_setup(const prnn_setup_args a)
{
    const long tid = (long)blockIdx.x * blockDim.x + threadIdx.x;
    const long nthreads = (long)gridDim.x * blockDim.x;
    for (unsigned long long i = tid; i < a.zero_words; i += nthreads)
        a.zero[i] = 0u;
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
