/*
 * prnn-bench's report on a synthetic result set: best-cuDNN choice and
 * ratios, geometric means (the table's last lines, the training line),
 * table alignment with and without the training columns and their cells,
 * CSV shape and the training columns' values, JSON validity (parsed back
 * with cJSON) and content.
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
    EXPECT(rs[0].best_cudnn == BENCH_IMPL_CUDNN_PERSIST_STATIC, "best %d", rs[0].best_cudnn);
    EXPECT_NEAR(rs[0].ratio, 0.5, 1e-12);
    EXPECT_NEAR(rs[0].max_rel_diff, 5e-6, 1e-15);
    EXPECT(rs[1].best_cudnn == BENCH_IMPL_CUDNN_STANDARD, "best %d", rs[1].best_cudnn);
    EXPECT_NEAR(rs[1].ratio, 2.0, 1e-12);
    EXPECT(rs[2].best_cudnn == -1 && isnan(rs[2].ratio), "no cuDNN");
    EXPECT(isnan(rs[3].max_rel_diff), "a NaN output must poison the point");
    EXPECT(rs[4].best_cudnn == BENCH_IMPL_CUDNN_PERSIST_STATIC && isnan(rs[4].ratio),
           "training: prnn n/a, no ratio");
    /* bwd-data / fwd-inference needs both of prnn's figures. */
    EXPECT(isnan(rs[4].bwd_data_ratio), "prnn n/a: %g", rs[4].bwd_data_ratio);
    EXPECT(isnan(rs[0].bwd_data_ratio), "inference: %g", rs[0].bwd_data_ratio);
    EXPECT_NEAR(rs[5].ratio, 0.5, 1e-12);
    EXPECT_NEAR(rs[5].bwd_data_ratio, 1.8, 1e-12);
    EXPECT_NEAR(rs[6].ratio, 1.5, 1e-12);
    EXPECT_NEAR(rs[6].bwd_data_ratio, 1.2, 1e-12);
    EXPECT(bench_best_cudnn(&rs[5]) == &rs[5].impl[BENCH_IMPL_CUDNN_PERSIST_STATIC],
           "best of point 5");
    EXPECT(bench_best_cudnn(&rs[2]) == NULL, "no cuDNN, no best");
}

static void test_summary(const bench_result *rs, int n)
{
    bench_group g[8];
    double overall;
    int on;
    int ng = bench_summary(rs, n, g, 8, &overall, &on);
    EXPECT(ng == 4, "%d groups", ng);
    EXPECT(g[0].mode == PRNN_LSTM && g[0].dtype == PRNN_DATA_FLOAT && g[0].n == 2 &&
               g[0].points == 3,
           "lstm f32 group: n %d points %d", g[0].n, g[0].points);
    EXPECT_NEAR(g[0].geomean, 1.0, 1e-12);
    EXPECT(g[1].mode == PRNN_GRU && g[1].dtype == PRNN_DATA_HALF && g[1].n == 1, "gru f16 group");
    EXPECT_NEAR(g[1].geomean, 0.25, 1e-12);
    EXPECT(g[2].pass == BENCH_TRAINING && g[2].n == 0 && isnan(g[2].geomean), "training group");
    EXPECT(g[3].pass == BENCH_TRAINING && g[3].mode == PRNN_LSTM && g[3].n == 2 && g[3].points == 2,
           "lstm f16 training group: n %d points %d", g[3].n, g[3].points);
    EXPECT_NEAR(g[3].geomean, sqrt(0.75), 1e-12);
    EXPECT(on == 5, "overall n %d", on);
    EXPECT_NEAR(overall, pow(0.5 * 2.0 * 0.25 * 0.5 * 1.5, 0.2), 1e-12);

    bench_training_summary t;
    bench_summarize_training(rs, n, &t);
    EXPECT(t.points == 3 && t.with_ratio == 2 && t.prnn_le_cudnn == 1,
           "training: points %d with ratio %d prnn <= cuDNN %d", t.points, t.with_ratio,
           t.prnn_le_cudnn);
    EXPECT_NEAR(t.geomean_ratio, sqrt(0.5 * 1.5), 1e-12);
    EXPECT(t.with_bwd_ratio == 2 && t.bwd_within_target == 1,
           "bwd-data ratios %d, within target %d", t.with_bwd_ratio, t.bwd_within_target);
    EXPECT_NEAR(t.geomean_bwd_ratio, sqrt(1.8 * 1.2), 1e-12);
    /* The first four points are inference ones. */
    bench_summarize_training(rs, 4, &t);
    EXPECT(t.points == 0 && t.with_ratio == 0 && t.with_bwd_ratio == 0 && t.prnn_le_cudnn == 0 &&
               t.bwd_within_target == 0 && isnan(t.geomean_ratio) && isnan(t.geomean_bwd_ratio),
           "no training points: %d %d %d", t.points, t.with_ratio, t.with_bwd_ratio);
}

/* The text between the last-but-k and the next " | " of a row (k = 0: the
 * last section), spaces folded: "0.60 0.90 0.40". */
static void section(const char *row, int k, char *out, size_t n)
{
    const char *end = row + strlen(row), *start = NULL;
    for (int i = 0; i <= k; i++) {
        start = NULL;
        for (const char *p = row; p + 3 <= end; p++)
            if (!strncmp(p, " | ", 3))
                start = p + 3;
        if (!start) {
            out[0] = '\0';
            return;
        }
        if (i < k)
            end = start - 3;
    }
    size_t len = 0;
    int space = 1;
    for (const char *p = start; p < end && len + 1 < n; p++) {
        if (*p == ' ') {
            space = 1;
            continue;
        }
        if (space && len)
            out[len++] = ' ';
        space = 0;
        out[len++] = *p;
    }
    out[len] = '\0';
}

/* The row's training columns: prnn's (k = 1) and cuDNN's (k = 0). */
static void expect_phases(const char *row, const char *prnn, const char *cudnn)
{
    char a[128], b[128];
    section(row, 1, a, sizeof(a));
    section(row, 0, b, sizeof(b));
    EXPECT(!strcmp(a, prnn), "prnn phases '%s', expected '%s' in\n%s", a, prnn, row);
    EXPECT(!strcmp(b, cudnn), "cuDNN phases '%s', expected '%s' in\n%s", b, cudnn, row);
}

/* Header, rule and rows of a table all as wide as the header; the index
 * of the header line, or -1. */
static int expect_aligned(char **lines, int nl, int rows)
{
    int hdr = -1;
    for (int i = 0; i < nl; i++)
        if (!strncmp(lines[i], "mode ", 5)) {
            hdr = i;
            break;
        }
    EXPECT(hdr >= 0, "no table header");
    if (hdr < 0 || hdr + 2 + rows > nl) {
        EXPECT(0, "table too short");
        return -1;
    }
    int w = bench_display_width(lines[hdr]);
    EXPECT(bench_display_width(lines[hdr + 1]) == w, "rule width %d vs %d",
           bench_display_width(lines[hdr + 1]), w);
    for (int i = 0; i < rows; i++)
        EXPECT(bench_display_width(lines[hdr + 2 + i]) == w,
               "row %d is %d wide, header %d:\n%s\n%s", i, bench_display_width(lines[hdr + 2 + i]),
               w, lines[hdr], lines[hdr + 2 + i]);
    return hdr;
}

static void test_table(const bench_result *rs, int n, const bench_meta *meta)
{
    FILE *f;
    char *buf;
    size_t len;
    capture_begin(&f, &buf, &len);
    bench_report_preamble(f, meta);
    bench_table_header(f, 1);
    for (int i = 0; i < n; i++)
        bench_table_row(f, &rs[i], 1);
    bench_table_footer(f, rs, n);
    fclose(f);

    EXPECT(strstr(buf, "NVIDIA H100") && strstr(buf, "9.14.0") && strstr(buf, "CUDNN_FMA_MATH") &&
               strstr(buf, "TF32"),
           "preamble: %s", buf);
    EXPECT(strstr(buf, "\ntraining: the columns above") && strstr(buf, "bwd-data/inf") &&
               strstr(buf, "target <= 1.3") && strstr(buf, "idle stream"),
           "preamble of a training run: %s", buf);
    char *lines[256];
    int nl = split_lines(buf, lines, 256);
    int hdr = expect_aligned(lines, nl, n);
    if (hdr >= 0) {
        EXPECT(strstr(lines[hdr], "prnn fwd") && strstr(lines[hdr], "bwd-data/inf") &&
                   strstr(lines[hdr], "cuDNN fwd"),
               "training header: %s", lines[hdr]);
        const char *r0 = lines[hdr + 2];
        EXPECT(strstr(r0, "lstm") && strstr(r0, "0.50") && strstr(r0, "resident") &&
                   strstr(r0, "1.00 STATIC") && strstr(r0, "—") && strstr(r0, "5.0e-06"),
               "row 0: %s", r0);
        /* An inference row has no training figures. */
        expect_phases(r0, "- - - - -", "- - -");
        const char *r1 = lines[hdr + 3];
        EXPECT(strstr(r1, "5.00*") && strstr(r1, "err") && strstr(r1, "4.00 STANDARD") &&
                   strstr(r1, "2.00"),
               "row 1: %s", r1);
        EXPECT(strstr(lines[hdr + 5], "NaN!"), "row 3: %s", lines[hdr + 5]);
        const char *r4 = lines[hdr + 6];
        EXPECT(strstr(r4, "n/a") && strstr(r4, "train"), "row 4: %s", r4);
        /* prnn's step n/a, its forward inference timed; cuDNN's best. */
        expect_phases(r4, "n/a n/a n/a 1.10 -", "6.50 8.25 5.50");
        expect_phases(lines[hdr + 7], "0.60 0.90 0.40 0.50 1.80", "1.50 1.75 1.00");
        /* The best ran its fallback math: marked on its phases too. */
        expect_phases(lines[hdr + 8], "2.50 3.00 2.00 2.50 1.20", "1.25* 1.60* 0.75*");
    }
    /* The geometric means are the last lines, overall last, the training
     * line just before it. */
    EXPECT(nl >= 6, "%d lines", nl);
    if (nl >= 6) {
        EXPECT(strstr(lines[nl - 1], "geomean prnn/best-cuDNN overall") &&
                   strstr(lines[nl - 1], "0.715") && strstr(lines[nl - 1], "5 of 7"),
               "last line: %s", lines[nl - 1]);
        EXPECT(
            strstr(
                lines[nl - 2],
                "training: prnn/best-cuDNN whole step geomean 0.866 (2 of 3 points; prnn <= cuDNN "
                "at 1); prnn bwd-data/fwd-inference geomean 1.470 (2 of 3 points; <= 1.3 at 1)"),
            "training line: %s", lines[nl - 2]);
        EXPECT(strstr(lines[nl - 3], "training") && strstr(lines[nl - 3], "lstm") &&
                   strstr(lines[nl - 3], "f16") && strstr(lines[nl - 3], "0.866") &&
                   strstr(lines[nl - 3], "2 of 2"),
               "lstm f16 training line: %s", lines[nl - 3]);
        EXPECT(strstr(lines[nl - 4], "training") && strstr(lines[nl - 4], "tanh") &&
                   strstr(lines[nl - 4], "n/a"),
               "tanh training line: %s", lines[nl - 4]);
        EXPECT(strstr(lines[nl - 5], "gru") && strstr(lines[nl - 5], "0.250"), "gru line: %s",
               lines[nl - 5]);
        EXPECT(strstr(lines[nl - 6], "lstm") && strstr(lines[nl - 6], "f32") &&
                   strstr(lines[nl - 6], "1.000") && strstr(lines[nl - 6], "2 of 3"),
               "lstm line: %s", lines[nl - 6]);
    }
    free(buf);

    /* An inference run: no training columns, notes or line. */
    bench_meta inf = *meta;
    inf.training = 0;
    capture_begin(&f, &buf, &len);
    bench_report_preamble(f, &inf);
    bench_table_header(f, 0);
    for (int i = 0; i < 4; i++)
        bench_table_row(f, &rs[i], 0);
    bench_table_footer(f, rs, 4);
    fclose(f);
    EXPECT(!strstr(buf, "\ntraining:") && !strstr(buf, "prnn fwd") && !strstr(buf, "bwd-data"),
           "inference run with training text:\n%s", buf);
    nl = split_lines(buf, lines, 256);
    hdr = expect_aligned(lines, nl, 4);
    if (hdr >= 0)
        EXPECT(strstr(lines[hdr], "max rel diff") && !strstr(lines[hdr], "cuDNN fwd"),
               "inference header: %s", lines[hdr]);
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
    EXPECT(strstr(buf, "120.5") && strstr(buf, "compiled") && strstr(buf, "410.0") &&
               strstr(buf, "COMPILE_FAILED"),
           "cold table:\n%s", buf);
    free(buf);
}

/* Field idx of a CSV record, unquoted, into out; "" past the end. */
static void csv_field(const char *rec, int idx, char *out, size_t n)
{
    int k = 0, quoted = 0;
    size_t len = 0;
    for (const char *p = rec; *p; p++) {
        if (*p == '"') {
            if (quoted && p[1] == '"') {
                if (k == idx && len + 1 < n)
                    out[len++] = '"';
                p++;
            } else {
                quoted = !quoted;
            }
        } else if (*p == ',' && !quoted) {
            if (k++ == idx)
                break;
        } else if (k == idx && len + 1 < n) {
            out[len++] = *p;
        }
    }
    out[len] = '\0';
}

/* Index of a header's column, or -1. */
static int csv_column(const char *header, const char *name)
{
    char f[128];
    for (int i = 0; i < csv_fields(header); i++) {
        csv_field(header, i, f, sizeof(f));
        if (!strcmp(f, name))
            return i;
    }
    return -1;
}

/* Record rec's value in column name is want. */
static void expect_csv(const char *header, const char *rec, const char *name, const char *want)
{
    int c = csv_column(header, name);
    char got[256] = "";
    if (c >= 0)
        csv_field(rec, c, got, sizeof(got));
    EXPECT(c >= 0 && !strcmp(got, want), "CSV %s = '%s' (column %d), expected '%s'", name, got, c,
           want);
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
    char *recs[SYNTH_MAX + 1];
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
                EXPECT(k == fields0, "record %d has %d fields, header %d: %s", records, k, fields0,
                       start);
            if (records <= SYNTH_MAX)
                recs[records] = start;
            records++;
            start = p + 1;
        }
    }
    EXPECT(!quoted && *start == '\0', "unterminated CSV");
    EXPECT(records == n + 1, "%d records", records);
    /* The columns before the training ones, then 3 per implementation and
     * 7 more, then the engines (forward, backward-data). */
    EXPECT(fields0 == 21 + 7 * 12 + 5 + 7 * 3 + 7 + 2, "%d header fields", fields0);
    if (records != n + 1 || n != 7) {
        free(buf);
        return;
    }
    const char *h = recs[0];
    /* The old columns keep their places. */
    EXPECT(csv_column(h, "reference") == 21 + 7 * 12 + 4 && csv_column(h, "prnn_median_us") == 22,
           "reference at %d, prnn_median_us at %d", csv_column(h, "reference"),
           csv_column(h, "prnn_median_us"));
    /* Record 6: lstm f16 B = 1 training; 5: prnn's step n/a, its forward
     * inference timed; 1: an inference point. */
    static const struct {
        int rec;
        const char *column, *want;
    } cells[] = {
        {6, "prnn_fwd_training_us", "0.6"},
        {6, "prnn_bwd_data_us", "0.9"},
        {6, "prnn_bwd_weights_us", "0.4"},
        {6, "prnn_graph_fwd_training_us", ""},
        {6, "cudnn_standard_bwd_data_us", "4.5"},
        {6, "cudnn_persist_static_fwd_training_us", "1.5"},
        {6, "cudnn_persist_dynamic_bwd_weights_us", ""},
        {6, "prnn_fwd_inference_state", "ok"},
        {6, "prnn_fwd_inference_us", "0.5"},
        {6, "ratio_bwd_data_fwd_inference", "1.8"},
        {6, "best_cudnn_fwd_training_us", "1.5"},
        {6, "best_cudnn_bwd_data_us", "1.75"},
        {6, "best_cudnn_bwd_weights_us", "1"},
        {5, "prnn_bwd_data_us", ""},
        {5, "prnn_fwd_inference_us", "1.1"},
        {5, "ratio_bwd_data_fwd_inference", ""},
        {5, "best_cudnn_bwd_weights_us", "5.5"},
        {1, "prnn_fwd_inference_state", "not-run"},
        {1, "prnn_fwd_training_us", ""},
        {1, "best_cudnn_fwd_training_us", ""},
    };
    for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]); i++)
        expect_csv(h, recs[cells[i].rec], cells[i].column, cells[i].want);
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

static const cJSON *item(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* The phase k of implementation impl of a point. */
static const cJSON *phase(const cJSON *pt, const char *impl, const char *k)
{
    return item(item(item(item(pt, "impls"), impl), "phases"), k);
}

/* The training keys of the synthetic set's JSON. */
static void test_json_training(const cJSON *root)
{
    EXPECT(num(item(root, "meta"), "training") == 1 && str(item(root, "meta"), "phases"),
           "meta training/phases");
    const cJSON *pts = item(root, "points");
    const cJSON *t = cJSON_GetArrayItem(pts, 5); /* lstm f16 B = 1 */
    EXPECT(num(phase(t, "prnn", "fwd_training"), "median_us") == 0.6 &&
               num(phase(t, "prnn", "bwd_data"), "median_us") == 0.9 &&
               num(phase(t, "prnn", "bwd_weights"), "median_us") == 0.4 &&
               num(phase(t, "prnn", "bwd_data"), "repeats") == 20 &&
               num(phase(t, "prnn", "bwd_data"), "q3_us") > 0.9,
           "prnn phases");
    EXPECT(num(phase(t, "cudnn-persist-static", "bwd_data"), "median_us") == 1.75, "cuDNN phases");
    EXPECT(cJSON_IsNull(item(item(item(t, "impls"), "prnn-graph"), "phases")),
           "graph replay: phases null");
    const cJSON *inf = item(t, "prnn_fwd_inference");
    EXPECT(str(inf, "state") && !strcmp(str(inf, "state"), "ok") && num(inf, "median_us") == 0.5 &&
               num(inf, "repeats") == 20,
           "prnn_fwd_inference");
    EXPECT(fabs(num(t, "ratio_bwd_data_fwd_inference") - 1.8) < 1e-9, "bwd-data ratio");
    EXPECT(num(t, "best_cudnn_fwd_training_us") == 1.5 &&
               num(t, "best_cudnn_bwd_data_us") == 1.75 &&
               num(t, "best_cudnn_bwd_weights_us") == 1.0,
           "best cuDNN phases");
    const cJSON *na = cJSON_GetArrayItem(pts, 4); /* prnn's step n/a */
    EXPECT(cJSON_IsNull(item(item(item(na, "impls"), "prnn"), "phases")) &&
               num(item(na, "prnn_fwd_inference"), "median_us") == 1.1 &&
               cJSON_IsNull(item(na, "ratio_bwd_data_fwd_inference")),
           "prnn n/a");
    const cJSON *p0 = cJSON_GetArrayItem(pts, 0); /* inference */
    EXPECT(cJSON_IsNull(item(p0, "prnn_fwd_inference")) &&
               cJSON_IsNull(item(item(item(p0, "impls"), "prnn"), "phases")) &&
               cJSON_IsNull(item(p0, "best_cudnn_bwd_data_us")),
           "inference point: training keys null");
    const cJSON *ts = item(root, "training_summary");
    EXPECT(num(ts, "points") == 3 && num(ts, "points_with_ratio") == 2 &&
               num(ts, "points_prnn_le_cudnn") == 1 && num(ts, "points_with_bwd_data_ratio") == 2 &&
               num(ts, "points_bwd_data_within_target") == 1 && num(ts, "bwd_data_target") == 1.3,
           "training_summary counts");
    EXPECT(fabs(num(ts, "geomean_ratio") - sqrt(0.75)) < 1e-5 &&
               fabs(num(ts, "geomean_bwd_data_fwd_inference") - sqrt(2.16)) < 1e-5,
           "training_summary geomeans");
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
    EXPECT(cJSON_GetArraySize(pts) == n, "%d points", cJSON_GetArraySize(pts));
    const cJSON *p0 = cJSON_GetArrayItem(pts, 0);
    EXPECT(str(p0, "mode") && !strcmp(str(p0, "mode"), "lstm"), "mode");
    EXPECT(num(p0, "hidden") == 256 && num(p0, "batch") == 1, "shape");
    EXPECT(num(p0, "ratio") == 0.5, "ratio");
    EXPECT(str(p0, "best_cudnn") && !strcmp(str(p0, "best_cudnn"), "cudnn-persist-static"), "best");
    const cJSON *plan = cJSON_GetObjectItemCaseSensitive(p0, "prnn_plan");
    EXPECT(str(plan, "config") &&
               !strcmp(str(plan, "config"), "blocks=8 threads=256 ksplit=4, \"quoted\""),
           "config string escaped");
    const cJSON *impls = cJSON_GetObjectItemCaseSensitive(p0, "impls");
    EXPECT(cJSON_GetArraySize(impls) == 7, "%d impls", cJSON_GetArraySize(impls));
    const cJSON *prnn = cJSON_GetObjectItemCaseSensitive(impls, "prnn");
    EXPECT(num(prnn, "median_us") == 0.5 && num(prnn, "q3_us") > 0.5 && num(prnn, "repeats") == 20,
           "prnn numbers");
    const cJSON *small = cJSON_GetObjectItemCaseSensitive(impls, "cudnn-persist-small-h");
    EXPECT(str(small, "state") && !strcmp(str(small, "state"), "refused") &&
               cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(small, "median_us")),
           "refused algorithm: null time");
    /* The note with quotes, a comma and a newline survives. */
    const cJSON *p3 = cJSON_GetArrayItem(pts, 3);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(p3, "impls"), "cudnn-persist-static");
    EXPECT(str(st, "note") && !strcmp(str(st, "note"), "mathPrec half, \"quoted\", comma\nnewline"),
           "note");
    EXPECT(str(st, "max_rel_diff") && !strcmp(str(st, "max_rel_diff"), "nan"),
           "poisoned diff is \"nan\"");
    EXPECT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(pts, 2), "ratio")),
           "no ratio: null");
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(root, "summary");
    EXPECT(cJSON_GetArraySize(sum) == 4, "summary size");
    EXPECT(num(cJSON_GetArrayItem(sum, 0), "geomean_ratio") == 1.0, "summary lstm");
    const cJSON *ov = cJSON_GetObjectItemCaseSensitive(root, "overall");
    EXPECT(fabs(num(ov, "geomean_ratio") - pow(0.1875, 0.2)) < 1e-5, "overall");
    test_json_training(root);
    const cJSON *cs = cJSON_GetObjectItemCaseSensitive(root, "cold_start");
    EXPECT(cJSON_GetArraySize(cs) == 2, "cold_start");
    const cJSON *c0 = cJSON_GetArrayItem(cs, 0);
    EXPECT(num(cJSON_GetObjectItemCaseSensitive(c0, "empty_cache"), "compile_ms") == 101.25,
           "cold compile");
    EXPECT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cs, 1), "disk_cache")),
           "missing phase: null");
    cJSON_Delete(root);
    free(buf);

    /* An empty run is valid JSON too, without a training summary. */
    capture_begin(&f, &buf, &len);
    bench_write_json(f, meta, rs, 0, NULL, 0);
    fclose(f);
    root = cJSON_Parse(buf);
    EXPECT(root != NULL, "empty JSON: %s", buf);
    EXPECT(cJSON_IsNull(item(root, "training_summary")), "empty run: training_summary");
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
    return test_done("tools-bench-report: best-cuDNN ratios, geometric means, table, CSV and JSON");
}
