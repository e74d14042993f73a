/* Where a plan's cubins came from and what compiling them cost. */
#ifndef PRNN_LOAD_STATS_H
#define PRNN_LOAD_STATS_H

#include "prnn.h"

/* The worst source of the cubins loaded (compiled > disk > memory) and the
 * NVRTC time they cost. */
typedef struct {
    prnnCubinSource_t cubin_source;
    double compile_ms;
} prnn_load_stats;

#endif
