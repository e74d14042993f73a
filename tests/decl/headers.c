/* prnn's CUDA declaration headers and the loader tables built from them
 * compile alone, without any CUDA header, as strict C99 (this file) and as
 * C++ (headers_cxx.cpp includes it). */
#include "cuda/cublaslt_lib.h"
#include "cuda/cuda_driver.h"
#include "cuda/nvrtc_lib.h"
#include "cudnn_lib.h"

#include <stdio.h>

int main(void)
{
    /* Use a type of each, so nothing is left unchecked by accident. */
    CUresult r = CUDA_SUCCESS;
    nvrtcResult n = NVRTC_SUCCESS;
    cublasStatus_t b = CUBLAS_STATUS_SUCCESS;
    cudnnStatus_t d = CUDNN_STATUS_SUCCESS;
#ifdef __cplusplus
    puts("decl-headers-cxx: prnn's CUDA declaration headers compile as C++");
#else
    puts("decl-headers-c99: prnn's CUDA declaration headers compile as C99");
#endif
    return (int)r + (int)n + (int)b + (int)d;
}
