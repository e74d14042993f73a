/* heuristic's ranked backward-data tiles for a shape (simulated H100/H200)
 * argv: mode dtype H B [n] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan_test.h"
#include "gpu/engines/persistent/heuristic.h"
int main(int argc, char **argv)
{
    prnn_device_info d = plan_test_device(90, 132, 232448);
    prnn_kernel_shape s = plan_test_shape((prnnRNNMode_t)atoi(argv[1]), (prnnDataType_t)atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), 1, 0, PRNN_PASS_BACKWARD_DATA);
    int n = argc > 5 ? atoi(argv[5]) : 5;
    static prnn_kernel_geometry g[2048];
    int m = prnn_heuristic_candidates(&s, &d, 1, 0, g, 2048);
    char buf[256];
    int shown = 0;
    for (int i = 0; i < m && shown < n; i++) {
        if (i > 0 && !(g[i].tile.partial_sums && g[i].tile.mma)) continue;
        prnn_tile_config_format(&g[i].tile, buf, sizeof buf);
        printf("%d|%.3f|est %d kreg %d ksmem %d kglb %d|%s\n", i, prnn_heuristic_cost(&g[i], &d), g[i].est_regs, g[i].kreg, g[i].ksmem, g[i].kglb, buf);
        shown++;
    }
    return 0;
}
