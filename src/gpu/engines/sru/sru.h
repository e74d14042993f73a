/*
 * The SRU scan engine (PRNN_PATH_SRU_SCAN): per layer, one cuBLASLt GEMM
 * projects the input for every step and both directions, and one launch of
 * sru_scan.cu runs the elementwise recurrence; backward the scan walks time
 * backwards, then GEMMs give dx (or the gradient of the layer below) and dW,
 * and a fixed-order reduction the V block's gradient. It runs whole calls
 * (sru_run.c); sru_engine.c is its row of the engine table. One
 * configuration compiles both scans, so it serves both passes.
 */
#ifndef PRNN_SRU_H
#define PRNN_SRU_H

#include "cuda/cuda_driver.h"
#include "cuda/device_info.h"
#include "gpu/engines/engine.h"
#include "gpu/run/kernel_request.h"
#include "prnn_kernel_abi.h"

struct prnn_call_plan;

/* sru_scan.cu's kernels and the launch shape they were compiled for. */
typedef struct {
    /* the scans, one per layer kind (prnn_sru_variant) */
    CUfunction forward[PRNN_SRU_VARIANTS], backward[PRNN_SRU_VARIANTS];
    CUfunction vgrad, input_grad, keep_input;
    int threads; /* block size */
    int upt;     /* hidden units per thread */
    int depth;   /* steps whose loads each thread keeps in flight */
    /* each scan's dynamic shared memory per block (its ring of steps in
     * flight: prnn_sru_ring_bytes), bytes */
    unsigned smem_forward[PRNN_SRU_VARIANTS], smem_backward[PRNN_SRU_VARIANTS];
} prnn_sru_kernels;

/* Engine part of the workspace: BackwardData's dx' of a layer without x'
 * projection, rows * dirs * hidden, math type. */
enum { PRNN_SRU_WS_DXP = 0 };

/* SRU's scan kernels (sru_scan.cu: forward, backward, V-block reduction,
 * input gradient) for one data type, hidden size and configuration (block
 * size, units per thread and steps in flight: prnn_sru_fields' defines). */
prnnStatus_t prnn_request_sru(prnnDataType_t dtype, int hidden, const prnn_sru_config *c, int sm,
                              prnn_kernel_request *r);

/* The shared memory one block of a scan takes for its ring of steps in
 * flight (prnn_kernel_abi.h: PRNN_SRU_RING_BYTES): on sm_80 and newer, where
 * the ring is in shared memory (cp.async), the backward scan's ring the
 * largest; 0 below sm_80, where it is in registers. */
size_t prnn_sru_ring_bytes(const prnn_sru_config *c, prnnDataType_t dtype, int sm, int backward,
                           int variant);

/* What a device allows of a configuration beyond prnn_sru_config_check:
 * below sm_80 (the ring in registers) at most 8 steps in flight and
 * units_per_thread x steps_in_flight at most 16; on sm_80 and newer the
 * ring's shared memory within the device's limit per block. 0, or -1 with
 * the reason in why. */
int prnn_sru_config_fits_device(const prnn_sru_config *c, prnnDataType_t dtype,
                                const prnn_device_info *dev, char *why, size_t n);

/*
 * SRU's scan for a shape no tuning database knows. The scan streams U
 * through dirs x miniBatch x hidden independent lanes, and what limits it is
 * how many bytes are in flight while every lane's step waits on its loads
 * (bench/NOTES.md, v0.8: ncu shows long-scoreboard stalls first). Once the
 * lanes fill half the device's threads: four adjacent units per thread moved
 * as vectors, two steps in flight, 256-thread blocks. Below that, one unit
 * per thread and four steps in flight for fp32 (two units once the lanes
 * fill a quarter of the device), and two units with eight steps in flight
 * for the 16-bit types, whose U rows are read at the same width but whose
 * steps are shorter (the autotuner's pick at every paper-setting key:
 * bench/NOTES.md v0.8). Those are the register ring's (below sm_80). On sm_80
 * and newer, where the ring is in shared memory, two units (where the hidden
 * size is even) and 16 steps in flight, or four units and 4 steps once the
 * lanes fill half the device, halved until the backward scan's blocks all
 * fit the GPU at once (timed on an H100: the autotuner's tile 1.00-1.14x
 * faster at the shipped keys, bench/NOTES.md tenth session).
 */
void prnn_heuristic_sru(const prnn_rnn_key *key, const prnn_device_info *dev, prnn_sru_config *out);

/* A whole call of any kind (sru_run.c). */
prnnStatus_t prnn_sru_run(struct prnn_call_plan *c, const void *buffers);

#endif
