/*
 * prnn-cache: look after the cubin cache.
 *
 *   prnn-cache [--dir DIR] list     entries: kernel, source, arch, size, age
 *   prnn-cache [--dir DIR] verify   re-check every header and checksum
 *   prnn-cache [--dir DIR] clear    remove entries and stray temporary files
 *
 * Only files named like cache entries are touched: the directory also holds
 * the user tuning database.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "error.h"
#include "jit/cubin_cache.h"
#include "tuning/cache_dir.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: prnn-cache [--dir DIR] list|verify|clear\n"
            "\n"
            "  list    one line per cached kernel: file, kernel, source, arch,\n"
            "          NVRTC version, size, age\n"
            "  verify  re-read every entry and check its header, name and\n"
            "          payload checksum; exit status 1 if any is bad\n"
            "  clear   remove every entry and stray temporary file\n"
            "\n"
            "  --dir DIR  the cache directory (default: $PRNN_CACHE_DIR, else\n"
            "             $XDG_CACHE_HOME/prnn, else ~/.cache/prnn)\n"
            "  --help     this text\n");
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
    int entries, temps, bad;
    unsigned long long bytes;
    long long now;
} scan_state;

static int print_entry(const prnn_cubin_entry *e, void *user)
{
    scan_state *st = user;
    char age[32];
    format_age(st->now - e->mtime, age, sizeof(age));
    if (e->is_temp) {
        /* A writer's file in flight, or debris of a crash: not an error. */
        st->temps++;
        printf("%-38s  temporary file (%llu bytes, %s old)\n", e->file,
               e->file_size, age);
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
    if (e->valid || e->kernel[0])
        printf("%-38s  %-24s %-22s sm_%-4d nvrtc %-6s %8llu B  %5s%s%s\n",
               e->file, e->kernel, e->source, e->sm, e->nvrtc, e->file_size,
               age, e->valid ? "" : "  BAD: ", e->valid ? "" : e->problem);
    else
        printf("%-38s  BAD: %s\n", e->file, e->problem);
    return 0;
}

static int scan(const char *dir, int verify)
{
    struct stat sb;
    if (stat(dir, &sb) != 0 && errno == ENOENT) {
        printf("cache directory %s does not exist: no entries\n", dir);
        return 0;
    }
    scan_state st = {verify, 0, 0, 0, 0, (long long)time(NULL)};
    prnnStatus_t s = prnn_cubin_cache_scan(dir, verify, print_entry, &st);
    if (s) {
        fprintf(stderr, "prnn-cache: %s\n", prnn_log_get());
        return 1;
    }
    printf("%s: %d entr%s, %llu bytes", dir, st.entries,
           st.entries == 1 ? "y" : "ies", st.bytes);
    if (st.temps)
        printf(", %d temporary file%s", st.temps, st.temps == 1 ? "" : "s");
    if (verify || st.bad)
        printf(", %d bad", st.bad);
    printf("\n");
    /* list shows bad entries; only verify fails on them. */
    return verify && st.bad ? 1 : 0;
}

static int clear(const char *dir)
{
    struct stat sb;
    if (stat(dir, &sb) != 0 && errno == ENOENT) {
        printf("cache directory %s does not exist: nothing to remove\n", dir);
        return 0;
    }
    int removed = 0;
    prnnStatus_t s = prnn_cubin_cache_clear(dir, &removed);
    printf("%s: removed %d file%s\n", dir, removed, removed == 1 ? "" : "s");
    if (s) {
        fprintf(stderr, "prnn-cache: %s\n", prnn_log_get());
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *command = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strncmp(argv[i], "--dir=", 6) == 0) {
            dir = argv[i] + 6;
        } else if (argv[i][0] != '-' && !command) {
            command = argv[i];
        } else {
            fprintf(stderr, "prnn-cache: unexpected argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!command) {
        usage(stderr);
        return 2;
    }
    char buf[PATH_MAX];
    if (!dir) {
        if (prnn_cache_dir(buf, sizeof(buf)) != 0) {
            fprintf(stderr, "prnn-cache: no cache directory (set PRNN_CACHE_DIR "
                            "or HOME, or pass --dir)\n");
            return 2;
        }
        dir = buf;
    }
    if (strcmp(command, "list") == 0)
        return scan(dir, 0);
    if (strcmp(command, "verify") == 0)
        return scan(dir, 1);
    if (strcmp(command, "clear") == 0)
        return clear(dir);
    fprintf(stderr, "prnn-cache: unknown command '%s'\n", command);
    usage(stderr);
    return 2;
}
