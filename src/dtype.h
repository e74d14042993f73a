/*
 * Data types on the host: sizes, names, and exact conversions between the
 * 16-bit storage types and float (round to nearest even, NaN kept NaN).
 */
#ifndef PRNN_DTYPE_H
#define PRNN_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "prnn.h"

/* 0 for a value that is not a prnnDataType_t. */
size_t prnn_dtype_size(prnnDataType_t t);
/* The size of the math type the GPU computes t in: double for double data,
 * float for the others. */
size_t prnn_dtype_math_size(prnnDataType_t t);
/* "float", "double", "half", "bfloat16", or "invalid". */
const char *prnn_dtype_name(prnnDataType_t t);
int prnn_dtype_valid(prnnDataType_t t);

float prnn_half_to_float(uint16_t h);
uint16_t prnn_float_to_half(float f);
float prnn_bf16_to_float(uint16_t b);
uint16_t prnn_float_to_bf16(float f);

/* Element i of a buffer of type t, as double. */
double prnn_load_as_double(const void *p, prnnDataType_t t, size_t i);
/* Stores v (rounded to t) as element i of a buffer of type t. */
void prnn_store_from_double(void *p, prnnDataType_t t, size_t i, double v);

#endif
