/*
 * The CUDA libraries' start-up, paid early. The process's first compile
 * costs more than the next ones (NVRTC loads and initialises its own
 * libraries: 300 ms more on the H100 machine, about 10 ms plus a 7 ms load
 * here), and the first GEMM waits for cuBLASLt's load (a 540 MB library:
 * 80-165 ms here): bench/NOTES.md, issue 26. A GPU handle's creation
 * starts, once per process, a thread that loads NVRTC, compiles an empty
 * kernel and loads cuBLASLt, so that the first plan's compiles and the
 * first call's GEMMs find them ready: off the critical path as far as the
 * caller leaves time between creating the handle and its first call, and
 * for cuBLASLt beside the first plan's compiles.
 */
#ifndef PRNN_CUDA_WARMUP_H
#define PRNN_CUDA_WARMUP_H

/* Starts the warm-up for architecture sm (90 for sm_90), once per process;
 * later calls do nothing. Off with $PRNN_WARMUP=0. The empty kernel is not
 * counted by prnn_nvrtc_compile_count and touches no cache; a failure (no
 * NVRTC, no cuBLASLt) is left to the calls that need the library to
 * report. The library waits for the thread at exit and when it is unloaded
 * (a compile running while NVRTC goes away would crash). */
void prnn_cuda_warm_up(int sm);

/* Waits until a started warm-up has finished (tests, and unloading). */
void prnn_cuda_warm_up_wait(void);

#endif
