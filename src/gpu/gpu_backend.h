/*
 * The GPU backend as the API layer sees it: sizes, planning, and the compute
 * calls, after the API layer has validated every argument.
 */
#ifndef PRNN_GPU_BACKEND_H
#define PRNN_GPU_BACKEND_H

#include "handle.h"
#include "rnn_problem.h"

prnnStatus_t prnn_gpu_workspace_bytes(struct prnnContext *h,
                                      const prnn_rnn_problem *p, size_t *bytes);
prnnStatus_t prnn_gpu_reserve_bytes(struct prnnContext *h,
                                    const prnn_rnn_problem *p, size_t *bytes);

prnnStatus_t prnn_gpu_prepare(struct prnnContext *h,
                              const struct prnnRNNStruct *rnn, int mini_batch);
prnnStatus_t prnn_gpu_plan_info(struct prnnContext *h,
                                const struct prnnRNNStruct *rnn, int mini_batch,
                                prnnRNNPlanInfo_t *info);

prnnStatus_t prnn_gpu_forward(struct prnnContext *h, const prnn_rnn_problem *p,
                              int training, const prnn_forward_buffers *b);

prnnStatus_t prnn_gpu_backward_data(struct prnnContext *h,
                                    const prnn_rnn_problem *p);
prnnStatus_t prnn_gpu_backward_weights(struct prnnContext *h,
                                       const prnn_rnn_problem *p);

#endif
