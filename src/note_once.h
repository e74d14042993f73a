/*
 * Notes that are worth reading once per process: a cache directory that
 * cannot be used, a user tuning DB that is not a regular file. Every plan
 * meets the same condition, and a log that repeats it on every lookup hides
 * whatever else it says.
 */
#ifndef PRNN_NOTE_ONCE_H
#define PRNN_NOTE_ONCE_H

#include "error.h"

/* prnn_log_append of the formatted text, unless this process has appended
 * the same text through here before. Returns 1 when it appended. */
int prnn_note_once(const char *fmt, ...) PRNN_PRINTF(1, 2);

#endif
