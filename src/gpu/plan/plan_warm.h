/*
 * Filling the kernel cache for an architecture without a GPU: what
 * prnnWarmKernelCache (prnn-cache warm, python -m prnn.cache warm) runs.
 */
#ifndef PRNN_PLAN_WARM_H
#define PRNN_PLAN_WARM_H

#include "prnn.h"
#include "rnn_key.h"
#include "tuning/tuning_db.h"

/* What prnn_plan_warm compiles for: the databases whose shapes it visits,
 * and the plans of which data (prnnCacheWarmSource_t's bits). */
typedef struct {
    int shipped_db, user_db;
    int packed, unpacked;
} prnn_warm_what;

/*
 * Compiles into dir (NULL: the default cache directory) the kernels a
 * training plan of each shape of the tuning databases (the shipped one
 * and/or the user one, as lookups see them, what->*_db) loads on that
 * entry's GPU, for the entries of architecture sm, for packed data and/or
 * unpacked data (what->packed, what->unpacked: prnn_warm_key's plans; an
 * unpacked one for each layer count up to PRNN_SEQ_IO_DISTINCT_LAYERS).
 * BAD_PARAM for an architecture without limits in the table
 * (prnn_warm_arch_known); the first compile failure's status and log when
 * a kernel could not be compiled (the others are still compiled);
 * ALLOC_FAILED. *out (prnn.h's counts; its structSize is
 * the caller's) is filled in every case.
 */
prnnStatus_t prnn_plan_warm(const char *dir, int sm, const prnn_warm_what *what,
                            prnnCacheWarmResult_t *out);

/* 1 when prnn_plan_warm describes architecture sm (90 for sm_90), else 0. */
int prnn_warm_arch_known(int sm);

/* Entry e's GPU (its name and SM count) with architecture sm's limits, into
 * gs, for prnn_plan_kernel_set: 0, or -1 for an architecture prnn does not
 * describe. */
struct prnn_gpu_state;
int prnn_warm_describe(int sm, const prnn_tuning_entry *e, struct prnn_gpu_state *gs);

/* The key of the plans warm compiles for e's shape at batch: linear input,
 * default math, any algorithm; packed data and one layer (each layer of
 * such a plan runs the same kernels). */
void prnn_warm_key(const prnn_tuning_entry *e, int batch, prnn_rnn_key *key);

#endif
