// The cell of every mode, forward and backward side by side, for one (row,
// hidden unit) item: the products W x and R h arrive precomputed, so this
// holds all of the nonlinear math and nothing else. The persistent kernels
// and the standard per-step kernels both call it; src/ref/ref_cells.c is the
// reference it must agree with (DESIGN.md section 4).
#pragma once

#include "prnn_kernel_abi.h"
#include "rnn_types.cuh"

#ifndef PRNN_CLIP
#define PRNN_CLIP PRNN_KCLIP_NONE
#endif

// PRNN_CLIP's bounds for the cell state (the arguments' clip_lo, clip_hi).
struct CellClip {
    AccT lo, hi;
    __device__ __forceinline__ CellClip(double l, double h) : lo(AccT(l)), hi(AccT(h)) {}
};

// Activations. ExactAct: 1/(1+e^-x) and the accurate tanh. CheapAct: sigmoid
// as 1/2 + tanh(x/2)/2 (no IEEE division, whose slow-path branch sat in the
// middle of the cell), and with APPROX the hardware tanh (max error
// 2^-10.99, below half an fp16 ulp near 1: for 16-bit data only). Which
// kernel uses which, and why, is said where they choose.
template <bool CHEAP, bool APPROX> struct CellAct {
    // (an enumerator: a constexpr member would become an object in every cubin)
    enum : bool { SIGMOID_IS_TANH = CHEAP };
    static __device__ __forceinline__ AccT tanh_(AccT x)
    {
        return APPROX ? prnn_tanh_approx(x) : prnn_tanh(x);
    }
    static __device__ __forceinline__ AccT sigmoid(AccT x)
    {
        return CHEAP ? AccT(0.5) + AccT(0.5) * tanh_(AccT(0.5) * x) : prnn_sigmoid(x);
    }
};
typedef CellAct<false, false> ExactAct;

template <int MODE> struct Cell {
    static constexpr int G = PRNN_KMODE_GATES(MODE);
    static constexpr int ACT = PRNN_ACT_COLS_CLIP(MODE, PRNN_CLIP);
    static constexpr int DG = PRNN_DG_COLS(MODE);
    static constexpr int ACTN = ACT > 0 ? ACT : 1; // array sizes

    // What the kernels around the cell need to know of it, so that they
    // hold no mode of their own (enumerators, not constexpr members: those
    // become objects in every cubin).
    enum : int {
        // a cell state c runs beside h (cx, cy, dcx, dcy; the backward
        // carries dc from step to step)
        CELL_STATE = MODE == PRNN_KMODE_LSTM,
        // the gate whose recurrent bias stays apart (forward's bias_rn)
        // because the cell scales it (GRU's n: r * (R_n h + bR_n)); -1: none
        APART_BIAS_GATE = MODE == PRNN_KMODE_GRU ? 2 : -1,
        // what backward reads besides act: h_t as stored (READS_H), h_{t-1}
        // (READS_HPREV) or c_{t-1}, act column PREV_C_COL of the previous
        // step (READS_CPREV)
        READS_HPREV = MODE == PRNN_KMODE_GRU,
        READS_CPREV = MODE == PRNN_KMODE_LSTM,
        READS_H = !READS_HPREV && !READS_CPREV,
        PREV_C_COL = 4,
        // part of the gradient of h_{t-1} bypasses R (backward's return
        // value, GRU's z dh): the backward carries it to the previous step
        H_BYPASS = MODE == PRNN_KMODE_GRU,
        // LSTM's cell clipping (PRNN_KCLIP_*), and where act keeps c before
        // the clip
        CLIP = MODE == PRNN_KMODE_LSTM ? PRNN_CLIP : PRNN_KCLIP_NONE,
        PRE_CLIP_COL = 5,
    };

    // c clamped to the bounds (the reference's clip_cell): a NaN becomes lo
    // unless it propagates.
    static __device__ __forceinline__ AccT clip_value(AccT v, const CellClip &b)
    {
        if (CLIP == PRNN_KCLIP_MINMAX_NAN && v != v)
            return v;
        AccT m = v > b.lo ? v : b.lo; // a NaN compares false: lo
        return m < b.hi ? m : b.hi;
    }
    // Whether the gradient passes the clip of pre-clip value v: inside the
    // bounds, or a NaN that propagated (the reference's clip_passes).
    static __device__ __forceinline__ bool clip_passes(AccT v, const CellClip &b)
    {
        if (v != v)
            return CLIP == PRNN_KCLIP_MINMAX_NAN;
        return v >= b.lo && v <= b.hi;
    }

    // h_t from the recurrent products rec[g] (R h_{t-1}, no bias) and xp[g]
    // (W x_t + every bias, except GRU's bR_n, which the reset scales and so
    // comes separately as bias_rn). c: LSTM's cell state, in c_{t-1}, out
    // c_t. hprev: h_{t-1} (GRU). act: what the backward pass keeps (ACT
    // values), written when training. clip: CLIP's bounds.
    template <class A>
    static __device__ __forceinline__ AccT forward(const AccT (&rec)[G], const AccT (&xp)[G],
                                                   AccT bias_rn, AccT &c, AccT hprev,
                                                   AccT (&act)[ACTN], const CellClip &clip)
    {
        AccT gv[G];
#pragma unroll
        for (int g = 0; g < G; ++g)
            gv[g] = gate_alone(g) ? activate_gate<A>(g, rec[g] + xp[g]) : AccT(0);
        return forward_activated<A>(gv, rec, xp, bias_rn, c, hprev, act, clip);
    }

    // The gates whose activation needs nothing but their own pre-activation
    // R h + W x + biases (every gate of LSTM, GRU's r and z; GRU's n waits
    // for r). A kernel that holds a unit's gates in different lanes (the
    // tiny-h engine) activates these in their own lanes, all at once, and
    // hands the cell the results: forward_activated.
    static __device__ __forceinline__ bool gate_alone(int g)
    {
        return MODE == PRNN_KMODE_LSTM || (MODE == PRNN_KMODE_GRU && g < 2);
    }
    // Gate g's activation (gate_alone(g)): LSTM's g is a tanh, every other a
    // sigmoid. Where the sigmoid is a tanh (A::SIGMOID_IS_TANH) the two share
    // one tanh, so that lanes holding different gates run one instruction
    // stream: the same operations as A::sigmoid and A::tanh_.
    template <class A> static __device__ __forceinline__ AccT activate_gate(int g, AccT pre)
    {
        const bool is_tanh = MODE == PRNN_KMODE_LSTM && g == 2;
        if (A::SIGMOID_IS_TANH) {
            const AccT t = A::tanh_(is_tanh ? pre : AccT(0.5) * pre);
            return is_tanh ? t : AccT(0.5) + AccT(0.5) * t;
        }
        return is_tanh ? A::tanh_(pre) : A::sigmoid(pre);
    }

    // forward, with gv[g] = activate_gate(g, rec[g] + xp[g]) already done
    // for every gate_alone(g); rec and xp are read for the other gates only
    // (and for RELU and TANH, which have none alone).
    template <class A>
    static __device__ __forceinline__ AccT forward_activated(const AccT (&gv)[G],
                                                             const AccT (&rec)[G],
                                                             const AccT (&xp)[G], AccT bias_rn,
                                                             AccT &c, AccT hprev,
                                                             AccT (&act)[ACTN], const CellClip &clip)
    {
        if (MODE == PRNN_KMODE_LSTM) {
            AccT ig = gv[0];
            AccT fg = gv[1 % G];
            AccT gg = gv[2 % G];
            AccT og = gv[3 % G];
            AccT cn = fg * c + ig * gg;
            if (CLIP) {
                act[PRE_CLIP_COL % ACTN] = cn;
                cn = clip_value(cn, clip);
            }
            c = cn;
            act[0] = ig;
            act[1 % ACTN] = fg;
            act[2 % ACTN] = gg;
            act[3 % ACTN] = og;
            act[4 % ACTN] = cn;
            return og * A::tanh_(cn);
        }
        if (MODE == PRNN_KMODE_GRU) {
            AccT r = gv[0];
            AccT z = gv[1 % G];
            AccT m = rec[2 % G] + bias_rn; // R_n h + bR_n: the reset scales both
            AccT n = A::tanh_(xp[2 % G] + r * m);
            act[0] = r;
            act[1 % ACTN] = z;
            act[2 % ACTN] = n;
            act[3 % ACTN] = m;
            return (AccT(1) - z) * n + z * hprev;
        }
        AccT v = rec[0] + xp[0];
        return MODE == PRNN_KMODE_RELU ? prnn_relu(v) : A::tanh_(v);
    }

    // The gate gradients dg (DG values, PRNN_DG_COLS's order) of one item
    // of step t. dhv: the gradient of h_t (from the output and from later
    // steps); act: as forward kept it; h: h_t as stored (RELU, TANH); hprev:
    // h_{t-1} (GRU); cprev: c_{t-1} (LSTM). dc: LSTM, in the gradient of
    // c_t from later steps, out that of c_{t-1}. Returns the part of the
    // gradient of h_{t-1} that does not go through R (GRU's z dh; else 0).
    // clip: CLIP's bounds (no gradient passes a clipped c).
    template <class A>
    static __device__ __forceinline__ AccT backward(AccT dhv, const AccT (&act)[ACTN], AccT h,
                                                    AccT hprev, AccT cprev, AccT &dc,
                                                    AccT (&dg)[DG], const CellClip &clip)
    {
        if (MODE == PRNN_KMODE_LSTM) {
            AccT ig = act[0], fg = act[1 % ACTN], gg = act[2 % ACTN], og = act[3 % ACTN];
            AccT tc = A::tanh_(act[4 % ACTN]);
            AccT dcv = dc + dhv * og * (AccT(1) - tc * tc);
            if (CLIP && !clip_passes(act[PRE_CLIP_COL % ACTN], clip))
                dcv = AccT(0);
            dg[0] = dcv * gg * ig * (AccT(1) - ig);
            dg[1 % DG] = dcv * cprev * fg * (AccT(1) - fg);
            dg[2 % DG] = dcv * ig * (AccT(1) - gg * gg);
            dg[3 % DG] = dhv * tc * og * (AccT(1) - og);
            dc = dcv * fg;
            return AccT(0);
        }
        if (MODE == PRNN_KMODE_GRU) {
            AccT r = act[0], z = act[1 % ACTN], n = act[2 % ACTN], m = act[3 % ACTN];
            AccT dn = dhv * (AccT(1) - z) * (AccT(1) - n * n);
            dg[0] = dn * m * r * (AccT(1) - r);
            dg[1 % DG] = dhv * (hprev - n) * z * (AccT(1) - z);
            dg[2 % DG] = dn * r; // through R_n h + bR_n
            dg[3 % DG] = dn;     // through W_n x + bW_n
            return dhv * z;
        }
        if (MODE == PRNN_KMODE_RELU)
            dg[0] = h > AccT(0) ? dhv : AccT(0); // h > 0 exactly where the input was
        else
            dg[0] = dhv * (AccT(1) - h * h);
        return AccT(0);
    }
};
