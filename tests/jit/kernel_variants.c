/*
 * Kernel variants compiled by test_nvrtc_compile for sm_75, 80, 86, 89, 90
 * and every newer architecture the NVRTC in use supports.
 *
 * Add one entry per distinct code path of a kernel (mode, data type, engine,
 * hand-off...), with the defines the planner would pass. Keep the list to
 * what can break separately: each entry costs one compile per architecture
 * (about 10) on a 2-core CI machine.
 *
 * The persistent kernels' entries are a shape and a tile: the planner's own
 * code turns them into defines (jit_persistent_variant_build), so they are
 * the defines it would pass, cross-checks (PRNN_SMEM_BYTES ...) included,
 * under the names the tile field table gives them.
 */
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "gpu/engines/persistent/persistent.h"
#include "kernel_variants.h"

/* clang-format off */
const jit_kernel_variant jit_kernel_variants[] = {
    {"probe.cu", "prnn_probe", {NULL}, 0},
    {"probe.cu", "prnn_probe offset", {"PRNN_PROBE_OFFSET=3", NULL}, 0},

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

    /* rnn_tiny.cu (the tiny-h engine): one gate per lane (LSTM, GRU's
     * idle fourth lane) and the quad's split inputs (TANH, RELU), every
     * data type, H not a multiple of 8 (a partial last warp), 1 to 8 rows,
     * SKIP_INPUT, training; packed rows alone (PRNN_CALLER_ROWS 0, a plan
     * of packed data's) or the caller's too (the default, 1), with the
     * steps of one layer (PRNN_IO_LAYOUTS 8: x and y in place), two (6: x,
     * y) or three (7: x, y, packed; prnn_seq_io_kernel_layouts). */
    {"rnn_tiny.cu", "tiny lstm f32 1 row",
     {"PRNN_DTYPE=0", "PRNN_MODE=2", "PRNN_H=64", "PRNN_TINY_ROWS=1", "PRNN_TINY_BLOCKS_PER_SM=1",
      "PRNN_SKIP=0",
      "PRNN_TRAIN=0", "PRNN_CALLER_ROWS=0", NULL}, 0},
    {"rnn_tiny.cu", "tiny gru f16 4 rows train",
     {"PRNN_DTYPE=2", "PRNN_MODE=3", "PRNN_H=48", "PRNN_TINY_ROWS=4", "PRNN_TINY_BLOCKS_PER_SM=1",
      "PRNN_SKIP=0",
      "PRNN_TRAIN=1", "PRNN_IO_LAYOUTS=8", NULL}, 0},
    {"rnn_tiny.cu", "tiny tanh f64 2 rows skip",
     {"PRNN_DTYPE=1", "PRNN_MODE=1", "PRNN_H=37", "PRNN_TINY_ROWS=2", "PRNN_TINY_BLOCKS_PER_SM=1",
      "PRNN_SKIP=1",
      "PRNN_TRAIN=0", "PRNN_CALLER_ROWS=0", NULL}, 0},
    {"rnn_tiny.cu", "tiny relu bf16 8 rows train",
     {"PRNN_DTYPE=3", "PRNN_MODE=0", "PRNN_H=12", "PRNN_TINY_ROWS=8", "PRNN_TINY_BLOCKS_PER_SM=1",
      "PRNN_SKIP=0",
      "PRNN_TRAIN=1", "PRNN_IO_LAYOUTS=7", NULL}, 0},
    /* one gate: a lane's inputs in whole chunks of four (rnn_tiny.cuh: H a
     * multiple of 16, no bound check), the most rows */
    {"rnn_tiny.cu", "tiny tanh f32 H 64 8 rows train",
     {"PRNN_DTYPE=0", "PRNN_MODE=1", "PRNN_H=64", "PRNN_TINY_ROWS=8", "PRNN_TINY_BLOCKS_PER_SM=1",
      "PRNN_SKIP=0",
      "PRNN_TRAIN=1", "PRNN_IO_LAYOUTS=8", NULL}, 0},
    /* two blocks a multiprocessor (tiny_engine.c's layout at B 256): the
     * launch bounds' register budget */
    {"rnn_tiny.cu", "tiny tanh f32 H 64 2 blocks an SM",
     {"PRNN_DTYPE=0", "PRNN_MODE=1", "PRNN_H=64", "PRNN_TINY_ROWS=1", "PRNN_TINY_BLOCKS_PER_SM=2",
      "PRNN_SKIP=0", "PRNN_TRAIN=1", "PRNN_IO_LAYOUTS=6", NULL}, 0},
    /* rnn_tiny_backward.cu: the same lane layouts, R's columns */
    {"rnn_tiny_backward.cu", "tiny bwd lstm f16 8 rows",
     {"PRNN_DTYPE=2", "PRNN_MODE=2", "PRNN_H=64", "PRNN_TINY_ROWS=8", "PRNN_TINY_BLOCKS_PER_SM=1",
      "PRNN_CALLER_ROWS=0", NULL}, 0},
    {"rnn_tiny_backward.cu", "tiny bwd gru f32 3 rows",
     {"PRNN_DTYPE=0", "PRNN_MODE=3", "PRNN_H=40", "PRNN_TINY_ROWS=3", "PRNN_TINY_BLOCKS_PER_SM=1",
      NULL}, 0},
    {"rnn_tiny_backward.cu", "tiny bwd relu f64 2 rows",
     {"PRNN_DTYPE=1", "PRNN_MODE=0", "PRNN_H=37", "PRNN_TINY_ROWS=2", "PRNN_TINY_BLOCKS_PER_SM=1",
      NULL}, 0},
    {"rnn_tiny_backward.cu", "tiny bwd tanh bf16 1 row",
     {"PRNN_DTYPE=3", "PRNN_MODE=1", "PRNN_H=64", "PRNN_TINY_ROWS=1", "PRNN_TINY_BLOCKS_PER_SM=1",
      NULL}, 0},
    {"rnn_tiny_backward.cu", "tiny bwd gru bf16 H 32 3 blocks an SM",
     {"PRNN_DTYPE=3", "PRNN_MODE=3", "PRNN_H=32", "PRNN_TINY_ROWS=1",
      "PRNN_TINY_BLOCKS_PER_SM=3", NULL}, 0},
    {"rnn_tiny_backward.cu", "tiny bwd tanh f32 H 48 8 rows",
     {"PRNN_DTYPE=0", "PRNN_MODE=1", "PRNN_H=48", "PRNN_TINY_ROWS=8", "PRNN_TINY_BLOCKS_PER_SM=1",
      NULL}, 0},

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
    /* The shared-memory ring's depths past the register ring's (sm_80 and
     * newer; the variants above compile it too, at their depths, with every
     * piece size): the heuristic's H100 choice, 16-bit values staged through
     * registers (odd H), the deepest ring. Few: SRU's variants are most of
     * this test's time. */
    {"sru_scan.cu", "sru f32 vector upt 2 depth 16",
     {"PRNN_DTYPE=0", "PRNN_H=512", "PRNN_SRU_THREADS=128", "PRNN_SRU_UPT=2",
      "PRNN_SRU_DEPTH=16", NULL}, 80},
    {"sru_scan.cu", "sru f16 odd H upt 2 depth 16",
     {"PRNN_DTYPE=2", "PRNN_H=37", "PRNN_SRU_THREADS=64", "PRNN_SRU_UPT=2",
      "PRNN_SRU_DEPTH=16", NULL}, 80},
    {"sru_scan.cu", "sru f32 upt 1 depth 32",
     {"PRNN_DTYPE=0", "PRNN_H=1000", "PRNN_SRU_THREADS=128", "PRNN_SRU_UPT=1",
      "PRNN_SRU_DEPTH=32", NULL}, 80},

    /* rnn_step.cu: every mode and every data type once. */
    {"rnn_step.cu", "step relu f32 skip",
     {"PRNN_DTYPE=0", "PRNN_MODE=0", "PRNN_H=200", "PRNN_SKIP=1", NULL}, 0},
    {"rnn_step.cu", "step tanh f64",
     {"PRNN_DTYPE=1", "PRNN_MODE=1", "PRNN_H=64", "PRNN_SKIP=0", NULL}, 0},
    {"rnn_step.cu", "step lstm f16",
     {"PRNN_DTYPE=2", "PRNN_MODE=2", "PRNN_H=1024", "PRNN_SKIP=0", NULL}, 0},
    {"rnn_step.cu", "step gru bf16",
     {"PRNN_DTYPE=3", "PRNN_MODE=3", "PRNN_H=33", "PRNN_SKIP=0", NULL}, 0},

    /* LSTM cell clipping (PRNN_CLIP), both NaN rules: the standard and the
     * step engine's kernels (the persistent ones below). */
    {"rnn_step.cu", "step lstm f32 clip",
     {"PRNN_DTYPE=0", "PRNN_MODE=2", "PRNN_CLIP=1", "PRNN_H=96", "PRNN_SKIP=0", NULL}, 0},
    /* LSTM projection (PRNN_PROJ): the standard engine's kernels, with
     * clipping, and SKIP_INPUT's variant */
    {"rnn_step.cu", "step lstm f16 proj",
     {"PRNN_DTYPE=2", "PRNN_MODE=2", "PRNN_H=1024", "PRNN_PROJ=256", "PRNN_SKIP=0", NULL}, 0},
    {"rnn_step.cu", "step lstm bf16 proj clip skip",
     {"PRNN_DTYPE=3", "PRNN_MODE=2", "PRNN_CLIP=2", "PRNN_H=96", "PRNN_PROJ=33", "PRNN_SKIP=1",
      NULL}, 0},
    {"rnn_step.cu", "step lstm f64 proj",
     {"PRNN_DTYPE=1", "PRNN_MODE=2", "PRNN_H=48", "PRNN_PROJ=7", "PRNN_SKIP=0", NULL}, 0},
    {"rnn_fused_step.cu", "step lstm f64 clip nan train",
     {"PRNN_DTYPE=1", "PRNN_MODE=2", "PRNN_CLIP=2", "PRNN_H=64", "PRNN_STEP_RPW=2",
      "PRNN_SKIP=0", "PRNN_TRAIN=1", NULL}, 0},
};
/* clang-format on */

const int jit_kernel_variant_count =
    (int)(sizeof(jit_kernel_variants) / sizeof(jit_kernel_variants[0]));

/* clang-format off */
const jit_persistent_variant jit_persistent_variants[] = {
    /* rnn_persistent.cu: one variant per engine x data type x hand-off,
     * with weights split over registers, shared memory and global memory,
     * and batch groups with each hand-off. Where the shared-memory slots
     * fill a block's 227 KB, one partial-sum buffer is left
     * (PRNN_RED_BUFS 1): the second and fifth here, and three backward
     * ones below (relu f64, tanh bf16, psum gru f16). */
    {"lstm f32 fma lamport 2 groups",
     PRNN_LSTM, PRNN_DATA_FLOAT, 256, 8, 1, PRNN_PASS_FORWARD, 0, 0,
     "blocks=8 threads=256 ksplit=8 lanes_k=1 batch_chunk=4 reg_slots=64 smem_slots=64 mma=0 "
     "handoff=0 batch_groups=2", 0, 0, 0},
    {"gru f16 mma lamport 2 groups streamed",
     PRNN_GRU, PRNN_DATA_HALF, 512, 4, 1, PRNN_PASS_FORWARD, 0, 0,
     "blocks=8 threads=256 ksplit=1 lanes_k=1 batch_chunk=2 reg_slots=8 smem_slots=160 mma=1 "
     "handoff=0 batch_groups=2", 0, 0, 0},
    {"gru f16 mma 128 blocks (exact activations) streamed",
     PRNN_GRU, PRNN_DATA_HALF, 2048, 4, 1, PRNN_PASS_FORWARD, 0, 0,
     "blocks=128 threads=256 ksplit=8 lanes_k=1 batch_chunk=2 reg_slots=24 smem_slots=12 mma=1 "
     "handoff=0 batch_groups=2", 0, 0, 0},
    {"relu f64 fma counter streamed skip",
     PRNN_RNN_RELU, PRNN_DATA_DOUBLE, 128, 2, 1, PRNN_PASS_FORWARD, 1, 0,
     "blocks=4 threads=128 ksplit=4 lanes_k=2 batch_chunk=2 reg_slots=32 smem_slots=16 mma=0 "
     "handoff=1 batch_groups=1", 0, 0, 0},
    {"tanh bf16 fma counter 3 groups",
     PRNN_RNN_TANH, PRNN_DATA_BFLOAT16, 512, 3, 1, PRNN_PASS_FORWARD, 0, 0,
     "blocks=4 threads=64 ksplit=2 lanes_k=4 batch_chunk=1 reg_slots=128 smem_slots=896 mma=0 "
     "handoff=1 batch_groups=3", 0, 0, 0},

    /* The local hand-off (handoff 2, the small-h engine): one block per
     * group, h_t through shared memory. */
    {"lstm f32 fma local 4 groups",
     PRNN_LSTM, PRNN_DATA_FLOAT, 64, 8, 1, PRNN_PASS_FORWARD, 0, 1,
     "blocks=1 threads=256 ksplit=8 lanes_k=2 batch_chunk=2 reg_slots=64 smem_slots=0 mma=0 "
     "handoff=2 batch_groups=4", 0, 0, 0},
    {"gru bf16 mma local 2 groups",
     PRNN_GRU, PRNN_DATA_BFLOAT16, 128, 16, 1, PRNN_PASS_FORWARD, 0, 0,
     "blocks=1 threads=256 ksplit=4 lanes_k=1 batch_chunk=8 reg_slots=96 smem_slots=0 mma=1 "
     "handoff=2 batch_groups=2", 0, 0, 0},
    {"bwd tanh f64 fma local skip",
     PRNN_RNN_TANH, PRNN_DATA_DOUBLE, 48, 3, 1, PRNN_PASS_BACKWARD_DATA, 0, 0,
     "blocks=1 threads=128 ksplit=4 lanes_k=1 batch_chunk=1 reg_slots=48 smem_slots=0 mma=0 "
     "handoff=2 batch_groups=3", 0, 0, 0},
    {"bwd lstm f16 mma local",
     PRNN_LSTM, PRNN_DATA_HALF, 64, 4, 1, PRNN_PASS_BACKWARD_DATA, 0, 0,
     "blocks=1 threads=256 ksplit=8 lanes_k=1 batch_chunk=4 reg_slots=32 smem_slots=0 mma=1 "
     "handoff=2 batch_groups=1", 0, 0, 0},

    /* Forward training (keeps act for the backward pass). */
    {"lstm f16 mma lamport train",
     PRNN_LSTM, PRNN_DATA_HALF, 512, 4, 1, PRNN_PASS_FORWARD, 0, 1,
     "blocks=16 threads=256 ksplit=8 lanes_k=1 batch_chunk=4 reg_slots=128 smem_slots=0 mma=1 "
     "handoff=0 batch_groups=1", 0, 0, 0},
    {"gru f32 fma counter skip train",
     PRNN_GRU, PRNN_DATA_FLOAT, 100, 5, 1, PRNN_PASS_FORWARD, 1, 1,
     "blocks=4 threads=128 ksplit=4 lanes_k=2 batch_chunk=2 reg_slots=40 smem_slots=20 mma=0 "
     "handoff=1 batch_groups=2", 0, 0, 0},
    /* LSTM cell clipping (the sixth act column), both NaN rules */
    {"lstm f16 mma lamport train clip",
     PRNN_LSTM, PRNN_DATA_HALF, 512, 4, 1, PRNN_PASS_FORWARD, 0, 1,
     "blocks=16 threads=256 ksplit=8 lanes_k=1 batch_chunk=4 reg_slots=128 smem_slots=0 mma=1 "
     "handoff=0 batch_groups=1", 1, 0, 0},
    {"bwd lstm f32 fma counter clip nan",
     PRNN_LSTM, PRNN_DATA_FLOAT, 256, 8, 1, PRNN_PASS_BACKWARD_DATA, 0, 0,
     "blocks=8 threads=256 ksplit=8 lanes_k=1 batch_chunk=4 reg_slots=16 smem_slots=16 mma=0 "
     "handoff=1 batch_groups=2", 2, 0, 0},

    /* rnn_backward.cu: R^T, every mode, both engines and hand-offs, an odd
     * H under the mma engine (gates padded to pairs), streamed k-steps. */
    {"bwd lstm f32 fma lamport 2 groups streamed",
     PRNN_LSTM, PRNN_DATA_FLOAT, 256, 8, 1, PRNN_PASS_BACKWARD_DATA, 0, 0,
     "blocks=8 threads=256 ksplit=8 lanes_k=1 batch_chunk=4 reg_slots=16 smem_slots=16 mma=0 "
     "handoff=0 batch_groups=2", 0, 0, 0},
    {"bwd gru f16 mma lamport odd H streamed",
     PRNN_GRU, PRNN_DATA_HALF, 101, 4, 1, PRNN_PASS_BACKWARD_DATA, 0, 0,
     "blocks=4 threads=128 ksplit=4 lanes_k=1 batch_chunk=2 reg_slots=16 smem_slots=16 mma=1 "
     "handoff=0 batch_groups=1", 0, 0, 0},
    {"bwd relu f64 fma counter 3 groups",
     PRNN_RNN_RELU, PRNN_DATA_DOUBLE, 512, 3, 1, PRNN_PASS_BACKWARD_DATA, 0, 0,
     "blocks=8 threads=128 ksplit=4 lanes_k=2 batch_chunk=1 reg_slots=8 smem_slots=440 mma=0 "
     "handoff=1 batch_groups=3", 0, 0, 0},
    {"bwd tanh bf16 fma counter",
     PRNN_RNN_TANH, PRNN_DATA_BFLOAT16, 512, 3, 1, PRNN_PASS_BACKWARD_DATA, 0, 0,
     "blocks=4 threads=64 ksplit=2 lanes_k=4 batch_chunk=1 reg_slots=128 smem_slots=896 mma=0 "
     "handoff=1 batch_groups=1", 0, 0, 0},
    {"bwd lstm bf16 mma counter",
     PRNN_LSTM, PRNN_DATA_BFLOAT16, 128, 16, 1, PRNN_PASS_BACKWARD_DATA, 0, 0,
     "blocks=8 threads=256 ksplit=8 lanes_k=1 batch_chunk=8 reg_slots=16 smem_slots=0 mma=1 "
     "handoff=1 batch_groups=1", 0, 0, 0},

    /* rnn_backward.cu with the partial-sum hand-off (PRNN_PSUM): both
     * engines and hand-offs, fp64, an odd batch chunk under the mma engine
     * (rows travel in pairs), streamed k-steps. */
    {"bwd psum lstm f32 fma lamport 2 groups streamed",
     PRNN_LSTM, PRNN_DATA_FLOAT, 256, 8, 1, PRNN_PASS_BACKWARD_DATA, 0, 0,
     "blocks=8 threads=256 ksplit=1 lanes_k=1 batch_chunk=4 reg_slots=64 smem_slots=32 mma=0 "
     "handoff=0 batch_groups=2 partial_sums=1", 0, 0, 0},
    {"bwd psum gru f16 mma counter 2 groups streamed",
     PRNN_GRU, PRNN_DATA_HALF, 384, 4, 1, PRNN_PASS_BACKWARD_DATA, 0, 0,
     "blocks=2 threads=256 ksplit=1 lanes_k=1 batch_chunk=2 reg_slots=12 smem_slots=216 mma=1 "
     "handoff=1 batch_groups=2 partial_sums=1", 0, 0, 0},
    {"bwd psum tanh f64 fma counter",
     PRNN_RNN_TANH, PRNN_DATA_DOUBLE, 128, 2, 1, PRNN_PASS_BACKWARD_DATA, 0, 0,
     "blocks=4 threads=128 ksplit=1 lanes_k=1 batch_chunk=2 reg_slots=32 smem_slots=16 mma=0 "
     "handoff=1 batch_groups=1 partial_sums=1", 0, 0, 0},
    {"bwd psum lstm bf16 mma lamport odd chunk",
     PRNN_LSTM, PRNN_DATA_BFLOAT16, 256, 6, 1, PRNN_PASS_BACKWARD_DATA, 0, 0,
     "blocks=16 threads=256 ksplit=1 lanes_k=1 batch_chunk=3 reg_slots=32 smem_slots=0 mma=1 "
     "handoff=0 batch_groups=1 partial_sums=1", 0, 0, 0},

    /* a plan of unpacked data's (PRNN_CALLER_ROWS): the caller's rows and
     * order of sequences in both kernels, both engines, several chunks of
     * a group (the order held per chunk); the forward kernel's steps for
     * each combination of rows (three layers: x's, y's, packed; one layer:
     * both) */
    {"lstm f32 fma lamport 2 groups caller rows 3 layers",
     PRNN_LSTM, PRNN_DATA_FLOAT, 256, 8, 1, PRNN_PASS_FORWARD, 0, 1,
     "blocks=8 threads=256 ksplit=8 lanes_k=1 batch_chunk=2 reg_slots=64 smem_slots=64 mma=0 "
     "handoff=0 batch_groups=2", 0, 1, 3},
    {"gru f16 mma counter caller rows train",
     PRNN_GRU, PRNN_DATA_HALF, 128, 8, 1, PRNN_PASS_FORWARD, 0, 1,
     "blocks=4 threads=256 ksplit=8 lanes_k=1 batch_chunk=2 reg_slots=0 smem_slots=0 mma=1 "
     "handoff=1 batch_groups=1", 0, 1, 1},
    {"bwd gru f16 mma counter caller rows",
     PRNN_GRU, PRNN_DATA_HALF, 128, 8, 1, PRNN_PASS_BACKWARD_DATA, 0, 0,
     "blocks=4 threads=256 ksplit=8 lanes_k=1 batch_chunk=2 reg_slots=16 smem_slots=0 mma=1 "
     "handoff=1 batch_groups=1", 0, 1, 0},
};
/* clang-format on */

const int jit_persistent_variant_count =
    (int)(sizeof(jit_persistent_variants) / sizeof(jit_persistent_variants[0]));

int jit_persistent_variant_build(const jit_persistent_variant *p, prnn_kernel_request *r,
                                 jit_kernel_variant *out, char *why, size_t why_size)
{
    prnn_kernel_shape shape;
    memset(&shape, 0, sizeof(shape));
    shape.key.mode = p->mode;
    shape.key.dtype = p->dtype;
    shape.key.hidden = p->hidden;
    shape.key.mini_batch = p->batch;
    shape.key.dirs = p->dirs;
    shape.key.layers = p->layers ? p->layers : 1;
    shape.key.clip = p->clip;
    shape.key.caller_rows = p->caller_rows;
    shape.skip_input = p->skip;
    shape.pass = p->pass;
    prnn_tile_config tile;
    prnn_kernel_geometry g;
    char err[256], runs[256];
    if (prnn_tile_config_parse(p->tile, &tile, err, sizeof(err))) {
        snprintf(why, why_size, "tile \"%s\": %s", p->tile, err);
        return -1;
    }
    if (prnn_kernel_geometry_compute(&shape, &tile, NULL, &g, err, sizeof(err))) {
        snprintf(why, why_size, "tile \"%s\" does not fit the shape: %s", p->tile, err);
        return -1;
    }
    /* What the entry says is what compiles: a change in how the geometry
     * normalises a tile shows here instead of changing the variant unseen. */
    prnn_tile_config_format(&g.tile, runs, sizeof(runs));
    if (strcmp(runs, p->tile) != 0) {
        snprintf(why, why_size, "tile \"%s\" runs as \"%s\": write that", p->tile, runs);
        return -1;
    }
    if (prnn_request_persistent(&g, p->skip, p->train, 0, r)) {
        snprintf(why, why_size, "%s", prnn_log_get());
        return -1;
    }
    memset(out, 0, sizeof(*out));
    out->source = r->req.source_name;
    out->kernel = p->kernel;
    for (int i = 0; i < r->req.num_defines && i < JIT_VARIANT_MAX_DEFINES; i++)
        out->defines[i] = r->req.defines[i];
    out->min_sm = g.tile.mma ? 80 : 0; /* mma.sync with 16-bit types */
    return 0;
}
