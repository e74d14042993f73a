/*
 * The kernel variants that must compile under NVRTC for every architecture
 * the library targets (test_nvrtc_compile). Every .cu file of kernel_src/
 * needs at least one entry: the test fails for a source without one.
 */
#ifndef PRNN_KERNEL_VARIANTS_H
#define PRNN_KERNEL_VARIANTS_H

#include <stddef.h>

#include "gpu/run/kernel_request.h"
#include "prnn.h"
#include "rnn_pass.h"

#define JIT_VARIANT_MAX_DEFINES PRNN_REQUEST_MAX_DEFINES

typedef struct {
    const char *source; /* an embedded kernel_src file, e.g. "probe.cu" */
    const char *kernel; /* a name for messages and the timing table */
    /* -D defines, NULL-terminated (at most JIT_VARIANT_MAX_DEFINES). */
    const char *defines[JIT_VARIANT_MAX_DEFINES + 1];
    /* Oldest architecture the variant supports (e.g. 80 for bf16 mma);
     * 0 for all. */
    int min_sm;
} jit_kernel_variant;

/* The variants given by their defines: every kernel but the persistent ones. */
extern const jit_kernel_variant jit_kernel_variants[];
extern const int jit_kernel_variant_count;

/* A variant of the persistent kernels (rnn_persistent.cu, rnn_backward.cu),
 * given as the planner sees it: a shape and a tile. Its defines are the
 * planner's (jit_persistent_variant_build), so a tile field renamed or
 * added in src/tuning/tile_config.c reaches the test with it. */
typedef struct {
    const char *kernel; /* a name for messages and the timing table */
    prnnRNNMode_t mode;
    prnnDataType_t dtype;
    int hidden;
    int batch; /* the largest batch (PRNN_BMAX) */
    int dirs;
    prnn_pass pass;
    int skip;  /* forward only: layer 0 of a SKIP_INPUT network */
    int train; /* forward only: keeps what backward needs */
    /* The tile's text form, as it runs (normalised for the shape: the
     * build fails when the geometry would run another). */
    const char *tile;
    int clip; /* LSTM cell clipping: PRNN_KCLIP_* (0: none) */
    /* 1: a plan of unpacked data's, whose kernels read the caller's rows
     * (prnn_rnn_key.caller_rows: PRNN_CALLER_ROWS) */
    int caller_rows;
    /* the network's layers (0: one), which set the rows a forward kernel
     * of caller_rows compiles its steps for (prnn_seq_io_kernel_layouts:
     * one layer, x and y in place; two, x in place and y in place; three
     * or more, those and packed) */
    int layers;
} jit_persistent_variant;

extern const jit_persistent_variant jit_persistent_variants[];
extern const int jit_persistent_variant_count;

/* p as a compile variant: the tile parsed, its geometry derived without a
 * device (prnn_kernel_geometry_compute) and the planner's request built
 * from it (prnn_request_persistent) into r, whose storage out's defines
 * point into (r must outlive out); min_sm 80 for the mma engine. 0, or -1
 * with the reason in why. */
int jit_persistent_variant_build(const jit_persistent_variant *p, prnn_kernel_request *r,
                                 jit_kernel_variant *out, char *why, size_t why_size);

#endif
