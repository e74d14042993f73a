/*
 * How prnn-bench asks cuDNN to compute each data type (no cuDNN library or
 * header needed): bfloat16 runs as CUDNN_DATA_BFLOAT16 data with
 * tensor cores and float math first (what prnn does with bfloat16), float
 * strict as FMA_MATH, and every fallback says so in its note.
 */
#include "bench_test.h"
#include "cudnn_math.h"

int main(void)
{
    bench_cudnn_math c[BENCH_CUDNN_MAX_MATH];

    EXPECT(bench_cudnn_dtype(PRNN_DATA_BFLOAT16) == CUDNN_DATA_BFLOAT16, "bfloat16 data type %d",
           (int)bench_cudnn_dtype(PRNN_DATA_BFLOAT16));
    EXPECT(bench_cudnn_dtype(PRNN_DATA_HALF) == CUDNN_DATA_HALF, "half");
    EXPECT(bench_cudnn_dtype(PRNN_DATA_FLOAT) == CUDNN_DATA_FLOAT, "float");
    EXPECT(bench_cudnn_dtype(PRNN_DATA_DOUBLE) == CUDNN_DATA_DOUBLE, "double");

    for (int m = BENCH_MATH_STRICT; m <= BENCH_MATH_TF32; m++) {
        int k = bench_cudnn_math_choices(PRNN_DATA_BFLOAT16, (bench_math)m, c);
        EXPECT(k == 2, "bfloat16: %d choices", k);
        EXPECT(c[0].math_prec == CUDNN_DATA_FLOAT && c[0].math_type == CUDNN_TENSOR_OP_MATH,
               "bfloat16 first: mathPrec %d mathType %d", (int)c[0].math_prec, (int)c[0].math_type);
        EXPECT(c[1].math_prec == CUDNN_DATA_BFLOAT16 && c[1].math_type == CUDNN_TENSOR_OP_MATH &&
                   strstr(c[1].note, "refused"),
               "bfloat16 fallback: %d %d '%s'", (int)c[1].math_prec, (int)c[1].math_type,
               c[1].note);
    }

    int k = bench_cudnn_math_choices(PRNN_DATA_FLOAT, BENCH_MATH_STRICT, c);
    EXPECT(k == 2 && c[0].math_prec == CUDNN_DATA_FLOAT && c[0].math_type == CUDNN_FMA_MATH &&
               c[1].math_type == CUDNN_DEFAULT_MATH && strstr(c[1].note, "refused"),
           "float strict: %d choices", k);
    k = bench_cudnn_math_choices(PRNN_DATA_FLOAT, BENCH_MATH_TF32, c);
    EXPECT(k == 1 && c[0].math_type == CUDNN_DEFAULT_MATH, "float tf32");
    k = bench_cudnn_math_choices(PRNN_DATA_HALF, BENCH_MATH_STRICT, c);
    EXPECT(k == 2 && c[0].math_type == CUDNN_TENSOR_OP_MATH &&
               c[1].math_type == CUDNN_TENSOR_OP_MATH && strstr(c[1].note, "refused"),
           "half: %d choices", k);
    k = bench_cudnn_math_choices(PRNN_DATA_DOUBLE, BENCH_MATH_STRICT, c);
    EXPECT(k == 1 && c[0].math_prec == CUDNN_DATA_DOUBLE, "double");
    return test_done(
        "tools-bench-cudnn-math: the cuDNN data type and math choices for each prnn data type");
}
