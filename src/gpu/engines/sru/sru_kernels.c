/* SRU's kernel request and its heuristic configuration (sru.h). */
#include "gpu/engines/sru/sru.h"

prnnStatus_t prnn_request_sru(prnnDataType_t dtype, int hidden, const prnn_sru_config *c, int sm,
                              prnn_kernel_request *r)
{
    prnn_request_start(r, "sru_scan.cu", "prnn_sru_kernels", sm);
    prnn_request_define(r, "PRNN_DTYPE", prnn_kernel_dtype_code(dtype));
    prnn_request_define(r, "PRNN_H", hidden);
    prnn_request_config_defines(r, prnn_sru_fields, c);
    return prnn_request_finish(r);
}

void prnn_heuristic_sru(const prnn_rnn_key *key, const prnn_device_info *dev, prnn_sru_config *out)
{
    const long long lanes = (long long)key->dirs * key->mini_batch * key->hidden;
    const long long resident = (long long)(dev->sm_count > 0 ? dev->sm_count : 1) * 2048;
    out->threads = 128;
    out->units_per_thread = 1;
    out->steps_in_flight = 4;
    const int half = key->dtype == PRNN_DATA_HALF || key->dtype == PRNN_DATA_BFLOAT16;
    if (lanes >= resident / 2 && key->hidden % 4 == 0) {
        out->threads = 256;
        out->units_per_thread = 4;
        out->steps_in_flight = 2;
    } else if (half && key->hidden % 2 == 0) {
        out->units_per_thread = 2;
        out->steps_in_flight = 8;
    } else if (lanes >= resident / 4 && key->hidden % 2 == 0) {
        out->units_per_thread = 2;
    }
}
