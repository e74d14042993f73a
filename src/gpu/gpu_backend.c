/*
 * The GPU backend's entry points (gpu_backend.h): each gets its plan (made
 * on first use; training kernels on the first training need) and hands it
 * to a runner, which only enqueues work.
 */
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "gpu/gpu_backend.h"
#include "gpu/gpu_backward.h"
#include "gpu/gpu_forward.h"
#include "gpu/gpu_state.h"
#include "gpu/plan_select.h"
#include "gpu/reserve_layout.h"
#include "gpu/sru_run.h"
#include "gpu/workspace_layout.h"

prnnStatus_t prnn_gpu_backend_create(struct prnn_gpu_state **out)
{
    return prnn_gpu_state_create(out);
}

void prnn_gpu_backend_destroy(struct prnn_gpu_state *gs)
{
    if (!gs)
        return;
    prnn_plan_free_all(gs->plans);
    gs->plans = NULL;
    prnn_gpu_state_destroy(gs);
}

prnnStatus_t prnn_gpu_workspace_bytes(const prnn_gpu_call *g, const prnn_rnn_problem *p,
                                      size_t *bytes)
{
    prnn_plan *plan;
    PRNN_TRY(prnn_plan_get(g, p->rnn, p->mini_batch, 0, &plan));
    *bytes = prnn_ws_bytes(plan, p);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_gpu_reserve_bytes(const prnn_gpu_call *g, const prnn_rnn_problem *p,
                                    size_t *bytes)
{
    prnn_plan *plan;
    PRNN_TRY(prnn_plan_get(g, p->rnn, p->mini_batch, 1, &plan));
    prnn_reserve_layout r;
    prnn_reserve_layout_compute(p, &r);
    *bytes = r.total;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_gpu_prepare(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                              int mini_batch)
{
    prnn_plan *plan;
    return prnn_plan_get(g, rnn, mini_batch, 0, &plan);
}

/* Blocks of a persistent tile (all batch groups of one direction). */
static int tile_blocks(const prnn_kernel_geometry *geom)
{
    return geom->tile.blocks * geom->tile.batch_groups;
}

prnnStatus_t prnn_gpu_plan_info(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                                int mini_batch, prnnRNNPlanInfo_t *info)
{
    prnn_plan *plan;
    PRNN_TRY(prnn_plan_get(g, rnn, mini_batch, 0, &plan));
    prnnRNNPlanInfo_t full;
    memset(&full, 0, sizeof(full));
    full.structSize = info->structSize;
    full.path = plan->path;
    full.configSource = plan->fwd.source;
    full.cubinSource = plan->cubin_source;
    if (plan->path == PRNN_PATH_SRU_SCAN) {
        const prnn_sru_kernels *k = &plan->sru;
        int per_row = (rnn->hidden + k->upt - 1) / k->upt;
        long long threads = (long long)prnn_rnn_dirs(rnn) * mini_batch * per_row;
        full.numBlocks = (int)((threads + k->threads - 1) / k->threads);
        full.threadsPerBlock = k->threads;
        full.unitsPerBlock = k->threads * k->upt;
    } else if (plan->path != PRNN_PATH_STANDARD) {
        full.numBlocks = tile_blocks(&plan->fwd.geom);
        full.threadsPerBlock = plan->fwd.geom.tile.threads;
        full.unitsPerBlock = plan->fwd.geom.units_per_block;
        full.tensorCores = plan->fwd.geom.tile.mma;
        full.residentFraction = plan->fwd.geom.resident_fraction;
    }
    full.compileMs = plan->compile_ms;
    full.planMs = plan->plan_ms;
    snprintf(full.config, sizeof(full.config), "%s", plan->fwd.config);
    snprintf(full.device, sizeof(full.device), "%s", g->gs->description);
    /* The backward-data pass: what runs once training is prepared, else the
     * tile chosen for it. */
    full.trainingPrepared = plan->training_loaded;
    if (plan->path == PRNN_PATH_SRU_SCAN) {
        full.backwardPath = PRNN_PATH_SRU_SCAN;
        full.backwardConfigSource = plan->bwd.source;
        full.backwardNumBlocks = full.numBlocks;
        snprintf(full.backwardConfig, sizeof(full.backwardConfig), "%s", plan->bwd.config);
        size_t n = info->structSize < sizeof(full) ? info->structSize : sizeof(full);
        memcpy(info, &full, n);
        return PRNN_STATUS_SUCCESS;
    }
    const prnn_kernel_geometry *bg = NULL;
    prnnConfigSource_t bsrc = PRNN_CONFIG_HEURISTIC;
    if (plan->training_loaded && plan->bwd_path != PRNN_PATH_STANDARD) {
        bg = &plan->bwd.geom;
        bsrc = plan->bwd.source;
    } else if (!plan->training_loaded && plan->n_bwd_cand) {
        bg = &plan->bwd_cand[0];
        bsrc = plan->bwd_cand_src[0];
    }
    full.backwardPath = bg ? (bg->kglb ? PRNN_PATH_PERSISTENT_STREAMED
                                       : PRNN_PATH_PERSISTENT_RESIDENT)
                           : PRNN_PATH_STANDARD;
    full.backwardConfigSource = bsrc;
    if (bg) {
        full.backwardNumBlocks = tile_blocks(bg);
        prnn_tile_config_format(&bg->tile, full.backwardConfig, sizeof(full.backwardConfig));
    } else {
        snprintf(full.backwardConfig, sizeof(full.backwardConfig), "standard");
    }
    size_t n = info->structSize < sizeof(full) ? info->structSize : sizeof(full);
    memcpy(info, &full, n);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_gpu_forward(const prnn_gpu_call *g, const prnn_rnn_problem *p, int training,
                              const prnn_forward_buffers *b)
{
    prnn_plan *plan;
    PRNN_TRY(prnn_plan_get(g, p->rnn, p->mini_batch, training, &plan));
    if (plan->path == PRNN_PATH_SRU_SCAN)
        return prnn_sru_forward_run(g, plan, p, training, b);
    return prnn_gpu_forward_run(g, plan, p, training, b);
}

prnnStatus_t prnn_gpu_backward_data(const prnn_gpu_call *g, const prnn_rnn_problem *p,
                                    const prnn_backward_data_buffers *b)
{
    prnn_plan *plan;
    PRNN_TRY(prnn_plan_get(g, p->rnn, p->mini_batch, 1, &plan));
    if (plan->path == PRNN_PATH_SRU_SCAN)
        return prnn_sru_backward_data_run(g, plan, p, b);
    return prnn_gpu_backward_data_run(g, plan, p, b);
}

prnnStatus_t prnn_gpu_backward_weights(const prnn_gpu_call *g, const prnn_rnn_problem *p,
                                       const prnn_backward_weights_buffers *b)
{
    prnn_plan *plan;
    PRNN_TRY(prnn_plan_get(g, p->rnn, p->mini_batch, 1, &plan));
    if (plan->path == PRNN_PATH_SRU_SCAN)
        return prnn_sru_backward_weights_run(g, plan, p, b);
    return prnn_gpu_backward_weights_run(g, plan, p, b);
}
