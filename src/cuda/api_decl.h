/*
 * How prnn declares what it uses of the CUDA libraries' APIs without their
 * headers, so that it builds with no CUDA toolkit (as the CUDA extension
 * wranglers do): cuda_api.h (the driver), nvrtc_api.h, cublaslt_api.h, and
 * tools/bench/cudnn_api.h.
 *
 * Each of those describes one library in X-macro lists and declares them
 * through PRNN_API_DECLARE. A description is a macro that hands its six
 * lists to a visitor K:
 *
 *   #define PRNN_FOO_API(K) K(SCALARS, ENUMS, CONSTANTS, STRUCTS, HANDLES, FUNCTIONS)
 *
 *   SCALARS(X)    X(type, definition)             typedef definition type;
 *   ENUMS(X)      X(type, VALUES)                 typedef enum {...} type;
 *                   VALUES(X): X(name, value)       with the values prnn uses
 *   CONSTANTS(X)  X(name, value)                  enum {name = value}; for the
 *                                                 library's #defines and the
 *                                                 enumerators of types prnn
 *                                                 never names
 *   STRUCTS(X)    X(type, FIELDS)                 typedef struct {...} type;
 *                   FIELDS(X, S): X(S, type, name, array suffix or empty)
 *   HANDLES(X)    X(type, pointee)                typedef pointee *type;
 *   FUNCTIONS(X)  X(name, symbol, required, return type, (parameters))
 *
 * (PRNN_API_NONE stands for an empty list.) Functions get no global
 * declaration: the loader's table (cuda_driver.h, nvrtc_lib.h, ...) makes a
 * field `name` of each and resolves it by `symbol`, the ABI-versioned name
 * the library exports (cuMemAlloc is cuMemAlloc_v2: the name cuda.h's macros
 * give the current API version). `required` is 0 for a function the table
 * may lack (the field stays NULL).
 *
 * The same lists are walked by tests/decl against the toolkit's headers when
 * a toolkit is present, so nothing is declared here that is not checked:
 * every function's name, symbol and type, every value, every struct's size
 * and field offsets. That check includes the toolkit's header first and then
 * these with PRNN_API_CHECK defined: enums and structs are then declared
 * under the prefix prnn_check_ (to compare sizes and layouts), and nothing
 * else is declared.
 *
 * The headers compile alone as C99 and as C++ (decl-headers-c99, -cxx).
 */
#ifndef PRNN_API_DECL_H
#define PRNN_API_DECL_H

#include <stddef.h>
#include <stdint.h>

#ifdef PRNN_API_CHECK
#define PRNN_API_NAME(name) prnn_check_##name
#else
#define PRNN_API_NAME(name) name
#endif

/* clang-format off */
#define PRNN_API_NONE(X)

#define PRNN_API_ENUMERATOR(name, value) PRNN_API_NAME(name) = value,
#define PRNN_API_FIELD(S, type, name, array) type name array;

#define PRNN_API_ENUM(type, values)                                           \
    typedef enum { values(PRNN_API_ENUMERATOR) } PRNN_API_NAME(type);
#define PRNN_API_STRUCT(type, fields)                                         \
    typedef struct { fields(PRNN_API_FIELD, type) } PRNN_API_NAME(type);

#ifdef PRNN_API_CHECK
/* Compared with the toolkit's own directly (tests/decl). */
#define PRNN_API_SCALAR(type, definition)
#define PRNN_API_CONSTANT(name, value)
#define PRNN_API_HANDLE(type, pointee)
#else
#define PRNN_API_SCALAR(type, definition) typedef definition type;
/* One enum each: C has no empty enum, and a list may be empty. */
#define PRNN_API_CONSTANT(name, value) enum { name = value };
#define PRNN_API_HANDLE(type, pointee) typedef pointee *type;
#endif

/* Declares a library's description: PRNN_FOO_API(PRNN_API_DECLARE). Structs
 * may hold enums and other structs; handles may point to structs. */
#define PRNN_API_DECLARE(scalars, enums, constants, structs, handles,         \
                         functions)                                           \
    scalars(PRNN_API_SCALAR)                                                  \
    enums(PRNN_API_ENUM)                                                      \
    constants(PRNN_API_CONSTANT)                                              \
    structs(PRNN_API_STRUCT)                                                  \
    handles(PRNN_API_HANDLE)

/* A loader table's field for each function of a list:
 *   struct { PRNN_FOO_FUNCTIONS(PRNN_API_TABLE_FIELD) ... } */
#define PRNN_API_TABLE_FIELD(name, symbol, required, ret, params)             \
    ret (*name) params;

/* clang-format on */
#endif
