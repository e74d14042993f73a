#include "cudnn_math.h"

cudnnDataType_t bench_cudnn_dtype(prnnDataType_t t)
{
    switch (t) {
    case PRNN_DATA_HALF: return CUDNN_DATA_HALF;
    case PRNN_DATA_BFLOAT16: return CUDNN_DATA_BFLOAT16;
    case PRNN_DATA_DOUBLE: return CUDNN_DATA_DOUBLE;
    case PRNN_DATA_FLOAT: break;
    }
    return CUDNN_DATA_FLOAT;
}

int bench_cudnn_math_choices(prnnDataType_t t, bench_math math, bench_cudnn_math *c)
{
    switch (t) {
    case PRNN_DATA_FLOAT:
        /* Strict: FMA_MATH, since DEFAULT_MATH would run the fp32 input
         * GEMM in TF32 (docs/ARCHITECTURE.md section 4) while prnn's default does
         * not. */
        if (math == BENCH_MATH_TF32) {
            c[0] = (bench_cudnn_math){CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, ""};
            return 1;
        }
        c[0] = (bench_cudnn_math){CUDNN_DATA_FLOAT, CUDNN_FMA_MATH, ""};
        c[1] = (bench_cudnn_math){CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH,
                                  "FMA_MATH refused: ran DEFAULT_MATH (TF32 input GEMM)"};
        return 2;
    case PRNN_DATA_HALF:
        c[0] = (bench_cudnn_math){CUDNN_DATA_HALF, CUDNN_TENSOR_OP_MATH, "mathPrec half"};
        c[1] = (bench_cudnn_math){CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH,
                                  "mathPrec half refused: mathPrec float"};
        return 2;
    case PRNN_DATA_BFLOAT16:
        /* bfloat16 data, tensor cores, float compute: what prnn does with
         * bfloat16 (mma with fp32 accumulation, fp32 cell state). A
         * bfloat16 mathPrec is only the fallback. */
        c[0] = (bench_cudnn_math){CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH, "mathPrec float"};
        c[1] = (bench_cudnn_math){CUDNN_DATA_BFLOAT16, CUDNN_TENSOR_OP_MATH,
                                  "mathPrec float refused: mathPrec bfloat16"};
        return 2;
    case PRNN_DATA_DOUBLE:
        c[0] = (bench_cudnn_math){CUDNN_DATA_DOUBLE, CUDNN_DEFAULT_MATH, ""};
        return 1;
    }
    return 0;
}
