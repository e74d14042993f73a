/* Backward-data (or forward) persistent variant's defines, as the planner
 * passes them; the register estimate is printed and a register rejection
 * ignored (so tiles past the model's limit can be compiled).
 * argv: mode(2 lstm,3 gru) dtype(1 f16? see prnn.h) H B caller_rows "tile" [pass=1] [train=0] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel_variants.h"
#include "gpu/engines/persistent/persistent.h"
#include "gpu/engines/persistent/kernel_geometry.h"
#include "tuning/tile_config.h"
#include "error.h"
int main(int argc, char **argv)
{
    prnn_kernel_shape shape;
    memset(&shape, 0, sizeof(shape));
    shape.key.mode = (prnnRNNMode_t)atoi(argv[1]);
    shape.key.dtype = (prnnDataType_t)atoi(argv[2]);
    shape.key.hidden = atoi(argv[3]);
    shape.key.mini_batch = atoi(argv[4]);
    shape.key.dirs = 1;
    shape.key.layers = 1;
    shape.key.caller_rows = atoi(argv[5]);
    shape.pass = argc > 7 ? (prnn_pass)atoi(argv[7]) : PRNN_PASS_BACKWARD_DATA;
    int train = argc > 8 ? atoi(argv[8]) : 0;
    prnn_tile_config tile;
    prnn_kernel_geometry g;
    char err[256];
    if (prnn_tile_config_parse(argv[6], &tile, err, sizeof(err))) {
        printf("fail parse %s\n", err);
        return 1;
    }
    int rc = prnn_kernel_geometry_compute(&shape, &tile, NULL, &g, err, sizeof(err));
    if (rc && !strstr(err, "registers")) {
        printf("fail %s\n", err);
        return 1;
    }
    fprintf(stderr, "est_regs %d kreg %d ksmem %d kglb %d wpk %d acc %d %s\n", g.est_regs, g.kreg,
            g.ksmem, g.kglb, g.wpk, g.accumulators, rc ? "(REJECTED)" : "(legal)");
    prnn_kernel_request r;
    if (prnn_request_persistent(&g, 0, train, 0, &r)) {
        printf("fail request %s\n", prnn_log_get());
        return 1;
    }
    for (int i = 0; i < r.req.num_defines; i++)
        printf(" -D%s", r.req.defines[i]);
    printf("\n");
    return 0;
}
