/*
 * What prnn uses of NVRTC (nvrtc.h), declared without nvrtc.h: see
 * api_decl.h for the lists' format and how tests/decl checks them against
 * the toolkit's header.
 */
#ifndef PRNN_NVRTC_API_H
#define PRNN_NVRTC_API_H

#include "cuda/api_decl.h"

/* clang-format off */
#define PRNN_NVRTC_HANDLES(X) X(nvrtcProgram, struct _nvrtcProgram)

#define PRNN_NVRTC_RESULT_VALUES(X)                                           \
    X(NVRTC_SUCCESS, 0)                                                       \
    X(NVRTC_ERROR_OUT_OF_MEMORY, 1)                                           \
    X(NVRTC_ERROR_INVALID_INPUT, 3)

#define PRNN_NVRTC_ENUMS(X) X(nvrtcResult, PRNN_NVRTC_RESULT_VALUES)

#define PRNN_NVRTC_FUNCTIONS(X)                                               \
    X(nvrtcVersion, nvrtcVersion, 1, nvrtcResult, (int *major, int *minor))   \
    X(nvrtcGetErrorString, nvrtcGetErrorString, 1, const char *,              \
      (nvrtcResult result))                                                   \
    X(nvrtcCreateProgram, nvrtcCreateProgram, 1, nvrtcResult,                 \
      (nvrtcProgram *prog, const char *src, const char *name,                 \
       int num_headers, const char *const *headers,                           \
       const char *const *include_names))                                     \
    X(nvrtcDestroyProgram, nvrtcDestroyProgram, 1, nvrtcResult,               \
      (nvrtcProgram *prog))                                                   \
    X(nvrtcCompileProgram, nvrtcCompileProgram, 1, nvrtcResult,               \
      (nvrtcProgram prog, int num_options, const char *const *options))       \
    X(nvrtcGetProgramLogSize, nvrtcGetProgramLogSize, 1, nvrtcResult,         \
      (nvrtcProgram prog, size_t *size))                                      \
    X(nvrtcGetProgramLog, nvrtcGetProgramLog, 1, nvrtcResult,                 \
      (nvrtcProgram prog, char *log))                                         \
    X(nvrtcGetCUBINSize, nvrtcGetCUBINSize, 1, nvrtcResult,                   \
      (nvrtcProgram prog, size_t *size))                                      \
    X(nvrtcGetCUBIN, nvrtcGetCUBIN, 1, nvrtcResult,                           \
      (nvrtcProgram prog, char *cubin))                                       \
    X(nvrtcGetNumSupportedArchs, nvrtcGetNumSupportedArchs, 1, nvrtcResult,   \
      (int *count))                                                           \
    X(nvrtcGetSupportedArchs, nvrtcGetSupportedArchs, 1, nvrtcResult,         \
      (int *archs))

#define PRNN_NVRTC_API(K)                                                     \
    K(PRNN_API_NONE, PRNN_NVRTC_ENUMS, PRNN_API_NONE, PRNN_API_NONE,          \
      PRNN_NVRTC_HANDLES, PRNN_NVRTC_FUNCTIONS)

PRNN_NVRTC_API(PRNN_API_DECLARE)

/* clang-format on */
#endif
