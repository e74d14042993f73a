/*
 * prnn-bench's report on a synthetic result set: best-cuDNN choice and
 * ratios, geometric means (the table's last lines), table alignment, CSV
 * shape, JSON validity (parsed back with cJSON) and content.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "bench_report.h"
#include "bench_synth.h"
#include "bench_test.h"

static char *capture_begin(FILE **f, char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    *f = open_memstream(buf, len);
    return *buf;
}

/* Splits text into lines in place; returns the count. */
static int split_lines(char *text, char **lines, int max)
{
    int n = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && n < max;
         l = strtok_r(NULL, "\n", &save))
        lines[n++] = l;
    return n;
}

/* Fields of one CSV record (quotes honoured); -1 for a broken quote. */
static int csv_fields(const char *line)
{
    int n = 1, quoted = 0;
    for (const char *p = line; *p; p++) {
        if (*p == '"')
            quoted = !quoted; /* "" toggles twice: harmless */
        else if (*p == ',' && !quoted)
            n++;
    }
    return quoted ? -1 : n;
}

static void test_finish(const bench_result *rs)
{
    EXPECT(rs[0].best_cudnn == BENCH_IMPL_CUDNN_PERSIST_STATIC, "best %d",
           rs[0].best_cudnn);
    EXPECT_NEAR(rs[0].ratio, 0.5, 1e-12);
    EXPECT_NEAR(rs[0].max_rel_diff, 5e-6, 1e-15);
    EXPECT(rs[1].best_cudnn == BENCH_IMPL_CUDNN_STANDARD, "best %d",
           rs[1].best_cudnn);
    EXPECT_NEAR(rs[1].ratio, 2.0, 1e-12);
    EXPECT(rs[2].best_cudnn == -1 && isnan(rs[2].ratio), "no cuDNN");
    EXPECT(isnan(rs[3].max_rel_diff), "a NaN output must poison the point");
    EXPECT(rs[4].best_cudnn == BENCH_IMPL_CUDNN_PERSIST_STATIC &&
               isnan(rs[4].ratio),
           "training: prnn n/a, no ratio");
}

static void test_summary(const bench_result *rs, int n)
{
    bench_group g[8];
    double overall;
    int on;
    int ng = bench_summary(rs, n, g, 8, &overall, &on);
    EXPECT(ng == 3, "%d groups", ng);
    EXPECT(g[0].mode == PRNN_LSTM && g[0].dtype == PRNN_DATA_FLOAT &&
               g[0].n == 2 && g[0].points == 3,
           "lstm f32 group: n %d points %d", g[0].n, g[0].points);
    EXPECT_NEAR(g[0].geomean, 1.0, 1e-12);
    EXPECT(g[1].mode == PRNN_GRU && g[1].dtype == PRNN_DATA_HALF &&
               g[1].n == 1,
           "gru f16 group");
    EXPECT_NEAR(g[1].geomean, 0.25, 1e-12);
    EXPECT(g[2].pass == BENCH_TRAINING && g[2].n == 0 && isnan(g[2].geomean),
           "training group");
    EXPECT(on == 3, "overall n %d", on);
    EXPECT_NEAR(overall, cbrt(0.25), 1e-12);
}

static void test_table(const bench_result *rs, int n, const bench_meta *meta)
{
    FILE *f;
    char *buf;
    size_t len;
    capture_begin(&f, &buf, &len);
    bench_report_preamble(f, meta);
    bench_table_header(f);
    for (int i = 0; i < n; i++)
        bench_table_row(f, &rs[i]);
    bench_table_footer(f, rs, n);
    fclose(f);

    EXPECT(strstr(buf, "NVIDIA H100") && strstr(buf, "9.14.0") &&
               strstr(buf, "CUDNN_FMA_MATH") && strstr(buf, "TF32"),
           "preamble: %s", buf);
    char *lines[256];
    int nl = split_lines(buf, lines, 256);
    int hdr = -1;
    for (int i = 0; i < nl; i++)
        if (!strncmp(lines[i], "mode ", 5)) {
            hdr = i;
            break;
        }
    EXPECT(hdr >= 0, "no table header");
    if (hdr >= 0 && hdr + 2 + n <= nl) {
        int w = bench_display_width(lines[hdr]);
        EXPECT(bench_display_width(lines[hdr + 1]) == w, "rule width %d vs %d",
               bench_display_width(lines[hdr + 1]), w);
        for (int i = 0; i < n; i++)
            EXPECT(bench_display_width(lines[hdr + 2 + i]) == w,
                   "row %d is %d wide, header %d:\n%s\n%s", i,
                   bench_display_width(lines[hdr + 2 + i]), w, lines[hdr],
                   lines[hdr + 2 + i]);
        const char *r0 = lines[hdr + 2];
        EXPECT(strstr(r0, "lstm") && strstr(r0, "0.50") &&
                   strstr(r0, "resident") && strstr(r0, "1.00 STATIC") &&
                   strstr(r0, "—") && strstr(r0, "5.0e-06"),
               "row 0: %s", r0);
        const char *r1 = lines[hdr + 3];
        EXPECT(strstr(r1, "5.00*") && strstr(r1, "err") &&
                   strstr(r1, "4.00 STANDARD") && strstr(r1, "2.00"),
               "row 1: %s", r1);
        EXPECT(strstr(lines[hdr + 5], "NaN!"), "row 3: %s", lines[hdr + 5]);
        EXPECT(strstr(lines[hdr + 6], "n/a") && strstr(lines[hdr + 6], "train"),
               "row 4: %s", lines[hdr + 6]);
    }
    /* The geometric means are the last lines, overall last. */
    EXPECT(nl >= 4, "%d lines", nl);
    if (nl >= 4) {
        EXPECT(strstr(lines[nl - 1], "geomean prnn/best-cuDNN overall") &&
                   strstr(lines[nl - 1], "0.630") &&
                   strstr(lines[nl - 1], "3 of 5"),
               "last line: %s", lines[nl - 1]);
        EXPECT(strstr(lines[nl - 2], "training") &&
                   strstr(lines[nl - 2], "n/a"),
               "training line: %s", lines[nl - 2]);
        EXPECT(strstr(lines[nl - 3], "gru") && strstr(lines[nl - 3], "0.250"),
               "gru line: %s", lines[nl - 3]);
        EXPECT(strstr(lines[nl - 4], "lstm") && strstr(lines[nl - 4], "f32") &&
                   strstr(lines[nl - 4], "1.000") &&
                   strstr(lines[nl - 4], "2 of 3"),
               "lstm line: %s", lines[nl - 4]);
    }
    free(buf);
}

static void test_cold(const bench_cold_result *cold, int ncold)
{
    FILE *f;
    char *buf;
    size_t len;
    capture_begin(&f, &buf, &len);
    bench_cold_table(f, cold, ncold);
    fclose(f);
    EXPECT(strstr(buf, "120.5") && strstr(buf, "compiled") &&
               strstr(buf, "410.0") && strstr(buf, "COMPILE_FAILED"),
           "cold table:\n%s", buf);
    free(buf);
}

static void test_csv(const bench_result *rs, int n)
{
    FILE *f;
    char *buf;
    size_t len;
    capture_begin(&f, &buf, &len);
    bench_write_csv(f, rs, n);
    fclose(f);
    /* Records may hold quoted newlines: count records, not lines. */
    int records = 0, fields0 = -1, quoted = 0;
    char *start = buf;
    for (char *p = buf; *p; p++) {
        if (*p == '"')
            quoted = !quoted;
        if (*p == '\n' && !quoted) {
            *p = '\0';
            int k = csv_fields(start);
            if (records == 0)
                fields0 = k;
            else
                EXPECT(k == fields0, "record %d has %d fields, header %d: %s",
                       records, k, fields0, start);
            records++;
            start = p + 1;
        }
    }
    EXPECT(!quoted && *start == '\0', "unterminated CSV");
    EXPECT(records == n + 1, "%d records", records);
    EXPECT(fields0 == 21 + 7 * 12 + 5, "%d header fields", fields0);
    free(buf);
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void test_json(const bench_result *rs, int n, const bench_meta *meta,
                      const bench_cold_result *cold, int ncold)
{
    FILE *f;
    char *buf;
    size_t len;
    capture_begin(&f, &buf, &len);
    bench_write_json(f, meta, rs, n, cold, ncold);
    fclose(f);
    cJSON *root = cJSON_Parse(buf);
    EXPECT(root != NULL, "JSON does not parse near: %.80s",
           cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() : "?");
    if (!root) {
        fprintf(stderr, "%s\n", buf);
        free(buf);
        return;
    }
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "meta");
    EXPECT(str(m, "device") && strstr(str(m, "device"), "H100"), "meta");
    EXPECT(num(m, "repeats") == 20, "repeats");
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(root, "points");
    EXPECT(cJSON_GetArraySize(pts) == n, "%d points",
           cJSON_GetArraySize(pts));
    const cJSON *p0 = cJSON_GetArrayItem(pts, 0);
    EXPECT(str(p0, "mode") && !strcmp(str(p0, "mode"), "lstm"), "mode");
    EXPECT(num(p0, "hidden") == 256 && num(p0, "batch") == 1, "shape");
    EXPECT(num(p0, "ratio") == 0.5, "ratio");
    EXPECT(str(p0, "best_cudnn") &&
               !strcmp(str(p0, "best_cudnn"), "cudnn-persist-static"),
           "best");
    const cJSON *plan = cJSON_GetObjectItemCaseSensitive(p0, "prnn_plan");
    EXPECT(str(plan, "config") &&
               !strcmp(str(plan, "config"),
                       "blocks=8 threads=256 ksplit=4, \"quoted\""),
           "config string escaped");
    const cJSON *impls = cJSON_GetObjectItemCaseSensitive(p0, "impls");
    EXPECT(cJSON_GetArraySize(impls) == 7, "%d impls",
           cJSON_GetArraySize(impls));
    const cJSON *prnn = cJSON_GetObjectItemCaseSensitive(impls, "prnn");
    EXPECT(num(prnn, "median_us") == 0.5 && num(prnn, "q3_us") > 0.5 &&
               num(prnn, "repeats") == 20,
           "prnn numbers");
    const cJSON *small =
        cJSON_GetObjectItemCaseSensitive(impls, "cudnn-persist-small-h");
    EXPECT(str(small, "state") && !strcmp(str(small, "state"), "refused") &&
               cJSON_IsNull(
                   cJSON_GetObjectItemCaseSensitive(small, "median_us")),
           "refused algorithm: null time");
    /* The note with quotes, a comma and a newline survives. */
    const cJSON *p3 = cJSON_GetArrayItem(pts, 3);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(p3, "impls"), "cudnn-persist-static");
    EXPECT(str(st, "note") &&
               !strcmp(str(st, "note"),
                       "mathPrec half, \"quoted\", comma\nnewline"),
           "note");
    EXPECT(str(st, "max_rel_diff") && !strcmp(str(st, "max_rel_diff"), "nan"),
           "poisoned diff is \"nan\"");
    EXPECT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(
               cJSON_GetArrayItem(pts, 2), "ratio")),
           "no ratio: null");
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(root, "summary");
    EXPECT(cJSON_GetArraySize(sum) == 3, "summary size");
    EXPECT(num(cJSON_GetArrayItem(sum, 0), "geomean_ratio") == 1.0,
           "summary lstm");
    const cJSON *ov = cJSON_GetObjectItemCaseSensitive(root, "overall");
    EXPECT(fabs(num(ov, "geomean_ratio") - cbrt(0.25)) < 1e-5, "overall");
    const cJSON *cs = cJSON_GetObjectItemCaseSensitive(root, "cold_start");
    EXPECT(cJSON_GetArraySize(cs) == 2, "cold_start");
    const cJSON *c0 = cJSON_GetArrayItem(cs, 0);
    EXPECT(num(cJSON_GetObjectItemCaseSensitive(c0, "empty_cache"),
               "compile_ms") == 101.25,
           "cold compile");
    EXPECT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(
               cJSON_GetArrayItem(cs, 1), "disk_cache")),
           "missing phase: null");
    cJSON_Delete(root);
    free(buf);

    /* An empty run is valid JSON too. */
    capture_begin(&f, &buf, &len);
    bench_write_json(f, meta, rs, 0, NULL, 0);
    fclose(f);
    root = cJSON_Parse(buf);
    EXPECT(root != NULL, "empty JSON: %s", buf);
    cJSON_Delete(root);
    free(buf);
}

int main(void)
{
    bench_result rs[SYNTH_MAX];
    bench_meta meta;
    bench_cold_result cold[2];
    int ncold;
    int n = bench_synth(rs, &meta, cold, &ncold);
    test_finish(rs);
    test_summary(rs, n);
    test_table(rs, n, &meta);
    test_cold(cold, ncold);
    test_csv(rs, n);
    test_json(rs, n, &meta, cold, ncold);
    return test_done("test_bench_report");
}
