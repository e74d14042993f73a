/*
 * Thread-local error log behind prnnGetLastErrorLog().
 *
 * Every public entry point calls prnn_api_enter() with its own name; the
 * failure helpers then prefix messages with it, so code deep inside the
 * library reports "prnnRNNForwardInference: xDesc[3]: batch 5 > batch 4 of
 * xDesc[2]; batch sizes must not increase" without knowing who called it.
 */
#ifndef PRNN_ERROR_H
#define PRNN_ERROR_H

#include "prnn.h"

#if defined(__GNUC__)
#define PRNN_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PRNN_PRINTF(a, b)
#endif

/* Marks the start of a public call: remembers its name for messages. Does
 * not clear the log (the previous failure stays readable until the next). */
void prnn_api_enter(const char *api_name);

/* Replaces the calling thread's log with "<api>: <message>" and returns
 * status, so that validation reads: return prnn_fail(BAD_PARAM, "...").
 * The message should name the argument, its value and the rule. */
prnnStatus_t prnn_fail(prnnStatus_t status, const char *fmt, ...) PRNN_PRINTF(2, 3);

/* Appends a line to the current log without changing the status (used for
 * long compiler logs after a prnn_fail, and for notes on successful calls
 * such as "cache directory not writable"). */
void prnn_log_append(const char *fmt, ...) PRNN_PRINTF(1, 2);

/* Appends raw text (e.g. an NVRTC log) without formatting. */
void prnn_log_append_text(const char *text);

/* Returns from the calling function with expr's status unless it is
 * SUCCESS: the one way the library forwards a failure it cannot handle. */
#define PRNN_TRY(expr)                                                                             \
    do {                                                                                           \
        prnnStatus_t prnn_try_status_ = (expr);                                                    \
        if (prnn_try_status_ != PRNN_STATUS_SUCCESS)                                               \
            return prnn_try_status_;                                                               \
    } while (0)

/* Empties the calling thread's log. */
void prnn_log_clear(void);

/* The calling thread's log; never NULL. */
const char *prnn_log_get(void);

/* A copy of the calling thread's log (malloc; NULL when out of memory),
 * and putting it back, freeing it: for work whose messages are not the
 * caller's business (a look-ahead that the real work repeats). */
char *prnn_log_save(void);
void prnn_log_restore(char *saved);

#endif
