/*
 * How cuDNN is asked to compute each prnn data type: the data type of its
 * descriptors (weights, x/y, states) and the (mathPrec, mathType) pairs of
 * cudnnSetRNNDescriptor_v8 to try, in order.
 */
#ifndef PRNN_BENCH_CUDNN_MATH_H
#define PRNN_BENCH_CUDNN_MATH_H

#include "cudnn_api.h"

#include "bench_args.h"

#define BENCH_CUDNN_MAX_MATH 2

typedef struct {
    cudnnDataType_t math_prec;
    cudnnMathType_t math_type;
    const char *note; /* shown in the note column when this choice ran */
} bench_cudnn_math;

/* float, half, bfloat16, double: CUDNN_DATA_FLOAT, _HALF, _BFLOAT16,
 * _DOUBLE. */
cudnnDataType_t bench_cudnn_dtype(prnnDataType_t t);

/*
 * Fills c[0..] (room for BENCH_CUDNN_MAX_MATH) with the choices to try,
 * first the one that compares like with like with prnn under math, and
 * returns how many. A choice cuDNN refuses falls back to the next.
 */
int bench_cudnn_math_choices(prnnDataType_t t, bench_math math, bench_cudnn_math *c);

#endif
