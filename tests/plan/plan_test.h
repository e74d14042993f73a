/* Helpers shared by the planner's CPU tests. */
#ifndef PRNN_PLAN_TEST_H
#define PRNN_PLAN_TEST_H

#include <stdio.h>
#include <string.h>

#include "cuda/device_info.h"
#include "gpu/engines/persistent/kernel_geometry.h"

/* A device the planner can plan for without a GPU: compute capability
 * sm / 10 . sm % 10, `sms` SMs, `smem_optin` bytes of shared memory per
 * block, the register file and limits of every part since sm_75. */
static inline prnn_device_info plan_test_device(int sm, int sms, int smem_optin)
{
    prnn_device_info d;
    memset(&d, 0, sizeof(d));
    snprintf(d.name, sizeof(d.name), "simulated sm_%d", sm);
    d.cc_major = sm / 10;
    d.cc_minor = sm % 10;
    d.sm = sm;
    d.sm_count = sms;
    d.regs_per_sm = 65536;
    d.regs_per_block = 65536;
    d.smem_per_sm = smem_optin + 1024;
    d.smem_per_block = 49152;
    d.smem_per_block_optin = smem_optin;
    d.max_threads_per_sm = 2048;
    d.max_threads_per_block = 1024;
    d.max_blocks_per_sm = 32;
    d.warp_size = 32;
    d.l2_bytes = 50 << 20;
    d.cooperative_launch = 1;
    d.clock_khz = 1755000;
    return d;
}

/* A persistent kernel's shape: mode, data type, hidden size, batch,
 * directions, the SKIP_INPUT layer-0 variant, pass. */
static inline prnn_kernel_shape plan_test_shape(prnnRNNMode_t mode, prnnDataType_t dtype,
                                                int hidden, int batch, int dirs, int skip,
                                                prnn_pass pass)
{
    prnn_kernel_shape s;
    memset(&s, 0, sizeof(s));
    s.key.mode = mode;
    s.key.dtype = dtype;
    s.key.hidden = hidden;
    s.key.mini_batch = batch;
    s.key.dirs = dirs;
    s.key.layers = 1;
    s.skip_input = skip;
    s.pass = pass;
    return s;
}

#endif
