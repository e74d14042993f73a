/*
 * The data every implementation of a point gets: one host copy of random
 * weights (uploaded into each implementation's own layout through its own
 * "where does matrix k of pseudo-layer l live" call), shared device input
 * and output buffers, and the outputs read back for comparison.
 *
 * Values: weights and biases uniform in [-1/sqrt(H), 1/sqrt(H)] (PyTorch's
 * initialisation), inputs, initial states and incoming gradients uniform in
 * [-1, 1]; never zeros. Each tensor has its own stream of a counter-based
 * generator keyed by the seed, so the values do not depend on the order in
 * which anything is generated.
 */
#ifndef PRNN_BENCH_DATA_H
#define PRNN_BENCH_DATA_H

#include "bench_device.h"
#include "bench_layout.h"
#include "bench_types.h"

/* linLayerID of an LSTM's projection matrix W_proj (proj x hidden, no
 * bias) in both libraries' numbering (prnnGetRNNWeightParams,
 * cudnnGetRNNWeightParams). */
#define BENCH_LIN_PROJ 8

/* One matrix or bias of the model, in cuDNN's (and prnn's) numbering. */
typedef struct {
    int pseudo_layer; /* layer * dirs + direction */
    int lin_id;       /* 0..nlin-1: W ids first, then R ids; BENCH_LIN_PROJ */
    int is_bias;
    size_t count;  /* elements: hidden * K for a matrix (K: the width it
                      multiplies, the projection's where there is one),
                      hidden for a bias; proj * hidden for W_proj */
    size_t offset; /* bytes into bench_model.bytes */
} bench_param;

typedef struct {
    bench_point pt;
    int dirs;    /* 1 or 2 */
    int nlin;    /* 2 (RELU/TANH), 8 (LSTM), 6 (GRU), 4 (SRU: per call);
                    W_proj (BENCH_LIN_PROJ) comes on top where pt.proj */
    size_t elem; /* bytes per element of pt.dtype */
    bench_param *params;
    int n_params;
    unsigned char *bytes; /* every parameter, stored as pt.dtype */
    size_t total_bytes;
} bench_model;

/* Generates the weights of pt. */
int bench_model_create(bench_model *m, const bench_point *pt, unsigned long long seed, char *err,
                       size_t n);
void bench_model_destroy(bench_model *m);

/*
 * How an implementation addresses its weight buffer: *ptr = the device
 * address of the parameter inside the buffer at base, *count = its number of
 * elements as the implementation describes it. 0, or -1 with a message.
 */
typedef int (*bench_locate_fn)(void *user, CUdeviceptr base, int pseudo_layer, int lin_id,
                               int is_bias, CUdeviceptr *ptr, size_t *count, char *err, size_t n);

/* Copies every parameter into the buffer w through loc; a count that does
 * not match the model's is an error (the layouts disagree). */
int bench_model_upload(const bench_device *d, const bench_model *m, bench_locate_fn loc, void *user,
                       CUdeviceptr w, char *err, size_t n);

/* Device buffers shared by every implementation of a point (the same layout
 * for prnn and cuDNN: x/y/dx/dy in the point's layout, T steps of room for
 * each sequence, y and dy dirs * bench_out_size wide; states
 * {layers*dirs, batch, bench_out_size} for hx/hy/dhy/dhx and
 * {layers*dirs, batch, hidden} for cx/cy/dcy/dcx, which differ with a
 * projection). The inputs are uploaded once; each implementation
 * overwrites the outputs. Gradient buffers exist for the training pass
 * only. */
typedef struct {
    size_t x_bytes, y_bytes, h_bytes, c_bytes;
    CUdeviceptr x, hx, cx, y, hy, cy;
    CUdeviceptr dy, dhy, dcy, dx, dhx, dcx;
    bench_seqs seqs; /* the layout and the sequences' lengths (host) */
} bench_io;

/* Values as in the file's comment; in a padded layout the same values at
 * the same (step, sequence) as in the packed layout, and pad in x's and
 * dy's padding (see bench_layout.h). */
int bench_io_create(const bench_device *d, bench_io *io, const bench_point *pt,
                    unsigned long long seed, bench_pad_input pad, char *err, size_t n);
void bench_io_destroy(const bench_device *d, bench_io *io);

/* Fills every output with 0xFF bytes (NaN in every floating type), so an
 * element an implementation fails to write shows up in the comparison. */
int bench_io_poison_outputs(const bench_device *d, const bench_io *io, char *err, size_t n);

/* Outputs read back as floats, in named segments. */
typedef struct {
    char name[8];
    size_t off, n;
} bench_seg;

typedef struct {
    float *v;
    size_t n;
    bench_seg seg[8];
    int nseg;
} bench_sig;

/*
 * Reads the outputs of the call that just ran: inference y, hy (and cy for
 * LSTM); training y, dx, dhx (dcx) and, when loc is not NULL, every
 * parameter of dw through loc. Waits for the stream. In a padded layout y
 * and dx hold their valid steps only (bench_seqs_gather's order), and the
 * segment "y-pad" y's padding, which both libraries write with the fill
 * (dx's padding is prnn's promise, not cuDNN's: left out).
 */
int bench_sig_capture(const bench_device *d, bench_sig *s, const bench_io *io, const bench_model *m,
                      bench_locate_fn loc, void *user, CUdeviceptr dw, char *err, size_t n);
void bench_sig_free(bench_sig *s);

/* Appends n values (already floats) as a segment: used by the tests. */
int bench_sig_append(bench_sig *s, const char *name, const float *v, size_t n);

/*
 * The largest, over the segments, of max|s - ref| / max|ref| (a relative
 * error against the segment's own scale, so that a near-zero element does
 * not blow it up). NaN when either holds a NaN or Inf, or when the segments
 * do not match (a red flag in the report).
 */
double bench_sig_diff(const bench_sig *ref, const bench_sig *s);

#endif
