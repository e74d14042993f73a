/*
 * Moving values between the caller's storage type and the reference's
 * doubles. The switch sits outside the loops: these run over whole buffers.
 */
#include <stdint.h>
#include <string.h>

#include "dtype.h"
#include "ref/ref_internal.h"

void prnn_ref_load(const void *src, prnnDataType_t t, size_t offset, size_t n, double *dst)
{
    switch (t) {
    case PRNN_DATA_FLOAT: {
        const float *s = (const float *)src + offset;
        for (size_t i = 0; i < n; i++)
            dst[i] = s[i];
        return;
    }
    case PRNN_DATA_DOUBLE: memcpy(dst, (const double *)src + offset, n * sizeof(double)); return;
    case PRNN_DATA_HALF: {
        const uint16_t *s = (const uint16_t *)src + offset;
        for (size_t i = 0; i < n; i++)
            dst[i] = prnn_half_to_float(s[i]);
        return;
    }
    case PRNN_DATA_BFLOAT16: {
        const uint16_t *s = (const uint16_t *)src + offset;
        for (size_t i = 0; i < n; i++)
            dst[i] = prnn_bf16_to_float(s[i]);
        return;
    }
    }
}

void prnn_ref_load_or_zero(const void *src, prnnDataType_t t, size_t offset, size_t n, double *dst)
{
    if (src)
        prnn_ref_load(src, t, offset, n, dst);
    else
        for (size_t i = 0; i < n; i++)
            dst[i] = 0.0;
}

void prnn_ref_store(void *dst, prnnDataType_t t, size_t offset, size_t n, const double *src)
{
    switch (t) {
    case PRNN_DATA_FLOAT: {
        float *d = (float *)dst + offset;
        for (size_t i = 0; i < n; i++)
            d[i] = (float)src[i];
        return;
    }
    case PRNN_DATA_DOUBLE: memcpy((double *)dst + offset, src, n * sizeof(double)); return;
    case PRNN_DATA_HALF: {
        uint16_t *d = (uint16_t *)dst + offset;
        for (size_t i = 0; i < n; i++)
            d[i] = prnn_float_to_half((float)src[i]);
        return;
    }
    case PRNN_DATA_BFLOAT16: {
        uint16_t *d = (uint16_t *)dst + offset;
        for (size_t i = 0; i < n; i++)
            d[i] = prnn_float_to_bf16((float)src[i]);
        return;
    }
    }
}

void prnn_ref_accumulate(void *dst, prnnDataType_t t, size_t offset, size_t n, const double *src)
{
    for (size_t i = 0; i < n; i++)
        prnn_store_from_double(dst, t, offset + i,
                               prnn_load_as_double(dst, t, offset + i) + src[i]);
}

void prnn_ref_load_transposed(const void *src, prnnDataType_t t, size_t offset, size_t rows,
                              size_t cols, double *dst)
{
    for (size_t i = 0; i < rows; i++)
        for (size_t k = 0; k < cols; k++)
            dst[k * rows + i] = prnn_load_as_double(src, t, offset + i * cols + k);
}
