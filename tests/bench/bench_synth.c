#include "bench_synth.h"

#include <math.h>
#include <string.h>

static void ok(bench_impl_result *r, double median)
{
    r->state = BENCH_OK;
    r->us.n = 20;
    r->us.median = median;
    r->us.min = median * 0.9;
    r->us.q1 = median * 0.95;
    r->us.q3 = median * 1.05;
    r->us.max = median * 1.2;
    r->us.mean = median;
    r->setup_ms = 12.5;
    r->first_call_ms = 3.25;
}

/* The three phases of a training step, timed alone (ok() first). */
static void phases(bench_impl_result *r, double fwd, double bwd_data, double bwd_weights)
{
    const double m[BENCH_NUM_PHASES] = {fwd, bwd_data, bwd_weights};
    for (int p = 0; p < BENCH_NUM_PHASES; p++) {
        bench_impl_result tmp;
        ok(&tmp, m[p]);
        r->phase[p] = tmp.us;
    }
}

static bench_point point(prnnRNNMode_t mode, prnnDataType_t t, int h, int b, bench_pass pass)
{
    bench_point pt;
    memset(&pt, 0, sizeof(pt));
    pt.mode = mode;
    pt.dtype = t;
    pt.hidden = h;
    pt.input = h;
    pt.batch = b;
    pt.seq = 256;
    pt.layers = 1;
    pt.pass = pass;
    return pt;
}

static void plan(bench_result *r, const char *path)
{
    r->plan.valid = 1;
    bench_copy(r->plan.path, sizeof(r->plan.path), path);
    bench_copy(r->plan.config_source, sizeof(r->plan.config_source), "heuristic");
    bench_copy(r->plan.cubin_source, sizeof(r->plan.cubin_source), "disk");
    r->plan.num_blocks = 8;
    r->plan.threads_per_block = 256;
    r->plan.units_per_block = 32;
    r->plan.resident_fraction = 1.0;
    r->plan.plan_ms = 4.5;
    r->plan.compile_ms = 0;
    r->plan.prepare_wall_ms = 4.75;
    bench_copy(r->plan.config, sizeof(r->plan.config), "blocks=8 threads=256 ksplit=4, \"quoted\"");
}

int bench_synth(bench_result *rs, bench_meta *meta, bench_cold_result *cold, int *ncold)
{
    int n = 0;
    bench_point pt;

    /* lstm f32: ratios 0.5 and 2.0 -> geomean 1.0 over 2 of 3 points. */
    pt = point(PRNN_LSTM, PRNN_DATA_FLOAT, 256, 1, BENCH_INFERENCE);
    bench_result_init(&rs[n], &pt);
    ok(&rs[n].impl[BENCH_IMPL_PRNN], 0.5);
    ok(&rs[n].impl[BENCH_IMPL_PRNN_GRAPH], 0.45);
    ok(&rs[n].impl[BENCH_IMPL_CUBLASLT_GRAPH], 9.0);
    ok(&rs[n].impl[BENCH_IMPL_CUDNN_STANDARD], 12.0);
    ok(&rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_STATIC], 1.0); /* best */
    ok(&rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_DYNAMIC], 1.5);
    rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_SMALL_H].state = BENCH_REFUSED;
    bench_copy(rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_SMALL_H].note, 512,
               "cudnnSetRNNDescriptor_v8: CUDNN_STATUS_NOT_SUPPORTED");
    rs[n].reference = BENCH_IMPL_PRNN;
    for (int i = 1; i < BENCH_NUM_IMPLS - 1; i++) {
        rs[n].impl[i].compared = 1;
        rs[n].impl[i].max_rel_diff = 1e-6 * i;
    }
    plan(&rs[n], "resident");
    bench_result_finish(&rs[n]);
    n++;

    pt = point(PRNN_LSTM, PRNN_DATA_FLOAT, 256, 8, BENCH_INFERENCE);
    bench_result_init(&rs[n], &pt);
    ok(&rs[n].impl[BENCH_IMPL_PRNN], 8.0);
    rs[n].impl[BENCH_IMPL_PRNN_GRAPH].state = BENCH_FAILED;
    bench_copy(rs[n].impl[BENCH_IMPL_PRNN_GRAPH].note, 512,
               "cuStreamEndCapture: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED");
    ok(&rs[n].impl[BENCH_IMPL_CUDNN_STANDARD], 4.0); /* best */
    ok(&rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_DYNAMIC], 5.0);
    rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_DYNAMIC].fallback = 1;
    bench_copy(rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_DYNAMIC].note, 512,
               "FMA_MATH refused: ran DEFAULT_MATH (TF32 input GEMM)");
    plan(&rs[n], "streamed");
    bench_result_finish(&rs[n]);
    n++;

    /* lstm f32 without cuDNN: no ratio. */
    pt = point(PRNN_LSTM, PRNN_DATA_FLOAT, 1024, 64, BENCH_INFERENCE);
    bench_result_init(&rs[n], &pt);
    ok(&rs[n].impl[BENCH_IMPL_PRNN], 3.0);
    plan(&rs[n], "standard");
    bench_result_finish(&rs[n]);
    n++;

    /* gru f16: ratio 0.25 -> geomean 0.25; an output with NaN. */
    pt = point(PRNN_GRU, PRNN_DATA_HALF, 512, 4, BENCH_INFERENCE);
    bench_result_init(&rs[n], &pt);
    ok(&rs[n].impl[BENCH_IMPL_PRNN], 1.0);
    ok(&rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_STATIC], 4.0);
    rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_STATIC].compared = 1;
    rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_STATIC].max_rel_diff = NAN;
    bench_copy(rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_STATIC].note, 512,
               "mathPrec half, \"quoted\", comma\nnewline");
    rs[n].reference = BENCH_IMPL_PRNN;
    plan(&rs[n], "resident");
    bench_result_finish(&rs[n]);
    n++;

    /* tanh f32 training: prnn's step n/a (as before its GPU training path),
     * its forward inference timed; cuDNN ran, PERSIST_STATIC best. */
    pt = point(PRNN_RNN_TANH, PRNN_DATA_FLOAT, 512, 16, BENCH_TRAINING);
    bench_result_init(&rs[n], &pt);
    for (int i = 0; i < 3; i++) {
        rs[n].impl[i].state = BENCH_NA;
        bench_copy(rs[n].impl[i].note, 512, "prnnRNNForwardTraining: PRNN_STATUS_NOT_SUPPORTED");
    }
    ok(&rs[n].fwd_inference, 1.1);
    ok(&rs[n].impl[BENCH_IMPL_CUDNN_STANDARD], 27.5);
    phases(&rs[n].impl[BENCH_IMPL_CUDNN_STANDARD], 10.0, 12.0, 6.0);
    ok(&rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_STATIC], 19.5);
    phases(&rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_STATIC], 6.5, 8.25, 5.5);
    rs[n].reference = BENCH_IMPL_CUDNN_STANDARD;
    rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_STATIC].compared = 1;
    rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_STATIC].max_rel_diff = 2e-6;
    bench_result_finish(&rs[n]);
    n++;

    /* lstm f16 training, prnn ran. B = 1: step ratio 2.0 / 4.0 = 0.5,
     * bwd-data / fwd-inference 0.9 / 0.5 = 1.8. B = 16: 6.0 / 4.0 = 1.5 and
     * 3.0 / 2.5 = 1.2. Training geomeans: sqrt(0.75) and sqrt(2.16); one
     * point each at or below cuDNN and within the 1.3 target. */
    pt = point(PRNN_LSTM, PRNN_DATA_HALF, 512, 1, BENCH_TRAINING);
    bench_result_init(&rs[n], &pt);
    ok(&rs[n].impl[BENCH_IMPL_PRNN], 2.0);
    phases(&rs[n].impl[BENCH_IMPL_PRNN], 0.6, 0.9, 0.4);
    ok(&rs[n].impl[BENCH_IMPL_PRNN_GRAPH], 1.9);
    ok(&rs[n].fwd_inference, 0.5);
    ok(&rs[n].impl[BENCH_IMPL_CUDNN_STANDARD], 10.0);
    phases(&rs[n].impl[BENCH_IMPL_CUDNN_STANDARD], 4.0, 4.5, 2.0);
    ok(&rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_STATIC], 4.0);
    phases(&rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_STATIC], 1.5, 1.75, 1.0);
    rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_DYNAMIC].state = BENCH_REFUSED;
    rs[n].reference = BENCH_IMPL_PRNN;
    plan(&rs[n], "resident");
    bench_result_finish(&rs[n]);
    n++;

    pt = point(PRNN_LSTM, PRNN_DATA_HALF, 512, 16, BENCH_TRAINING);
    bench_result_init(&rs[n], &pt);
    ok(&rs[n].impl[BENCH_IMPL_PRNN], 6.0);
    phases(&rs[n].impl[BENCH_IMPL_PRNN], 2.5, 3.0, 2.0);
    ok(&rs[n].fwd_inference, 2.5);
    ok(&rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_STATIC], 4.0);
    phases(&rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_STATIC], 1.25, 1.6, 0.75);
    rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_STATIC].fallback = 1;
    bench_copy(rs[n].impl[BENCH_IMPL_CUDNN_PERSIST_STATIC].note, 512,
               "mathPrec half refused: mathPrec float");
    rs[n].reference = BENCH_IMPL_PRNN;
    plan(&rs[n], "resident");
    bench_result_finish(&rs[n]);
    n++;

    memset(meta, 0, sizeof(*meta));
    bench_copy(meta->date, sizeof(meta->date), "2026-11-21T12:00:00Z");
    bench_copy(meta->device, sizeof(meta->device),
               "device 0: NVIDIA H100 80GB HBM3 sm_90 132SM, 79.2 GiB");
    bench_copy(meta->driver, sizeof(meta->driver), "CUDA 13.0 (580.95.05)");
    bench_copy(meta->cudnn, sizeof(meta->cudnn), "9.14.0 (/usr/local/cuda/lib64/libcudnn.so.9)");
    bench_copy(meta->prnn_version, sizeof(meta->prnn_version), "0.1.0");
    meta->math = "strict";
    meta->warmup = 3;
    meta->repeats = 20;
    meta->training = 1;

    memset(cold, 0, 2 * sizeof(*cold));
    cold[0].pt = point(PRNN_LSTM, PRNN_DATA_FLOAT, 256, 1, BENCH_INFERENCE);
    cold[0].cold = (bench_cold_phase){1, 120.5, 118.0, 101.25, "compiled"};
    cold[0].memory = (bench_cold_phase){1, 0.25, 0.2, 0, "memory"};
    cold[0].disk = (bench_cold_phase){1, 3.5, 3.25, 0, "disk"};
    cold[0].process_to_plan_ms = 410.0;
    cold[1].pt = point(PRNN_GRU, PRNN_DATA_HALF, 512, 4, BENCH_INFERENCE);
    cold[1].process_to_plan_ms = NAN;
    bench_copy(cold[1].note, sizeof(cold[1].note),
               "prnnPrepareRNN: PRNN_STATUS_COMPILE_FAILED: \"log\"");
    *ncold = 2;
    return n;
}
