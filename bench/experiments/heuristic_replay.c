/* Offline: the heuristic's cost (prnn_heuristic_cost, H100 limits) of every
 * backward-data tile an autotuner run timed, read from its --verbose log on
 * stdin, printed beside the measured time: one line per tile, "mode dtype H
 * B index measured_us model_us tile". heuristic_replay.py turns that into
 * the model's regret and rank correlation (bench/NOTES.md v0.13). Written
 * against commit b0c4052; from the repository root, with a configured
 * build/:
 *   cc -O1 -Isrc -Ibuild/include -Iinclude -Ibuild -Ikernel_src \
 *      bench/experiments/heuristic_replay.c build/libprnn_core.a -lcjson -lm -ldl -lpthread \
 *      -o /tmp/replay
 *   /tmp/replay < bench/results/h100-2026-11-26-v0.13/autotune-bwd-60keys.log > /tmp/c.txt
 *   python3 bench/experiments/heuristic_replay.py /tmp/c.txt */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/device_info.h"
#include "gpu/engines/persistent/heuristic.h"
#include "gpu/engines/persistent/kernel_geometry.h"
#include "rnn_cell_traits.h"
#include "tuning/tile_config.h"
static prnn_device_info h100(void)
{
    prnn_device_info d;
    memset(&d, 0, sizeof d);
    strcpy(d.name, "NVIDIA H100 80GB HBM3");
    d.cc_major = 9;
    d.sm = 90;
    d.sm_count = 132;
    d.regs_per_sm = 65536;
    d.regs_per_block = 65536;
    d.smem_per_sm = 233472;
    d.smem_per_block = 49152;
    d.smem_per_block_optin = 232448;
    d.smem_reserved_per_block = 1024;
    d.max_threads_per_sm = 2048;
    d.max_threads_per_block = 1024;
    d.max_blocks_per_sm = 32;
    d.warp_size = 32;
    d.l2_bytes = 52428800;
    d.cooperative_launch = 1;
    d.clock_khz = 1980000;
    return d;
}
int main(void)
{
    prnn_device_info dev = h100();
    char line[2048];
    /* candidates precede their key's summary line: keep them */
    static char tiles[64][512];
    static double us[64];
    int n = 0;
    while (fgets(line, sizeof line, stdin)) {
        char *p = strstr(line, "us/step");
        if (p && strstr(line, "persistent: ")) {
            double t = atof(strchr(line, ']') + 1);
            char *c = strstr(line, "persistent: ") + 12;
            c[strcspn(c, "\n")] = 0;
            snprintf(tiles[n], sizeof tiles[n], "%s", c);
            us[n++] = t;
            continue;
        }
        if (p)
            continue;
        char pass[32], mode[16], dtype[16];
        int H, B, dir;
        if (sscanf(line, "%31s %15s %15s %d %d %d |", pass, mode, dtype, &H, &B, &dir) == 6 &&
            strcmp(pass, "backward-data") == 0) {
            prnn_kernel_shape s;
            memset(&s, 0, sizeof s);
            prnnRNNMode_t m;
            prnn_mode_from_name(mode, &m);
            s.key.mode = m;
            s.key.dtype = strcmp(dtype, "half") == 0 ? PRNN_DATA_HALF : PRNN_DATA_FLOAT;
            s.key.hidden = H;
            s.key.mini_batch = B;
            s.key.dirs = 1;
            s.key.layers = 1;
            s.pass = PRNN_PASS_BACKWARD_DATA;
            for (int i = 0; i < n; i++) {
                prnn_tile_config t;
                prnn_kernel_geometry g;
                char err[256];
                if (prnn_tile_config_parse(tiles[i], &t, err, sizeof err) ||
                    prnn_kernel_geometry_compute(&s, &t, &dev, &g, err, sizeof err)) {
                    fprintf(stderr, "skip %s: %s\n", tiles[i], err);
                    continue;
                }
                printf("%s %s %d %d %d %.4f %.4f %s\n", mode, dtype, H, B, i, us[i],
                       prnn_heuristic_cost(&g, &dev), tiles[i]);
            }
            n = 0;
        }
    }
    return 0;
}
