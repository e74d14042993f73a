#include "dtype.h"

#include <string.h>

size_t prnn_dtype_size(prnnDataType_t t)
{
    switch (t) {
    case PRNN_DATA_FLOAT: return 4;
    case PRNN_DATA_DOUBLE: return 8;
    case PRNN_DATA_HALF: return 2;
    case PRNN_DATA_BFLOAT16: return 2;
    }
    return 0;
}

const char *prnn_dtype_name(prnnDataType_t t)
{
    switch (t) {
    case PRNN_DATA_FLOAT: return "float";
    case PRNN_DATA_DOUBLE: return "double";
    case PRNN_DATA_HALF: return "half";
    case PRNN_DATA_BFLOAT16: return "bfloat16";
    }
    return "invalid";
}

size_t prnn_dtype_math_size(prnnDataType_t t)
{
    return t == PRNN_DATA_DOUBLE ? 8 : 4;
}

int prnn_dtype_valid(prnnDataType_t t)
{
    return prnn_dtype_size(t) != 0;
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float prnn_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0) {
        if (man == 0)
            return bits_float(sign);
        /* subnormal: value = man * 2^-24 */
        float v = (float)man * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    if (exp == 31)
        return bits_float(sign | 0x7f800000u | (man << 13));
    return bits_float(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t prnn_float_to_half(float f)
{
    uint32_t u = float_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t absu = u & 0x7fffffffu;
    if (absu >= 0x7f800000u) /* inf or NaN */
        return (uint16_t)(sign | 0x7c00u | (absu > 0x7f800000u ? 0x200u : 0));
    if (absu >= 0x477ff000u) /* rounds to >= 65520: overflow to inf */
        return (uint16_t)(sign | 0x7c00u);
    if (absu < 0x38800000u) { /* below the smallest normal half: subnormal */
        /* shift the full mantissa so that one unit is 2^-24, rounding to
         * nearest even */
        if (absu < 0x33000000u) /* < 2^-25: rounds to zero */
            return sign;
        uint32_t exp = absu >> 23;
        uint32_t man = (absu & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126 - exp; /* 14 .. 24 */
        uint32_t half = man >> shift;
        uint32_t rem = man & ((1u << shift) - 1);
        uint32_t mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t r = absu - 0x38000000u; /* rebias exponent 127 -> 15 */
    uint32_t half = r >> 13;
    uint32_t rem = r & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1)))
        half++;
    return (uint16_t)(sign | half);
}

float prnn_bf16_to_float(uint16_t b)
{
    return bits_float((uint32_t)b << 16);
}

uint16_t prnn_float_to_bf16(float f)
{
    uint32_t u = float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep it quiet NaN */
        return (uint16_t)((u >> 16) | 0x40u);
    uint32_t lsb = (u >> 16) & 1u;
    u += 0x7fffu + lsb;
    return (uint16_t)(u >> 16);
}

double prnn_load_as_double(const void *p, prnnDataType_t t, size_t i)
{
    switch (t) {
    case PRNN_DATA_FLOAT: return ((const float *)p)[i];
    case PRNN_DATA_DOUBLE: return ((const double *)p)[i];
    case PRNN_DATA_HALF: return prnn_half_to_float(((const uint16_t *)p)[i]);
    case PRNN_DATA_BFLOAT16: return prnn_bf16_to_float(((const uint16_t *)p)[i]);
    }
    return 0.0;
}

void prnn_store_from_double(void *p, prnnDataType_t t, size_t i, double v)
{
    switch (t) {
    case PRNN_DATA_FLOAT: ((float *)p)[i] = (float)v; break;
    case PRNN_DATA_DOUBLE: ((double *)p)[i] = v; break;
    case PRNN_DATA_HALF: ((uint16_t *)p)[i] = prnn_float_to_half((float)v); break;
    case PRNN_DATA_BFLOAT16: ((uint16_t *)p)[i] = prnn_float_to_bf16((float)v); break;
    }
}
