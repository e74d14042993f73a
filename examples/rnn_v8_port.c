/*
 * cuDNN 9's RNN sample (cudnn_samples_v9/RNN: RNN_example.cu), ported to
 * prnn by changing the prefix: cudnnX -> prnnX, CUDNN_X -> PRNN_X. The
 * calls, their arguments and their order are the sample's: RNN data
 * descriptors for x and y (SEQ_MAJOR_PACKED, a length per sequence),
 * prnnSetRNNDescriptor_v8, the weight and temporary space
 * queries, the weights set through prnnGetRNNWeightParams, prnnRNNForward
 * in training mode, prnnRNNBackwardData_v8 and prnnRNNBackwardWeights_v8,
 * then the sample's checksums.
 *
 * What else changed, as for every example (example_util.h): the buffers
 * are host memory from malloc instead of cudaMalloc, because the program
 * runs on the CPU reference backend; the sample's timing with CUDA events
 * is left out. On a GPU the same calls take device pointers (prnn runs
 * this layout on its GPU engines).
 *
 * Checked: the weight gradients and the input gradients against central
 * finite differences of the sample's loss (dy = 1: the sum of y), on a few
 * elements; and the forward output against a second prnnRNNForward in
 * inference mode.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"

/* The sample's command-line defaults, smaller so that the finite
 * differences stay quick on the CPU reference. */
static const int seqLength = 8, numLayers = 2, hiddenSize = 16, projSize = 16;
static const int inputSize = 16, miniBatch = 4;
static const prnnRNNMode_t cellMode = PRNN_LSTM;
static const prnnDirectionMode_t dirMode = PRNN_BIDIRECTIONAL;

typedef struct {
    prnnHandle_t handle;
    prnnRNNDescriptor_t rnnDesc;
    prnnRNNDataDescriptor_t xDesc, yDesc;
    prnnTensorDescriptor_t hDesc, cDesc;
    double *x, *y, *dx, *dy, *hx, *cx, *hy, *cy, *dhx, *dcx, *dhy, *dcy;
    void *weightSpace, *dweightSpace, *workSpace, *reserveSpace;
    size_t weightSpaceSize, workSpaceSize, reserveSpaceSize;
    int inputTensorSize, outputTensorSize, hiddenTensorSize;
} sample;

/* The sample's initGPUData: every element = value. */
static void init_data(double *data, size_t n, double value)
{
    for (size_t i = 0; i < n; i++)
        data[i] = value;
}

static double *alloc_data(size_t n)
{
    double *p = calloc(n, sizeof(double));
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static void setup(sample *s)
{
    int numDirs = dirMode == PRNN_BIDIRECTIONAL ? 2 : 1;
    s->handle = ex_cpu_handle();

    s->inputTensorSize = seqLength * miniBatch * inputSize;
    s->outputTensorSize = seqLength * miniBatch * projSize * numDirs;
    s->hiddenTensorSize = numLayers * miniBatch * hiddenSize * numDirs;
    s->x = alloc_data((size_t)s->inputTensorSize);
    s->y = alloc_data((size_t)s->outputTensorSize);
    s->dx = alloc_data((size_t)s->inputTensorSize);
    s->dy = alloc_data((size_t)s->outputTensorSize);
    double **states[] = {&s->hx, &s->cx, &s->hy, &s->cy, &s->dhx, &s->dcx, &s->dhy, &s->dcy};
    for (int i = 0; i < 8; i++)
        *states[i] = alloc_data((size_t)s->hiddenTensorSize);

    /* Every sequence of the batch has the full length, as in the sample */
    int seqLengthArray[4];
    for (int i = 0; i < miniBatch; i++)
        seqLengthArray[i] = seqLength;
    double paddingFill = 0.0;
    CHECK(prnnCreateRNNDataDescriptor(&s->xDesc));
    CHECK(prnnCreateRNNDataDescriptor(&s->yDesc));
    CHECK(prnnSetRNNDataDescriptor(s->xDesc, PRNN_DATA_DOUBLE,
                                   PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, seqLength, miniBatch,
                                   inputSize, seqLengthArray, &paddingFill));
    CHECK(prnnSetRNNDataDescriptor(s->yDesc, PRNN_DATA_DOUBLE,
                                   PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, seqLength, miniBatch,
                                   projSize * numDirs, seqLengthArray, &paddingFill));

    int dimHidden[3] = {numLayers * numDirs, miniBatch, hiddenSize};
    int strideHidden[3] = {dimHidden[1] * dimHidden[2], dimHidden[2], 1};
    CHECK(prnnCreateTensorDescriptor(&s->hDesc));
    CHECK(prnnCreateTensorDescriptor(&s->cDesc));
    CHECK(prnnSetTensorNdDescriptor(s->hDesc, PRNN_DATA_DOUBLE, 3, dimHidden, strideHidden));
    CHECK(prnnSetTensorNdDescriptor(s->cDesc, PRNN_DATA_DOUBLE, 3, dimHidden, strideHidden));

    /* The sample makes a dropout descriptor of probability 0 */
    prnnDropoutDescriptor_t dropoutDesc;
    CHECK(prnnCreateDropoutDescriptor(&dropoutDesc));
    CHECK(prnnSetDropoutDescriptor(dropoutDesc, s->handle, 0.0f, 1337ull));

    CHECK(prnnCreateRNNDescriptor(&s->rnnDesc));
    CHECK(prnnSetRNNDescriptor_v8(s->rnnDesc, PRNN_RNN_ALGO_STANDARD, cellMode,
                                  PRNN_RNN_DOUBLE_BIAS, dirMode, PRNN_LINEAR_INPUT,
                                  PRNN_DATA_DOUBLE, PRNN_DATA_DOUBLE, PRNN_DEFAULT_MATH, inputSize,
                                  hiddenSize, projSize, numLayers, dropoutDesc, 0));
    CHECK(prnnDestroyDropoutDescriptor(dropoutDesc)); /* its settings were copied */

    CHECK(prnnGetRNNWeightSpaceSize(s->handle, s->rnnDesc, &s->weightSpaceSize));
    CHECK(prnnGetRNNTempSpaceSizes(s->handle, s->rnnDesc, PRNN_FWD_MODE_TRAINING, s->xDesc,
                                   &s->workSpaceSize, &s->reserveSpaceSize));
    s->weightSpace = calloc(1, s->weightSpaceSize);
    s->dweightSpace = calloc(1, s->weightSpaceSize);
    s->workSpace = malloc(s->workSpaceSize ? s->workSpaceSize : 1);
    s->reserveSpace = malloc(s->reserveSpaceSize ? s->reserveSpaceSize : 1);

    /* The sample's initialisation (its testgen): data 1 (x, hx, cx, dy,
     * dhy, dcy), each matrix 1 / its size and each bias 1, set through
     * prnnGetRNNWeightParams; here x and the matrices vary a little per
     * element, so that the check below means something. */
    init_data(s->x, (size_t)s->inputTensorSize, 1.0);
    init_data(s->hx, (size_t)s->hiddenTensorSize, 1.0);
    init_data(s->cx, (size_t)s->hiddenTensorSize, 1.0);
    init_data(s->dy, (size_t)s->outputTensorSize, 1.0);
    init_data(s->dhy, (size_t)s->hiddenTensorSize, 1.0);
    init_data(s->dcy, (size_t)s->hiddenTensorSize, 1.0);
    for (int i = 0; i < s->inputTensorSize; i++)
        s->x[i] += 0.25 * sin(0.7 * i);

    prnnTensorDescriptor_t wDesc, bDesc;
    CHECK(prnnCreateTensorDescriptor(&wDesc));
    CHECK(prnnCreateTensorDescriptor(&bDesc));
    int numLinearLayers = cellMode == PRNN_LSTM ? 8 : cellMode == PRNN_GRU ? 6 : 2;
    for (int layer = 0; layer < numLayers * numDirs; layer++) {
        for (int linLayerID = 0; linLayerID < numLinearLayers; linLayerID++) {
            void *linLayerMat, *linLayerBias;
            int nbDims, dim[3], stride[3];
            prnnDataType_t dataType;
            CHECK(prnnGetRNNWeightParams(s->handle, s->rnnDesc, layer, s->weightSpaceSize,
                                         s->weightSpace, linLayerID, wDesc, &linLayerMat, bDesc,
                                         &linLayerBias));
            if (linLayerMat) {
                CHECK(prnnGetTensorNdDescriptor(wDesc, 3, &dataType, &nbDims, dim, stride));
                size_t n = (size_t)dim[0] * (size_t)dim[1] * (size_t)dim[2];
                for (size_t i = 0; i < n; i++)
                    ((double *)linLayerMat)[i] =
                        1.0 / (double)n + 0.2 * sin(0.37 * (double)(i + 11 * (size_t)linLayerID));
            }
            if (linLayerBias) {
                CHECK(prnnGetTensorNdDescriptor(bDesc, 3, &dataType, &nbDims, dim, stride));
                size_t n = (size_t)dim[0] * (size_t)dim[1] * (size_t)dim[2];
                init_data(linLayerBias, n, 1.0);
            }
        }
    }
    CHECK(prnnDestroyTensorDescriptor(wDesc));
    CHECK(prnnDestroyTensorDescriptor(bDesc));
}

/* The sample's cleanup: every buffer, descriptor and the handle. */
static void teardown(sample *s)
{
    double **data[] = {&s->x,  &s->y,  &s->dx,  &s->dy,  &s->hx,  &s->cx,
                       &s->hy, &s->cy, &s->dhx, &s->dcx, &s->dhy, &s->dcy};
    for (size_t i = 0; i < sizeof(data) / sizeof(data[0]); i++)
        free(*data[i]);
    free(s->weightSpace);
    free(s->dweightSpace);
    free(s->workSpace);
    free(s->reserveSpace);
    CHECK(prnnDestroyRNNDataDescriptor(s->xDesc));
    CHECK(prnnDestroyRNNDataDescriptor(s->yDesc));
    CHECK(prnnDestroyTensorDescriptor(s->hDesc));
    CHECK(prnnDestroyTensorDescriptor(s->cDesc));
    CHECK(prnnDestroyRNNDescriptor(s->rnnDesc));
    CHECK(prnnDestroy(s->handle));
}

static void forward(sample *s, prnnForwardMode_t mode)
{
    CHECK(prnnRNNForward(s->handle, s->rnnDesc, mode, NULL, s->xDesc, s->x, s->yDesc, s->y,
                         s->hDesc, s->hx, s->hy, s->cDesc, s->cx, s->cy, s->weightSpaceSize,
                         s->weightSpace, s->workSpaceSize, s->workSpace, s->reserveSpaceSize,
                         s->reserveSpace));
}

/* The sample's loss: dy = 1, dhy = 1, dcy = 1 are the gradients of
 * sum(y) + sum(hy) + sum(cy). */
static double loss(sample *s)
{
    forward(s, PRNN_FWD_MODE_INFERENCE);
    double l = 0;
    for (int i = 0; i < s->outputTensorSize; i++)
        l += s->y[i];
    for (int i = 0; i < s->hiddenTensorSize; i++)
        l += s->hy[i] + s->cy[i];
    return l;
}

static double checksum(const double *data, int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += data[i];
    return sum;
}

/* Relative error of grad against the central difference at *p. */
static double fd_error(sample *s, double *p, double grad)
{
    const double eps = 1e-5, keep = *p;
    *p = keep + eps;
    double lp = loss(s);
    *p = keep - eps;
    double lm = loss(s);
    *p = keep;
    double fd = (lp - lm) / (2 * eps);
    return fabs(fd - grad) / fmax(1e-2, fabs(fd));
}

int main(void)
{
    sample s;
    setup(&s);

    forward(&s, PRNN_FWD_MODE_TRAINING);
    CHECK(prnnRNNBackwardData_v8(s.handle, s.rnnDesc, NULL, s.yDesc, s.y, s.dy, s.xDesc, s.dx,
                                 s.hDesc, s.hx, s.dhy, s.dhx, s.cDesc, s.cx, s.dcy, s.dcx,
                                 s.weightSpaceSize, s.weightSpace, s.workSpaceSize, s.workSpace,
                                 s.reserveSpaceSize, s.reserveSpace));
    /* The sample zeroes dweightSpace and accumulates; ADD does the same */
    memset(s.dweightSpace, 0, s.weightSpaceSize);
    CHECK(prnnRNNBackwardWeights_v8(s.handle, s.rnnDesc, PRNN_WGRAD_MODE_ADD, NULL, s.xDesc, s.x,
                                    s.hDesc, s.hx, s.yDesc, s.y, s.weightSpaceSize, s.dweightSpace,
                                    s.workSpaceSize, s.workSpace, s.reserveSpaceSize,
                                    s.reserveSpace));

    /* The sample's checksums */
    int numDirs = dirMode == PRNN_BIDIRECTIONAL ? 2 : 1;
    int weightElems = (int)(s.weightSpaceSize / sizeof(double));
    printf("prnn %zu: port of cuDNN 9's RNN sample (LSTM, %d layers, %s, hidden %d, batch %d, "
           "%d steps)\n",
           prnnGetVersion(), numLayers, numDirs == 2 ? "bidirectional" : "unidirectional",
           hiddenSize, miniBatch, seqLength);
    printf("y checksum %E     cy checksum %E     hy checksum %E\n",
           checksum(s.y, s.outputTensorSize), checksum(s.cy, s.hiddenTensorSize),
           checksum(s.hy, s.hiddenTensorSize));
    printf("dx checksum %E    dcx checksum %E    dhx checksum %E\n",
           checksum(s.dx, s.inputTensorSize), checksum(s.dcx, s.hiddenTensorSize),
           checksum(s.dhx, s.hiddenTensorSize));
    printf("dw checksum %E\n", checksum(s.dweightSpace, weightElems));

    /* The checks: inference equals training, and gradients equal finite
     * differences on a spread of elements */
    double *y_train = alloc_data((size_t)s.outputTensorSize);
    memcpy(y_train, s.y, (size_t)s.outputTensorSize * sizeof(double));
    forward(&s, PRNN_FWD_MODE_INFERENCE);
    int same = !memcmp(y_train, s.y, (size_t)s.outputTensorSize * sizeof(double));
    double *dw = s.dweightSpace, *w = s.weightSpace, worst = 0;
    for (int i = 0; i < weightElems; i += weightElems / 23 + 1)
        worst = fmax(worst, fd_error(&s, &w[i], dw[i]));
    for (int i = 0; i < s.inputTensorSize; i += s.inputTensorSize / 17 + 1)
        worst = fmax(worst, fd_error(&s, &s.x[i], s.dx[i]));
    printf("inference y %s training y; gradients against finite differences: largest relative "
           "error %.1e\n",
           same ? "equals" : "DIFFERS FROM", worst);
    /* The loss sums thousands of values near 1 (the sample's data), so a
     * central difference carries about 1e-7 of rounding: 1e-4 of a
     * gradient of 1e-2 */
    int ok = same && worst < 1e-4;
    printf("verdict: %s\n", ok ? "ok" : "not ok");
    free(y_train);
    teardown(&s);
    return ok ? 0 : 1;
}
