// The host's stand-in for kernel_src/rnn_types.cuh when a kernel is compiled
// as C++ (tests/kernels): float or double storage, plain loads and stores,
// libm's activations. No PTX, so no 16-bit types: those are the device's,
// checked on a GPU by tests/gpu.
#pragma once

#include <math.h>

#if PRNN_DTYPE == 0
typedef float T;
#elif PRNN_DTYPE == 1
typedef double T;
#else
#error "the host stand-in has float (0) and double (1) storage only"
#endif
typedef T AccT;

struct ST {
    static AccT load(const T *p, long i) { return p[i]; }
    static void store(T *p, long i, AccT v) { p[i] = v; }
};

/* CUDA's vector types and fast division, for the scan's vector path */
struct float2 {
    float x, y;
};
struct float4 {
    float x, y, z, w;
};
struct double2 {
    double x, y;
};
static inline float2 make_float2(float x, float y) { return {x, y}; }
static inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
static inline double2 make_double2(double x, double y) { return {x, y}; }
static inline float __fdividef(float a, float b) { return a / b; }

static inline float prnn_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
static inline double prnn_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static inline float prnn_tanh(float x) { return tanhf(x); }
static inline double prnn_tanh(double x) { return tanh(x); }
