/* Small helpers shared by the tuning tests: checks that keep going, a
 * temporary directory per test, files in and out, a valid sample entry. */
#ifndef PRNN_TUNING_TEST_H
#define PRNN_TUNING_TEST_H

#include <stddef.h>
#include <stdio.h>

#include "tuning/tuning_db.h"

extern int test_failures;
#include "../test_check.h"

/* Checks that the thread's prnn log contains needle; prints the log if not. */
#define CHECK_LOG(needle) test_check_log(__FILE__, __LINE__, (needle))
void test_check_log(const char *file, int line, const char *needle);

/* A fresh directory under $TMPDIR (or /tmp); aborts the test on failure. */
char *test_mkdtemp(void);
/* Removes path and everything under it. */
void test_rm_rf(const char *path);
int test_write_file(const char *path, const char *text);
/* The whole file, malloc'd and NUL-terminated, or NULL. */
char *test_read_file(const char *path, size_t *len);
/* How many entries of dir have names starting with prefix. */
int test_count_files(const char *dir, const char *prefix);

/* A valid entry: "Test GPU" 8.6, 84 SMs, lstm half hidden, batch exact,
 * forward (set .pass for the other kernel). */
void test_entry(prnn_tuning_entry *e, int hidden, int batch, int blocks);
/* The key that entry's shape would be looked up with. */
prnn_tuning_key test_key(int hidden, int batch);
/* The blocks of db's exact entry for test_key(hidden, 8) (what
 * test_entry(e, hidden, 8, blocks) wrote); 0 when it has none. */
int test_exact_blocks(const prnn_tuning_db *db, int hidden);
/* Parses text into db (zeroed first); returns prnn_tuning_db_parse's value. */
int test_parse(prnn_tuning_db *db, const char *text);
/* A database holding these entries (through format + parse). */
void test_db_of(prnn_tuning_db *db, const prnn_tuning_entry *e, size_t n);

/* what: the test's name and what it checked, printed with the result
 * ("tuning-parse: ..."). Returns the exit status. */
int test_finish(const char *what);

#endif
