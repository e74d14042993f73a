/* Runs a tool as a user would and keeps what it said, for the tests of the
 * tools' command lines. */
#ifndef PRNN_TEST_RUN_TOOL_H
#define PRNN_TEST_RUN_TOOL_H

typedef struct {
    int status;      /* exit status, or -1 when it did not exit */
    char *out, *err; /* all of its stdout and stderr (malloc'ed) */
} run_result;

/* Runs exe with args (NULL-terminated, at most 14) and waits for it. */
run_result run_tool(const char *exe, const char *const *args);

void run_result_free(run_result *r);

#endif
