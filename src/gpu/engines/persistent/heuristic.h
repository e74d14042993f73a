/*
 * The tile configuration for a shape no tuning database knows: a search over
 * candidate tiles scored by a cost model of one step (hand-off latency,
 * reading h_{t-1} from L2, the products, weights re-read from shared or
 * global memory, barriers). The model's constants come from measurements on
 * an H100 (docs/ARCHITECTURE.md section 1); the autotuner replaces its guesses with
 * timings.
 */
#ifndef PRNN_PERSISTENT_HEURISTIC_H
#define PRNN_PERSISTENT_HEURISTIC_H

#include "descriptors.h"
#include "gpu/engines/persistent/kernel_geometry.h"
#include "tuning/tile_config.h"

/* The modelled time of one step in microseconds (for ranking candidates). */
double prnn_heuristic_cost(const prnn_kernel_geometry *g, const prnn_device_info *dev);

/* That time and what the engines' estimates (persistent_engine.c) weigh
 * apart from the sum that ranks a shape's tiles. */
typedef struct {
    double us;    /* the step: prnn_heuristic_cost */
    double work;  /* of which one block's products or its shared-memory reads
                   * of weights, whichever is longer (one wave) */
    int per_sm;   /* blocks of the local hand-off on the fullest SM; 1 for
                   * the L2 hand-off's (one per SM) */
    double waves; /* the local hand-off's blocks beyond what the device holds
                   * at once run after the first: 1, 2, ... */
} prnn_heuristic_parts;

void prnn_heuristic_cost_parts(const prnn_kernel_geometry *g, const prnn_device_info *dev,
                               prnn_heuristic_parts *out);

/* Fills up to max candidate tiles that fit the device, best modelled first;
 * returns how many. use_mma: the tensor-core engine is allowed. local: the
 * small-h engine's tiles (one block per batch group, handoff 2 through
 * shared memory), else the persistent engine's (handoff 0 or 1 through L2,
 * every block resident). */
int prnn_heuristic_candidates(const prnn_kernel_shape *shape, const prnn_device_info *dev,
                              int use_mma, int local, prnn_kernel_geometry *out, int max);

/* Whether the backward-data search includes the partial-sum hand-off's
 * tiles (tile_config.h, partial_sums) beside the gather tiles: yes unless
 * $PRNN_PARTIAL_SUMS=0 (to compare the two, or to rule the hand-off out in
 * a bug report). A tile that says partial_sums=1 (forced, or in a tuning
 * database) runs regardless. */
int prnn_heuristic_partial_sums(void);

/* The best candidate; -1 with a reason when nothing fits (then only the
 * standard path can run the shape). */
int prnn_heuristic_choose(const prnn_kernel_shape *shape, const prnn_device_info *dev, int use_mma,
                          int local, prnn_kernel_geometry *out, char *why, size_t why_size);

#endif
