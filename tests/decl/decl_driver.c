/* prnn's declarations of the CUDA driver API (src/cuda/cuda_api.h) against
 * the toolkit's cuda.h (and driver_types.h, for cudaStream_t). */
#include <cuda.h>
#include <driver_types.h>

#include "api_check.h"
#include "cuda/cuda_api.h"

int main(void)
{
    PRNN_CU_API(API_CHECK_ALL)
    return api_check_finish("decl-driver", API_CHECK_HEADER,
                            "CUDA_VERSION " API_CHECK_STR(CUDA_VERSION));
}
