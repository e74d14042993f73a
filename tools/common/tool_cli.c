#include "tool_cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "prnn.h"

/* Column where an exit status's meaning starts, and the width it wraps at
 * (the usage texts are written for 80 columns). */
#define STATUS_INDENT 7
#define HELP_WIDTH 78

/* "  <code>  <text>", the text wrapped at word boundaries under itself. */
static void status_line(FILE *f, int code, const char *text)
{
    int col = fprintf(f, "  %-*d", STATUS_INDENT - 2, code);
    while (*text) {
        size_t word = strcspn(text, " ");
        if (col > STATUS_INDENT && col + 1 + (int)word > HELP_WIDTH) {
            fprintf(f, "\n%*s", STATUS_INDENT, "");
            col = STATUS_INDENT;
        } else if (col > STATUS_INDENT) {
            fputc(' ', f);
            col++;
        }
        col += fprintf(f, "%.*s", (int)word, text);
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', f);
}

void tool_help_exit_status(FILE *f, const char *ok, const char *failure, unsigned flags)
{
    fputs("\nExit status:\n", f);
    status_line(f, TOOL_EXIT_OK, ok);
    status_line(f, TOOL_EXIT_FAILURE, failure);
    status_line(f, TOOL_EXIT_USAGE,
                "bad arguments (the message names the argument and the rule; nothing was done)");
    if (flags & TOOL_USES_GPU)
        status_line(f, TOOL_EXIT_NO_GPU,
                    "no GPU: no CUDA driver or no CUDA device (PRNN_STATUS_NO_DEVICE)");
    if (flags & TOOL_HANDLES_SIGINT)
        status_line(f, TOOL_EXIT_INTERRUPTED, "interrupted (Ctrl-C)");
}

void tool_format_version(size_t version, char *buf, size_t n)
{
    snprintf(buf, n, "%zu.%zu.%zu", version / 10000, version / 100 % 100, version % 100);
}

void tool_print_version(FILE *f, const char *tool)
{
    fprintf(f, "%s %d.%d.%d", tool, PRNN_VERSION_MAJOR, PRNN_VERSION_MINOR, PRNN_VERSION_PATCH);
    /* A tool linked to the shared library can meet another build of it. */
    size_t loaded = prnnGetVersion();
    if (loaded != PRNN_VERSION) {
        char v[32];
        tool_format_version(loaded, v, sizeof(v));
        fprintf(f, " (library loaded: %s)", v);
    }
    fputc('\n', f);
}

int tool_bad_args(const char *tool, const char *msg)
{
    fprintf(stderr, "%s: %s\nrun '%s --help' for the usage\n", tool, msg, tool);
    return TOOL_EXIT_USAGE;
}

/* The long option named name (or a prefix of it, as getopt_long accepts)
 * whose value is val: its full name, or NULL. */
static const char *long_name(const struct option *o, const char *name, size_t len, int val,
                             int has_arg)
{
    for (; o->name; o++)
        if (o->val == val && o->has_arg == has_arg && strncmp(o->name, name, len) == 0)
            return o->name;
    return NULL;
}

/* err = "ambiguous option --<typed>: --a, --b or --c" when the typed
 * prefix matches options of more than one meaning; 0 when it did. */
static int ambiguous(const struct option *longopts, const char *typed, size_t len, char *err,
                     size_t n)
{
    const struct option *match[16];
    int k = 0;
    for (const struct option *o = longopts; o->name && k < 16; o++) {
        if (strncmp(o->name, typed, len) != 0)
            continue;
        int alias = 0; /* --mode and --modes mean the same */
        for (int i = 0; i < k; i++)
            alias |= match[i]->val == o->val;
        if (!alias)
            match[k++] = o;
    }
    if (k < 2)
        return -1;
    int at = snprintf(err, n, "ambiguous option --%.*s: ", (int)len, typed);
    for (int i = 0; i < k && at >= 0 && (size_t)at < n; i++)
        at += snprintf(err + at, n - (size_t)at, "--%s%s", match[i]->name,
                       i + 2 < k   ? ", "
                       : i + 1 < k ? " or "
                                   : "");
    return 0;
}

/* After getopt_long returned '?' or ':': why, in err. */
static void getopt_error(int c, char *const argv[], const struct option *longopts, char *err,
                         size_t n)
{
    /* getopt_long has stepped past the element it refused, for every case
     * worded here (a short option's missing value is always the last). */
    const char *text = optind > 0 ? argv[optind - 1] : "";
    int is_long = strncmp(text, "--", 2) == 0;
    const char *typed = is_long ? text + 2 : text;
    size_t len = strcspn(typed, "=");
    if (c == ':') {
        if (is_long) {
            const char *full = long_name(longopts, typed, len, optopt, required_argument);
            snprintf(err, n, "option --%s needs a value", full ? full : typed);
        } else {
            snprintf(err, n, "option -%c needs a value", optopt);
        }
        return;
    }
    if (optopt) {
        /* A flag given "=value", or an unknown short option. */
        const char *full = is_long ? long_name(longopts, typed, len, optopt, no_argument) : NULL;
        if (full)
            snprintf(err, n, "option --%s takes no value", full);
        else
            snprintf(err, n, "unknown option -%c", optopt);
        return;
    }
    if (!ambiguous(longopts, typed, len, err, n))
        return;
    snprintf(err, n, "unknown option --%.*s", (int)len, typed);
}

int tool_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
                tool_option_fn fn, void *ctx, char *err, size_t n)
{
    /* A leading ':' makes getopt_long tell a missing value (':') from an
     * unknown option ('?'). */
    char optstring[64];
    snprintf(optstring, sizeof(optstring), ":%s", shortopts);
    /* glibc: optind = 0 also clears the scan state a previous parse left;
     * opterr = 0 because getopt_error() words the messages. */
    optind = 0;
    opterr = 0;
    err[0] = '\0';
    for (;;) {
        int li = -1;
        int c = getopt_long(argc, argv, optstring, longopts, &li);
        if (c == -1)
            return optind;
        if (c == '?' || c == ':') {
            getopt_error(c, argv, longopts, err, n);
            return -1;
        }
        if (fn(ctx, c, li >= 0 ? longopts[li].name : "", optarg, err, n))
            return -1;
    }
}

int tool_no_operands(const char *tool, int argc, char **argv, int first, char *err, size_t n)
{
    if (first >= argc)
        return 0;
    snprintf(err, n, "unexpected argument \"%s\": %s takes options only", argv[first], tool);
    return -1;
}

int tool_bad_value(char *err, size_t n, const char *name, const char *value, const char *rule_fmt,
                   ...)
{
    int at = snprintf(err, n, "--%s \"%s\": ", name, value);
    if (at >= 0 && (size_t)at < n) {
        va_list ap;
        va_start(ap, rule_fmt);
        vsnprintf(err + at, n - (size_t)at, rule_fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int item_long(const char *item, long lo, long hi, long *out, char *rule, size_t rule_size)
{
    char *end;
    errno = 0;
    long v = strtol(item, &end, 10);
    if (!*item || *end || errno || v < lo || v > hi) {
        snprintf(rule, rule_size, "must be an integer in [%ld, %ld]", lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* Longest list value accepted (far beyond any sweep). */
#define LIST_MAX_CHARS 1024

int tool_parse_list(const char *name, const char *value, int max, tool_item_fn fn, void *ctx,
                    int *count, char *err, size_t n)
{
    char buf[LIST_MAX_CHARS];
    if (strlen(value) >= sizeof(buf))
        return tool_bad_value(err, n, name, value, "must be shorter than %d characters",
                              LIST_MAX_CHARS);
    strcpy(buf, value);
    int single = strchr(value, ',') == NULL;
    int k = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        tok += strspn(tok, " ");
        if (k >= max)
            return tool_bad_value(err, n, name, value, "must list at most %d values", max);
        char rule[160];
        if (fn(ctx, k, tok, rule, sizeof(rule))) {
            if (single)
                return tool_bad_value(err, n, name, value, "%s", rule);
            return tool_bad_value(err, n, name, value, "\"%s\" %s", tok, rule);
        }
        k++;
    }
    if (k == 0)
        return tool_bad_value(err, n, name, value, "must list at least one value");
    *count = k;
    return 0;
}

int tool_parse_long(const char *name, const char *value, long lo, long hi, long *out, char *err,
                    size_t n)
{
    char rule[96];
    if (item_long(value, lo, hi, out, rule, sizeof(rule)))
        return tool_bad_value(err, n, name, value, "%s", rule);
    return 0;
}

typedef struct {
    int *out;
    long lo, hi;
} int_items;

static int int_item(void *ctx, int index, const char *item, char *rule, size_t rule_size)
{
    int_items *l = ctx;
    long v;
    if (item_long(item, l->lo, l->hi, &v, rule, rule_size))
        return -1;
    l->out[index] = (int)v;
    return 0;
}

int tool_parse_ints(const char *name, const char *value, long lo, long hi, int *out, int max,
                    int *count, char *err, size_t n)
{
    int_items l = {out, lo, hi};
    return tool_parse_list(name, value, max, int_item, &l, count, err, n);
}

int tool_parse_seconds(const char *name, const char *value, double *out, char *err, size_t n)
{
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (!*value || *end || errno || !isfinite(v) || !(v > 0))
        return tool_bad_value(err, n, name, value, "must be a number of seconds above 0");
    *out = v;
    return 0;
}

int tool_parse_path(const char *name, const char *value, char *err, size_t n)
{
    if (!*value)
        return tool_bad_value(err, n, name, value, "must not be empty");
    return 0;
}
