/*
 * SRU's scan configuration on a device, without a GPU or NVRTC:
 *  - the ring's shared memory per block (prnn_sru_ring_bytes) as the kernel
 *    lays it out (PRNN_SRU_RING_BYTES), none below sm_80;
 *  - what a device refuses (prnn_sru_config_fits_device): below sm_80 the
 *    register ring's bounds, on sm_80 and newer a ring past the shared
 *    memory a block may take, each with its reason;
 *  - the heuristic: valid on every device for every data type over lane
 *    counts from a few warps to several times the device; deep rings on
 *    sm_80 and newer, one wave of blocks kept; the register ring's choices
 *    unchanged below sm_80.
 */
#include <string.h>

#include "gpu/engines/sru/sru.h"
#include "plan_test.h"
static int test_failures;
#include "../test_check.h"

static prnn_rnn_key sru_key(prnnDataType_t dtype, int hidden, int batch, int dirs)
{
    prnn_rnn_key k;
    memset(&k, 0, sizeof(k));
    k.mode = PRNN_SRU;
    k.dtype = dtype;
    k.hidden = hidden;
    k.layers = 2;
    k.dirs = dirs;
    k.mini_batch = batch;
    return k;
}

static int same(const prnn_sru_config *c, int threads, int upt, int depth)
{
    return c->threads == threads && c->units_per_thread == upt && c->steps_in_flight == depth;
}

int main(void)
{
    const prnn_device_info h100 = plan_test_device(90, 132, 232448),
                           a100 = plan_test_device(80, 108, 166912),
                           t4 = plan_test_device(75, 40, 65536);
    char why[256];

    /* the ring: per slot, each thread's fields (4 forward, 6 backward; SKIP's
     * layer 0 1 and 3) of UPT math-type values and its row */
    const prnn_sru_config c = {128, 2, 16};
    CHECK(prnn_sru_ring_bytes(&c, PRNN_DATA_FLOAT, 90, 1, PRNN_SRU_VARIANT_M4) ==
          128 * 16 * (6 * 2 * 4 + 4));
    CHECK(prnn_sru_ring_bytes(&c, PRNN_DATA_FLOAT, 90, 1, PRNN_SRU_VARIANT_M3) ==
          128 * 16 * (6 * 2 * 4 + 4));
    CHECK(prnn_sru_ring_bytes(&c, PRNN_DATA_FLOAT, 90, 0, PRNN_SRU_VARIANT_M3) ==
          128 * 16 * (4 * 2 * 4 + 4));
    CHECK(prnn_sru_ring_bytes(&c, PRNN_DATA_HALF, 80, 0, PRNN_SRU_VARIANT_SKIP) ==
          128 * 16 * (2 * 4 + 4));
    CHECK(prnn_sru_ring_bytes(&c, PRNN_DATA_DOUBLE, 90, 1, PRNN_SRU_VARIANT_SKIP) ==
          128 * 16 * (3 * 2 * 8 + 4));
    CHECK(prnn_sru_ring_bytes(&c, PRNN_DATA_FLOAT, 75, 1, PRNN_SRU_VARIANT_M4) == 0);

    /* the device's limits */
    CHECK(prnn_sru_config_fits_device(&c, PRNN_DATA_FLOAT, &h100, why, sizeof(why)) == 0);
    CHECK(prnn_sru_config_fits_device(&c, PRNN_DATA_FLOAT, &a100, why, sizeof(why)) == 0);
    /* fp64 doubles the ring: 204800 bytes, past an A100's 166912 */
    CHECK(prnn_sru_config_fits_device(&c, PRNN_DATA_DOUBLE, &h100, why, sizeof(why)) == 0);
    CHECK(prnn_sru_config_fits_device(&c, PRNN_DATA_DOUBLE, &a100, why, sizeof(why)) == -1);
    EXPECT(prnn_sru_config_fits_device(&c, PRNN_DATA_FLOAT, &t4, why, sizeof(why)) == -1 &&
               strstr(why, "below sm_80"),
           "%s", why);
    const prnn_sru_config reg = {128, 2, 8}, reg_over = {128, 4, 8};
    CHECK(prnn_sru_config_fits_device(&reg, PRNN_DATA_FLOAT, &t4, why, sizeof(why)) == 0);
    CHECK(prnn_sru_config_fits_device(&reg_over, PRNN_DATA_FLOAT, &t4, why, sizeof(why)) == -1);
    /* 256 x 8 x 32 fp32: 256 * 32 * (6 * 32 + 4) bytes, past every GPU's limit */
    const prnn_sru_config big = {256, 8, 32};
    EXPECT(prnn_sru_config_fits_device(&big, PRNN_DATA_FLOAT, &h100, why, sizeof(why)) == -1 &&
               strstr(why, "1605632 bytes of shared memory"),
           "%s", why);
    /* at the limit: the opt-in limit less the 1 KiB of static shared memory */
    const prnn_sru_config edge = {64, 8, 18}; /* 64 * 18 * 196 = 225792 */
    CHECK(prnn_sru_config_fits_device(&edge, PRNN_DATA_FLOAT, &h100, why, sizeof(why)) == 0);
    const prnn_sru_config past = {64, 8, 19}; /* 238336 */
    CHECK(prnn_sru_config_fits_device(&past, PRNN_DATA_FLOAT, &h100, why, sizeof(why)) == -1);

    /* the heuristic at the paper's setting on an H100 (fp32, bidirectional,
     * B 32): two units, 16 steps in flight; 256 blocks at H 1024 still fit
     * two to an SM */
    prnn_sru_config h;
    prnn_rnn_key k = sru_key(PRNN_DATA_FLOAT, 512, 32, 2);
    prnn_heuristic_sru(&k, &h100, &h);
    CHECK(same(&h, 128, 2, 16));
    k.hidden = 1024;
    prnn_heuristic_sru(&k, &h100, &h);
    CHECK(same(&h, 128, 2, 16));
    /* B 64: four blocks to an SM, a shallower ring */
    k.mini_batch = 64;
    prnn_heuristic_sru(&k, &h100, &h);
    CHECK(same(&h, 128, 2, 8));
    /* B 128: the lanes fill half the device: four units, four steps */
    k.mini_batch = 128;
    prnn_heuristic_sru(&k, &h100, &h);
    CHECK(same(&h, 256, 4, 4));
    /* odd H: one unit */
    k = sru_key(PRNN_DATA_HALF, 37, 8, 1);
    prnn_heuristic_sru(&k, &h100, &h);
    CHECK(same(&h, 128, 1, 16));
    /* below sm_80, the register ring's choices */
    k = sru_key(PRNN_DATA_FLOAT, 512, 32, 2);
    prnn_heuristic_sru(&k, &t4, &h);
    CHECK(h.steps_in_flight <= 8 && h.units_per_thread * h.steps_in_flight <= 16);
    k.dtype = PRNN_DATA_HALF;
    prnn_heuristic_sru(&k, &t4, &h);
    CHECK(same(&h, 128, 2, 8));

    /* every device, data type and shape: the heuristic's choice is valid */
    const prnn_device_info *devs[] = {&h100, &a100, &t4};
    const prnnDataType_t dts[] = {PRNN_DATA_FLOAT, PRNN_DATA_DOUBLE, PRNN_DATA_HALF,
                                  PRNN_DATA_BFLOAT16};
    const int hs[] = {1, 37, 256, 512, 1024, 2048, 4096}, bs[] = {1, 8, 32, 128, 512};
    int n = 0;
    for (int di = 0; di < 3; di++)
        for (int t = 0; t < 4; t++)
            for (int hi = 0; hi < 7; hi++)
                for (int bi = 0; bi < 5; bi++)
                    for (int dirs = 1; dirs <= 2; dirs++, n++) {
                        k = sru_key(dts[t], hs[hi], bs[bi], dirs);
                        prnn_heuristic_sru(&k, devs[di], &h);
                        EXPECT(prnn_sru_config_check(&h, why, sizeof(why)) == 0 &&
                                   prnn_sru_config_fits_device(&h, k.dtype, devs[di], why,
                                                               sizeof(why)) == 0,
                               "sm_%d dtype %d H %d B %d dirs %d: %d/%d/%d: %s", devs[di]->sm,
                               (int)dts[t], hs[hi], bs[bi], dirs, h.threads, h.units_per_thread,
                               h.steps_in_flight, why);
                        if (devs[di]->sm >= 80)
                            CHECK(h.steps_in_flight >= 2);
                    }
    printf("plan-sru-config: the ring's shared memory, the device limits, the heuristic (%d "
           "shapes): %s\n",
           n, test_failures ? "FAILED" : "all checks passed");
    return test_failures ? 1 : 0;
}
