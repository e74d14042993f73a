/*
 * prnn-bench's report on a synthetic result set: best-cuDNN choice and
 * ratios, geometric means (the table's last lines, the training line),
 * table alignment with and without the training columns and their cells,
 * CSV shape and the training columns' values, JSON validity (parsed back
 * with cJSON) and content; padded layouts beside packed ones (the pairing,
 * the layout column, the padded / packed lines and keys); projected points
 * beside unprojected ones (the P column, the proj field and key, pairing
 * and groups by projection).
 */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "bench_layout.h"
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
    EXPECT(!strstr(lines[hdr], "layout") || strstr(lines[hdr], " T layout "),
           "layout column out of place: %s", lines[hdr]);
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
                   strstr(lines[hdr], "cuDNN fwd") && !strstr(lines[hdr], "layout"),
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
    EXPECT(!strstr(buf, "\nlayout:") && !strstr(buf, "padded"), "packed run with layout text:\n%s",
           buf);
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
     * 7 more, then the engines (forward, backward-data), then the layout's
     * 5. */
    EXPECT(fields0 == 21 + 7 * 12 + 5 + 7 * 3 + 7 + 2 + 5 + 1, "%d header fields", fields0);
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
        {1, "layout", "packed"},
        {1, "lengths", "full"},
        {1, "lengths_sum", "256"}, /* B 1, T 256 */
        {1, "ratio_prnn_padded_packed", ""},
        {1, "proj", "0"},
        {6, "proj", "0"},
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
    EXPECT(cJSON_GetArraySize(item(root, "layout_summary")) == 0, "empty run: layout_summary");
    cJSON_Delete(root);
    free(buf);
}

/* What a run of rs described by m prints (preamble, table with m's
 * columns, footer; rows 0: the preamble alone), for the caller to free. */
static char *report_text(const bench_meta *m, const bench_result *rs, int n, int rows)
{
    FILE *f;
    char *buf;
    size_t len;
    capture_begin(&f, &buf, &len);
    bench_report_preamble(f, m);
    if (rows) {
        bench_table_header(f, bench_table_cols(m));
        for (int i = 0; i < rows; i++)
            bench_table_row(f, &rs[i], bench_table_cols(m));
        bench_table_footer(f, rs, n);
    }
    fclose(f);
    return buf;
}

/* The CSV of rs, split into records (recs[0]: the header) in *buf, which
 * the caller frees; returns how many (a test's records hold no quoted
 * newline). */
static int csv_records(const bench_result *rs, int n, char **buf, char **recs, int max)
{
    FILE *f;
    size_t len;
    capture_begin(&f, buf, &len);
    bench_write_csv(f, rs, n);
    fclose(f);
    return split_lines(*buf, recs, max);
}

/* The JSON of rs parsed back (the caller deletes it); NULL, a failure
 * naming what, when it does not parse. */
static cJSON *json_parsed(const bench_meta *m, const bench_result *rs, int n, const char *what)
{
    FILE *f;
    char *buf;
    size_t len;
    capture_begin(&f, &buf, &len);
    bench_write_json(f, m, rs, n, NULL, 0);
    fclose(f);
    cJSON *root = cJSON_Parse(buf);
    EXPECT(root != NULL, "%s JSON does not parse:\n%s", what, buf);
    free(buf);
    return root;
}

/* A result at pt with prnn's and cuDNN STANDARD's medians (all their
 * statistics that value); prnn 0: n/a, cuDNN 0: not run. */
static void fake_result(bench_result *r, const bench_point *pt, double prnn, double cudnn)
{
    bench_result_init(r, pt);
    const double v[2] = {prnn, cudnn};
    bench_impl_result *ir[2] = {&r->impl[BENCH_IMPL_PRNN], &r->impl[BENCH_IMPL_CUDNN_STANDARD]};
    for (int k = 0; k < 2; k++) {
        if (v[k] > 0) {
            ir[k]->state = BENCH_OK;
            ir[k]->us.n = 20;
            ir[k]->us.median = ir[k]->us.min = ir[k]->us.max = v[k];
            ir[k]->us.q1 = ir[k]->us.q3 = ir[k]->us.mean = v[k];
        } else if (k == 0) {
            ir[k]->state = BENCH_NA;
        }
    }
    bench_result_finish(r);
}

/* Padded points beside packed ones: the pairing, its summary, the layout
 * column, the footer's padded / packed lines, the CSV and JSON keys. */
static void test_layouts(const bench_meta *meta0)
{
    bench_result rs[6];
    bench_point pt;
    memset(&pt, 0, sizeof(pt));
    pt.mode = PRNN_LSTM;
    pt.dtype = PRNN_DATA_FLOAT;
    pt.hidden = pt.input = 256;
    pt.seq = 256;
    pt.layers = 1;
    pt.pass = BENCH_INFERENCE;
    /* 0 packed B 16, 1 its batch-padded twin: prnn 2.04 / 2.0, best cuDNN
     * 5.0 / 4.0; 2 packed B 64, 3 batch-padded: prnn 3.3 / 3.0, no cuDNN;
     * 4 batch-padded H 1024 without a packed twin; 5 seq-padded B 16, prnn
     * n/a. */
    static const struct {
        bench_layout layout;
        int hidden, batch;
        double prnn, cudnn; /* 0: not run */
    } p[6] = {
        {BENCH_LAYOUT_PACKED, 256, 16, 2.0, 4.0},
        {BENCH_LAYOUT_BATCH_PADDED, 256, 16, 2.04, 5.0},
        {BENCH_LAYOUT_PACKED, 256, 64, 3.0, 0},
        {BENCH_LAYOUT_BATCH_PADDED, 256, 64, 3.3, 0},
        {BENCH_LAYOUT_BATCH_PADDED, 1024, 16, 5.0, 0},
        {BENCH_LAYOUT_SEQ_PADDED, 256, 16, 0, 0},
    };
    for (int i = 0; i < 6; i++) {
        pt.layout = p[i].layout;
        pt.lengths = pt.layout == BENCH_LAYOUT_PACKED ? BENCH_LENGTHS_FULL : BENCH_LENGTHS_VARIED;
        pt.hidden = pt.input = p[i].hidden;
        pt.batch = p[i].batch;
        fake_result(&rs[i], &pt, p[i].prnn, p[i].cudnn);
    }
    bench_pair_layouts(rs, 6);
    EXPECT(isnan(rs[0].layout_ratio) && isnan(rs[2].layout_ratio), "packed points: no ratio");
    EXPECT_NEAR(rs[1].layout_ratio, 1.02, 1e-12);
    EXPECT_NEAR(rs[1].layout_ratio_cudnn, 1.25, 1e-12);
    EXPECT_NEAR(rs[3].layout_ratio, 1.1, 1e-12);
    EXPECT(isnan(rs[3].layout_ratio_cudnn), "no cuDNN, no ratio");
    EXPECT(isnan(rs[4].layout_ratio) && isnan(rs[5].layout_ratio), "no twin / n/a: no ratio");

    bench_layout_summary ls[BENCH_NUM_LAYOUTS];
    int nls = bench_summarize_layouts(rs, 6, ls);
    EXPECT(nls == 2, "%d layout summaries", nls);
    if (nls == 2) {
        EXPECT(ls[0].layout == BENCH_LAYOUT_SEQ_PADDED && ls[0].points == 1 &&
                   ls[0].with_ratio == 0 && isnan(ls[0].geomean),
               "seq-padded summary");
        EXPECT(ls[1].layout == BENCH_LAYOUT_BATCH_PADDED && ls[1].points == 3 &&
                   ls[1].with_ratio == 2 && ls[1].within_target == 1 && ls[1].cudnn_with_ratio == 1,
               "batch-padded summary: %d points, %d with ratio, %d within", ls[1].points,
               ls[1].with_ratio, ls[1].within_target);
        EXPECT_NEAR(ls[1].geomean, sqrt(1.02 * 1.1), 1e-12);
        EXPECT_NEAR(ls[1].cudnn_geomean, 1.25, 1e-12);
    }

    /* The table: the layout column after T, every row as wide. */
    bench_meta meta = *meta0;
    meta.training = 0;
    meta.padded = 1;
    meta.lengths = BENCH_LENGTHS_VARIED;
    meta.pad_input = "nan";
    EXPECT(bench_table_cols(&meta) == BENCH_TABLE_LAYOUT, "cols %d", bench_table_cols(&meta));
    char *buf = report_text(&meta, rs, 6, 6);
    EXPECT(strstr(buf, "\nlayout: packed = time-major") &&
               strstr(buf, "Lengths varied: spaced\n") && strstr(buf, "holds NaN"),
           "preamble of a padded run:\n%s", buf);
    EXPECT(strstr(buf, "inference lstm f32  H=256   B=16   T=256   batch-padded varied: prnn "
                       "1.020 (2.04 / 2.00)    cuDNN 1.250 (5.00 / 4.00)"),
           "padded / packed line of point 1:\n%s", buf);
    EXPECT(strstr(buf, "B=64   T=256   batch-padded varied: prnn 1.100 (3.30 / 3.00)    cuDNN -"),
           "padded / packed line of point 3:\n%s", buf);
    EXPECT(!strstr(buf, "H=1024 B=16   T=256   batch-padded"), "a point without a twin listed");
    EXPECT(strstr(buf, "geomean padded/packed batch-padded: prnn 1.059 (2 of 3 points; <= 1.03 at "
                       "1), best cuDNN 1.250 (1 points)") &&
               strstr(buf, "geomean padded/packed seq-padded  : prnn n/a (0 of 1 points"),
           "layout geomeans:\n%s", buf);
    EXPECT(strstr(buf, "geomean prnn/best-cuDNN inference lstm f32  batch-padded:  0.408  (1 of 3 "
                       "points)") &&
               strstr(buf, "geomean prnn/best-cuDNN inference lstm f32 :  0.500  (1 of 2 points)"),
           "geomean groups per layout:\n%s", buf);
    char *lines[64];
    int nl = split_lines(buf, lines, 64);
    int hdr = expect_aligned(lines, nl, 6);
    if (hdr >= 0) {
        EXPECT(strstr(lines[hdr], " T layout "), "header: %s", lines[hdr]);
        EXPECT(strstr(lines[hdr + 2], " 256 packed ") &&
                   strstr(lines[hdr + 3], " 256 batch-padded "),
               "rows:\n%s\n%s", lines[hdr + 2], lines[hdr + 3]);
    }
    free(buf);

    /* With the training columns too: still aligned. */
    meta.training = 1;
    EXPECT(bench_table_cols(&meta) == (BENCH_TABLE_PHASES | BENCH_TABLE_LAYOUT), "cols %d",
           bench_table_cols(&meta));
    buf = report_text(&meta, rs, 6, 6);
    nl = split_lines(buf, lines, 64);
    hdr = expect_aligned(lines, nl, 6);
    if (hdr >= 0)
        EXPECT(strstr(lines[hdr], " T layout ") && strstr(lines[hdr], "cuDNN fwd"),
               "header with both: %s", lines[hdr]);
    free(buf);

    /* CSV: the layout, the lengths, their sum and the ratios. */
    char *recs[8];
    int nr = csv_records(rs, 6, &buf, recs, 8);
    EXPECT(nr == 7, "%d CSV records", nr);
    if (nr == 7) {
        char sum[32];
        snprintf(sum, sizeof(sum), "%lld", bench_lengths_sum(&rs[1].pt));
        EXPECT(bench_lengths_sum(&rs[1].pt) < 256 * 16, "varied sum %s", sum);
        expect_csv(recs[0], recs[2], "layout", "batch-padded");
        expect_csv(recs[0], recs[2], "lengths", "varied");
        expect_csv(recs[0], recs[2], "lengths_sum", sum);
        expect_csv(recs[0], recs[2], "ratio_prnn_padded_packed", "1.02");
        expect_csv(recs[0], recs[2], "ratio_best_cudnn_padded_packed", "1.25");
        expect_csv(recs[0], recs[1], "lengths_sum", "4096");
        expect_csv(recs[0], recs[1], "ratio_prnn_padded_packed", "");
        expect_csv(recs[0], recs[6], "layout", "seq-padded");
    }
    free(buf);

    /* JSON: the same keys, the meta's rules, the layout summary. */
    cJSON *root = json_parsed(&meta, rs, 6, "padded");
    if (root) {
        const cJSON *m = item(root, "meta");
        EXPECT(num(m, "padded") == 1 && str(m, "lengths") && strstr(str(m, "lengths"), "varied") &&
                   str(m, "pad_input") && !strcmp(str(m, "pad_input"), "nan"),
               "padded meta");
        const cJSON *p1 = cJSON_GetArrayItem(item(root, "points"), 1);
        EXPECT(str(p1, "layout") && !strcmp(str(p1, "layout"), "batch-padded") &&
                   str(p1, "lengths") && !strcmp(str(p1, "lengths"), "varied") &&
                   num(p1, "lengths_sum") == (double)bench_lengths_sum(&rs[1].pt) &&
                   fabs(num(p1, "ratio_prnn_padded_packed") - 1.02) < 1e-9 &&
                   fabs(num(p1, "ratio_best_cudnn_padded_packed") - 1.25) < 1e-9,
               "padded point");
        const cJSON *p0 = cJSON_GetArrayItem(item(root, "points"), 0);
        EXPECT(cJSON_IsNull(item(p0, "ratio_prnn_padded_packed")), "packed point: null ratio");
        const cJSON *lsj = item(root, "layout_summary");
        EXPECT(cJSON_GetArraySize(lsj) == 2, "layout_summary size");
        const cJSON *b = cJSON_GetArrayItem(lsj, 1);
        EXPECT(str(b, "layout") && !strcmp(str(b, "layout"), "batch-padded") &&
                   num(b, "points") == 3 && num(b, "points_with_ratio") == 2 &&
                   num(b, "points_within_target") == 1 && num(b, "target") == 1.03 &&
                   fabs(num(b, "geomean_prnn_padded_packed") - sqrt(1.02 * 1.1)) < 1e-5,
               "batch-padded summary");
        const cJSON *g = cJSON_GetArrayItem(item(root, "summary"), 1);
        EXPECT(str(g, "layout") && !strcmp(str(g, "layout"), "batch-padded"), "summary layout");
        cJSON_Delete(root);
    }
}

/* Projected points (LSTM P = 128 of H = 256) beside unprojected ones, in
 * two layouts: prnn n/a at the projected ones (its GPU backend has no
 * projection yet), cuDNN's persistent algorithms refused there. A padded
 * point pairs with the packed one of its own projection; the groups, the
 * P column, the preamble's note, the CSV's proj column and the JSON's proj
 * keys say which is which. */
static void test_proj(const bench_meta *meta0)
{
    bench_result rs[4];
    static const struct {
        bench_layout layout;
        int proj;
        double prnn, cudnn;
    } p[4] = {
        {BENCH_LAYOUT_PACKED, 0, 2.0, 4.0},
        {BENCH_LAYOUT_PACKED, 128, 0, 3.0},
        {BENCH_LAYOUT_BATCH_PADDED, 0, 2.2, 5.0},
        {BENCH_LAYOUT_BATCH_PADDED, 128, 0, 3.6},
    };
    for (int i = 0; i < 4; i++) {
        bench_point pt;
        memset(&pt, 0, sizeof(pt));
        pt.mode = PRNN_LSTM;
        pt.dtype = PRNN_DATA_FLOAT;
        pt.hidden = pt.input = 256;
        pt.proj = p[i].proj;
        pt.batch = 16;
        pt.seq = 256;
        pt.layers = 1;
        pt.layout = p[i].layout;
        pt.lengths = pt.layout == BENCH_LAYOUT_PACKED ? BENCH_LENGTHS_FULL : BENCH_LENGTHS_VARIED;
        fake_result(&rs[i], &pt, p[i].prnn, p[i].cudnn);
        if (!pt.proj)
            continue;
        bench_copy(rs[i].impl[BENCH_IMPL_PRNN].note, 512,
                   "prnnPrepareRNN: PRNN_STATUS_NOT_SUPPORTED: projSize 128 < hiddenSize 256");
        for (int k = BENCH_IMPL_CUDNN_PERSIST_STATIC; k < BENCH_FIRST_CUDNN + BENCH_NUM_CUDNN; k++)
            rs[i].impl[k].state = BENCH_REFUSED;
        bench_result_finish(&rs[i]);
    }
    bench_pair_layouts(rs, 4);
    EXPECT_NEAR(rs[2].layout_ratio, 1.1, 1e-12);
    EXPECT_NEAR(rs[2].layout_ratio_cudnn, 1.25, 1e-12);
    /* 3.6 / 3.0 (its packed twin of P = 128), not 3.6 / 4.0 */
    EXPECT_NEAR(rs[3].layout_ratio_cudnn, 1.2, 1e-12);
    EXPECT(isnan(rs[3].layout_ratio) && isnan(rs[1].ratio), "prnn n/a: no ratios");
    EXPECT(rs[1].best_cudnn == BENCH_IMPL_CUDNN_STANDARD, "best %d", rs[1].best_cudnn);

    bench_group g[8];
    double overall;
    int on;
    int ng = bench_summary(rs, 4, g, 8, &overall, &on);
    EXPECT(ng == 4 && g[0].proj == 0 && g[1].proj == 128 && g[1].n == 0 && g[1].points == 1 &&
               g[3].proj == 128 && g[3].layout == BENCH_LAYOUT_BATCH_PADDED,
           "%d groups: proj %d %d", ng, g[0].proj, g[1].proj);
    EXPECT(on == 2, "overall n %d", on);

    /* Without a projection in the run: no P column, no note. */
    bench_meta meta = *meta0;
    meta.training = 0;
    EXPECT(bench_table_cols(&meta) == 0, "cols %d", bench_table_cols(&meta));
    char *buf = report_text(&meta, rs, 4, 0);
    EXPECT(!strstr(buf, "projection"), "a run without --proj has the note:\n%s", buf);
    free(buf);

    meta.padded = 1;
    meta.proj = 1;
    meta.lengths = BENCH_LENGTHS_VARIED;
    meta.pad_input = "nan";
    EXPECT(bench_table_cols(&meta) == (BENCH_TABLE_LAYOUT | BENCH_TABLE_PROJ), "cols %d",
           bench_table_cols(&meta));
    buf = report_text(&meta, rs, 4, 4);
    EXPECT(strstr(buf, "\nprojection: P = the LSTM projection size") &&
               strstr(buf, "CUDNN_RNN_ALGO_STANDARD\n  only"),
           "preamble of a run with projections:\n%s", buf);
    EXPECT(strstr(buf, "inference lstm f32  H=256   P=128 B=16   T=256   batch-padded varied: prnn "
                       "-                      cuDNN 1.200 (3.60 / 3.00)"),
           "padded / packed line of the projected point:\n%s", buf);
    EXPECT(strstr(buf, "geomean prnn/best-cuDNN inference lstm f32  P=128:    n/a  (0 of 1 "
                       "points have both)") &&
               strstr(buf, "geomean prnn/best-cuDNN inference lstm f32  batch-padded P=128:    "
                           "n/a") &&
               strstr(buf, "geomean prnn/best-cuDNN inference lstm f32 :  0.500  (1 of 1 points)"),
           "geomean groups per projection:\n%s", buf);
    char *lines[64];
    int nl = split_lines(buf, lines, 64);
    int hdr = expect_aligned(lines, nl, 4);
    if (hdr >= 0) {
        EXPECT(strstr(lines[hdr], "    H     P     B "), "header: %s", lines[hdr]);
        EXPECT(strstr(lines[hdr + 2], "  256     0    16 ") &&
                   strstr(lines[hdr + 3], "  256   128    16 ") && strstr(lines[hdr + 3], "n/a") &&
                   strstr(lines[hdr + 3], "3.00 STANDARD") && strstr(lines[hdr + 3], "—"),
               "rows:\n%s\n%s", lines[hdr + 2], lines[hdr + 3]);
    }
    free(buf);

    /* CSV: proj last, 0 without one; JSON: a point's and a group's key. */
    char *recs[8];
    int nr = csv_records(rs, 4, &buf, recs, 8);
    EXPECT(nr == 5, "%d CSV records", nr);
    if (nr == 5) {
        EXPECT(csv_column(recs[0], "proj") == csv_fields(recs[0]) - 1, "proj at %d of %d",
               csv_column(recs[0], "proj"), csv_fields(recs[0]));
        expect_csv(recs[0], recs[1], "proj", "0");
        expect_csv(recs[0], recs[2], "proj", "128");
        expect_csv(recs[0], recs[2], "hidden", "256");
        expect_csv(recs[0], recs[2], "prnn_state", "n/a");
        expect_csv(recs[0], recs[2], "cudnn_persist_static_state", "refused");
        expect_csv(recs[0], recs[4], "ratio_best_cudnn_padded_packed", "1.2");
    }
    free(buf);
    cJSON *root = json_parsed(&meta, rs, 4, "projected");
    if (root) {
        const cJSON *pts = item(root, "points"), *sum = item(root, "summary");
        EXPECT(num(cJSON_GetArrayItem(pts, 0), "proj") == 0 &&
                   num(cJSON_GetArrayItem(pts, 1), "proj") == 128 &&
                   num(cJSON_GetArrayItem(pts, 1), "hidden") == 256,
               "points' proj");
        EXPECT(num(cJSON_GetArrayItem(sum, 0), "proj") == 0 &&
                   num(cJSON_GetArrayItem(sum, 3), "proj") == 128,
               "summary groups' proj");
        cJSON_Delete(root);
    }
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
    test_layouts(&meta);
    test_proj(&meta);
    return test_done("tools-bench-report: best-cuDNN ratios, geometric means, table, CSV and JSON");
}
