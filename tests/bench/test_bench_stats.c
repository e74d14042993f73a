/* Median, quartiles and geometric means of prnn-bench. */
#include "bench_stats.h"
#include "bench_test.h"

int main(void)
{
    bench_stats s;
    const double odd[] = {5, 1, 3, 2, 4};
    bench_stats_compute(odd, 5, 1.0, &s);
    EXPECT(s.n == 5, "n = %d", s.n);
    EXPECT_NEAR(s.median, 3, 0);
    EXPECT_NEAR(s.min, 1, 0);
    EXPECT_NEAR(s.max, 5, 0);
    EXPECT_NEAR(s.q1, 2, 0);
    EXPECT_NEAR(s.q3, 4, 0);
    EXPECT_NEAR(s.mean, 3, 1e-12);
    /* The samples are left alone. */
    EXPECT(odd[0] == 5 && odd[4] == 4, "input reordered");

    const double even[] = {4, 1, 3, 2};
    bench_stats_compute(even, 4, 1.0, &s);
    EXPECT_NEAR(s.median, 2.5, 1e-12);
    EXPECT_NEAR(s.q1, 1.75, 1e-12); /* type 7: 1 + 0.75 * (2 - 1) */
    EXPECT_NEAR(s.q3, 3.25, 1e-12);

    /* ms per call over T = 256 steps -> µs per step. */
    const double ms[] = {2.56, 2.56, 5.12};
    bench_stats_compute(ms, 3, 1000.0 / 256, &s);
    EXPECT_NEAR(s.median, 10.0, 1e-9);
    EXPECT_NEAR(s.max, 20.0, 1e-9);

    const double one[] = {7};
    bench_stats_compute(one, 1, 2.0, &s);
    EXPECT_NEAR(s.median, 14, 0);
    EXPECT_NEAR(s.q1, 14, 0);
    EXPECT_NEAR(s.q3, 14, 0);

    bench_stats_compute(NULL, 0, 1.0, &s);
    EXPECT(s.n == 0 && isnan(s.median), "empty: n %d median %g", s.n, s.median);

    int used = -1;
    const double g[] = {0.5, 2.0, NAN, -1, 0, INFINITY, 4.0};
    /* 0.5 * 2 * 4 = 4: the geometric mean of the three valid values. */
    EXPECT_NEAR(bench_geomean(g, 7, &used), cbrt(4.0), 1e-12);
    EXPECT(used == 3, "used = %d", used);
    EXPECT(isnan(bench_geomean(g + 2, 4, &used)) && used == 0, "no valid value: used %d", used);
    const double same[] = {0.3, 0.3, 0.3};
    EXPECT_NEAR(bench_geomean(same, 3, NULL), 0.3, 1e-12);

    const double sorted[] = {10, 20, 30};
    EXPECT_NEAR(bench_quantile_sorted(sorted, 3, 0.0), 10, 0);
    EXPECT_NEAR(bench_quantile_sorted(sorted, 3, 1.0), 30, 0);
    EXPECT_NEAR(bench_quantile_sorted(sorted, 3, 0.25), 15, 1e-12);
    EXPECT(isnan(bench_quantile_sorted(sorted, 0, 0.5)), "n = 0");
    return test_done("tools-bench-stats: median, quartiles and geometric means");
}
