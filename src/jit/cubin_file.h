/* Helpers shared by the cubin cache's files (not for other callers). */
#ifndef PRNN_CUBIN_FILE_H
#define PRNN_CUBIN_FILE_H

#include <stddef.h>

#include "jit/cubin_cache.h"

/* "<dir>/<name><suffix>" into buf; -1 if it does not fit. */
int prnn_cubin_path(char *buf, size_t size, const char *dir, const char *name,
                    const char *suffix);

/* Fills e's kernel, source, sm and nvrtc from the lines of a stored key. */
void prnn_cubin_key_summary(const char *key, size_t len, prnn_cubin_entry *e);

#endif
