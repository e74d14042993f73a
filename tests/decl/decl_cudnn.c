/* prnn-bench's declarations of cuDNN's v8 RNN API
 * (tools/bench/cudnn_api.h) against cudnn.h. */
#include <cudnn.h>

#include "api_check.h"
#include "cudnn_api.h"

int main(void)
{
    BENCH_CUDNN_API(API_CHECK_ALL)
    return api_check_finish("decl-cudnn", API_CHECK_HEADER,
                            "cuDNN " API_CHECK_STR(CUDNN_MAJOR) "." API_CHECK_STR(CUDNN_MINOR));
}
