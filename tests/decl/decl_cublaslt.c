/* prnn's declarations of cuBLASLt (src/cuda/cublaslt_api.h), layouts
 * included, against the toolkit's cublasLt.h. */
#include <cublasLt.h>

#include "api_check.h"
#include "cuda/cublaslt_api.h"

int main(void)
{
    PRNN_LT_API(API_CHECK_ALL)
    return api_check_finish(
        "decl-cublaslt", API_CHECK_HEADER,
        "cuBLAS " API_CHECK_STR(CUBLAS_VER_MAJOR) "." API_CHECK_STR(CUBLAS_VER_MINOR));
}
