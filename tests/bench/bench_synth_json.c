/* Writes the synthetic result set as prnn-bench JSON and, given a second
 * path, as its CSV: the plot test reads both, through the bench's own
 * writers. */
#include <stdio.h>

#include "bench_report.h"
#include "bench_synth.h"

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s OUT.json [OUT.csv]\n", argv[0]);
        return 2;
    }
    bench_result rs[SYNTH_MAX];
    bench_meta meta;
    bench_cold_result cold[2];
    int ncold;
    int n = bench_synth(rs, &meta, cold, &ncold);
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "w");
        if (!f) {
            perror(argv[i]);
            return 1;
        }
        if (i == 1)
            bench_write_json(f, &meta, rs, n, cold, ncold);
        else
            bench_write_csv(f, rs, n);
        if (fclose(f))
            return 1;
    }
    return 0;
}
