/* the autotuner's backward-data candidates of the persistent engine (search=1) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan_test.h"
#include "gpu/engines/engine.h"
#include "gpu/run/gpu_state.h"
static struct prnn_gpu_state gs;
int main(int argc, char **argv)
{
    gs.info = plan_test_device(90, 132, 232448);
    prnn_engine_query q;
    memset(&q, 0, sizeof(q));
    q.gs = &gs;
    q.key = plan_test_shape((prnnRNNMode_t)atoi(argv[1]), (prnnDataType_t)atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), 1, 0, PRNN_PASS_BACKWARD_DATA).key;
    q.pass = PRNN_PASS_BACKWARD_DATA;
    const prnn_engine *en = prnn_engine_find("persistent");
    prnn_engine_config c[32];
    int n = en->candidates(&q, 1, 0, c, argc > 5 ? atoi(argv[5]) : 12);
    char buf[256];
    for (int i = 0; i < n; i++) {
        prnn_tile_config_format(&c[i].tile, buf, sizeof buf);
        printf("%2d %s\n", i, buf);
    }
    return 0;
}
