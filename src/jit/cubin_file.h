/* Helpers shared by the cubin cache's files (not for other callers). */
#ifndef PRNN_CUBIN_FILE_H
#define PRNN_CUBIN_FILE_H

#include <stddef.h>

#include "jit/cubin_cache.h"

/* Fills e's kernel, source, sm and nvrtc from the lines of a stored key. */
void prnn_cubin_key_summary(const char *key, size_t len, prnn_cubin_entry *e);

/* prnn_cubin_cache_inspect for file in the open directory dirfd (shared:
 * it is PRNN_SHARED_CACHE_DIR, whose files may be anyone's). */
void prnn_cubin_inspect_at(int dirfd, int shared, const char *file, int check_payload,
                           prnn_cubin_entry *e);

#endif
