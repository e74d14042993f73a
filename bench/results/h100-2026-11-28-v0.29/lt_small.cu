// Times every cuBLASLt heuristic result for prnn's standard-engine GEMM shapes
// (row-major out[m][n] = A[m][k] op B, mapped as gemm.c maps them).
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include <algorithm>
#define CK(x) do { auto e_ = (x); if ((int)e_) { printf("%s:%d %s = %d\n", __FILE__, __LINE__, #x, (int)e_); exit(1);} } while (0)
struct Shape { const char *name; int m, n, k, ta, tb; };
int main(int argc, char **argv)
{
    size_t wsbytes = argc > 1 ? strtoull(argv[1], 0, 0) : (4u << 20);
    int tf32 = argc > 2 ? atoi(argv[2]) : 0;
    cublasLtHandle_t h; CK(cublasLtCreate(&h));
    Shape shapes[] = {
        {"tanh H256 B1 T16 input x W^T", 16, 256, 256, 0, 1},
        {"lstm H256 B1 T16 input x W^T", 16, 1024, 256, 0, 1},
        {"tanh H256 B1 T1 input x W^T", 1, 256, 256, 0, 1},
        {"lstm H256 B8 T16 input x W^T", 128, 1024, 256, 0, 1},
        {"lstm H1024 B1 T16 input x W^T", 16, 4096, 1024, 0, 1},
    };
    float *A, *B, *C; void *ws;
    CK(cudaMalloc(&A, 64ull << 20)); CK(cudaMalloc(&B, 64ull << 20)); CK(cudaMalloc(&C, 256ull << 20)); CK(cudaMalloc(&ws, wsbytes));
    cudaMemset(A, 0, 64ull << 20); cudaMemset(B, 0, 64ull << 20);
    cudaStream_t st; cudaStreamCreate(&st);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    for (auto &s : shapes) {
        cublasLtMatmulDesc_t op;
        CK(cublasLtMatmulDescCreate(&op, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUDA_R_32F));
        cublasOperation_t of = s.tb ? CUBLAS_OP_T : CUBLAS_OP_N, os = s.ta ? CUBLAS_OP_T : CUBLAS_OP_N;
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &of, sizeof(of));
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &os, sizeof(os));
        int lda = s.ta ? s.m : s.k, ldb = s.tb ? s.k : s.n, ldc = s.n;
        cublasLtMatrixLayout_t la, lb, lc;
        if (s.tb) CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, s.k, s.n, ldb)); else CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, s.n, s.k, ldb));
        if (s.ta) CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, s.m, s.k, lda)); else CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, s.k, s.m, lda));
        CK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, s.n, s.m, ldc));
        cublasLtMatmulPreference_t pref; CK(cublasLtMatmulPreferenceCreate(&pref));
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsbytes, sizeof(wsbytes));
        cublasLtMatmulHeuristicResult_t res[32]; int found = 0;
        CK(cublasLtMatmulAlgoGetHeuristic(h, op, la, lb, lc, lc, pref, 32, res, &found));
        printf("%s (m %d n %d k %d), %d results, ws %zu%s\n", s.name, s.m, s.n, s.k, found, wsbytes, tf32 ? " tf32" : "");
        float one = 1, zero = 0;
        double first = 0, best = 1e30; int bi = -1;
        for (int i = 0; i < found; i++) {
            std::vector<float> ts;
            bool bad = false;
            for (int r = 0; r < 23; r++) {
                cudaEventRecord(e0, st);
                for (int q = 0; q < 10; q++)
                    if (cublasLtMatmul(h, op, &one, B, la, A, lb, &zero, C, lc, C, lc, &res[i].algo, ws, wsbytes, st)) bad = true;
                cudaEventRecord(e1, st); cudaEventSynchronize(e1);
                float ms; cudaEventElapsedTime(&ms, e0, e1); if (r >= 3) ts.push_back(ms * 100.f);
            }
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
