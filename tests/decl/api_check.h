/*
 * Checks one library's declarations (a description in the format of
 * src/cuda/api_decl.h) against the toolkit's header: include that header,
 * then this, then prnn's *_api.h, and walk the description:
 *
 *   #include <nvrtc.h>
 *   #include "api_check.h"
 *   #include "cuda/nvrtc_api.h"
 *   int main(void) { PRNN_NVRTC_API(API_CHECK_ALL) return api_check_finish(...); }
 *
 * Checked, each a line on stderr when it differs: every function's name
 * maps to its ABI symbol through the header's macros (cuMemAlloc ->
 * cuMemAlloc_v2) and has the header's type (return and parameter types,
 * __builtin_types_compatible_p); every enum value and constant; every enum's
 * size; every scalar and handle type; every struct's size, and each field's
 * offset and type.
 */
#ifndef PRNN_API_CHECK_H
#define PRNN_API_CHECK_H

#if defined(PRNN_API_DECL_H) && !defined(PRNN_API_CHECK)
#error "include api_check.h before prnn's *_api.h headers"
#endif
#define PRNN_API_CHECK
#include "cuda/api_decl.h"

#include <stddef.h>

void api_check_function(const char *name, const char *header_symbol, const char *symbol,
                        int same_type);
void api_check_value(const char *name, long long header_value, long long value);
void api_check_type(const char *name, int same_type, const char *expected);
void api_check_size(const char *name, size_t header_size, size_t size);
void api_check_field(const char *type, const char *field, size_t header_offset, size_t offset,
                     int same_type);

/* Prints what was checked against header (the full path), and the result.
 * Returns the exit status: 0, or 1 after any mismatch. */
int api_check_finish(const char *test, const char *header, const char *version);

/* clang-format off */
#define API_CHECK_STR2(x) #x
#define API_CHECK_STR(x) API_CHECK_STR2(x)

/* API_CHECK_STR(name) expands the header's macro for name: the symbol the
 * header's prototype is really declared under. */
#define API_CHECK_FUNCTION(name, symbol, required, ret, params)               \
    api_check_function(#name, API_CHECK_STR(name), #symbol,                   \
                       __builtin_types_compatible_p(__typeof__(&symbol),      \
                                                    ret (*) params));
#define API_CHECK_VALUE(name, value)                                          \
    api_check_value(#name, (long long)(name), (long long)(value));
#define API_CHECK_SCALAR(type, definition)                                    \
    api_check_type(#type, __builtin_types_compatible_p(type, definition),     \
                   #definition);
#define API_CHECK_HANDLE(type, pointee)                                       \
    api_check_type(#type, __builtin_types_compatible_p(type, pointee *),      \
                   #pointee " *");
#define API_CHECK_ENUM(type, values)                                          \
    api_check_size(#type, sizeof(type), sizeof(PRNN_API_NAME(type)));         \
    values(API_CHECK_VALUE)
#define API_CHECK_FIELD(S, type, name, array)                                 \
    api_check_field(#S, #name, offsetof(S, name),                             \
                    offsetof(PRNN_API_NAME(S), name),                         \
                    __builtin_types_compatible_p(                             \
                        __typeof__(((S *)0)->name),                           \
                        __typeof__(((PRNN_API_NAME(S) *)0)->name)));
#define API_CHECK_STRUCT(type, fields)                                        \
    api_check_size(#type, sizeof(type), sizeof(PRNN_API_NAME(type)));         \
    fields(API_CHECK_FIELD, type)

/* Checks a whole description: PRNN_CU_API(API_CHECK_ALL). */
#define API_CHECK_ALL(scalars, enums, constants, structs, handles, functions) \
    scalars(API_CHECK_SCALAR)                                                 \
    enums(API_CHECK_ENUM)                                                     \
    constants(API_CHECK_VALUE)                                                \
    structs(API_CHECK_STRUCT)                                                 \
    handles(API_CHECK_HANDLE)                                                 \
    functions(API_CHECK_FUNCTION)

/* clang-format on */
#endif
