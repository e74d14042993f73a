/*
 * Files embedded into the library at build time (tools/embed_files.py):
 * the NVRTC kernel sources of kernel_src/ and the shipped tuning database of
 * tuning_db/.
 */
#ifndef PRNN_EMBEDDED_H
#define PRNN_EMBEDDED_H

#include <stddef.h>

typedef struct {
    const char *name; /* base name, e.g. "rnn_persistent.cu" */
    const char *data; /* NUL-terminated contents */
    size_t size;      /* bytes, without the terminator */
} prnn_embedded_file;

/* Tables end with an entry whose name is NULL. */
extern const prnn_embedded_file prnn_kernel_files[];
extern const size_t prnn_kernel_files_count;
extern const prnn_embedded_file prnn_tuning_db_files[];
extern const size_t prnn_tuning_db_files_count;

/* The embedded file called name in table, or NULL. */
const prnn_embedded_file *prnn_embedded_find(const prnn_embedded_file *table, const char *name);

#endif
