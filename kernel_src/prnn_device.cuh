// Device helpers shared by prnn's kernels.
//
// NVRTC compiles these with no include path at all (NVRTC 13 has no built-in
// cuda_fp16.h, cuda_bf16.h or cooperative_groups.h, and pulling the toolkit's
// headers in costs ~2 s per compile), so 16-bit conversions, tensor-core
// products and the memory-ordering operations of the hand-off are written
// here in inline PTX.
#pragma once

#include "prnn_kernel_abi.h"

typedef unsigned int u32;
typedef unsigned long long u64;

// ---------------------------------------------------------------------------
// The caller's rows (prnn_kernel_abi.h, prnn_rows): whether this kernel can
// read and write them. The kernels that run every step in one launch
// (persistent, tiny-h) are compiled twice where a plan needs both: with 0
// for packed rows alone, which makes every helper below the packed row's
// arithmetic and nothing more (their steps are a few hundred cycles, and
// the caller-row arithmetic cost packed calls 4-22 %, bench/NOTES.md v0.31),
// and with 1 for a plan of unpacked data (prnn_rnn_key.caller_rows). The
// kernels launched per step keep 1.
#ifndef PRNN_CALLER_ROWS
#define PRNN_CALLER_ROWS 1
#endif

// The caller's sequence of packed row b (a kernel's `order`, NULL where the
// packed order is the caller's): the row of its states, and what
// caller_row places. A kernel that runs every step in one launch loads it
// once, before its steps: the hand-off's memory clobbers would make each
// step's load of it a global load that the row's input load waits for,
// between the hand-off and the products. (The persistent kernels' hand-off
// still loads it for a row's hx, at the one step where the row starts.)
__device__ __forceinline__ int caller_seq(const int *order, int b)
{
    return PRNN_CALLER_ROWS && order ? order[b] : b;
}

// The row of (step t, packed row b) in a tensor whose rows r describes
// (prnn_rows): the packed row row0 + b (row0 the step's first row), or, in
// a caller's unpacked buffer read or written in place, s * seq_stride + t *
// step_stride, s = caller_seq(order, b).
__device__ __forceinline__ long long caller_row(long long row0, int b, int s, int t,
                                                const prnn_rows &r)
{
    if (!PRNN_CALLER_ROWS)
        return row0 + b;
    return r.seq_stride ? (long long)(s * r.seq_stride + t * r.step_stride) : row0 + b;
}

// caller_row in two parts that add up to it, for the kernels that run every
// step in one launch: the row's, once before the steps, and the step's,
// once a step (both sides computed, then selected: a branch in the steps'
// unrolled code cuts it into blocks the compiler schedules apart).
__device__ __forceinline__ int caller_row_base(int b, int s, const prnn_rows &r)
{
    if (!PRNN_CALLER_ROWS)
        return b;
    const int in_place = s * r.seq_stride;
    return r.seq_stride ? in_place : b;
}

__device__ __forceinline__ long long caller_row_step(long long row0, int t, const prnn_rows &r)
{
    if (!PRNN_CALLER_ROWS)
        return row0;
    const long long in_place = (long long)t * r.step_stride;
    return r.seq_stride ? in_place : row0;
}

// caller_row_base and caller_row_step where the code knows at compile time
// whether the tensor's rows are the caller's (IN: r.seq_stride is not 0) or
// packed: the steps' code holds no select. The kernels that run every step
// in one launch compile their steps once for each case a call can present
// (the dispatch that ends rnn_persistent.cu and rnn_tiny.cu).
template <bool IN>
__device__ __forceinline__ int io_row_base(int b, int s, const prnn_rows &r)
{
    return PRNN_CALLER_ROWS && IN ? s * r.seq_stride : b;
}

template <bool IN>
__device__ __forceinline__ long long io_row_step(long long row0, int t, const prnn_rows &r)
{
    return PRNN_CALLER_ROWS && IN ? (long long)t * r.step_stride : row0;
}

#if PRNN_CALLER_ROWS
#ifndef PRNN_IO_LAYOUTS
#define PRNN_IO_LAYOUTS (PRNN_IO_PACKED | PRNN_IO_X | PRNN_IO_Y | PRNN_IO_XY)
#endif
// Whether a tensor's rows are the caller's, as a type: what io_dispatch
// hands its layer (a generic lambda reads it back as decltype(x)::value).
template <bool IN> struct io_rows_in {
    static constexpr bool value = IN;
};

// The end of a kernel that compiles its steps once for each combination of
// xin's and y's rows its plan's calls present (PRNN_IO_LAYOUTS): calls
// layer(io_rows_in<XIN>(), io_rows_in<YIN>()) for the combination args
// holds; the host launches no other (prnn_seq_io_check_kernel_rows).
template <class Layer>
__device__ __forceinline__ void io_dispatch(const prnn_rnn_args &args, Layer layer)
{
    const int io = PRNN_IO_BIT(args.x_rows.seq_stride != 0, args.y_rows.seq_stride != 0);
    if ((PRNN_IO_LAYOUTS & PRNN_IO_XY) && io == PRNN_IO_XY)
        layer(io_rows_in<true>(), io_rows_in<true>());
    else if ((PRNN_IO_LAYOUTS & PRNN_IO_X) && io == PRNN_IO_X)
        layer(io_rows_in<true>(), io_rows_in<false>());
    else if ((PRNN_IO_LAYOUTS & PRNN_IO_Y) && io == PRNN_IO_Y)
        layer(io_rows_in<false>(), io_rows_in<true>());
    else if ((PRNN_IO_LAYOUTS & PRNN_IO_PACKED) && io == PRNN_IO_PACKED)
        layer(io_rows_in<false>(), io_rows_in<false>());
}
#endif

// ---------------------------------------------------------------------------
// 16-bit storage types. Values are carried as raw bits (unsigned short) and
// converted with cvt, round-to-nearest-even, as cuda_fp16.h would.

struct prnn_half {
    unsigned short bits;
};
struct prnn_bf16 {
    unsigned short bits;
};

__device__ __forceinline__ float prnn_half_to_float(unsigned short h)
{
    float f;
    asm("{ .reg .f16 t; mov.b16 t, %1; cvt.f32.f16 %0, t; }" : "=f"(f) : "h"(h));
    return f;
}

__device__ __forceinline__ unsigned short prnn_float_to_half(float f)
{
    unsigned short h;
    asm("{ .reg .f16 t; cvt.rn.f16.f32 t, %1; mov.b16 %0, t; }" : "=h"(h) : "f"(f));
    return h;
}

__device__ __forceinline__ float prnn_bf16_to_float(unsigned short b)
{
    return __uint_as_float(((u32)b) << 16);
}

__device__ __forceinline__ unsigned short prnn_float_to_bf16(float f)
{
#if __CUDA_ARCH__ >= 800
    unsigned short b;
    asm("{ .reg .b16 t; cvt.rn.bf16.f32 t, %1; mov.b16 %0, t; }" : "=h"(b) : "f"(f));
    return b;
#else
    // Round to nearest even by hand (sm_75 has no cvt to bf16); NaN stays NaN.
    u32 u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (unsigned short)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
#endif
}

// Storage type traits: load/store one element as the math type.
template <typename T> struct prnn_storage;

template <> struct prnn_storage<float> {
    typedef float acc;
    static __device__ __forceinline__ float load(const float *p, long i) { return p[i]; }
    static __device__ __forceinline__ void store(float *p, long i, float v) { p[i] = v; }
    // The value the recurrence sees after a round trip through storage.
    static __device__ __forceinline__ float round(float v) { return v; }
};

template <> struct prnn_storage<double> {
    typedef double acc;
    static __device__ __forceinline__ double load(const double *p, long i) { return p[i]; }
    static __device__ __forceinline__ void store(double *p, long i, double v) { p[i] = v; }
    static __device__ __forceinline__ double round(double v) { return v; }
};

// The 16-bit types: their bits in memory, float in arithmetic, to_bits and
// to_float the conversions.
template <typename T, unsigned short (*to_bits)(float), float (*to_float)(unsigned short)>
struct prnn_storage_16bit {
    typedef float acc;
    static __device__ __forceinline__ float load(const T *p, long i) { return to_float(p[i].bits); }
    static __device__ __forceinline__ void store(T *p, long i, float v) { p[i].bits = to_bits(v); }
    static __device__ __forceinline__ float round(float v) { return to_float(to_bits(v)); }
    static __device__ __forceinline__ unsigned short bits(float v) { return to_bits(v); }
    static __device__ __forceinline__ float from_bits(unsigned short b) { return to_float(b); }
};

template <>
struct prnn_storage<prnn_half>
    : prnn_storage_16bit<prnn_half, prnn_float_to_half, prnn_half_to_float> {};

template <>
struct prnn_storage<prnn_bf16>
    : prnn_storage_16bit<prnn_bf16, prnn_float_to_bf16, prnn_bf16_to_float> {};

// ---------------------------------------------------------------------------
// Memory ordering for the inter-block hand-off (PTX memory model, sm_70+).

// A relaxed 64-bit load at GPU scope: single-copy atomic, never served from a
// stale L1 line. A Lamport word (step tag + value) is read with this.
__device__ __forceinline__ u64 prnn_ld_relaxed_u64(const u64 *p)
{
    u64 v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void prnn_st_relaxed_u64(u64 *p, u64 v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ u32 prnn_ld_acquire_u32(const u32 *p)
{
    u32 v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void prnn_red_release_add_u32(u32 *p, u32 v)
{
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ u32 prnn_ld_relaxed_u32(const u32 *p)
{
    u32 v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ double prnn_ld_relaxed_f64(const double *p)
{
    double v;
    asm volatile("ld.relaxed.gpu.global.f64 %0, [%1];" : "=d"(v) : "l"(p) : "memory");
    return v;
}

// ---------------------------------------------------------------------------
// Tensor cores: D = A * B + D, m16n8k16, fp32 accumulation (sm_80+).

#if __CUDA_ARCH__ >= 800
template <typename T> struct prnn_mma;

template <> struct prnn_mma<prnn_half> {
    static __device__ __forceinline__ void run(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1)
    {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
            "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};

template <> struct prnn_mma<prnn_bf16> {
    static __device__ __forceinline__ void run(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1)
    {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
            "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};
#endif

// ---------------------------------------------------------------------------
// Activations. These are accurate (no fast-math: the fp32 path must match
// the reference to ~1e-5); prnn_tanh_approx below is for 16-bit data only.
// rnn_persistent.cu chooses per kernel (cell_sigmoid, cell_tanh).

__device__ __forceinline__ float prnn_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
__device__ __forceinline__ double prnn_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
__device__ __forceinline__ float prnn_tanh(float x) { return tanhf(x); }
__device__ __forceinline__ double prnn_tanh(double x) { return tanh(x); }
__device__ __forceinline__ float prnn_relu(float x) { return x > 0.0f ? x : 0.0f; }
__device__ __forceinline__ double prnn_relu(double x) { return x > 0.0 ? x : 0.0; }

// The hardware tanh (sm_75+; max absolute error 2^-10.99): one instruction
// where tanhf is about fifteen. For 16-bit data only, whose rounding is of
// the same size. The double overload only lets the kernel compile for fp64
// (where it is never chosen).
__device__ __forceinline__ float prnn_tanh_approx(float x)
{
#if __CUDA_ARCH__ >= 750
    float y;
    asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
#else
    return tanhf(x);
#endif
}
__device__ __forceinline__ double prnn_tanh_approx(double x) { return tanh(x); }
