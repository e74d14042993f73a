/*
 * The tile configuration for a shape no tuning database knows: a search over
 * candidate tiles scored by a cost model of one step (hand-off latency,
 * reading h_{t-1} from L2, the products, weights re-read from shared or
 * global memory, barriers). The model's constants come from measurements on
 * an H100 (shared/BASELINES.md); the autotuner replaces its guesses with
 * timings.
 */
#ifndef PRNN_HEURISTIC_H
#define PRNN_HEURISTIC_H

#include "descriptors.h"
#include "gpu/kernel_geometry.h"
#include "tuning/tile_config.h"

/* The modelled time of one step in microseconds (for ranking candidates). */
double prnn_heuristic_cost(const prnn_kernel_geometry *g, const prnn_device_info *dev);

/* Fills up to max candidate tiles that fit the device, best modelled first;
 * returns how many. use_mma: the tensor-core engine is allowed. */
int prnn_heuristic_candidates(const prnn_kernel_shape *shape,
                              const prnn_device_info *dev, int use_mma,
                              prnn_kernel_geometry *out, int max);

/* The best candidate; -1 with a reason when nothing fits (then only the
 * standard path can run the shape). */
int prnn_heuristic_choose(const prnn_kernel_shape *shape,
                          const prnn_device_info *dev, int use_mma,
                          prnn_kernel_geometry *out, char *why, size_t why_size);

/*
 * SRU's scan for a shape no tuning database knows. The scan streams U
 * through dirs x miniBatch x hidden independent lanes, and what limits it is
 * how many bytes are in flight while every lane's step waits on its loads
 * (bench/NOTES.md, v0.8: ncu shows long-scoreboard stalls first). Once the
 * lanes fill half the device's threads: four adjacent units per thread moved
 * as vectors, two steps in flight, 256-thread blocks (1.2-1.4x one unit per
 * thread there). Below that, one unit per thread and four steps in flight
 * for fp32 (two units once the lanes fill a quarter of the device), and two
 * units with eight steps in flight for the 16-bit types, whose U rows are
 * read at the same width but whose steps are shorter (the autotuner's pick
 * at every paper-setting key, 1.03-1.08x the old heuristic).
 */
void prnn_heuristic_sru(const struct prnnRNNStruct *rnn, int mini_batch,
                        const prnn_device_info *dev, prnn_sru_config *out);

#endif
