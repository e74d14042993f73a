/*
 * prnn-cache: look after the cubin cache.
 *
 *   prnn-cache [--dir DIR] list     entries: kernel, source, arch, size, age
 *   prnn-cache [--dir DIR] verify   re-check every header and checksum
 *   prnn-cache [--dir DIR] clear    remove entries and stray temporary files
 *   prnn-cache [--dir DIR] --arch sm_XY [--db WHICH] [--data WHICH] warm
 *                                   compile the tuning DB's kernels for an
 *                                   architecture, without a GPU
 *
 * Only files named like cache entries are touched: the directory also holds
 * the user tuning database, of which only the temporary files of killed
 * writers are listed and removed. Exit statuses: see usage().
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "error.h"
#include "jit/cubin_cache.h"
#include "store/cache_dir.h"
#include "store/temp_files.h"
#include "store/trusted_path.h"
#include "tool_cli.h"
#include "tuning/tuning_db.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: prnn-cache [--dir DIR] list|verify|clear\n"
               "       prnn-cache [--dir DIR] --arch sm_XY [--db shipped|user|both]\n"
               "                  [--data packed|unpacked|both] warm\n"
               "\n"
               "  list    one line per cached kernel: file, kernel, source, arch,\n"
               "          NVRTC version, size, age\n"
               "  verify  re-read every entry and check its header, name and\n"
               "          payload checksum\n"
               "  clear   remove every entry, and every temporary file (of the\n"
               "          cache or of the user tuning DB) that no running writer\n"
               "          holds; it goes on past files it cannot remove and says\n"
               "          why\n"
               "  warm    compile, without a GPU, the kernels that training plans\n"
               "          of the tuning DB's shapes for GPUs of one architecture\n"
               "          load, into the cache (a container image can ship it\n"
               "          filled); kernels already there are not compiled again\n"
               "\n"
               "  The user tuning DB ($PRNN_TUNING_DB, else DIR/tuning.json) is\n"
               "  never touched; its writers' temporary files are listed and\n"
               "  cleared with the cache's.\n"
               "\n"
               "  --dir DIR    the cache directory (default: $PRNN_CACHE_DIR, else\n"
               "               $XDG_CACHE_HOME/prnn, else ~/.cache/prnn)\n"
               "  --arch ARCH  warm: the architecture, sm_90 or 90 (70, 75, 80, 86,\n"
               "               87, 89, 90, 100, 120)\n"
               "  --db WHICH   warm: the shapes of the shipped DB, of the user DB, or\n"
               "               both (default both)\n"
               "  --data WHICH warm: the plans of packed data (the v5 calls, the\n"
               "               SEQ_MAJOR_PACKED layout), of unpacked data (the padded\n"
               "               layouts, prnn.torch's batch_first input; about three\n"
               "               times packed's compile time), or both (default both)\n"
               "  -h, --help   this text\n"
               "  --version    prnn-cache's version (and the loaded library's)\n");
    tool_help_exit_status(
        f, "done (list also when it shows bad entries)",
        "verify found a bad entry (one prnn would not load included) or the directory is one prnn "
        "does not trust, the directory could not be read or a file could not be removed, warm "
        "could not compile a kernel (or has no NVRTC, or cannot use the directory), or there is "
        "no cache directory (no $HOME and no --dir)",
        0);
}

static void format_age(long long seconds, char *buf, size_t size)
{
    if (seconds < 0)
        seconds = 0;
    if (seconds < 120)
        snprintf(buf, size, "%llds", seconds);
    else if (seconds < 2 * 3600)
        snprintf(buf, size, "%lldm", seconds / 60);
    else if (seconds < 2 * 86400)
        snprintf(buf, size, "%lldh", seconds / 3600);
    else
        snprintf(buf, size, "%lldd", seconds / 86400);
}

typedef struct {
    int verify;
    int entries, temps, bad, vanished;
    unsigned long long bytes;
    long long now;
} scan_state;

static int print_entry(const prnn_cubin_entry *e, void *user)
{
    scan_state *st = user;
    char age[32] = "";
    /* Removed by a concurrent clear (or replaced by a store) between the
     * listing and the reading: nothing is wrong with the cache, and there
     * is no size or age to show. */
    if (e->vanished) {
        st->vanished++;
        printf("%-38s  removed meanwhile (a concurrent clear or store)\n", e->file);
        return 0;
    }
    if (e->has_stat)
        format_age(st->now - e->mtime, age, sizeof(age));
    if (e->is_temp) {
        /* A writer's file in flight, or debris of a crash: not an error. */
        st->temps++;
        if (e->has_stat && !e->problem[0])
            printf("%-38s  temporary file (%llu bytes, %s old)\n", e->file, e->file_size, age);
        else
            printf("%-38s  temporary file: %s\n", e->file, e->problem);
        return 0;
    }
    st->entries++;
    st->bytes += e->file_size;
    if (!e->valid)
        st->bad++;
    if (st->verify) {
        if (e->valid)
            printf("ok   %s  %s sm_%d\n", e->file, e->kernel, e->sm);
        else
            printf("BAD  %s  %s\n", e->file, e->problem);
        return 0;
    }
    if (e->has_stat && (e->valid || e->kernel[0]))
        printf("%-38s  %-24s %-22s sm_%-4d nvrtc %-6s %8llu B  %5s%s%s\n", e->file, e->kernel,
               e->source, e->sm, e->nvrtc, e->file_size, age,
               e->valid ? "" : "  BAD: ", e->valid ? "" : e->problem);
    else
        printf("%-38s  BAD: %s\n", e->file, e->problem);
    return 0;
}

/* Lists one of the tuning DB's temporary files; counts it in st. */
static int list_db_temp(const char *path, const char *name, const struct stat *sb, void *user)
{
    (void)name;
    scan_state *st = user;
    char age[32];
    format_age(st->now - (long long)sb->st_mtime, age, sizeof(age));
    st->temps++;
    printf("%-38s  tuning DB temporary file (%lld bytes, %s old)\n", path, (long long)sb->st_size,
           age);
    return 0;
}

/* Says when prnn would not use dir (trusted_path.h). 1 when it would not. */
static int note_untrusted(const char *dir)
{
    prnn_trusted_dir d;
    char why[PATH_MAX + 512];
    prnn_trust_result t = prnn_trusted_dir_inspect(dir, &d, why, sizeof(why));
    prnn_trusted_dir_close(&d);
    if (t != PRNN_TRUST_REFUSED)
        return 0;
    fprintf(stderr, "prnn-cache: note: %s; prnn neither loads nor stores kernels there\n", why);
    return 1;
}

static int scan(const char *dir, const char *db, int verify)
{
    struct stat sb;
    scan_state st = {verify, 0, 0, 0, 0, 0, (long long)time(NULL)};
    if (db)
        prnn_temp_each_tuning_db(db, list_db_temp, &st);
    if (stat(dir, &sb) != 0 && errno == ENOENT) {
        printf("cache directory %s does not exist: no entries\n", dir);
        return TOOL_EXIT_OK;
    }
    int untrusted = note_untrusted(dir);
    prnnStatus_t s = prnn_cubin_cache_scan(dir, verify, print_entry, &st);
    if (s) {
        fprintf(stderr, "prnn-cache: %s\n", prnn_log_get());
        return TOOL_EXIT_FAILURE;
    }
    printf("%s: %d entr%s, %llu bytes", dir, st.entries, st.entries == 1 ? "y" : "ies", st.bytes);
    if (st.temps)
        printf(", %d temporary file%s", st.temps, st.temps == 1 ? "" : "s");
    if (verify || st.bad)
        printf(", %d bad", st.bad);
    if (st.vanished)
        printf(", %d removed meanwhile", st.vanished);
    if (untrusted)
        printf(", not trusted");
    printf("\n");
    /* list shows bad entries; only verify fails on them, and on a
     * directory prnn would not use. */
    return verify && (st.bad || untrusted) ? TOOL_EXIT_FAILURE : TOOL_EXIT_OK;
}

static int clear(const char *dir, const char *db)
{
    struct stat sb;
    prnn_temp_sweep_result r = {0}, t = {0};
    prnnStatus_t s = PRNN_STATUS_SUCCESS;
    if (stat(dir, &sb) != 0 && errno == ENOENT)
        printf("cache directory %s does not exist: no entries to remove\n", dir);
    else
        s = prnn_cubin_cache_clear(dir, &r);
    if (s && !r.failed) /* the directory itself could not be read */
        prnn_temp_note_failure(&r, dir, prnn_log_get());
    /* Any age: a writer that holds its file is alive and keeps it. */
    if (db)
        prnn_tuning_db_sweep(db, 0, &t);
    r.removed += t.removed;
    r.kept += t.kept;
    if (t.failed && !r.failed)
        snprintf(r.why, sizeof(r.why), "%s", t.why);
    r.failed += t.failed;
    printf("%s: removed %d file%s", dir, r.removed, r.removed == 1 ? "" : "s");
    if (r.kept)
        printf(", left %d temporary file%s that a running writer holds", r.kept,
               r.kept == 1 ? "" : "s");
    if (r.failed)
        printf(", could not remove %d", r.failed);
    printf("\n");
    if (r.failed) {
        fprintf(stderr, "prnn-cache: could not remove %d file%s; the first: %s\n", r.failed,
                r.failed == 1 ? "" : "s", r.why);
        return TOOL_EXIT_FAILURE;
    }
    return TOOL_EXIT_OK;
}

static int warm(const char *dir, int sm, unsigned sources)
{
    prnnCacheWarmResult_t r;
    memset(&r, 0, sizeof(r));
    r.structSize = sizeof(r);
    prnnStatus_t s = prnnWarmKernelCache(dir, sm, sources, &r);
    printf("%s: sm_%d, %d shape%s, %d kernel%s: %d compiled, %d already cached", dir, sm, r.shapes,
           r.shapes == 1 ? "" : "s", r.kernels, r.kernels == 1 ? "" : "s", r.compiled, r.cached);
    if (r.failed)
        printf(", %d failed", r.failed);
    printf("\n");
    if (s) {
        fprintf(stderr, "prnn-cache: %s: %s\n", prnnGetErrorString(s), prnnGetLastErrorLog());
        return TOOL_EXIT_FAILURE;
    }
    return TOOL_EXIT_OK;
}

/* What the command line asked for: 0, or -1 with err. */
typedef struct {
    const char *dir;     /* NULL: the default directory */
    const char *command; /* list, verify, clear or warm */
    int sm;              /* warm: --arch, 0 when not given */
    unsigned dbs, data;  /* warm: --db's and --data's bits of the sources */
    int help, version;
} cache_args;

enum { OPT_DIR = 256, OPT_VERSION, OPT_ARCH, OPT_DB, OPT_DATA };

static const struct option long_options[] = {
    {"dir", required_argument, NULL, OPT_DIR},
    {"arch", required_argument, NULL, OPT_ARCH},
    {"db", required_argument, NULL, OPT_DB},
    {"data", required_argument, NULL, OPT_DATA},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* --db's and --data's value: the first name's bit, the second's, or "both"
 * (the two bits) into *bits; else a usage error naming the three. */
static int one_or_both(char *err, size_t n, const char *name, const char *value, const char *first,
                       unsigned first_bit, const char *second, unsigned second_bit, unsigned *bits)
{
    *bits = strcmp(value, first) == 0    ? first_bit
            : strcmp(value, second) == 0 ? second_bit
            : strcmp(value, "both") == 0 ? first_bit | second_bit
                                         : 0;
    if (!*bits)
        return tool_bad_value(err, n, name, value, "must be %s, %s or both", first, second);
    return 0;
}

/* One option (tool_option_fn). */
static int apply(void *ctx, int c, const char *name, const char *value, char *err, size_t n)
{
    cache_args *a = ctx;
    switch (c) {
    case 'h': a->help = 1; return 0;
    case OPT_VERSION: a->version = 1; return 0;
    case OPT_ARCH: {
        const char *digits = strncmp(value, "sm_", 3) == 0 ? value + 3 : value;
        size_t len = strspn(digits, "0123456789");
        if (len < 2 || len > 3 || digits[len])
            return tool_bad_value(err, n, name, value, "must be an architecture, sm_90 or 90");
        a->sm = atoi(digits);
        return 0;
    }
    case OPT_DB:
        return one_or_both(err, n, name, value, "shipped", PRNN_WARM_SHIPPED_DB, "user",
                           PRNN_WARM_USER_DB, &a->dbs);
    case OPT_DATA:
        return one_or_both(err, n, name, value, "packed", PRNN_WARM_PACKED_DATA, "unpacked",
                           PRNN_WARM_UNPACKED_DATA, &a->data);
    case OPT_DIR:
        a->dir = value;
        if (strlen(value) >= PATH_MAX) {
            snprintf(
                err, n,
                "--%s: the path is %zu characters long, more than a path may have (PATH_MAX %d)",
                name, strlen(value), PATH_MAX);
            return -1;
        }
        return tool_parse_path(name, value, err, n);
    }
    snprintf(err, n, "option %d is not handled", c); /* a bug, not input */
    return -1;
}

static int parse_args(int argc, char **argv, cache_args *a, char *err, size_t n)
{
    memset(a, 0, sizeof(*a));
    a->dbs = PRNN_WARM_SHIPPED_DB | PRNN_WARM_USER_DB;
    a->data = PRNN_WARM_PACKED_DATA | PRNN_WARM_UNPACKED_DATA;
    int first = tool_getopt(argc, argv, "h", long_options, apply, a, err, n);
    if (first < 0)
        return -1;
    if (a->help || a->version)
        return 0;
    if (first == argc) {
        snprintf(err, n, "a command is needed: list, verify, clear or warm");
        return -1;
    }
    a->command = argv[first];
    if (strcmp(a->command, "list") && strcmp(a->command, "verify") && strcmp(a->command, "clear") &&
        strcmp(a->command, "warm")) {
        snprintf(err, n, "unknown command \"%s\": must be list, verify, clear or warm", a->command);
        return -1;
    }
    if (strcmp(a->command, "warm") == 0 && !a->sm) {
        snprintf(err, n, "warm needs --arch (e.g. --arch sm_90)");
        return -1;
    }
    if (first + 1 < argc) {
        snprintf(err, n, "unexpected argument \"%s\": one command at a time", argv[first + 1]);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    cache_args a;
    char err[512];
    if (parse_args(argc, argv, &a, err, sizeof(err)))
        return tool_bad_args("prnn-cache", err);
    if (a.help) {
        usage(stdout);
        return TOOL_EXIT_OK;
    }
    if (a.version) {
        tool_print_version(stdout, "prnn-cache");
        return TOOL_EXIT_OK;
    }
    char buf[PATH_MAX];
    const char *dir = a.dir;
    if (!dir) {
        if (prnn_cache_dir(buf, sizeof(buf)) != 0) {
            char why[512];
            prnn_cache_dir_explain(why, sizeof(why));
            fprintf(stderr, "prnn-cache: no cache directory: %s (pass --dir)\n", why);
            return TOOL_EXIT_FAILURE;
        }
        dir = buf;
    }
    /* Something else where the directory should be: said as such, before
     * a listing or a clear would report it as files it could not read. */
    struct stat sb;
    if (stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
        char what[PATH_MAX + 200];
        snprintf(what, sizeof(what), "%s is %s, not a directory: %s names the cache directory", dir,
                 prnn_file_kind(sb.st_mode), a.dir ? "--dir" : "PRNN_CACHE_DIR (or the default)");
        if (a.dir)
            return tool_bad_args("prnn-cache", what);
        fprintf(stderr, "prnn-cache: %s\n", what);
        return TOOL_EXIT_FAILURE;
    }
    /* The user tuning DB that goes with this directory. */
    char db[PATH_MAX + 16];
    const char *env_db = getenv("PRNN_TUNING_DB");
    if (env_db && env_db[0])
        snprintf(db, sizeof(db), "%s", env_db);
    else
        snprintf(db, sizeof(db), "%s/tuning.json", dir);
    if (strcmp(a.command, "clear") == 0)
        return clear(dir, db);
    if (strcmp(a.command, "warm") == 0)
        return warm(dir, a.sm, a.dbs | a.data);
    return scan(dir, db, strcmp(a.command, "verify") == 0);
}
