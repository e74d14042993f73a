/*
 * Compiling one kernel source to CUBIN with NVRTC.
 *
 * The sources are the files of kernel_src/, embedded in the library. Every
 * embedded file that is not a .cu (the .cuh helpers, the .h structs shared
 * with the host) is handed to NVRTC as a header under its base name, so a
 * kernel writes #include "prnn_device.cuh" and no include path is ever
 * passed: a machine with only the driver and libnvrtc can compile. Tile
 * parameters and the data type reach the source as -D defines.
 */
#ifndef PRNN_NVRTC_COMPILE_H
#define PRNN_NVRTC_COMPILE_H

#include <stddef.h>

#include "prnn.h"

typedef struct {
    /* An embedded kernel_src file, e.g. "rnn_persistent.cu"; with
     * source_text, the name NVRTC reports in its log. */
    const char *source_name;
    /* Each becomes a "-D<define>" option, in this order, e.g.
     * {"PRNN_MODE=2", "PRNN_H=1024"}. May be NULL when num_defines is 0. */
    const char *const *defines;
    int num_defines;
    int sm;                  /* 90 for sm_90: compiled for exactly this */
    const char *kernel_name; /* for messages and the cache key summary */
    /* NULL: the embedded file source_name. Otherwise this text is compiled
     * instead (tests, generated sources); it still sees the embedded
     * headers. */
    const char *source_text;
} prnn_compile_request;

/* The options NVRTC gets for a request, in order; also part of the cubin
 * cache key. */
typedef struct {
    char **argv;
    int count;
} prnn_nvrtc_options;

prnnStatus_t prnn_nvrtc_options_build(const prnn_compile_request *req, prnn_nvrtc_options *out);
void prnn_nvrtc_options_free(prnn_nvrtc_options *o);

/* 1 for the embedded files NVRTC gets as headers: all but the .cu sources
 * (.cuh device helpers, and .h files shared with the host). */
int prnn_kernel_file_is_header(const char *name);

/* The text NVRTC compiles for req: source_text, or the embedded file.
 * INTERNAL_ERROR (with a message) when the embedded file does not exist. */
prnnStatus_t prnn_compile_request_source(const prnn_compile_request *req, const char **text);

/*
 * Compiles req straight to CUBIN for sm_<req->sm> (no PTX step). The NVRTC
 * log is always read: on success a non-empty log (warnings) is appended to
 * the calling thread's log as a note; on failure the status is
 * COMPILE_FAILED and the log holds the kernel name, the source name, every
 * option and NVRTC's log. RUNTIME_PREREQUISITE_MISSING when NVRTC cannot be
 * loaded or does not know the architecture (too old for the device).
 *
 * *cubin (freed by the caller with free()) and *cubin_size are set on
 * success only; compile_ms (may be NULL) receives the wall time spent in
 * NVRTC.
 */
prnnStatus_t prnn_nvrtc_compile(const prnn_compile_request *req, void **cubin, size_t *cubin_size,
                                double *compile_ms);

/* How many times this process has called nvrtcCompileProgram (any thread). */
unsigned long prnn_nvrtc_compile_count(void);

/* The architectures this NVRTC can compile for, ascending (e.g. 75, 80, ...,
 * 121): at most max into archs, the total into *count. */
prnnStatus_t prnn_nvrtc_supported_archs(int *archs, int max, int *count);

/* The wall clock in milliseconds (CLOCK_MONOTONIC), for timing compiles. */
double prnn_now_ms(void);

#endif
