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
 * 1 KiB, room for the static shared memory a cubin may declare beside the
 * launch's dynamic part (a margin: whether NVRTC's scans declare any was
 * not checked, and a ring this large is far past the depths that pay). */
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

/* Whether the backward scan's blocks, with c's ring, all fit on the device
 * at once (or as many of them per SM as its threads allow): a deeper ring
 * that costs a second wave of blocks loses more than it gains. */
static int ring_fits_wave(const prnn_rnn_key *key, const prnn_device_info *dev,
                          const prnn_sru_config *c)
{
    const size_t ring = prnn_sru_ring_bytes(c, key->dtype, dev->sm, 1, PRNN_SRU_VARIANT_M4);
    if (ring > ring_limit(dev))
        return 0;
    const long long per_row = (key->hidden + c->units_per_thread - 1) / c->units_per_thread;
    const long long blocks = ((long long)key->dirs * key->mini_batch * per_row + c->threads - 1) /
                             c->threads;
    const long long sms = dev->sm_count > 0 ? dev->sm_count : 1;
    long long per_sm = (blocks + sms - 1) / sms;
    const long long by_threads = dev->max_threads_per_sm > 0 ? dev->max_threads_per_sm / c->threads
                                                             : per_sm;
    if (per_sm > by_threads)
        per_sm = by_threads;
    if (dev->max_blocks_per_sm > 0 && per_sm > dev->max_blocks_per_sm)
        per_sm = dev->max_blocks_per_sm;
    if (dev->smem_per_sm <= 0)
        return 1;
    return per_sm * (long long)(ring + (size_t)dev->smem_reserved_per_block) <=
           (long long)dev->smem_per_sm;
}

void prnn_heuristic_sru(const prnn_rnn_key *key, const prnn_device_info *dev, prnn_sru_config *out)
{
    const long long lanes = (long long)key->dirs * key->mini_batch * key->hidden;
    const long long resident = (long long)(dev->sm_count > 0 ? dev->sm_count : 1) * 2048;
    out->threads = 128;
    out->units_per_thread = 1;
    out->steps_in_flight = 4;
    const int half = key->dtype == PRNN_DATA_HALF || key->dtype == PRNN_DATA_BFLOAT16;
    const int large = lanes >= resident / 2 && key->hidden % 4 == 0;
    if (large) {
        out->threads = 256;
        out->units_per_thread = 4;
        out->steps_in_flight = 2;
    } else if (half && key->hidden % 2 == 0) {
        out->units_per_thread = 2;
        out->steps_in_flight = 8;
    } else if (lanes >= resident / 4 && key->hidden % 2 == 0) {
        out->units_per_thread = 2;
    }
    if (dev->sm < 80)
        return;
    /* The ring in shared memory: deeper, as deep as a single wave of blocks
     * allows. Two units per thread wherever they divide the hidden size, 16
     * steps in flight (4 with four units once the lanes fill half the
     * device). Timed on an H100 (bench/NOTES.md, tenth session): the
     * autotuner's tile 1.00-1.14x faster at the 18 shipped SRU keys; the
     * backward scan runs best at 4 steps, the forward wants 16-32. */
    if (large) {
        out->steps_in_flight = 4;
    } else {
        out->units_per_thread = key->hidden % 2 == 0 ? 2 : 1;
        out->steps_in_flight = 16;
    }
    while (out->steps_in_flight > 2 && !ring_fits_wave(key, dev, out))
        out->steps_in_flight /= 2;
}
