/* Offline simulation (CPU reference only) of the hypothesis: in the
 * fresh-inputs phase, the first D2D copy IN_DW0 -> OUT_DW read the tail of
 * IN_DW0 before the pageable upload had landed, so the tail still held the
 * first phase's initial dw. For each stale tail length, the errors compare()
 * would print. */
#define main orig_main
#include "test_training_gpu.c"
#undef main

int main(int argc, char **argv)
{
    gc.seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1795883557ull;
    const char *want = argc > 2 ? argv[2] : "gru double H=72 B=3 L=2 bi T=8 in=20 varlen dropout";
    if (argc > 4) gc.filter = argv[4];
    build_sweep(0);
    int index = -1;
    for (int i = 0; i < sweep.n; i++) {
        char d[256];
        describe(gc_case(&sweep, i), d, sizeof(d));
        if (strcmp(d, want) == 0) { index = i; break; }
    }
    if (index < 0) { printf("case not found\n"); return 1; }
    prnnHandle_t ref;
    if (prnnCreateWithBackend(&ref, PRNN_BACKEND_CPU_REFERENCE)) return 1;
    tcase *c = &CASE(index);
    case_state k;
    memset(&k, 0, sizeof(k));
    unsigned long long seed = gc_case_seed(index);
    if (gc_problem_init(&k.pb, &c->s, ref, seed ^ 0xd509d509d509ull, c->r.problem, sizeof(c->r.problem)) ||
        host_buffers(&k)) { printf("init failed %s\n", c->r.problem); return 1; }
    fill_inputs(c, &k, &seed);
    if (reference(c, &k, ref, &seed)) { printf("ref failed %s\n", c->r.problem); return 1; }
    const size_t wb = k.pb.wbytes, es = k.pb.es, n = wb / es;
    void *init1 = malloc(wb), *ref1 = malloc(wb);
    memcpy(init1, k.host_in[IN_DW0], wb);
    memcpy(ref1, k.ref_out[OUT_DW], wb);
    if (fresh_inputs(c, &k, ref, &seed)) { printf("fresh failed %s\n", c->r.problem); return 1; }
    void *init2 = k.host_in[IN_DW0], *ref2 = k.ref_out[OUT_DW];
    const int dbl = c->s.dtype == PRNN_DATA_DOUBLE;
    printf("case index %d, dw %zu elements (%zu bytes); %s\n", index, n, wb, dbl ? "double" : "float");
    /* which mode: 0 = fresh phase (stale = init1), 1 = first phase (stale = old memory unknown) */
    const size_t step = argc > 3 ? strtoull(argv[3], NULL, 10) : 4096;
    for (size_t stale = step; stale <= wb; stale += step) {
        /* got = ref2 - init2 + init1 in the last `stale` bytes (the gradient is exact) */
        void *got = k.got0[OUT_DW];
        memcpy(got, ref2, wb);
        for (size_t e = (wb - stale) / es; e < n; e++) {
            double v = prnn_load_as_double(ref2, c->s.dtype, e) - prnn_load_as_double(init2, c->s.dtype, e) +
                       prnn_load_as_double(init1, c->s.dtype, e);
            if (dbl) ((double *)got)[e] = v; else ((float *)got)[e] = (float)v;
        }
        c->dw_worst[0] = 0;
        compare(c, &k);
        printf("stale tail %8zu B: dw %.3e  worst %s %.3e\n", stale, c->err[OUT_DW], c->dw_worst, c->dw_worst_err);
    }
    return 0;
}
