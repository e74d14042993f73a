/*
 * Where prnn keeps per-user files (cubin cache, user tuning DB): one rule,
 * shared by the cubin cache and the tuning DB so they always agree.
 */
#ifndef PRNN_CACHE_DIR_H
#define PRNN_CACHE_DIR_H

#include <stddef.h>

/*
 * Writes the cache directory into buf, without creating it:
 *   $PRNN_CACHE_DIR (if set and not empty, taken as given),
 *   else $XDG_CACHE_HOME/prnn (only if absolute: the XDG spec says to ignore
 *   a relative value), else $HOME/.cache/prnn (HOME absolute; if unset, the
 *   home directory of the password database). No trailing slash is added.
 * Returns 0, or -1 when there is no usable directory or buf is too small.
 */
int prnn_cache_dir(char *buf, size_t size);

/* Why prnn_cache_dir fails, for a message: no variable and no home, or the
 * chosen one is too long (naming the variable). */
void prnn_cache_dir_explain(char *why, size_t size);

/*
 * Creates path and its missing parents (mode 0700: the cache holds code that
 * will be loaded, so other users must not write to it; existing directories
 * are left as they are). Returns 0 when path is a directory afterwards, -1
 * with errno set otherwise.
 */
int prnn_mkdir_p(const char *path);

/* Writes the directory of the file path into dir ("." when path names no
 * directory, "/" for a file at the root; cut to fit size) and returns its
 * base name, the part of path after the last slash. */
const char *prnn_path_split(const char *path, char *dir, size_t size);

#endif
