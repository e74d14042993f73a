/*
 * Filling the kernel cache for an architecture without a GPU: what
 * prnnWarmKernelCache (prnn-cache warm, python -m prnn.cache warm) runs.
 */
#ifndef PRNN_PLAN_WARM_H
#define PRNN_PLAN_WARM_H

#include "prnn.h"
#include "rnn_key.h"
#include "tuning/tuning_db.h"

typedef struct {
    int shapes;   /* GPU and shape pairs of the tuning databases */
    int kernels;  /* distinct kernels their plans load */
    int compiled; /* compiled by NVRTC now (and stored) */
    int cached;   /* found in the cache */
    int failed;   /* could not be compiled */
    double compile_ms;
} prnn_warm_counts;

/*
 * Compiles into dir (NULL: the default cache directory) the kernels a
 * training plan of each shape of the tuning databases (the shipped one
 * and/or the user one, as lookups see them) loads on that entry's GPU, for
 * the entries of architecture sm. BAD_PARAM for an architecture without
 * limits in the table (prnn_warm_archs); the first compile failure's
 * status and log when a kernel could not be compiled (the others are
 * still compiled); ALLOC_FAILED. *out is filled in every case.
 */
prnnStatus_t prnn_plan_warm(const char *dir, int sm, int from_shipped, int from_user,
                            prnn_warm_counts *out);

/* The architectures prnn_plan_warm describes, ascending: at most max into
 * out; returns how many there are. */
int prnn_warm_archs(int *out, int max);

/* Entry e's GPU (its name and SM count) with architecture sm's limits, into
 * gs, for prnn_plan_kernel_set: 0, or -1 for an architecture prnn does not
 * describe. */
struct prnn_gpu_state;
int prnn_warm_describe(int sm, const prnn_tuning_entry *e, struct prnn_gpu_state *gs);

/* The key of the plans warm compiles for e's shape at batch: linear input,
 * default math, any algorithm, one layer (each layer runs the same
 * kernels). */
void prnn_warm_key(const prnn_tuning_entry *e, int batch, prnn_rnn_key *key);

#endif
