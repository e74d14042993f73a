/*
 * The descriptor structs behind the opaque public types, and the checks that
 * every call taking descriptors shares.
 */
#ifndef PRNN_DESCRIPTORS_H
#define PRNN_DESCRIPTORS_H

#include <stdint.h>

#include "prnn.h"
#include "rnn_mode.h"

#define PRNN_MAX_DIMS 8
#define PRNN_MAX_HIDDEN 65536
#define PRNN_MAX_LAYERS 256
#define PRNN_MAX_INPUT 1048576

/* Distinct tags at the head of every descriptor, so that a pointer of the
 * wrong kind (a cast, a destroyed descriptor) is reported, not used. */
enum {
    PRNN_MAGIC_TENSOR = 0x70544e53,  /* "pTNS" */
    PRNN_MAGIC_FILTER = 0x7046494c,  /* "pFIL" */
    PRNN_MAGIC_DROPOUT = 0x7044524f, /* "pDRO" */
    PRNN_MAGIC_RNN = 0x70524e4e,     /* "pRNN" */
    PRNN_MAGIC_DEAD = 0x64656164     /* written by Destroy */
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
};

static inline int prnn_rnn_dirs(const struct prnnRNNStruct *r)
{
    return r->direction == PRNN_BIDIRECTIONAL ? 2 : 1;
}

/*
 * Checks that d is a set descriptor of the right kind. what names the
 * argument in the message ("xDesc[3]", "rnnDesc"). Each returns SUCCESS or
 * BAD_PARAM with the log set.
 */
prnnStatus_t prnn_check_tensor(const struct prnnTensorStruct *d, const char *what);
prnnStatus_t prnn_check_filter(const struct prnnFilterStruct *d, const char *what);
prnnStatus_t prnn_check_rnn(const struct prnnRNNStruct *d, const char *what);

#endif
