/*
 * Size arithmetic that cannot wrap.
 *
 * Every byte count the library computes from caller-chosen dimensions
 * (params, workspace, reserve, filters, strides, the GPU layouts) goes
 * through these, so that a shape whose size does not fit in size_t gives a
 * BAD_PARAM instead of a small wrong number that a caller would then
 * allocate and overrun.
 *
 * They saturate: a result that does not fit is PRNN_SIZE_OVERFLOW, and
 * PRNN_SIZE_OVERFLOW stays PRNN_SIZE_OVERFLOW through every later step
 * (even times 0), so a layout can be computed in straight-line code and
 * checked once, at its total, with prnn_size_fits(). No real buffer is
 * SIZE_MAX bytes long, so the value is free to mean "too large".
 */
#ifndef PRNN_CHECKED_SIZE_H
#define PRNN_CHECKED_SIZE_H

#include <stddef.h>
#include <stdint.h>

#define PRNN_SIZE_OVERFLOW SIZE_MAX

static inline int prnn_size_fits(size_t n)
{
    return n != PRNN_SIZE_OVERFLOW;
}

static inline size_t prnn_mul_size(size_t a, size_t b)
{
    size_t r;
    if (a == PRNN_SIZE_OVERFLOW || b == PRNN_SIZE_OVERFLOW || __builtin_mul_overflow(a, b, &r))
        return PRNN_SIZE_OVERFLOW;
    return r;
}

static inline size_t prnn_add_size(size_t a, size_t b)
{
    size_t r;
    if (a == PRNN_SIZE_OVERFLOW || b == PRNN_SIZE_OVERFLOW || __builtin_add_overflow(a, b, &r))
        return PRNN_SIZE_OVERFLOW;
    return r;
}

static inline size_t prnn_mul3_size(size_t a, size_t b, size_t c)
{
    return prnn_mul_size(prnn_mul_size(a, b), c);
}

static inline size_t prnn_mul4_size(size_t a, size_t b, size_t c, size_t d)
{
    return prnn_mul_size(prnn_mul3_size(a, b, c), d);
}

/* n rounded up to a multiple of align (align > 0). */
static inline size_t prnn_align_size(size_t n, size_t align)
{
    size_t up = prnn_add_size(n, align - 1);
    return up == PRNN_SIZE_OVERFLOW ? up : up / align * align;
}

#endif
