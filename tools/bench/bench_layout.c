#include "bench_layout.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *name, *alias; /* alias: cuDNN's layout name */
} layout_names[BENCH_NUM_LAYOUTS] = {
    [BENCH_LAYOUT_PACKED] = {"packed", "seq_major_packed"},
    [BENCH_LAYOUT_SEQ_PADDED] = {"seq-padded", "seq_major_unpacked"},
    [BENCH_LAYOUT_BATCH_PADDED] = {"batch-padded", "batch_major_unpacked"},
};

const char *bench_layout_name(bench_layout l)
{
    return l >= 0 && l < BENCH_NUM_LAYOUTS ? layout_names[l].name : "?";
}

int bench_layout_parse(const char *s, bench_layout *l)
{
    for (int i = 0; i < BENCH_NUM_LAYOUTS; i++)
        if (!strcasecmp(s, layout_names[i].name) || !strcasecmp(s, layout_names[i].alias)) {
            *l = (bench_layout)i;
            return 0;
        }
    return -1;
}

const char *bench_lengths_name(bench_lengths k)
{
    return k == BENCH_LENGTHS_VARIED ? "varied" : "full";
}

int bench_lengths_parse(const char *s, bench_lengths *k)
{
    if (!strcasecmp(s, "full"))
        *k = BENCH_LENGTHS_FULL;
    else if (!strcasecmp(s, "varied"))
        *k = BENCH_LENGTHS_VARIED;
    else
        return -1;
    return 0;
}

const char *bench_pad_input_name(bench_pad_input p)
{
    return p == BENCH_PAD_FINITE ? "finite" : "nan";
}

const char *bench_lengths_rule(bench_lengths k)
{
    if (k == BENCH_LENGTHS_VARIED)
        return "varied: B lengths spaced evenly from T down to ceil(T/2), sequence 0 the longest "
               "(T = maxSeqLength), the others in a fixed shuffled order, the same for every seed; "
               "their sum is about 3/4 of B*T";
    return "full: every sequence T long (the packed point's work)";
}

/* A fixed generator (splitmix64): the shuffle must not depend on --seed. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void bench_lengths_fill(bench_layout layout, bench_lengths k, int T, int B, int *len)
{
    if (layout == BENCH_LAYOUT_PACKED || k == BENCH_LENGTHS_FULL || B == 1) {
        for (int b = 0; b < B; b++)
            len[b] = T;
        return;
    }
    /* value j, from T (j = 0) down to ceil(T/2) (j = B-1), goes to the
     * sequence order[j]: sequence 0 for j = 0, a fixed shuffle of the
     * others after it */
    const int lo = (T + 1) / 2;
    int *order = malloc((size_t)B * sizeof(int));
    if (order)
        for (int j = 0; j < B; j++)
            order[j] = j;
    uint64_t state = 0x5eed1e57ull;
    for (int i = B - 1; order && i > 1; i--) {
        int j = 1 + (int)(next_random(&state) % (uint64_t)i); /* in [1, i] */
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    /* without room for the shuffle: the same lengths, descending */
    for (int j = 0; j < B; j++)
        len[order ? order[j] : j] = T - (int)((long long)j * (T - lo) / (B - 1));
    free(order);
}

long long bench_lengths_sum(const bench_point *pt)
{
    bench_seqs s;
    if (bench_seqs_init(&s, pt))
        return 0;
    long long sum = s.sum;
    bench_seqs_free(&s);
    return sum;
}

int bench_seqs_init(bench_seqs *s, const bench_point *pt)
{
    memset(s, 0, sizeof(*s));
    s->layout = pt->layout;
    s->T = pt->seq;
    s->B = pt->batch;
    s->len = malloc((size_t)pt->batch * sizeof(int));
    if (!s->len)
        return -1;
    bench_lengths_fill(pt->layout, pt->lengths, pt->seq, pt->batch, s->len);
    s->equal = 1;
    for (int b = 0; b < s->B; b++) {
        s->sum += s->len[b];
        s->equal &= s->len[b] == s->T;
    }
    return 0;
}

void bench_seqs_free(bench_seqs *s)
{
    free(s->len);
    s->len = NULL;
}

size_t bench_seqs_row(const bench_seqs *s, int t, int b)
{
    if (s->layout == BENCH_LAYOUT_BATCH_PADDED)
        return (size_t)b * (size_t)s->T + (size_t)t;
    return (size_t)t * (size_t)s->B + (size_t)b;
}

void bench_seqs_scatter(const bench_seqs *s, size_t row_bytes, const void *src, const void *pad_row,
                        void *dst)
{
    const unsigned char *in = src;
    unsigned char *out = dst;
    for (int t = 0; t < s->T; t++)
        for (int b = 0; b < s->B; b++) {
            const void *from =
                t < s->len[b] ? in + ((size_t)t * (size_t)s->B + (size_t)b) * row_bytes : pad_row;
            memcpy(out + bench_seqs_row(s, t, b) * row_bytes, from, row_bytes);
        }
}

void bench_seqs_gather(const bench_seqs *s, size_t row_bytes, const void *src, void *valid,
                       void *pad)
{
    const unsigned char *in = src;
    unsigned char *v = valid, *p = pad;
    for (int t = 0; t < s->T; t++)
        for (int b = 0; b < s->B; b++) {
            const unsigned char *row = in + bench_seqs_row(s, t, b) * row_bytes;
            if (t < s->len[b]) {
                memcpy(v, row, row_bytes);
                v += row_bytes;
            } else if (p) {
                memcpy(p, row, row_bytes);
                p += row_bytes;
            }
        }
}
