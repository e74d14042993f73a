/* Writes the synthetic result set as prnn-bench JSON (for the plot test). */
#include <stdio.h>

#include "bench_report.h"
#include "bench_synth.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUT.json\n", argv[0]);
        return 2;
    }
    bench_result rs[SYNTH_MAX];
    bench_meta meta;
    bench_cold_result cold[2];
    int ncold;
    int n = bench_synth(rs, &meta, cold, &ncold);
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    bench_write_json(f, &meta, rs, n, cold, ncold);
    return fclose(f) ? 1 : 0;
}
