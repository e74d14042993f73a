/*
 * The version is written once, in meson.build's project(), and reaches the
 * user three ways: the PRNN_VERSION_* macros of the generated header, the
 * library's prnnGetVersion(), and the project version meson reports (here
 * argv[1], passed by meson). All three must agree.
 */
#include <stdio.h>
#include <stdlib.h>

#include "prnn.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s MAJOR.MINOR.PATCH (meson's project version)\n", argv[0]);
        return 2;
    }
    unsigned major, minor, patch;
    char tail;
    if (sscanf(argv[1], "%u.%u.%u%c", &major, &minor, &patch, &tail) != 3) {
        fprintf(stderr, "project version '%s' is not MAJOR.MINOR.PATCH\n", argv[1]);
        return 1;
    }
    size_t project = (size_t)major * 10000 + minor * 100 + patch;
    int ok = 1;
    printf("project version %s = %zu\n", argv[1], project);
    printf("header PRNN_VERSION_MAJOR.MINOR.PATCH %d.%d.%d = PRNN_VERSION %d\n", PRNN_VERSION_MAJOR,
           PRNN_VERSION_MINOR, PRNN_VERSION_PATCH, PRNN_VERSION);
    printf("library prnnGetVersion() = %zu\n", prnnGetVersion());
    if (major != (unsigned)PRNN_VERSION_MAJOR || minor != (unsigned)PRNN_VERSION_MINOR ||
        patch != (unsigned)PRNN_VERSION_PATCH) {
        printf("not ok: the header's version is not the project's\n");
        ok = 0;
    }
    if (prnnGetVersion() != project) {
        printf("not ok: the library's prnnGetVersion() is not the project's\n");
        ok = 0;
    }
    if (ok)
        printf("ok: header, library and project agree on %s\n", argv[1]);
    return ok ? 0 : 1;
}
