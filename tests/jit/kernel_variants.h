/*
 * The kernel variants that must compile under NVRTC for every architecture
 * the library targets (test_nvrtc_compile). Every .cu file of kernel_src/
 * needs at least one entry: the test fails for a source without one.
 */
#ifndef PRNN_KERNEL_VARIANTS_H
#define PRNN_KERNEL_VARIANTS_H

#define JIT_VARIANT_MAX_DEFINES 24

typedef struct {
    const char *source; /* an embedded kernel_src file, e.g. "probe.cu" */
    const char *kernel; /* a name for messages and the timing table */
    /* -D defines, NULL-terminated (at most JIT_VARIANT_MAX_DEFINES). */
    const char *defines[JIT_VARIANT_MAX_DEFINES + 1];
    /* Oldest architecture the variant supports (e.g. 80 for bf16 mma);
     * 0 for all. */
    int min_sm;
} jit_kernel_variant;

extern const jit_kernel_variant jit_kernel_variants[];
extern const int jit_kernel_variant_count;

#endif
