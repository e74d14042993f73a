/*
 * The descriptor structs behind the opaque public types, and the checks and
 * helpers that every call taking descriptors shares (descriptors.c; the
 * public calls are in descriptors_api.c and descriptors_v8.c).
 */
#ifndef PRNN_DESCRIPTORS_H
#define PRNN_DESCRIPTORS_H

#include <stdint.h>

#include "prnn.h"
#include "rnn_cell_traits.h"

#define PRNN_MAX_DIMS 8
#define PRNN_MAX_HIDDEN 65536
#define PRNN_MAX_LAYERS 256
#define PRNN_MAX_INPUT 1048576

/* Distinct tags at the head of every descriptor, so that a pointer of the
 * wrong kind (a cast, a destroyed descriptor) is reported, not used. */
enum {
    PRNN_MAGIC_TENSOR = 0x70544e53,   /* "pTNS" */
    PRNN_MAGIC_FILTER = 0x7046494c,   /* "pFIL" */
    PRNN_MAGIC_DROPOUT = 0x7044524f,  /* "pDRO" */
    PRNN_MAGIC_RNN = 0x70524e4e,      /* "pRNN" */
    PRNN_MAGIC_RNN_DATA = 0x70524441, /* "pRDA" */
    PRNN_MAGIC_DEAD = 0x64656164      /* written by Destroy */
};

struct prnnTensorStruct {
    uint32_t magic;
    int is_set;
    prnnDataType_t dtype;
    int nb_dims;
    int dims[PRNN_MAX_DIMS];
    int strides[PRNN_MAX_DIMS];
};

struct prnnFilterStruct {
    uint32_t magic;
    int is_set;
    prnnDataType_t dtype;
    prnnTensorFormat_t format;
    int nb_dims;
    int dims[PRNN_MAX_DIMS];
};

struct prnnDropoutStruct {
    uint32_t magic;
    int is_set;
    float dropout;
    unsigned long long seed;
};

struct prnnRNNStruct {
    uint32_t magic;
    int is_set;
    int hidden;
    int layers;
    float dropout; /* copied from the dropout descriptor; 0 = none */
    unsigned long long seed;
    prnnRNNInputMode_t input_mode;
    prnnDirectionMode_t direction;
    prnnRNNMode_t mode;
    prnnDataType_t dtype;
    prnnMathType_t math;
    prnnRNNAlgo_t algo;
    /* PRNN_SRU only (prnnSetRNNSRUConvention); prnnSetRNNDescriptor sets
     * the defaults, a struct built by hand must too (scale 1, not 0) */
    prnnSRUConvention_t sru_convention;
    prnnSRUActivation_t sru_activation;
    double sru_scale;
    /* Set by prnnSetRNNDescriptor_v8 only; every field is 0 after
     * prnnSetRNNDescriptor, and 0 means v5's behaviour, so that a struct
     * built by hand with memset is a v5 descriptor. */
    int input_size; /* > 0: set by the v8 call (it carries inputSize) */
    int proj;       /* projSize when below hidden (LSTM); 0: none */
    int no_bias_w;  /* the bias mode, as the biases it drops */
    int no_bias_r;
    prnnDataType_t math_prec;
    unsigned int aux_flags;
    prnnDropoutDescriptor_t dropout_desc; /* for Get_v8 only, never read */
    prnnRNNClipMode_t clip_mode;
    prnnNanPropagation_t clip_nan;
    double lclip, rclip;
};

/* The RNN data descriptor (prnnSetRNNDataDescriptor). */
struct prnnRNNDataStruct {
    uint32_t magic;
    int is_set;
    prnnDataType_t dtype;
    prnnRNNDataLayout_t layout;
    int max_seq;
    int batch;
    int vector;
    int *lengths; /* [batch], owned */
    int has_fill;
    unsigned char fill[8]; /* one value of dtype */
};

static inline int prnn_rnn_dirs(const struct prnnRNNStruct *r)
{
    return r->direction == PRNN_BIDIRECTIONAL ? 2 : 1;
}

/* The width of the recurrent state h, of hx/hy and of each direction's
 * output: projSize with a projection, else hiddenSize. */
static inline int prnn_rnn_out_width(const struct prnnRNNStruct *r)
{
    return r->proj ? r->proj : r->hidden;
}

/* Whether the cells' formulas use bW and bR (the bias mode). */
static inline int prnn_rnn_has_bias_w(const struct prnnRNNStruct *r)
{
    return !r->no_bias_w;
}
static inline int prnn_rnn_has_bias_r(const struct prnnRNNStruct *r)
{
    return !r->no_bias_r;
}

/*
 * Checks that d is a set descriptor of the right kind. what names the
 * argument in the message ("xDesc[3]", "rnnDesc"). Each returns SUCCESS or
 * BAD_PARAM with the log set.
 */
prnnStatus_t prnn_check_tensor(const struct prnnTensorStruct *d, const char *what);
prnnStatus_t prnn_check_filter(const struct prnnFilterStruct *d, const char *what);
prnnStatus_t prnn_check_rnn(const struct prnnRNNStruct *d, const char *what);
/* rnnDesc set, by prnnSetRNNDescriptor_v8 (BAD_PARAM naming the rule for
 * one set by prnnSetRNNDescriptor). */
prnnStatus_t prnn_check_rnn_v8(const struct prnnRNNStruct *r);
prnnStatus_t prnn_check_rnn_data(const struct prnnRNNDataStruct *d, const char *what);

/* 1 when m is one of prnnMathType_t's values, else 0. */
int prnn_math_type_valid(prnnMathType_t m);
/* Whether m lets FP32 GEMMs use TF32: PRNN_TENSOR_OP_MATH and
 * PRNN_TF32_RECURRENCE_MATH (the input and weight GEMMs; the latter the
 * standard engine's recurrence too, prnn_rnn_key_tf32_recurrence). */
int prnn_math_tf32_gemms(prnnMathType_t m);

/* hiddenSize and numLayers in range, and dropout NULL or a set dropout
 * descriptor: what both Set calls of the RNN descriptor check. */
prnnStatus_t prnn_check_rnn_shape(int hidden, int layers, const struct prnnDropoutStruct *dropout);

/* The settings both Set calls make, with the SRU conventions' defaults and
 * v5's defaults of the v8 settings (prnn_rnn_clear_v8); marks r set.
 * dropout NULL: none. */
void prnn_rnn_set_common(struct prnnRNNStruct *r, int hidden, int layers,
                         const struct prnnDropoutStruct *dropout, prnnRNNInputMode_t input_mode,
                         prnnDirectionMode_t direction, prnnRNNMode_t mode, prnnDataType_t dtype,
                         prnnMathType_t math, prnnRNNAlgo_t algo);

/* Resets the settings only prnnSetRNNDescriptor_v8 makes to v5's: no
 * inputSize, no projection, both biases, no clipping. */
void prnn_rnn_clear_v8(struct prnnRNNStruct *r);

/* The shared halves of every Create / Destroy pair. */
prnnStatus_t prnn_desc_create(void **out, size_t size, uint32_t magic);
prnnStatus_t prnn_desc_destroy(void *p, size_t size, uint32_t magic);
/* SUCCESS when p is a live descriptor of kind `magic` (set or not);
 * BAD_PARAM naming `what` and the `kind` otherwise. */
prnnStatus_t prnn_desc_check_kind(const void *p, uint32_t magic, const char *what,
                                  const char *kind);
/* The same, and set: BAD_PARAM naming the Set call (`setter`) otherwise. */
prnnStatus_t prnn_desc_check_set(const void *p, uint32_t magic, const char *what, const char *kind,
                                 const char *setter);

#endif
