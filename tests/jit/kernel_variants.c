/*
 * Kernel variants compiled by test_nvrtc_compile for sm_75, 80, 86, 89, 90
 * and every newer architecture the NVRTC in use supports.
 *
 * Add one entry per distinct code path of a kernel (mode, data type, engine,
 * hand-off...), with the defines the planner would pass. Keep the list to
 * what can break separately: each entry costs one compile per architecture
 * (about 10) on a 2-core CI machine.
 */
#include <stddef.h>

#include "kernel_variants.h"

/* clang-format off */
const jit_kernel_variant jit_kernel_variants[] = {
    {"probe.cu", "prnn_probe", {NULL}, 0},
    {"probe.cu", "prnn_probe offset", {"PRNN_PROBE_OFFSET=3", NULL}, 0},

    /* rnn_persistent.cu: one variant per engine x data type x hand-off,
     * with weights split over registers, shared memory and global memory,
     * and batch groups with each hand-off.
     * (Shapes chosen by hand to satisfy the kernel's static_asserts; the
     * planner's real configurations come from src/tuning.) */
    {"rnn_persistent.cu", "lstm f32 fma lamport 2 groups",
     {"PRNN_DTYPE=0", "PRNN_MODE=2", "PRNN_H=256", "PRNN_BMAX=8",
      "PRNN_NBLK=8", "PRNN_UPB=32", "PRNN_THREADS=256", "PRNN_KSPLIT=8",
      "PRNN_BC=4", "PRNN_BGRP=2", "PRNN_GSTRIDE=4", "PRNN_MMA=0", "PRNN_HANDOFF=0", "PRNN_SKIP=0",
      "PRNN_LANES_K=1", "PRNN_KREG=16", "PRNN_KSMEM=16", "PRNN_RED_BUFS=2", "PRNN_PASS=0",
      "PRNN_TRAIN=0", NULL}, 0},
    {"rnn_persistent.cu", "gru f16 mma lamport 2 groups streamed",
     {"PRNN_DTYPE=2", "PRNN_MODE=3", "PRNN_H=512", "PRNN_BMAX=4",
      "PRNN_NBLK=8", "PRNN_UPB=64", "PRNN_THREADS=256", "PRNN_KSPLIT=8",
      "PRNN_BC=2", "PRNN_BGRP=2", "PRNN_GSTRIDE=2", "PRNN_MMA=1", "PRNN_HANDOFF=0", "PRNN_SKIP=0",
      "PRNN_LANES_K=1", "PRNN_KREG=2", "PRNN_KSMEM=0", "PRNN_RED_BUFS=1", "PRNN_PASS=0", "PRNN_TRAIN=0", NULL}, 80},
    {"rnn_persistent.cu", "gru f16 mma 128 blocks (exact activations) streamed",
     {"PRNN_DTYPE=2", "PRNN_MODE=3", "PRNN_H=2048", "PRNN_BMAX=4",
      "PRNN_NBLK=128", "PRNN_UPB=16", "PRNN_THREADS=256", "PRNN_KSPLIT=8",
      "PRNN_BC=2", "PRNN_BGRP=2", "PRNN_GSTRIDE=2", "PRNN_MMA=1", "PRNN_HANDOFF=0", "PRNN_SKIP=0",
      "PRNN_LANES_K=1", "PRNN_KREG=2", "PRNN_KSMEM=1", "PRNN_RED_BUFS=2", "PRNN_PASS=0", "PRNN_TRAIN=0", NULL}, 80},
    {"rnn_persistent.cu", "relu f64 fma counter streamed skip",
     {"PRNN_DTYPE=1", "PRNN_MODE=0", "PRNN_H=128", "PRNN_BMAX=2",
      "PRNN_NBLK=4", "PRNN_UPB=32", "PRNN_THREADS=128", "PRNN_KSPLIT=4",
      "PRNN_BC=2", "PRNN_BGRP=1", "PRNN_GSTRIDE=2", "PRNN_MMA=0", "PRNN_HANDOFF=1", "PRNN_SKIP=1",
      "PRNN_LANES_K=2", "PRNN_KREG=8", "PRNN_KSMEM=4", "PRNN_RED_BUFS=2", "PRNN_PASS=0", "PRNN_TRAIN=0", NULL}, 0},
    {"rnn_persistent.cu", "tanh bf16 fma counter 3 groups",
     {"PRNN_DTYPE=3", "PRNN_MODE=1", "PRNN_H=96", "PRNN_BMAX=3",
      "PRNN_NBLK=3", "PRNN_UPB=32", "PRNN_THREADS=64", "PRNN_KSPLIT=2",
      "PRNN_BC=1", "PRNN_BGRP=3", "PRNN_GSTRIDE=1", "PRNN_MMA=0", "PRNN_HANDOFF=1", "PRNN_SKIP=0",
      "PRNN_LANES_K=4", "PRNN_KREG=12", "PRNN_KSMEM=0", "PRNN_RED_BUFS=1", "PRNN_PASS=0", "PRNN_TRAIN=0", NULL}, 0},

    /* The local hand-off (handoff 2, the small-h engine): one block per
     * group, h_t through shared memory. */
    {"rnn_persistent.cu", "lstm f32 fma local 4 groups",
     {"PRNN_DTYPE=0", "PRNN_MODE=2", "PRNN_H=64", "PRNN_BMAX=8",
      "PRNN_NBLK=1", "PRNN_UPB=64", "PRNN_THREADS=256", "PRNN_KSPLIT=8",
      "PRNN_BC=2", "PRNN_BGRP=4", "PRNN_GSTRIDE=2", "PRNN_MMA=0", "PRNN_HANDOFF=2", "PRNN_SKIP=0",
      "PRNN_LANES_K=2", "PRNN_KREG=4", "PRNN_KSMEM=0", "PRNN_RED_BUFS=2", "PRNN_PASS=0",
      "PRNN_TRAIN=1", NULL}, 0},
    {"rnn_persistent.cu", "gru bf16 mma local 2 groups",
     {"PRNN_DTYPE=3", "PRNN_MODE=3", "PRNN_H=128", "PRNN_BMAX=16",
      "PRNN_NBLK=1", "PRNN_UPB=128", "PRNN_THREADS=256", "PRNN_KSPLIT=4",
      "PRNN_BC=8", "PRNN_BGRP=2", "PRNN_GSTRIDE=8", "PRNN_MMA=1", "PRNN_HANDOFF=2", "PRNN_SKIP=0",
      "PRNN_LANES_K=1", "PRNN_KREG=2", "PRNN_KSMEM=0", "PRNN_RED_BUFS=2", "PRNN_PASS=0",
      "PRNN_TRAIN=0", NULL}, 80},
    {"rnn_backward.cu", "bwd tanh f64 fma local skip",
     {"PRNN_DTYPE=1", "PRNN_MODE=1", "PRNN_H=48", "PRNN_BMAX=3",
      "PRNN_NBLK=1", "PRNN_UPB=48", "PRNN_THREADS=128", "PRNN_KSPLIT=4",
      "PRNN_BC=1", "PRNN_BGRP=3", "PRNN_GSTRIDE=1", "PRNN_MMA=0", "PRNN_HANDOFF=2",
      "PRNN_LANES_K=1", "PRNN_KREG=12", "PRNN_KSMEM=0", "PRNN_RED_BUFS=2", "PRNN_PASS=1",
      NULL}, 0},
    {"rnn_backward.cu", "bwd lstm f16 mma local",
     {"PRNN_DTYPE=2", "PRNN_MODE=2", "PRNN_H=64", "PRNN_BMAX=4",
      "PRNN_NBLK=1", "PRNN_UPB=64", "PRNN_THREADS=256", "PRNN_KSPLIT=8",
      "PRNN_BC=4", "PRNN_BGRP=1", "PRNN_GSTRIDE=4", "PRNN_MMA=1", "PRNN_HANDOFF=2",
      "PRNN_LANES_K=1", "PRNN_KREG=2", "PRNN_KSMEM=0", "PRNN_RED_BUFS=2", "PRNN_PASS=1",
      NULL}, 80},

    /* rnn_fused_step.cu (the step engine): every mode, every data type,
     * one and four rows per warp, SKIP_INPUT, training. */
    {"rnn_fused_step.cu", "step lstm f32 1 row train",
     {"PRNN_DTYPE=0", "PRNN_MODE=2", "PRNN_H=256", "PRNN_STEP_RPW=1", "PRNN_SKIP=0",
      "PRNN_TRAIN=1", NULL}, 0},
    {"rnn_fused_step.cu", "step gru bf16 4 rows skip",
     {"PRNN_DTYPE=3", "PRNN_MODE=3", "PRNN_H=100", "PRNN_STEP_RPW=4", "PRNN_SKIP=1",
      "PRNN_TRAIN=0", NULL}, 0},
    {"rnn_fused_step.cu", "step tanh f64 3 rows train",
     {"PRNN_DTYPE=1", "PRNN_MODE=1", "PRNN_H=48", "PRNN_STEP_RPW=3", "PRNN_SKIP=0",
      "PRNN_TRAIN=1", NULL}, 0},
    {"rnn_fused_step.cu", "step relu f16 2 rows",
     {"PRNN_DTYPE=2", "PRNN_MODE=0", "PRNN_H=1024", "PRNN_STEP_RPW=2", "PRNN_SKIP=0",
      "PRNN_TRAIN=0", NULL}, 0},

    /* Forward training (keeps act for the backward pass). */
    {"rnn_persistent.cu", "lstm f16 mma lamport train",
     {"PRNN_DTYPE=2", "PRNN_MODE=2", "PRNN_H=512", "PRNN_BMAX=4",
      "PRNN_NBLK=16", "PRNN_UPB=32", "PRNN_THREADS=256", "PRNN_KSPLIT=8",
      "PRNN_BC=4", "PRNN_BGRP=1", "PRNN_GSTRIDE=4", "PRNN_MMA=1", "PRNN_HANDOFF=0", "PRNN_SKIP=0",
      "PRNN_LANES_K=1", "PRNN_KREG=4", "PRNN_KSMEM=0", "PRNN_RED_BUFS=2", "PRNN_PASS=0",
      "PRNN_TRAIN=1", NULL}, 80},
    {"rnn_persistent.cu", "gru f32 fma counter skip train",
     {"PRNN_DTYPE=0", "PRNN_MODE=3", "PRNN_H=100", "PRNN_BMAX=5",
      "PRNN_NBLK=4", "PRNN_UPB=25", "PRNN_THREADS=128", "PRNN_KSPLIT=4",
      "PRNN_BC=2", "PRNN_BGRP=2", "PRNN_GSTRIDE=4", "PRNN_MMA=0", "PRNN_HANDOFF=1", "PRNN_SKIP=1",
      "PRNN_LANES_K=2", "PRNN_KREG=8", "PRNN_KSMEM=4", "PRNN_RED_BUFS=2", "PRNN_PASS=0",
      "PRNN_TRAIN=1", NULL}, 0},

    /* rnn_backward.cu: R^T, every mode, both engines and hand-offs, an odd
     * H under the mma engine (gates padded to pairs), streamed k-steps. */
    {"rnn_backward.cu", "bwd lstm f32 fma lamport 2 groups streamed",
     {"PRNN_DTYPE=0", "PRNN_MODE=2", "PRNN_H=256", "PRNN_BMAX=8",
      "PRNN_NBLK=8", "PRNN_UPB=32", "PRNN_THREADS=256", "PRNN_KSPLIT=8",
      "PRNN_BC=4", "PRNN_BGRP=2", "PRNN_GSTRIDE=4", "PRNN_MMA=0", "PRNN_HANDOFF=0",
      "PRNN_LANES_K=1", "PRNN_KREG=16", "PRNN_KSMEM=16", "PRNN_RED_BUFS=2", "PRNN_PASS=1",
      NULL}, 0},
    {"rnn_backward.cu", "bwd gru f16 mma lamport odd H streamed",
     {"PRNN_DTYPE=2", "PRNN_MODE=3", "PRNN_H=101", "PRNN_BMAX=4",
      "PRNN_NBLK=4", "PRNN_UPB=26", "PRNN_THREADS=128", "PRNN_KSPLIT=4",
      "PRNN_BC=2", "PRNN_BGRP=1", "PRNN_GSTRIDE=4", "PRNN_MMA=1", "PRNN_HANDOFF=0",
      "PRNN_LANES_K=1", "PRNN_KREG=2", "PRNN_KSMEM=2", "PRNN_RED_BUFS=2", "PRNN_PASS=1",
      NULL}, 80},
    {"rnn_backward.cu", "bwd relu f64 fma counter 3 groups",
     {"PRNN_DTYPE=1", "PRNN_MODE=0", "PRNN_H=72", "PRNN_BMAX=3",
      "PRNN_NBLK=3", "PRNN_UPB=24", "PRNN_THREADS=128", "PRNN_KSPLIT=4",
      "PRNN_BC=1", "PRNN_BGRP=3", "PRNN_GSTRIDE=1", "PRNN_MMA=0", "PRNN_HANDOFF=1",
      "PRNN_LANES_K=2", "PRNN_KREG=4", "PRNN_KSMEM=2", "PRNN_RED_BUFS=1", "PRNN_PASS=1",
      NULL}, 0},
    {"rnn_backward.cu", "bwd tanh bf16 fma counter",
     {"PRNN_DTYPE=3", "PRNN_MODE=1", "PRNN_H=96", "PRNN_BMAX=3",
      "PRNN_NBLK=3", "PRNN_UPB=32", "PRNN_THREADS=64", "PRNN_KSPLIT=2",
      "PRNN_BC=1", "PRNN_BGRP=1", "PRNN_GSTRIDE=3", "PRNN_MMA=0", "PRNN_HANDOFF=1",
      "PRNN_LANES_K=4", "PRNN_KREG=12", "PRNN_KSMEM=0", "PRNN_RED_BUFS=1", "PRNN_PASS=1",
      NULL}, 0},
    {"rnn_backward.cu", "bwd lstm bf16 mma counter",
     {"PRNN_DTYPE=3", "PRNN_MODE=2", "PRNN_H=128", "PRNN_BMAX=16",
      "PRNN_NBLK=8", "PRNN_UPB=16", "PRNN_THREADS=256", "PRNN_KSPLIT=8",
      "PRNN_BC=8", "PRNN_BGRP=1", "PRNN_GSTRIDE=16", "PRNN_MMA=1", "PRNN_HANDOFF=1",
      "PRNN_LANES_K=1", "PRNN_KREG=4", "PRNN_KSMEM=0", "PRNN_RED_BUFS=2", "PRNN_PASS=1",
      NULL}, 80},

    /* rnn_backward.cu with the partial-sum hand-off (PRNN_PSUM): both
     * engines and hand-offs, fp64, an odd batch chunk under the mma engine
     * (rows travel in pairs), streamed k-steps. */
    {"rnn_backward.cu", "bwd psum lstm f32 fma lamport 2 groups streamed",
     {"PRNN_DTYPE=0", "PRNN_MODE=2", "PRNN_H=256", "PRNN_BMAX=8",
      "PRNN_NBLK=8", "PRNN_UPB=32", "PRNN_THREADS=256", "PRNN_KSPLIT=1",
      "PRNN_BC=4", "PRNN_BGRP=2", "PRNN_GSTRIDE=4", "PRNN_MMA=0", "PRNN_HANDOFF=0",
      "PRNN_LANES_K=1", "PRNN_KREG=64", "PRNN_KSMEM=32", "PRNN_RED_BUFS=2", "PRNN_PASS=1",
      "PRNN_PSUM=1", NULL}, 0},
    {"rnn_backward.cu", "bwd psum gru f16 mma counter 2 groups streamed",
     {"PRNN_DTYPE=2", "PRNN_MODE=3", "PRNN_H=512", "PRNN_BMAX=4",
      "PRNN_NBLK=8", "PRNN_UPB=64", "PRNN_THREADS=256", "PRNN_KSPLIT=1",
      "PRNN_BC=2", "PRNN_BGRP=2", "PRNN_GSTRIDE=2", "PRNN_MMA=1", "PRNN_HANDOFF=1",
      "PRNN_LANES_K=1", "PRNN_KREG=4", "PRNN_KSMEM=4", "PRNN_RED_BUFS=1", "PRNN_PASS=1",
      "PRNN_PSUM=1", NULL}, 80},
    {"rnn_backward.cu", "bwd psum tanh f64 fma counter",
     {"PRNN_DTYPE=1", "PRNN_MODE=1", "PRNN_H=128", "PRNN_BMAX=2",
      "PRNN_NBLK=4", "PRNN_UPB=32", "PRNN_THREADS=128", "PRNN_KSPLIT=1",
      "PRNN_BC=2", "PRNN_BGRP=1", "PRNN_GSTRIDE=2", "PRNN_MMA=0", "PRNN_HANDOFF=1",
      "PRNN_LANES_K=1", "PRNN_KREG=16", "PRNN_KSMEM=8", "PRNN_RED_BUFS=2", "PRNN_PASS=1",
      "PRNN_PSUM=1", NULL}, 0},
    {"rnn_backward.cu", "bwd psum lstm bf16 mma lamport odd chunk",
     {"PRNN_DTYPE=3", "PRNN_MODE=2", "PRNN_H=256", "PRNN_BMAX=6",
      "PRNN_NBLK=16", "PRNN_UPB=16", "PRNN_THREADS=256", "PRNN_KSPLIT=1",
      "PRNN_BC=3", "PRNN_BGRP=1", "PRNN_GSTRIDE=6", "PRNN_MMA=1", "PRNN_HANDOFF=0",
      "PRNN_LANES_K=1", "PRNN_KREG=4", "PRNN_KSMEM=0", "PRNN_RED_BUFS=2", "PRNN_PASS=1",
      "PRNN_PSUM=1", NULL}, 80},

    /* rnn_setup.cu and rnn_train.cu: the latter per data type. */
    {"rnn_setup.cu", "setup", {NULL}, 0},
    {"rnn_train.cu", "train f32", {"PRNN_DTYPE=0", NULL}, 0},
    {"rnn_train.cu", "train f64", {"PRNN_DTYPE=1", NULL}, 0},
    {"rnn_train.cu", "train f16", {"PRNN_DTYPE=2", NULL}, 0},
    {"rnn_train.cu", "train bf16", {"PRNN_DTYPE=3", NULL}, 0},

    /* sru_scan.cu: every data type once, odd H and H not a multiple of the
     * units per thread, one and several units per thread; the vector path
     * (H a multiple of the units per thread) with float2, float4, double2
     * and two double2, and with the 16-bit types (U and c as float4). */
    {"sru_scan.cu", "sru f32 upt 1 depth 4",
     {"PRNN_DTYPE=0", "PRNN_H=256", "PRNN_SRU_THREADS=128", "PRNN_SRU_UPT=1",
      "PRNN_SRU_DEPTH=4", NULL}, 0},
    {"sru_scan.cu", "sru f64 odd H upt 2 depth 1",
     {"PRNN_DTYPE=1", "PRNN_H=37", "PRNN_SRU_THREADS=64", "PRNN_SRU_UPT=2",
      "PRNN_SRU_DEPTH=1", NULL}, 0},
    {"sru_scan.cu", "sru f16 upt 4 depth 2",
     {"PRNN_DTYPE=2", "PRNN_H=1023", "PRNN_SRU_THREADS=256", "PRNN_SRU_UPT=4",
      "PRNN_SRU_DEPTH=2", NULL}, 0},
    {"sru_scan.cu", "sru bf16 upt 2 depth 8",
     {"PRNN_DTYPE=3", "PRNN_H=512", "PRNN_SRU_THREADS=128", "PRNN_SRU_UPT=2",
      "PRNN_SRU_DEPTH=8", NULL}, 0},
    {"sru_scan.cu", "sru f32 vector upt 4 depth 2",
     {"PRNN_DTYPE=0", "PRNN_H=256", "PRNN_SRU_THREADS=128", "PRNN_SRU_UPT=4",
      "PRNN_SRU_DEPTH=2", NULL}, 0},
    {"sru_scan.cu", "sru f64 vector upt 2 depth 4",
     {"PRNN_DTYPE=1", "PRNN_H=64", "PRNN_SRU_THREADS=64", "PRNN_SRU_UPT=2",
      "PRNN_SRU_DEPTH=4", NULL}, 0},
    {"sru_scan.cu", "sru f64 vector upt 4 depth 1",
     {"PRNN_DTYPE=1", "PRNN_H=64", "PRNN_SRU_THREADS=32", "PRNN_SRU_UPT=4",
      "PRNN_SRU_DEPTH=1", NULL}, 0},
    {"sru_scan.cu", "sru f16 vector upt 4 depth 2",
     {"PRNN_DTYPE=2", "PRNN_H=256", "PRNN_SRU_THREADS=128", "PRNN_SRU_UPT=4",
      "PRNN_SRU_DEPTH=2", NULL}, 0},
    {"sru_scan.cu", "sru bf16 vector upt 8 depth 2",
     {"PRNN_DTYPE=3", "PRNN_H=512", "PRNN_SRU_THREADS=64", "PRNN_SRU_UPT=8",
      "PRNN_SRU_DEPTH=2", NULL}, 0},

    /* rnn_step.cu: every mode and every data type once. */
    {"rnn_step.cu", "step relu f32 skip",
     {"PRNN_DTYPE=0", "PRNN_MODE=0", "PRNN_H=200", "PRNN_SKIP=1", NULL}, 0},
    {"rnn_step.cu", "step tanh f64",
     {"PRNN_DTYPE=1", "PRNN_MODE=1", "PRNN_H=64", "PRNN_SKIP=0", NULL}, 0},
    {"rnn_step.cu", "step lstm f16",
     {"PRNN_DTYPE=2", "PRNN_MODE=2", "PRNN_H=1024", "PRNN_SKIP=0", NULL}, 0},
    {"rnn_step.cu", "step gru bf16",
     {"PRNN_DTYPE=3", "PRNN_MODE=3", "PRNN_H=33", "PRNN_SKIP=0", NULL}, 0},
};
/* clang-format on */

const int jit_kernel_variant_count =
    (int)(sizeof(jit_kernel_variants) / sizeof(jit_kernel_variants[0]));
