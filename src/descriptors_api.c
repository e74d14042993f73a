/* The public calls of the tensor, filter, dropout and RNN descriptors: plain
 * host objects (the cuDNN 8/9-shaped calls are in descriptors_v8.c, what both
 * share in descriptors.c). */
#include <float.h>
#include <string.h>

#include "descriptors.h"
#include "dtype.h"
#include "error.h"

/* ---- tensor ---- */

prnnStatus_t prnnCreateTensorDescriptor(prnnTensorDescriptor_t *desc)
{
    prnn_api_enter("prnnCreateTensorDescriptor");
    return prnn_desc_create((void **)desc, sizeof(struct prnnTensorStruct), PRNN_MAGIC_TENSOR);
}

prnnStatus_t prnnDestroyTensorDescriptor(prnnTensorDescriptor_t desc)
{
    prnn_api_enter("prnnDestroyTensorDescriptor");
    return prnn_desc_destroy(desc, sizeof(struct prnnTensorStruct), PRNN_MAGIC_TENSOR);
}

prnnStatus_t prnnSetTensorNdDescriptor(prnnTensorDescriptor_t desc, prnnDataType_t dataType,
                                       int nbDims, const int dimA[], const int strideA[])
{
    prnn_api_enter("prnnSetTensorNdDescriptor");
    PRNN_TRY(prnn_desc_check_kind(desc, PRNN_MAGIC_TENSOR, "desc", "tensor"));
    if (!prnn_dtype_valid(dataType))
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "dataType = %d: not a prnnDataType_t",
                         (int)dataType);
    if (nbDims < 3 || nbDims > PRNN_MAX_DIMS)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "nbDims = %d: must be between 3 and %d", nbDims,
                         PRNN_MAX_DIMS);
    if (!dimA)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "dimA is NULL");
    if (!strideA)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "strideA is NULL");
    for (int i = 0; i < nbDims; i++) {
        if (dimA[i] < 1)
            return prnn_fail(PRNN_STATUS_BAD_PARAM, "dimA[%d] = %d: dimensions must be >= 1", i,
                             dimA[i]);
        if (strideA[i] < 1)
            return prnn_fail(PRNN_STATUS_BAD_PARAM, "strideA[%d] = %d: strides must be >= 1", i,
                             strideA[i]);
    }
    desc->dtype = dataType;
    desc->nb_dims = nbDims;
    memcpy(desc->dims, dimA, (size_t)nbDims * sizeof(int));
    memcpy(desc->strides, strideA, (size_t)nbDims * sizeof(int));
    desc->is_set = 1;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnGetTensorNdDescriptor(const prnnTensorDescriptor_t desc, int nbDimsRequested,
                                       prnnDataType_t *dataType, int *nbDims, int dimA[],
                                       int strideA[])
{
    prnn_api_enter("prnnGetTensorNdDescriptor");
    PRNN_TRY(prnn_check_tensor(desc, "desc"));
    if (nbDimsRequested < 0)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "nbDimsRequested = %d: must be >= 0",
                         nbDimsRequested);
    if (nbDimsRequested > 0 && (!dimA || !strideA))
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "%s is NULL while nbDimsRequested = %d",
                         !dimA ? "dimA" : "strideA", nbDimsRequested);
    if (dataType)
        *dataType = desc->dtype;
    if (nbDims)
        *nbDims = desc->nb_dims;
    int n = nbDimsRequested < desc->nb_dims ? nbDimsRequested : desc->nb_dims;
    for (int i = 0; i < n; i++) {
        dimA[i] = desc->dims[i];
        strideA[i] = desc->strides[i];
    }
    return PRNN_STATUS_SUCCESS;
}

/* ---- filter ---- */

prnnStatus_t prnnCreateFilterDescriptor(prnnFilterDescriptor_t *desc)
{
    prnn_api_enter("prnnCreateFilterDescriptor");
    return prnn_desc_create((void **)desc, sizeof(struct prnnFilterStruct), PRNN_MAGIC_FILTER);
}

prnnStatus_t prnnDestroyFilterDescriptor(prnnFilterDescriptor_t desc)
{
    prnn_api_enter("prnnDestroyFilterDescriptor");
    return prnn_desc_destroy(desc, sizeof(struct prnnFilterStruct), PRNN_MAGIC_FILTER);
}

prnnStatus_t prnnSetFilterNdDescriptor(prnnFilterDescriptor_t desc, prnnDataType_t dataType,
                                       prnnTensorFormat_t format, int nbDims,
                                       const int filterDimA[])
{
    prnn_api_enter("prnnSetFilterNdDescriptor");
    PRNN_TRY(prnn_desc_check_kind(desc, PRNN_MAGIC_FILTER, "desc", "filter"));
    if (!prnn_dtype_valid(dataType))
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "dataType = %d: not a prnnDataType_t",
                         (int)dataType);
    if (format != PRNN_TENSOR_NCHW)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "format = %d: only PRNN_TENSOR_NCHW exists",
                         (int)format);
    if (nbDims < 1 || nbDims > PRNN_MAX_DIMS)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "nbDims = %d: must be between 1 and %d", nbDims,
                         PRNN_MAX_DIMS);
    if (!filterDimA)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "filterDimA is NULL");
    for (int i = 0; i < nbDims; i++)
        if (filterDimA[i] < 1)
            return prnn_fail(PRNN_STATUS_BAD_PARAM, "filterDimA[%d] = %d: dimensions must be >= 1",
                             i, filterDimA[i]);
    desc->dtype = dataType;
    desc->format = format;
    desc->nb_dims = nbDims;
    memcpy(desc->dims, filterDimA, (size_t)nbDims * sizeof(int));
    desc->is_set = 1;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnGetFilterNdDescriptor(const prnnFilterDescriptor_t desc, int nbDimsRequested,
                                       prnnDataType_t *dataType, prnnTensorFormat_t *format,
                                       int *nbDims, int filterDimA[])
{
    prnn_api_enter("prnnGetFilterNdDescriptor");
    PRNN_TRY(prnn_check_filter(desc, "desc"));
    if (nbDimsRequested < 0)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "nbDimsRequested = %d: must be >= 0",
                         nbDimsRequested);
    if (nbDimsRequested > 0 && !filterDimA)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "filterDimA is NULL while nbDimsRequested = %d",
                         nbDimsRequested);
    if (dataType)
        *dataType = desc->dtype;
    if (format)
        *format = desc->format;
    if (nbDims)
        *nbDims = desc->nb_dims;
    int n = nbDimsRequested < desc->nb_dims ? nbDimsRequested : desc->nb_dims;
    for (int i = 0; i < n; i++)
        filterDimA[i] = desc->dims[i];
    return PRNN_STATUS_SUCCESS;
}

/* ---- dropout ---- */

prnnStatus_t prnnCreateDropoutDescriptor(prnnDropoutDescriptor_t *desc)
{
    prnn_api_enter("prnnCreateDropoutDescriptor");
    return prnn_desc_create((void **)desc, sizeof(struct prnnDropoutStruct), PRNN_MAGIC_DROPOUT);
}

prnnStatus_t prnnDestroyDropoutDescriptor(prnnDropoutDescriptor_t desc)
{
    prnn_api_enter("prnnDestroyDropoutDescriptor");
    return prnn_desc_destroy(desc, sizeof(struct prnnDropoutStruct), PRNN_MAGIC_DROPOUT);
}

prnnStatus_t prnnSetDropoutDescriptor(prnnDropoutDescriptor_t desc, prnnHandle_t handle,
                                      float dropout, unsigned long long seed)
{
    prnn_api_enter("prnnSetDropoutDescriptor");
    (void)handle; /* no generator state to place on a device */
    PRNN_TRY(prnn_desc_check_kind(desc, PRNN_MAGIC_DROPOUT, "desc", "dropout"));
    if (!(dropout >= 0.0f && dropout < 1.0f)) /* also rejects NaN */
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "dropout = %g: must be >= 0 and < 1",
                         (double)dropout);
    desc->dropout = dropout;
    desc->seed = seed;
    desc->is_set = 1;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnGetDropoutDescriptor(prnnDropoutDescriptor_t desc, prnnHandle_t handle,
                                      float *dropout, unsigned long long *seed)
{
    prnn_api_enter("prnnGetDropoutDescriptor");
    (void)handle;
    PRNN_TRY(prnn_desc_check_kind(desc, PRNN_MAGIC_DROPOUT, "desc", "dropout"));
    if (!desc->is_set)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "desc was created but never set (prnnSetDropoutDescriptor)");
    if (dropout)
        *dropout = desc->dropout;
    if (seed)
        *seed = desc->seed;
    return PRNN_STATUS_SUCCESS;
}

/* ---- RNN ---- */

prnnStatus_t prnnCreateRNNDescriptor(prnnRNNDescriptor_t *desc)
{
    prnn_api_enter("prnnCreateRNNDescriptor");
    return prnn_desc_create((void **)desc, sizeof(struct prnnRNNStruct), PRNN_MAGIC_RNN);
}

prnnStatus_t prnnDestroyRNNDescriptor(prnnRNNDescriptor_t desc)
{
    prnn_api_enter("prnnDestroyRNNDescriptor");
    return prnn_desc_destroy(desc, sizeof(struct prnnRNNStruct), PRNN_MAGIC_RNN);
}

prnnStatus_t prnnSetRNNDescriptor(prnnRNNDescriptor_t rnnDesc, int hiddenSize, int numLayers,
                                  prnnDropoutDescriptor_t dropoutDesc, prnnRNNInputMode_t inputMode,
                                  prnnDirectionMode_t direction, prnnRNNMode_t mode,
                                  prnnDataType_t dataType)
{
    prnn_api_enter("prnnSetRNNDescriptor");
    PRNN_TRY(prnn_desc_check_kind(rnnDesc, PRNN_MAGIC_RNN, "rnnDesc", "RNN"));
    PRNN_TRY(prnn_check_rnn_shape(hiddenSize, numLayers, dropoutDesc));
    if (inputMode != PRNN_LINEAR_INPUT && inputMode != PRNN_SKIP_INPUT)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "inputMode = %d: not a prnnRNNInputMode_t",
                         (int)inputMode);
    if (direction != PRNN_UNIDIRECTIONAL && direction != PRNN_BIDIRECTIONAL)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "direction = %d: not a prnnDirectionMode_t",
                         (int)direction);
    if (prnn_cell_traits(mode)->gates == 0)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "mode = %d: not a prnnRNNMode_t", (int)mode);
    if (!prnn_dtype_valid(dataType))
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "dataType = %d: not a prnnDataType_t",
                         (int)dataType);
    prnn_rnn_set_common(rnnDesc, hiddenSize, numLayers, dropoutDesc, inputMode, direction, mode,
                        dataType, PRNN_DEFAULT_MATH, PRNN_RNN_ALGO_AUTO);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnGetRNNDescriptor(const prnnRNNDescriptor_t rnnDesc, int *hiddenSize,
                                  int *numLayers, float *dropout, unsigned long long *seed,
                                  prnnRNNInputMode_t *inputMode, prnnDirectionMode_t *direction,
                                  prnnRNNMode_t *mode, prnnDataType_t *dataType)
{
    prnn_api_enter("prnnGetRNNDescriptor");
    PRNN_TRY(prnn_check_rnn(rnnDesc, "rnnDesc"));
    if (hiddenSize)
        *hiddenSize = rnnDesc->hidden;
    if (numLayers)
        *numLayers = rnnDesc->layers;
    if (dropout)
        *dropout = rnnDesc->dropout;
    if (seed)
        *seed = rnnDesc->seed;
    if (inputMode)
        *inputMode = rnnDesc->input_mode;
    if (direction)
        *direction = rnnDesc->direction;
    if (mode)
        *mode = rnnDesc->mode;
    if (dataType)
        *dataType = rnnDesc->dtype;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnSetRNNMatrixMathType(prnnRNNDescriptor_t rnnDesc, prnnMathType_t mathType)
{
    prnn_api_enter("prnnSetRNNMatrixMathType");
    PRNN_TRY(prnn_check_rnn(rnnDesc, "rnnDesc"));
    if (!prnn_math_type_valid(mathType))
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "mathType = %d: not a prnnMathType_t",
                         (int)mathType);
    rnnDesc->math = mathType;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnGetRNNMatrixMathType(const prnnRNNDescriptor_t rnnDesc, prnnMathType_t *mathType)
{
    prnn_api_enter("prnnGetRNNMatrixMathType");
    PRNN_TRY(prnn_check_rnn(rnnDesc, "rnnDesc"));
    if (!mathType)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "mathType is NULL");
    *mathType = rnnDesc->math;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnSetRNNAlgorithm(prnnRNNDescriptor_t rnnDesc, prnnRNNAlgo_t algo)
{
    prnn_api_enter("prnnSetRNNAlgorithm");
    PRNN_TRY(prnn_check_rnn(rnnDesc, "rnnDesc"));
    if (algo != PRNN_RNN_ALGO_AUTO && algo != PRNN_RNN_ALGO_PERSISTENT &&
        algo != PRNN_RNN_ALGO_STANDARD)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "algo = %d: not a prnnRNNAlgo_t", (int)algo);
    rnnDesc->algo = algo;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnGetRNNAlgorithm(const prnnRNNDescriptor_t rnnDesc, prnnRNNAlgo_t *algo)
{
    prnn_api_enter("prnnGetRNNAlgorithm");
    PRNN_TRY(prnn_check_rnn(rnnDesc, "rnnDesc"));
    if (!algo)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "algo is NULL");
    *algo = rnnDesc->algo;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnSetRNNSRUConvention(prnnRNNDescriptor_t rnnDesc, prnnSRUConvention_t convention,
                                     prnnSRUActivation_t activation, double highwayScale)
{
    prnn_api_enter("prnnSetRNNSRUConvention");
    PRNN_TRY(prnn_check_rnn(rnnDesc, "rnnDesc"));
    if (rnnDesc->mode != PRNN_SRU)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "rnnDesc: mode is %s; SRU's conventions apply to PRNN_SRU only",
                         prnn_mode_name(rnnDesc->mode));
    if (convention != PRNN_SRU_CONVENTION_PRNN && convention != PRNN_SRU_CONVENTION_SRU_PACKAGE)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "convention = %d: not a prnnSRUConvention_t",
                         (int)convention);
    if (activation != PRNN_SRU_ACTIVATION_TANH && activation != PRNN_SRU_ACTIVATION_IDENTITY)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "activation = %d: not a prnnSRUActivation_t",
                         (int)activation);
    if (!(highwayScale > 0.0 && highwayScale <= DBL_MAX)) /* also rejects NaN */
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "highwayScale = %g: must be finite and positive (1 for none)",
                         highwayScale);
    if (convention == PRNN_SRU_CONVENTION_SRU_PACKAGE && rnnDesc->input_mode == PRNN_SKIP_INPUT &&
        rnnDesc->direction == PRNN_BIDIRECTIONAL)
        return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                         "convention = PRNN_SRU_CONVENTION_SRU_PACKAGE with PRNN_SKIP_INPUT and "
                         "PRNN_BIDIRECTIONAL: layer 0's highway would be hiddenSize wide against 2 "
                         "* hiddenSize outputs, and it has no u3 (the sru package has no "
                         "skip-input mode); use PRNN_LINEAR_INPUT");
    rnnDesc->sru_convention = convention;
    rnnDesc->sru_activation = activation;
    rnnDesc->sru_scale = highwayScale;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnGetRNNSRUConvention(const prnnRNNDescriptor_t rnnDesc,
                                     prnnSRUConvention_t *convention,
                                     prnnSRUActivation_t *activation, double *highwayScale)
{
    prnn_api_enter("prnnGetRNNSRUConvention");
    PRNN_TRY(prnn_check_rnn(rnnDesc, "rnnDesc"));
    if (convention)
        *convention = rnnDesc->sru_convention;
    if (activation)
        *activation = rnnDesc->sru_activation;
    if (highwayScale)
        *highwayScale = rnnDesc->sru_scale;
    return PRNN_STATUS_SUCCESS;
}
