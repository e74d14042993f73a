// The storage type T of a kernel's data (PRNN_DTYPE), the type its math runs
// in (AccT: float for float, half and bfloat16; double for double), and the
// load/store/round traits between them.
#pragma once

#include "prnn_device.cuh"

#if PRNN_DTYPE == 0
typedef float T;
#elif PRNN_DTYPE == 1
typedef double T;
#elif PRNN_DTYPE == 2
typedef prnn_half T;
#elif PRNN_DTYPE == 3
typedef prnn_bf16 T;
#else
#error "PRNN_DTYPE must be 0 (float), 1 (double), 2 (half) or 3 (bfloat16)"
#endif
typedef prnn_storage<T> ST;
typedef typename ST::acc AccT;

// Element i of a layer output's gradient: the caller's dy in the storage
// type (storage != 0: the top layer) or the gradient the layer above left
// in the math type (prnn_bwd_args.dy_storage).
__device__ __forceinline__ AccT load_output_grad(const void *dy, int storage, long long i)
{
    return storage ? ST::load((const T *)dy, i) : ((const AccT *)dy)[i];
}
