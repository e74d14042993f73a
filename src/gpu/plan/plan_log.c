#include "gpu/plan/plan_log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "descriptors.h"
#include "dtype.h"
#include "error.h"

static int log_enabled;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static void read_variable(void)
{
    const char *v = getenv("PRNN_LOG_PLANS");
    log_enabled = v && v[0] && strcmp(v, "0") != 0;
}

int prnn_plan_log_enabled(void)
{
    pthread_once(&log_once, read_variable);
    return log_enabled;
}

/* Names indexed by the public enums' values (explicit and dense: ABI). */
static const char *name_of(const char *const *names, size_t count, int value)
{
    return value >= 0 && (size_t)value < count ? names[value] : "?";
}

#define NAME_OF(names, value) name_of(names, sizeof(names) / sizeof(names[0]), (int)(value))

static const char *const config_names[] = {"none", "shipped-db", "user-db", "heuristic",
                                           "autotuned"};
static const char *const cubin_names[] = {"none", "memory", "disk", "compiled"};

/* snprintf that appends at *len and never runs past size. */
static void add(char *buf, size_t size, size_t *len, const char *fmt, ...) PRNN_PRINTF(4, 5);

static void add(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    if (*len >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

void prnn_plan_log_format(const prnn_plan_log_event *e, char *buf, size_t size)
{
    size_t len = 0;
    if (!size)
        return;
    buf[0] = '\0';
    add(buf, size, &len, "prnn: %s %s %s hidden=%d batch=%d layers=%d dirs=%d%s on %s", e->event,
        prnn_mode_name(e->mode), prnn_dtype_name(e->dtype), e->hidden, e->batch, e->layers, e->dirs,
        e->caller_rows ? " unpacked data" : "", e->device);
    if (e->status != PRNN_STATUS_SUCCESS) {
        add(buf, size, &len, " | failed: %s (prnnGetLastErrorLog says why) | %.1f ms",
            prnnGetErrorString(e->status), e->ms);
        return;
    }
    for (int i = 0; i < e->npasses; i++) {
        const prnn_plan_log_pass *p = &e->passes[i];
        add(buf, size, &len, " | %s: %s", p->pass, prnnGetRNNPathString(p->path));
        if (p->path == PRNN_PATH_STANDARD || strcmp(p->config, prnnGetRNNPathString(p->path)) == 0)
            continue; /* no configuration: the standard and step engines */
        add(buf, size, &len, " [%s] from ", p->config);
        if (p->forced_by)
            add(buf, size, &len, "%s (forced)", p->forced_by);
        else
            add(buf, size, &len, "%s", NAME_OF(config_names, p->source));
        if (p->tuned_on)
            add(buf, size, &len, " (tuned on %s)", p->tuned_on);
    }
    add(buf, size, &len, " | cubin: %s | %.1f ms (compile %.1f ms)", NAME_OF(cubin_names, e->cubin),
        e->ms, e->compile_ms);
    if (e->ahead_kernels || e->later_compiles)
        add(buf, size, &len, " | ahead: %d on %d thread%s, %lu by the loads", e->ahead_kernels,
            e->ahead_threads, e->ahead_threads == 1 ? "" : "s", e->later_compiles);
}

void prnn_plan_log_print(const prnn_plan_log_event *e)
{
    /* a pass with a configuration takes ~190 bytes: 8 of them and the
     * event's head and tail */
    char line[2048];
    prnn_plan_log_format(e, line, sizeof(line) - 1);
    size_t n = strlen(line);
    line[n] = '\n';
    fwrite(line, 1, n + 1, stderr);
}
