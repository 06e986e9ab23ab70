/*
 * test_words.c — the words of human output (issue 48, "First screen and words"): the one number
 * formatter (base/numfmt.c: no scientific notation, thousands separated, money, the one framing of
 * a difference), a table that never cuts a message (tbl_span), and the glossary of `gpuecon help
 * terms` against the README's (render/glossary.c is the one source of both). Expected strings are
 * worked by hand in the comments.
 */
#include "render/render.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

static void test_num_sig(void **state)
{
    (void)state;
    char b[128];
    /* 8.27e+04 tokens/s, as %.4g wrote it, is 82,657 to four digits: 82,660 */
    assert_string_equal(num_sig(b, sizeof b, 82657, 4), "82,660");
    assert_string_equal(num_sig(b, sizeof b, 0.091794, 4), "0.09179");
    assert_string_equal(num_sig(b, sizeof b, 1e-7, 2), "0.0000001"); /* %.2g: 1e-07 */
    assert_string_equal(num_sig(b, sizeof b, 2000, 4), "2,000");
    assert_string_equal(num_sig(b, sizeof b, 10760.4, 4), "10,760");
    assert_string_equal(num_sig(b, sizeof b, -1234.5, 6), "-1,234.5");
    assert_string_equal(num_sig(b, sizeof b, 9.9996, 4), "10"); /* rounds into the next decade */
    assert_string_equal(num_sig(b, sizeof b, -0.00001, 3), "-0.00001");
    assert_string_equal(num_sig(b, sizeof b, NAN, 4), "n/a");
    /* 1.5e13 tokens: every digit written out, never an exponent */
    assert_string_equal(num_sig(b, sizeof b, 1.5e13, 4), "15,000,000,000,000");
    assert_string_equal(num_fixed(b, sizeof b, 10760.4, 0), "10,760");
    assert_string_equal(num_fixed(b, sizeof b, -0.001, 2), "0.00"); /* no "-0.00" */
}

static void test_num_count_money(void **state)
{
    (void)state;
    char b[128];
    assert_string_equal(num_count(b, sizeof b, 1.48e13), "14.8T");
    assert_string_equal(num_count(b, sizeof b, 8.03e9), "8.03B");
    assert_string_equal(num_count(b, sizeof b, 41.9e6), "41.9M");
    assert_string_equal(num_count(b, sizeof b, 10600), "10,600");
    /* money: 4 significant digits under $100, whole dollars to $10k, then k and M at 3 digits */
    assert_string_equal(num_money(b, sizeof b, 0.57534), "$0.5753");
    assert_string_equal(num_money(b, sizeof b, 0.114), "$0.1140");
    assert_string_equal(num_money(b, sizeof b, 2.2527), "$2.253");
    assert_string_equal(num_money(b, sizeof b, 1234.4), "$1,234");
    assert_string_equal(num_money(b, sizeof b, 86800), "$86.8k");
    assert_string_equal(num_money(b, sizeof b, 5.0e6), "$5.00M");
    assert_string_equal(num_money(b, sizeof b, 6.8312e6), "$6.83M");
    assert_string_equal(num_money(b, sizeof b, 3.59e8), "$359M");
    /* limits in messages and --help: exact, no exponent; T/B/M only where the value is round there */
    assert_string_equal(num_bound(b, sizeof b, 1e9), "1B");
    assert_string_equal(num_bound(b, sizeof b, -1e9), "-1B");
    assert_string_equal(num_bound(b, sizeof b, 1e7), "10M");
    assert_string_equal(num_bound(b, sizeof b, 2.5e6), "2.5M");
    assert_string_equal(num_bound(b, sizeof b, 4194304), "4,194,304"); /* 2^22: not 4.1943M */
    assert_string_equal(num_bound(b, sizeof b, 1e18), "1,000,000T");
    assert_string_equal(num_bound(b, sizeof b, 0.001), "0.001");
    assert_string_equal(num_bound(b, sizeof b, 65536), "65,536");
    assert_string_equal(num_bound(b, sizeof b, 1e-320), "9.99989e-321"); /* beyond any limit: a value, %g */
}

static void test_num_below(void **state)
{
    (void)state;
    char b[64];
    /* $0.4618 vs $0.5753: 1 - 0.4618/0.5753 = 0.1973 -> "20% below"; the same pair in either
     * order (H100 is not "+24.6%": 0.5753/0.4618 - 1 is the framing this replaces) */
    assert_string_equal(num_below(b, sizeof b, 0.4618, 0.5753), "20% below");
    assert_string_equal(num_below(b, sizeof b, 0.5753, 0.4618), "20% below");
    /* $2.253 vs $2.394: 1 - 0.94110 = 5.89% -> one decimal under 10% */
    assert_string_equal(num_below(b, sizeof b, 2.253, 2.394), "5.9% below");
}

/* A message longer than any column: shown whole (wrapped over the row), never cut. */
static void test_span_not_cut(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    bool oom = false;
    tbl *t = tbl_new(ctx, &oom);
    tbl_col(t, "GPUs", 'r');
    tbl_col(t, "days", 'r');
    tbl_col(t, "$M", 'r');
    tbl_row(t);
    tbl_num(t, 1016, 0);
    const char *why = "cannot run: no parallel configuration of 1016 GPUs divides the global batch of 1024 sequences "
                      "(dp must divide gbs, tp, cp, pp must fit the model, and an MoE model's ep x etp must divide "
                      "tp x cp x dp)";
    tbl_span(t, why, NULL);
    tbl_row(t);
    tbl_num(t, 1024, 0);
    tbl_num(t, 12.5, 1);
    tbl_num(t, 3.25, 2);
    strbuf f, csv;
    sb_init(&f, ctx, &oom);
    sb_init(&csv, ctx, &oom);
    tbl_print(t, &f);
    tbl_csv(t, &csv);
    assert_false(oom);
    /* every word of the message is there, in order, with one space or a line break and indent between */
    const char *p = f.s;
    char word[64];
    for (const char *w = why; *w;) {
        size_t n = strcspn(w, " ");
        snprintf(word, sizeof word, "%.*s", (int)n, w);
        const char *hit = strstr(p, word);
        assert_non_null(hit);
        p = hit + n;
        w += n;
        while (*w == ' ')
            w++;
    }
    /* the message sets no column's width: the GPUs column stays as wide as "1,016" */
    assert_non_null(strstr(f.s, "1,024  12.5  3.25\n"));
    /* CSV has it whole in its own column */
    assert_non_null(strstr(csv.s, "1016,\"cannot run: no parallel configuration of 1016 GPUs divides"));
    sb_free(&f);
    sb_free(&csv);
    tbl_free(t);
    gpuecon_ctx_free(ctx);
}

/* A table asked for more columns than it holds fails (the caller's flag set, nothing printed) instead
 * of dropping the extra ones: compare's CSV outgrew 32 columns and lost its last seven without a word. */
static void test_table_columns_not_dropped(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    bool oom = false;
    tbl *t = tbl_new(ctx, &oom);
    char name[16];
    for (int c = 0; c < 64; c++) { /* 64 fit */
        snprintf(name, sizeof name, "c%d", c);
        tbl_col(t, name, 'l');
    }
    tbl_row(t);
    for (int c = 0; c < 64; c++)
        tbl_fmt(t, "%d", c);
    strbuf csv;
    sb_init(&csv, ctx, &oom);
    tbl_csv(t, &csv);
    assert_false(oom);
    assert_non_null(strstr(csv.s, ",c63\n"));
    assert_non_null(strstr(csv.s, ",63\n"));
    tbl_col(t, "c64", 'l'); /* one more: the table fails */
    assert_true(oom);
    sb_free(&csv);
    tbl_free(t);
    gpuecon_ctx_free(ctx);
}

/* The summary line of a comparison by hand: GB200 NVL72 at $0.4618 against H100 at $0.5753 is
 * 1 - 0.4618/0.5753 = 19.73% -> "20% below"; of the two break-evens, TCO 2.360 -> 2.940 (ln 1.2458
 * = 0.2198) is nearer than MTBI 2000 -> 928 (|ln 0.464| = 0.768), so the TCO is what flips it. With
 * 512-byte platform names the line is cut at its buffer, never past it. */
static void test_summary_line(void **state)
{
    (void)state;
    gpuecon_platform_result p[2] = {{0}};
    p[0].name = "H100";
    p[1].name = "GB200 NVL72";
    p[0].feasible = p[1].feasible = true;
    p[0].rank_usd_per_mtok = 0.5753;
    p[1].rank_usd_per_mtok = 0.4618;
    gpuecon_breakeven be[2] = {{0}};
    be[0] = (gpuecon_breakeven){.platform = 1, .rival = 0, .input = "mtbi_gpu_days", .unit = "GPU-days",
                                .current = 2000, .value = 928, .found = true, .ratio = 0.464};
    be[1] = (gpuecon_breakeven){.platform = 1, .rival = 0, .input = "tco_usd_per_gpu_hour", .unit = "$/GPU-h",
                                .current = 2.36, .value = 2.94, .found = true, .ratio = 2.94 / 2.36};
    gpuecon_comparison_result cr = {0};
    cr.name = cr.title = "t";
    cr.kind = GPUECON_WORKLOAD_TRAIN;
    cr.platforms = p;
    cr.n_platforms = 2;
    cr.cheapest = 1;
    cr.runner_up = 0;
    cr.breakeven = be;
    cr.n_breakeven = 2;
    compare_summary s;
    compare_summary_of(&cr, &s);
    assert_string_equal(s.difference, "20% below");
    assert_close(s.below, 1 - 0.4618 / 0.5753, 1e-12);
    assert_int_equal(s.flip, 1);
    assert_string_equal(s.text, "GB200 NVL72 is cheapest at $0.4618 per 1M tokens, 20% below H100 ($0.5753); flips if "
                                "GB200 NVL72's TCO rises above $2.940/GPU-h (today $2.360/GPU-h)");
    static char a[513], b[513];
    memset(a, 'a', 512);
    memset(b, 'b', 512);
    p[0].name = a;
    p[1].name = b;
    compare_summary_of(&cr, &s);
    assert_true(strlen(s.text) < sizeof s.text);
    assert_int_equal(strncmp(s.text, b, 512), 0);
}

/* The terms the issue names, and those the outputs use without saying what they are. */
static const char *const required[] = {"ETTR", "MTBI", "MTTI", "MFU", "TPOT", "TTFT", "goodput", "PUE", "TCO",
                                       "$/Mtok", "HBM", "TP", "PP", "EP", "CP", "ZeRO", "J/tok", "eff $/Mtok", NULL};

static void test_words_terms(void **state)
{
    (void)state;
    for (int i = 0; required[i]; i++) {
        bool found = false;
        for (size_t k = 0; k < glossary_count(); k++)
            found |= !strcmp(glossary_at(k)->term, required[i]);
        if (!found)
            print_error("the glossary has no %s\n", required[i]);
        assert_true(found);
    }
    for (size_t k = 0; k < glossary_count(); k++) {
        const glossary_term *g = glossary_at(k);
        assert_true(strlen(g->definition) > 20 && g->unit[0] && g->where[0]);
        assert_null(strchr(g->definition, '|')); /* a Markdown table row */
        assert_true(!strncmp(g->where, "docs/model.md §", strlen("docs/model.md §")) ||
                    !strncmp(g->where, "docs/catalog.md", strlen("docs/catalog.md")));
    }
    assert_null(glossary_at(glossary_count()));
}

/* README.md's glossary is this table: the same rows, in the same order, and no other. */
static void test_words_readme(void **state)
{
    (void)state;
    FILE *f = fopen(GPUECON_SOURCE_DIR "/README.md", "rb");
    assert_non_null(f);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *g = strstr(text, "\n## Glossary\n");
    assert_non_null(g);
    const char *end = strstr(g + 1, "\n## ");
    assert_non_null(end);
    const char *p = strstr(g, "|---|---|---|---|\n");
    assert_true(p && p < end);
    p += strlen("|---|---|---|---|\n");
    size_t rows = 0;
    for (size_t k = 0; k < glossary_count(); k++) {
        const glossary_term *t = glossary_at(k);
        char want[1200];
        snprintf(want, sizeof want, "| %s | %s | %s | %s |\n", t->term, t->definition, t->unit, t->where);
        if (strncmp(p, want, strlen(want))) {
            print_error("README glossary row %zu is\n%.*s\nexpected\n%s", k + 1, (int)strcspn(p, "\n"), p, want);
            fail();
        }
        p += strlen(want);
        rows++;
    }
    assert_true(*p != '|'); /* no row the table lacks */
    assert_int_equal(rows, glossary_count());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_num_sig),
        cmocka_unit_test(test_num_count_money),
        cmocka_unit_test(test_num_below),
        cmocka_unit_test(test_span_not_cut),
        cmocka_unit_test(test_table_columns_not_dropped),
        cmocka_unit_test(test_summary_line),
        cmocka_unit_test(test_words_terms),
        cmocka_unit_test(test_words_readme),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
