/*
 * The command-line conventions every prnn tool shares (prnn-bench,
 * prnn-cache, prnn-autotune, prnn-demo): getopt_long, --help on stdout with exit 0,
 * --version, one exit status per kind of outcome, and one wording for bad
 * arguments that names the argument and the rule:
 *
 *   prnn-bench: --hidden "0": must be an integer in [1, 65536]
 *   run 'prnn-bench --help' for the usage
 *
 * The parsing helpers format their message into the caller's buffer
 * instead of printing it, so that a parser can be tested in-process;
 * tool_bad_args() prints it.
 */
#ifndef PRNN_TOOL_CLI_H
#define PRNN_TOOL_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* Exit statuses. Scripts branch on them (tools/main.sh runs the CPU demo
 * when prnn-bench exits TOOL_EXIT_NO_GPU), so the values never change. */
typedef enum {
    TOOL_EXIT_OK = 0,
    TOOL_EXIT_FAILURE = 1,       /* a prnn call, a check or a write failed */
    TOOL_EXIT_USAGE = 2,         /* bad arguments */
    TOOL_EXIT_NO_GPU = 3,        /* no driver or no device (NO_DEVICE) */
    TOOL_EXIT_INTERRUPTED = 130, /* SIGINT: 128 + 2, as shells report it */
} tool_exit;

/* Flags of tool_help_exit_status(): which of the optional statuses the
 * tool can return. */
#define TOOL_USES_GPU 1u
#define TOOL_HANDLES_SIGINT 2u

/* The "Exit status:" section that ends each --help: 0 and 1 in the tool's
 * own words, then the shared meanings of 2, 3 and 130. */
void tool_help_exit_status(FILE *f, const char *ok, const char *failure, unsigned flags);

/* "prnn-bench 0.1.0": the version the tool was built with, and the loaded
 * library's prnnGetVersion() after it when the two differ. */
void tool_print_version(FILE *f, const char *tool);

/* prnnGetVersion()'s number as "MAJOR.MINOR.PATCH". */
void tool_format_version(size_t version, char *buf, size_t n);

/* Prints "<tool>: <msg>" and the pointer to --help on stderr; returns
 * TOOL_EXIT_USAGE for main() to return. */
int tool_bad_args(const char *tool, const char *msg);

/* Applies option c (getopt_long's value for it) with its value (NULL for
 * a flag); name is its long name without dashes ("" for a short option),
 * for the message. 0, or -1 with err. */
typedef int (*tool_option_fn)(void *ctx, int c, const char *name, const char *value, char *err,
                              size_t n);

/* Runs getopt_long over argv (options may follow operands: argv is
 * reordered so that the operands come last) and hands each option to fn.
 * Returns the index of the first operand (argc when none), or -1 with err:
 * fn's message, or getopt_long's refusal in the tools' words ("unknown
 * option --foo", "option --hidden needs a value", "option --quick takes no
 * value", "ambiguous option --no: --no-cudnn or --no-prnn"). Can run more
 * than once in a process (the tests parse many command lines). */
int tool_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
                tool_option_fn fn, void *ctx, char *err, size_t n);

/* For a tool that takes no operands: 0 when first (tool_getopt's result)
 * is argc, else -1 with 'unexpected argument "x": <tool> takes options
 * only'. */
int tool_no_operands(const char *tool, int argc, char **argv, int first, char *err, size_t n);

/* The parsers below take an option's long name without its dashes
 * ("hidden") and word a refusal as '--<name> "<value>": <rule>'. */

/* err = '--<name> "<value>": <rule>'; returns -1. The rule reads after
 * the value: "must be an integer in [1, 65536]". */
int tool_bad_value(char *err, size_t n, const char *name, const char *value, const char *rule_fmt,
                   ...) __attribute__((format(printf, 5, 6)));

/* One item of a list option: 0, or -1 with the rule it broke in rule
 * ("must be one of relu, tanh, lstm, gru"). ctx is the parser's. */
typedef int (*tool_item_fn)(void *ctx, int index, const char *item, char *rule, size_t rule_size);

/* Splits value at commas (spaces after a comma are skipped) and hands each
 * item to fn. 0 with the number of items (1 to max) in *count, or -1 with
 * err: an empty list, more than max items, or an item fn refused
 * ('--batch "1,12x": "12x" must be an integer in [1, 65536]'; a list of
 * one item is reported as a single value). */
int tool_parse_list(const char *name, const char *value, int max, tool_item_fn fn, void *ctx,
                    int *count, char *err, size_t n);

/* One integer in [lo, hi]: 0, or -1 with err. */
int tool_parse_long(const char *name, const char *value, long lo, long hi, long *out, char *err,
                    size_t n);

/* A list of integers in [lo, hi] into out[max], their number in *count:
 * 0, or -1 with err. */
int tool_parse_ints(const char *name, const char *value, long lo, long hi, int *out, int max,
                    int *count, char *err, size_t n);

/* A number of seconds, > 0 and finite: 0, or -1 with err. */
int tool_parse_seconds(const char *name, const char *value, double *out, char *err, size_t n);

/* A file or directory name: not empty. 0, or -1 with err. */
int tool_parse_path(const char *name, const char *value, char *err, size_t n);

#endif
