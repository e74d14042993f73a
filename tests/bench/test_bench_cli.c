/*
 * prnn-bench without a GPU: it says so in one clear message naming the way
 * out, writes nothing on stdout, and exits 3 (TOOL_EXIT_NO_GPU: scripts
 * branch on the number, so the test spells it), for an inference sweep, a
 * training one, one in two layouts, one with LSTM projections, and one with
 * --cold-start and --csv.
 * With a GPU present only --help is checked (a sweep would take minutes).
 * Its handling of bad arguments is test_tool_cli's.
 * argv[1]: the prnn-bench executable.
 */
#include "bench_test.h"
#include "cuda/cuda_driver.h"
#include "run_tool.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PRNN_BENCH\n", argv[0]);
        return 2;
    }
    const char *exe = argv[1];

    run_result r = run_tool(exe, (const char *const[]){"--help", NULL});
    EXPECT(r.status == 0, "--help exits %d", r.status);
    EXPECT(strstr(r.out, "usage: prnn-bench") && strstr(r.out, "--quick"), "--help output: %s",
           r.out);
    run_result_free(&r);

    const prnn_cuda_driver *cu;
    if (prnn_cuda_driver_get(&cu) == PRNN_STATUS_SUCCESS) {
        printf("a CUDA driver and device are present: only --help checked\n");
        return test_done("tools-bench-cli: prnn-bench's exit codes and messages for bad arguments, "
                         "--help and no GPU");
    }

    const char *const *sweeps[] = {
        (const char *const[]){"--quick", NULL},
        (const char *const[]){"--training", "--quick", NULL},
        /* The layouts' options are accepted: the run gets as far as the
         * GPU. */
        (const char *const[]){"--layout", "packed,batch-padded", "--lengths", "full", "--modes",
                              "lstm", "--pass", "inference,training", NULL},
        /* So are LSTM projections. */
        (const char *const[]){"--proj", "0,128", "--modes", "lstm", "--hidden", "256,512", NULL},
        /* The GPU check comes before --cold-start and the output files. */
        (const char *const[]){"--no-cudnn", "--cold-start", "--csv", "/nonexistent/x.csv", NULL},
    };
    for (size_t i = 0; i < sizeof(sweeps) / sizeof(sweeps[0]); i++) {
        r = run_tool(exe, sweeps[i]);
        EXPECT(r.status == 3, "no GPU (%s): exit %d", sweeps[i][0], r.status);
        EXPECT(strstr(r.err, "prnn-bench: no CUDA GPU found (") &&
                   strstr(r.err, "nothing to benchmark") && strstr(r.err, "prnn-demo"),
               "no-GPU message (%s): %s", sweeps[i][0], r.err);
        EXPECT(r.out[0] == '\0', "stdout: %s", r.out);
        run_result_free(&r);
    }
    printf("without a GPU prnn-bench exits 3 with its message, for %zu command lines\n",
           sizeof(sweeps) / sizeof(sweeps[0]));
    return test_done("tools-bench-cli: prnn-bench's exit codes and messages for bad arguments, "
                     "--help and no GPU");
}
