/*
 * The persistent kernel's geometry on the host: the same arithmetic as the
 * constants at the top of kernel_src/rnn_persistent.cu, so that the planner
 * can size shared memory, the packed weights and the hand-off area, and judge
 * whether a tile configuration fits a device, without compiling. The host
 * passes its results to NVRTC as PRNN_SMEM_BYTES / PRNN_KSTEPS / PRNN_WPK /
 * PRNN_EX_BYTES / PRNN_PACKED_BYTES and the kernel static_asserts them, so
 * the two cannot drift apart silently (tests/plan compiles many
 * configurations).
 */
#ifndef PRNN_KERNEL_GEOMETRY_H
#define PRNN_KERNEL_GEOMETRY_H

#include <stddef.h>

#include "cuda/device_info.h"
#include "prnn.h"
#include "rnn_key.h"
#include "rnn_pass.h"
#include "tuning/tile_config.h"

/* What the kernel is specialised for, besides the tile: the RNN key (its
 * mode, data type, hidden size, directions and batch matter here), the
 * variant and the pass. */
typedef struct {
    prnn_rnn_key key;
    int skip_input; /* layer 0 of a SKIP_INPUT network (forward only) */
    prnn_pass pass; /* forward (R, h_{t-1}) or backward-data (R^T, dg) */
} prnn_kernel_shape;

typedef struct {
    prnn_kernel_shape shape;
    prnn_tile_config tile; /* normalised: blocks recomputed from units, batch
                            * chunk and groups from the batch, slots rounded
                            * to whole k-steps */
    int gates;
    int kdim;          /* length of the vector multiplied each step: hidden
                        * (forward), gates * hidden padded per gate (backward) */
    int rows_per_unit; /* matrix rows per hidden unit: gates (forward), 1 */
    int units_per_block;
    int warps, rsplit;
    int acc_bytes; /* 4 (float math) or 8 (double) */
    int rows, rpg, rowsp;
    int ksteps, wpk; /* k-steps per thread and 32-bit words per k-step */
    int kreg, ksmem, kglb;
    int chunks;       /* batch chunks per step and group */
    int group_stride; /* batch rows per group: chunks * batch_chunk */
    int items;        /* cell items per thread per chunk */
    size_t smem_bytes;
    size_t red_bytes;              /* one partial-sum buffer */
    int red_bufs;                  /* 1 or 2 (one barrier per chunk) */
    size_t packed_bytes_per_dir;   /* streamed weights */
    size_t exchange_bytes_per_dir; /* both parities */
    int accumulators;              /* 32-bit accumulator registers per thread */
    int weight_regs;               /* kreg * wpk */
    int est_regs;                  /* estimated registers per thread */
    double resident_fraction;
    int ps_rounds; /* partial sums: the L2 requests one thread of the
                    * gather issues one after another per chunk (its
                    * passes over the items times its batches of at most
                    * POLL_MAX senders); 0 without partial sums */
} prnn_kernel_geometry;

/*
 * Derives the geometry of (shape, tile) and checks it against the kernel's
 * rules and, when dev is not NULL, the device's limits (shared memory per
 * block, co-resident blocks, tensor cores). Returns 0 when it can run, or -1
 * with the reason in why (e.g. "needs 260 KB of shared memory, the device
 * allows 227 KB").
 */
int prnn_kernel_geometry_compute(const prnn_kernel_shape *shape, const prnn_tile_config *tile,
                                 const prnn_device_info *dev, prnn_kernel_geometry *g, char *why,
                                 size_t why_size);

#endif
