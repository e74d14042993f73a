/* SRU's kernel request, its configuration's limits on a device, and its
 * heuristic configuration (sru.h). */
#include <stdio.h>

#include "dtype.h"
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

size_t prnn_sru_ring_bytes(const prnn_sru_config *c, prnnDataType_t dtype, int sm, int backward,
                           int variant)
{
    if (sm < 80)
        return 0;
    return (size_t)PRNN_SRU_RING_BYTES((size_t)c->threads, (size_t)c->units_per_thread,
                                       (size_t)c->steps_in_flight, prnn_dtype_math_size(dtype),
                                       (size_t)PRNN_SRU_RING_FIELDS(backward, variant));
}

/* Shared memory per block a ring may take: the device's opt-in limit less
 * the 1 KiB of static shared memory that NVRTC's cubins for sm_80 and newer
 * declare in every kernel that uses shared memory (cuobjdump -res-usage:
 * SHARED:1024), which the launch's dynamic part must leave room for. */
static size_t ring_limit(const prnn_device_info *dev)
{
    const int optin = dev->smem_per_block_optin > 0 ? dev->smem_per_block_optin
                                                    : dev->smem_per_block;
    return optin > 1024 ? (size_t)optin - 1024 : 0;
}

int prnn_sru_config_fits_device(const prnn_sru_config *c, prnnDataType_t dtype,
                                const prnn_device_info *dev, char *why, size_t n)
{
    if (dev->sm < 80) {
        if (c->steps_in_flight > 8 || c->units_per_thread * c->steps_in_flight > 16) {
            snprintf(why, n,
                     "units_per_thread x steps_in_flight = %d x %d: below sm_80 (sm_%d) the "
                     "steps in flight are registers: at most 8 steps and 16 in all",
                     c->units_per_thread, c->steps_in_flight, dev->sm);
            return -1;
        }
        return 0;
    }
    /* the backward scan of a layer with U's four blocks has the most fields */
    const size_t ring = prnn_sru_ring_bytes(c, dtype, dev->sm, 1, PRNN_SRU_VARIANT_M4);
    if (ring > ring_limit(dev)) {
        snprintf(why, n,
                 "%d threads x %d units x %d steps in flight: the backward scan's ring takes "
                 "%zu bytes of shared memory per block, more than this GPU's %zu",
                 c->threads, c->units_per_thread, c->steps_in_flight, ring, ring_limit(dev));
        return -1;
    }
    return 0;
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
