// Times every cuBLASLt heuristic result for GEMM shapes as prnn's gemm.c
// maps them (row-major out[m][n] = op(A)[m][k] op(B)[k][n]), with a given
// workspace budget: what the heuristic's first choice costs against the
// best of its own list (bench/NOTES.md v0.28, v0.29, v0.30).
//
//   nvcc -O2 -o lt_algos bench/lt_algos.cu -lcublasLt
//   ./lt_algos WORKSPACE_BYTES [TF32 0|1] [NAME:M,N,K,TRANS_A,TRANS_B[,h] ...]
//
// A shape's sixth field h: A and B in fp16, C in fp32 (prnn's half data
// with a math-type output); without it all three are fp32. Without shapes:
// the standard engine's fp32 shapes of v0.28. Each result's time is the
// median of 20 replays (after 3) of a CUDA graph of 10 calls, per call:
// the GPU's time, as the standard engine's step graphs see it, without
// the host's launch cost.
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include <algorithm>
#define CK(x) do { auto e_ = (x); if ((int)e_) { printf("%s:%d %s = %d\n", __FILE__, __LINE__, #x, (int)e_); exit(1);} } while (0)
struct Shape { const char *name; int m, n, k, ta, tb, half; };
int main(int argc, char **argv)
{
    size_t wsbytes = argc > 1 ? strtoull(argv[1], 0, 0) : (4u << 20);
    int tf32 = argc > 2 ? atoi(argv[2]) : 0;
    cublasLtHandle_t h; CK(cublasLtCreate(&h));
    std::vector<Shape> shapes = {
        {"fwd x W^T / h R^T B64 H1024", 64, 4096, 1024, 0, 1},
        {"bwd dg R B64 H1024", 64, 1024, 4096, 0, 0},
        {"dW dg^T x B64 H1024", 4096, 1024, 64, 1, 0},
        {"fwd B256 H1024", 256, 4096, 1024, 0, 1},
        {"bwd B256 H1024", 256, 1024, 4096, 0, 0},
        {"fwd B64 H512", 64, 2048, 512, 0, 1},
        {"bwd B64 H512", 64, 512, 2048, 0, 0},
        {"fwd B16 H1024", 16, 4096, 1024, 0, 1},
        {"bwd B16 H1024", 16, 1024, 4096, 0, 0},
        {"fwd T128xB64 H1024 input", 8192, 4096, 1024, 0, 1},
    };
    if (argc > 3) {
        shapes.clear();
        for (int i = 3; i < argc; i++) {
            Shape sh;
            char *colon = strchr(argv[i], ':');
            char kind = 'f';
            const int fields = colon ? sscanf(colon + 1, "%d,%d,%d,%d,%d,%c", &sh.m, &sh.n, &sh.k, &sh.ta, &sh.tb, &kind) : 0;
            if (fields < 5 || (kind != 'f' && kind != 'h')) {
                printf("bad shape %s (NAME:M,N,K,TRANS_A,TRANS_B[,h])\n", argv[i]);
                return 2;
            }
            sh.half = kind == 'h';
            *colon = 0;
            sh.name = argv[i];
            shapes.push_back(sh);
        }
    }
    float *A, *B, *C; void *ws;
    CK(cudaMalloc(&A, 64ull << 20)); CK(cudaMalloc(&B, 64ull << 20)); CK(cudaMalloc(&C, 256ull << 20)); CK(cudaMalloc(&ws, wsbytes));
    cudaMemset(A, 0, 64ull << 20); cudaMemset(B, 0, 64ull << 20);
    cudaStream_t st; cudaStreamCreate(&st);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    for (auto &s : shapes) {
        if ((size_t)s.m * s.k * 4 > (64ull << 20) || (size_t)s.n * s.k * 4 > (64ull << 20) ||
            (size_t)s.m * s.n * 4 > (256ull << 20)) {
            printf("%s (m %d n %d k %d): larger than the buffers, left out\n", s.name, s.m, s.n, s.k);
            continue;
        }
        cublasLtMatmulDesc_t op;
        CK(cublasLtMatmulDescCreate(&op, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUDA_R_32F));
        cublasOperation_t of = s.tb ? CUBLAS_OP_T : CUBLAS_OP_N, os = s.ta ? CUBLAS_OP_T : CUBLAS_OP_N;
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &of, sizeof(of));
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &os, sizeof(os));
        int lda = s.ta ? s.m : s.k, ldb = s.tb ? s.k : s.n, ldc = s.n;
        cublasLtMatrixLayout_t la, lb, lc;
        const cudaDataType_t ab = s.half ? CUDA_R_16F : CUDA_R_32F;
        if (s.tb) CK(cublasLtMatrixLayoutCreate(&la, ab, s.k, s.n, ldb)); else CK(cublasLtMatrixLayoutCreate(&la, ab, s.n, s.k, ldb));
        if (s.ta) CK(cublasLtMatrixLayoutCreate(&lb, ab, s.m, s.k, lda)); else CK(cublasLtMatrixLayoutCreate(&lb, ab, s.k, s.m, lda));
        CK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, s.n, s.m, ldc));
        cublasLtMatmulPreference_t pref; CK(cublasLtMatmulPreferenceCreate(&pref));
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsbytes, sizeof(wsbytes));
        cublasLtMatmulHeuristicResult_t res[32]; int found = 0;
        CK(cublasLtMatmulAlgoGetHeuristic(h, op, la, lb, lc, lc, pref, 32, res, &found));
        printf("%s (m %d n %d k %d%s), %d results, ws %zu%s\n", s.name, s.m, s.n, s.k, s.half ? " fp16" : "", found, wsbytes, tf32 ? " tf32" : "");
        float one = 1, zero = 0;
        double first = 0, best = 1e30; int bi = -1;
        for (int i = 0; i < found; i++) {
            std::vector<float> ts;
            bool bad = false;
            cudaGraph_t graph; cudaGraphExec_t exec;
            CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
            for (int q = 0; q < 10; q++)
                if (cublasLtMatmul(h, op, &one, B, la, A, lb, &zero, C, lc, C, lc, &res[i].algo, ws, wsbytes, st)) bad = true;
            CK(cudaStreamEndCapture(st, &graph));
            CK(cudaGraphInstantiate(&exec, graph, 0));
            for (int r = 0; r < 23; r++) {
                cudaEventRecord(e0, st);
                cudaGraphLaunch(exec, st);
                cudaEventRecord(e1, st); cudaEventSynchronize(e1);
                float ms; cudaEventElapsedTime(&ms, e0, e1); if (r >= 3) ts.push_back(ms * 100.f);
            }
            cudaGraphExecDestroy(exec); cudaGraphDestroy(graph);
            std::sort(ts.begin(), ts.end());
            double us = ts[ts.size() / 2];
            int id = 0, tile = 0, splitk = 0, stages = 0, red = 0; size_t w;
            cublasLtMatmulAlgoConfigGetAttribute(&res[i].algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof(id), &w);
            cublasLtMatmulAlgoConfigGetAttribute(&res[i].algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof(tile), &w);
            cublasLtMatmulAlgoConfigGetAttribute(&res[i].algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof(splitk), &w);
            cublasLtMatmulAlgoConfigGetAttribute(&res[i].algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof(stages), &w);
            cublasLtMatmulAlgoConfigGetAttribute(&res[i].algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &red, sizeof(red), &w);
            printf("  [%2d] %8.2f us%s  algo %d tile %d splitk %d stages %d red %d waves %.2f ws %zu\n", i, us, bad ? " (FAILED)" : "", id, tile, splitk, stages, red, res[i].wavesCount, res[i].workspaceSize);
            if (i == 0) first = us;
            if (!bad && us < best) { best = us; bi = i; }
        }
        printf("  first %.2f best %.2f ([%d]) ratio %.2f\n", first, best, bi, first / best);
        cublasLtMatmulPreferenceDestroy(pref); cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb); cublasLtMatrixLayoutDestroy(lc); cublasLtMatmulDescDestroy(op);
    }
    return 0;
}
