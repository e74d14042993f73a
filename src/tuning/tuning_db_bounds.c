/*
 * What a tuning DB file may cost, checked before cJSON sees it. cJSON
 * builds a node (about 64 bytes) for every value, so a file under the size
 * cap of nothing but ",0" (63 MB: 31 million values) took 12 s and 2.6 GB;
 * one pass over the bytes, counting values and depth, refuses it in
 * milliseconds. Parse time and memory are then linear in at most
 * PRNN_TUNING_MAX_VALUES values: about 0.16 s and 80 MB at worst (measured
 * on a 2-core build machine), then refused if it has too many entries.
 */
#include <stdio.h>

#include "tuning_db.h"

int prnn_tuning_db_check_bounds(const char *text, size_t len, char *why, size_t why_size)
{
    size_t values = 0;
    int depth = 0, max_depth = 0, in_string = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++; /* the escaped character cannot end the string */
            else if (c == '"')
                in_string = 0;
            continue;
        }
        switch (c) {
        case '"': in_string = 1; break;
        case '[':
        case '{':
            if (++depth > max_depth)
                max_depth = depth;
            values++;
            break;
        case ']':
        case '}': depth--; break;
        case ',': values++; break; /* every value but a container's first */
        default: break;
        }
        if (max_depth > PRNN_TUNING_MAX_DEPTH) {
            snprintf(why, why_size, "nested deeper than %d levels (a tuning DB has 4)",
                     PRNN_TUNING_MAX_DEPTH);
            return -1;
        }
        if (values > PRNN_TUNING_MAX_VALUES) {
            snprintf(why, why_size,
                     "more than %d JSON values (%d entries, the most a tuning DB may have, hold "
                     "about %d)",
                     PRNN_TUNING_MAX_VALUES, PRNN_TUNING_MAX_ENTRIES, PRNN_TUNING_MAX_ENTRIES * 26);
            return -1;
        }
    }
    return 0;
}
