/* prnn's declarations of NVRTC (src/cuda/nvrtc_api.h) against the
 * toolkit's nvrtc.h. */
#include <nvrtc.h>

#include "api_check.h"
#include "cuda/nvrtc_api.h"

int main(void)
{
    PRNN_NVRTC_API(API_CHECK_ALL)
    return api_check_finish("decl-nvrtc", API_CHECK_HEADER, "nvrtc.h has no version macro");
}
