// A trivial kernel that exercises the whole JIT pipeline (compile, cache,
// load, launch): out[i] = a * in[i] + PRNN_PROBE_OFFSET.
#include "prnn_device.cuh"

#ifndef PRNN_PROBE_OFFSET
#define PRNN_PROBE_OFFSET 0
#endif

extern "C" __global__ void prnn_probe(const float *in, float *out, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * in[i] + (float)PRNN_PROBE_OFFSET;
}
