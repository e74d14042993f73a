#include "api_check.h"

#include <stdio.h>
#include <string.h>

static int functions, values, types, fields, mismatches;

static void mismatch(int ok)
{
    if (!ok)
        mismatches++;
}

void api_check_function(const char *name, const char *header_symbol, const char *symbol,
                        int same_type)
{
    functions++;
    if (strcmp(header_symbol, symbol) != 0)
        fprintf(stderr, "MISMATCH %s: the header declares it as %s, prnn loads %s\n", name,
                header_symbol, symbol);
    if (!same_type)
        fprintf(stderr, "MISMATCH %s (%s): prnn's prototype differs from the header's\n", name,
                symbol);
    mismatch(strcmp(header_symbol, symbol) == 0 && same_type);
}

void api_check_value(const char *name, long long header_value, long long value)
{
    values++;
    if (header_value != value)
        fprintf(stderr, "MISMATCH %s: %lld in the header, %lld in prnn's declaration\n", name,
                header_value, value);
    mismatch(header_value == value);
}

void api_check_type(const char *name, int same_type, const char *expected)
{
    types++;
    if (!same_type)
        fprintf(stderr, "MISMATCH %s: prnn declares it as %s, the header does not\n", name,
                expected);
    mismatch(same_type);
}

void api_check_size(const char *name, size_t header_size, size_t size)
{
    types++;
    if (header_size != size)
        fprintf(stderr, "MISMATCH sizeof(%s): %zu in the header, %zu in prnn's declaration\n", name,
                header_size, size);
    mismatch(header_size == size);
}

void api_check_field(const char *type, const char *field, size_t header_offset, size_t offset,
                     int same_type)
{
    fields++;
    if (header_offset != offset)
        fprintf(stderr, "MISMATCH %s.%s: offset %zu in the header, %zu in prnn's declaration\n",
                type, field, header_offset, offset);
    if (!same_type)
        fprintf(stderr, "MISMATCH %s.%s: its type differs from the header's\n", type, field);
    mismatch(header_offset == offset && same_type);
}

int api_check_finish(const char *test, const char *header, const char *version)
{
    printf("%s: checked %d functions (name, ABI symbol, prototype), %d values, %d types and sizes, "
           "%d struct fields (offset, type) of prnn's declarations against %s (%s): %s\n",
           test, functions, values, types, fields, header, version,
           mismatches ? "MISMATCH" : "all match");
    if (mismatches)
        printf("%s: %d mismatch(es) (listed above): prnn's declarations must follow the header\n",
               test, mismatches);
    return mismatches ? 1 : 0;
}
