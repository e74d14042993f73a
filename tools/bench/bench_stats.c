#include "bench_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_quantile_sorted(const double *sorted, int n, double q)
{
    if (n <= 0)
        return NAN;
    if (q <= 0)
        return sorted[0];
    if (q >= 1)
        return sorted[n - 1];
    double pos = q * (double)(n - 1);
    int lo = (int)floor(pos);
    double frac = pos - lo;
    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

void bench_stats_compute(const double *samples, int n, double scale, bench_stats *out)
{
    out->n = n > 0 ? n : 0;
    out->median = out->min = out->max = NAN;
    out->q1 = out->q3 = out->mean = NAN;
    if (n <= 0)
        return;
    double *s = malloc((size_t)n * sizeof(*s));
    if (!s)
        return;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        s[i] = samples[i] * scale;
        sum += s[i];
    }
    qsort(s, (size_t)n, sizeof(*s), cmp_double);
    out->min = s[0];
    out->max = s[n - 1];
    out->median = bench_quantile_sorted(s, n, 0.5);
    out->q1 = bench_quantile_sorted(s, n, 0.25);
    out->q3 = bench_quantile_sorted(s, n, 0.75);
    out->mean = sum / n;
    free(s);
}

double bench_geomean(const double *v, int n, int *used)
{
    double logsum = 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (isfinite(v[i]) && v[i] > 0) {
            logsum += log(v[i]);
            k++;
        }
    }
    if (used)
        *used = k;
    return k ? exp(logsum / k) : NAN;
}
