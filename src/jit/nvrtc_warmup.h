/*
 * NVRTC's start-up, paid early: the process's first compile costs more than
 * the next ones (NVRTC loads and initialises its own libraries; 300 ms more
 * on the H100 machine, 30 ms more here: bench/NOTES.md, issue 26). A GPU
 * handle's creation starts, once per process, a thread that loads NVRTC
 * and compiles an empty kernel, so that the first plan's compiles find
 * NVRTC ready when there is time between the two.
 */
#ifndef PRNN_NVRTC_WARMUP_H
#define PRNN_NVRTC_WARMUP_H

/* Starts the warm-up for architecture sm (90 for sm_90), once per process;
 * later calls do nothing. Off with $PRNN_NVRTC_WARMUP=0. The empty kernel
 * is not counted by prnn_nvrtc_compile_count and touches no cache; a
 * failure (no NVRTC) is left to the compiles that need it to report. The
 * library waits for the thread at exit and when it is unloaded (a compile
 * running while NVRTC goes away would crash). */
void prnn_nvrtc_warm_up(int sm);

/* Waits until a started warm-up has finished (tests, and exit). */
void prnn_nvrtc_warm_up_wait(void);

#endif
