/*
 * I/O-error injection (issue #25): the test executable is linked with
 * -Wl,--wrap= for the calls the cache's and the tuning DB's writers and
 * readers make (tests/fuzz/meson.build), so libprnn's calls come here.
 * Armed, the nth call from then on fails with the given errno (a close
 * that fails still closes, as Linux's does); in short-write mode every
 * write writes at most 7 bytes. fault_io_failed() names the call that
 * failed.
 */
#ifndef PRNN_FAULT_IO_H
#define PRNN_FAULT_IO_H

/* Fails the nth wrapped call (0-based) from now with err; -1 disarms. */
void fault_io_arm(long nth, int err);
/* Every write writes at most 7 bytes (on) or all it is asked (off). */
void fault_io_short_writes(int on);
/* Wrapped calls since the last arm. */
long fault_io_count(void);
/* The call that failed since the last arm, or NULL. */
const char *fault_io_failed(void);

#endif
