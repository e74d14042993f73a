/*
 * Whether a text is JSON that cJSON accepts, without allocating: when cJSON
 * gives up on a file, this tells a syntax error (the file is malformed: the
 * writer backs it up and starts afresh) from cJSON running out of memory
 * (nothing is wrong with the file: it must be neither backed up nor cached
 * as rejected). As strict as cJSON where cJSON is strict (the surrogates of
 * \u escapes, literals, numbers as strtod reads JSON's), so that no file
 * cJSON rejects for its text reads as out of memory here.
 */
#include <string.h>

#include "tuning_db.h"

typedef struct {
    const char *s;
    size_t n, i;
} cursor;

static void skip_ws(cursor *c)
{
    while (c->i < c->n &&
           (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\n' || c->s[c->i] == '\r'))
        c->i++;
}

static int hex4(cursor *c, unsigned *v)
{
    *v = 0;
    for (int k = 0; k < 4; k++, c->i++) {
        if (c->i >= c->n)
            return 0;
        char h = c->s[c->i];
        unsigned d = h >= '0' && h <= '9'   ? (unsigned)(h - '0')
                     : h >= 'a' && h <= 'f' ? (unsigned)(h - 'a' + 10)
                     : h >= 'A' && h <= 'F' ? (unsigned)(h - 'A' + 10)
                                            : 16u;
        if (d == 16)
            return 0;
        *v = *v << 4 | d;
    }
    return 1;
}

static int string(cursor *c)
{
    c->i++; /* the opening quote */
    while (c->i < c->n) {
        char ch = c->s[c->i++];
        if (ch == '"')
            return 1;
        if (ch != '\\')
            continue;
        if (c->i >= c->n)
            return 0;
        char e = c->s[c->i++];
        if (strchr("\"\\/bfnrt", e) && e)
            continue;
        if (e != 'u')
            return 0;
        unsigned u;
        if (!hex4(c, &u) || (u >= 0xDC00 && u <= 0xDFFF))
            return 0;
        if (u >= 0xD800 && u <= 0xDBFF) { /* a pair, as cJSON requires */
            unsigned low;
            if (c->i + 2 > c->n || c->s[c->i] != '\\' || c->s[c->i + 1] != 'u')
                return 0;
            c->i += 2;
            if (!hex4(c, &low) || low < 0xDC00 || low > 0xDFFF)
                return 0;
        }
    }
    return 0;
}

static int digits(cursor *c)
{
    size_t start = c->i;
    while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9')
        c->i++;
    return c->i > start;
}

static int number(cursor *c)
{
    if (c->s[c->i] == '-')
        c->i++;
    if (!digits(c))
        return 0;
    if (c->i < c->n && c->s[c->i] == '.') {
        c->i++;
        if (!digits(c))
            return 0;
    }
    if (c->i < c->n && (c->s[c->i] == 'e' || c->s[c->i] == 'E')) {
        c->i++;
        if (c->i < c->n && (c->s[c->i] == '+' || c->s[c->i] == '-'))
            c->i++;
        if (!digits(c))
            return 0;
    }
    return 1;
}

static int literal(cursor *c, const char *word)
{
    size_t n = strlen(word);
    if (c->n - c->i < n || memcmp(c->s + c->i, word, n) != 0)
        return 0;
    c->i += n;
    return 1;
}

static int value(cursor *c, int depth);

/* An array or object's members; close is ']' or '}'. */
static int members(cursor *c, int depth, char close)
{
    c->i++;
    skip_ws(c);
    if (c->i < c->n && c->s[c->i] == close) {
        c->i++;
        return 1;
    }
    for (;;) {
        skip_ws(c);
        if (close == '}') {
            if (c->i >= c->n || c->s[c->i] != '"' || !string(c))
                return 0;
            skip_ws(c);
            if (c->i >= c->n || c->s[c->i++] != ':')
                return 0;
        }
        if (!value(c, depth + 1))
            return 0;
        skip_ws(c);
        if (c->i >= c->n)
            return 0;
        char ch = c->s[c->i++];
        if (ch == close)
            return 1;
        if (ch != ',')
            return 0;
    }
}

static int value(cursor *c, int depth)
{
    if (depth > PRNN_TUNING_MAX_DEPTH + 1)
        return 0;
    skip_ws(c);
    if (c->i >= c->n)
        return 0;
    switch (c->s[c->i]) {
    case '{': return members(c, depth, '}');
    case '[': return members(c, depth, ']');
    case '"': return string(c);
    case 't': return literal(c, "true");
    case 'f': return literal(c, "false");
    case 'n': return literal(c, "null");
    default: return number(c);
    }
}

int prnn_json_syntax_ok(const char *text, size_t len)
{
    cursor c = {text, len, 0};
    if (!value(&c, 0))
        return 0;
    skip_ws(&c);
    return c.i == len;
}
