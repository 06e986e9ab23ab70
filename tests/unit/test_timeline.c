/*
 * test_timeline.c — ISO dates and runs over a throughput timeline, against hand-derived days;
 * the catalog's timelines (data/timelines.yaml: the published points, the errors of a bad file at
 * path:line:col), their use by scenarios (by name, or picked up with a start_date) and by a run
 * with a start date (gpuecon_run_cost, train --start-date).
 */
#include "analysis/analysis.h"
#include "test_util.h"

#include <math.h>
#include <string.h>

static void test_dates(void **state)
{
    (void)state;
    long d = 0;
    char buf[11];
    assert_true(gpuecon_date_parse("1970-01-01", &d));
    assert_int_equal(d, 0);
    assert_true(gpuecon_date_parse("2025-05", &d)); /* the month's first day */
    long may = d;
    assert_true(gpuecon_date_parse("2025-07-01", &d));
    assert_int_equal(d - may, 31 + 30); /* May and June */
    assert_true(gpuecon_date_parse("2024-03-01", &d));
    long mar = d;
    assert_true(gpuecon_date_parse("2024-02-29", &d)); /* 2024 is a leap year */
    assert_int_equal(mar - d, 1);
    gpuecon_date_format(may + 27, buf, sizeof buf);
    assert_string_equal(buf, "2025-05-28");
    const char *bad[] = {"2025-13", "yesterday", "2025-02-29", "2025-5", "2025-05-1", "1969-12-31", "2025/05",
                         "2025-00", "2025-04-31", "", "2025-05-01x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(gpuecon_date_parse(bad[i], &d));
    assert_false(gpuecon_date_parse(NULL, &d));
}

static void test_run(void **state)
{
    (void)state;
    gpuecon_timeline_point p[2] = {{0}};
    p[0].day = 100;
    p[0].tokens_per_s_per_gpu = 600;
    p[1].day = 131;
    p[1].tokens_per_s_per_gpu = 1200;
    bool used[2];
    /* 1 token per day per tok/s/GPU: 600 a day for 31 days (18,600), then 1,200 a day */
    double eq = timeline_run(p, 2, 100, 0, 30000, 1, used);
    double days = 31 + (30000 - 18600) / 1200.0; /* 40.5 */
    assert_close(30000 / eq, days, 1e-9);
    assert_true(used[0] && used[1]);
    /* inside the first step only */
    eq = timeline_run(p, 2, 100, 0, 6000, 1, used);
    assert_close(eq, 600, 1e-9);
    assert_true(used[0] && !used[1]);
    /* before the first point: the default throughput, then the steps */
    eq = timeline_run(p, 2, 90, 300, 3000 + 18600, 1, used);
    assert_close((3000 + 18600) / eq, 10 + 31, 1e-9);
    assert_true(isnan(timeline_run(p, 2, 90, 0, 1000, 1, used)));
    /* between the points the earlier one is in force (no interpolation): day 130 is point 0's */
    assert_int_equal(timeline_in_force(p, 2, 130), 0);
    assert_int_equal(timeline_in_force(p, 2, 500), 1);
    assert_int_equal(timeline_in_force(p, 2, 99), -1);
    assert_int_equal(timeline_in_force(p, 2, 131), 1);
}

/* The built-in timelines hold the published points (SemiAnalysis, 20 Aug 2025: DeepSeek 670B
 * BF16, GB200 958 / 2,138 tok/s/GPU in May / July 2025, 3,957 projected for December; GPT-3
 * 175B on 128 H100, BF16 313 -> 493 from January to December 2024). */
static void test_catalog_builtin(void **state)
{
    const gpuecon_catalog *cat = CAT(state);
    const gpuecon_timeline *t = gpuecon_catalog_timeline(cat, "deepseek-v3-bf16-gb200-nvl72");
    assert_non_null(t);
    assert_int_equal(t->n_points, 3);
    assert_close(t->points[0].tokens_per_s_per_gpu, 958, 0);
    assert_close(t->points[1].tokens_per_s_per_gpu, 2138, 0);
    assert_close(t->points[2].tokens_per_s_per_gpu, 3957, 0);
    assert_string_equal(t->points[0].date, "2025-05");
    assert_int_equal(t->points[1].source.stage, GPUECON_STAGE_PUBLISHER_REPORTED);
    assert_int_equal(t->points[2].source.stage, GPUECON_STAGE_PROJECTION);
    assert_ptr_equal(gpuecon_catalog_timeline_for(cat, "gb200-nvl72", "deepseek-v3", GPUECON_BF16), t);
    assert_null(gpuecon_catalog_timeline_for(cat, "gb200-nvl72", "deepseek-v3", GPUECON_FP8));
    const gpuecon_timeline *g = gpuecon_catalog_timeline_for(cat, "hgx-h100", "gpt3-175b", GPUECON_BF16);
    assert_non_null(g);
    assert_close(g->points[0].tokens_per_s_per_gpu, 313, 0);
    assert_close(g->points[g->n_points - 1].tokens_per_s_per_gpu, 493, 0);
    long d;
    assert_true(gpuecon_date_parse("2024-12", &d) && g->points[1].day == d);
}

static const char good_tl[] = "timelines:\n"
                              "  - name: mine\n"
                              "    system: hgx-h100\n"
                              "    model: llama3-70b\n"
                              "    precision: fp8\n"
                              "    points:\n"
                              "      - {date: 2025-01, tokens_per_s_per_gpu: 1000}\n"
                              "      - {date: 2025-03-15, tokens_per_s_per_gpu: 1200, stage: projection}\n";

/* Each bad catalog file: exit-2 class error at its line and column, naming what is wrong; the
 * catalog is left as it was. */
static void test_catalog_bad(void **state)
{
    gpuecon_catalog *cat = CAT(state);
    size_t n0 = gpuecon_catalog_count(cat, GPUECON_KIND_TIMELINE);
    static const struct {
        const char *from, *to;
        int code, line, col;
        const char *msg;
    } cases[] = {
        {"2025-01,", "2025-13,", GPUECON_E_INPUT, 7, 21, "date: '2025-13' is not an ISO date"},
        {"2025-01,", "yesterday,", GPUECON_E_INPUT, 7, 21, "'yesterday' is not an ISO date"},
        {"2025-03-15", "2024-12-31", GPUECON_E_INPUT, 8, 21, "2024-12-31 comes before the previous point's 2025-01"},
        {"2025-03-15", "2025-01-01", GPUECON_E_INPUT, 8, 21, "2025-01-01 repeats the previous point's 2025-01"},
        {"hgx-h100", "hgx-h1000", GPUECON_E_INPUT, 3, 13, "system:"},
        {"llama3-70b", "llama9", GPUECON_E_INPUT, 4, 12, "model:"},
        {"precision: fp8", "precision: fp16", GPUECON_E_INPUT, 5, 16, "fp16"},
        {"    points:", "    poinst:", GPUECON_E_PARSE, 6, 5, "unknown field 'poinst'; did you mean 'points'?"},
        {"tokens_per_s_per_gpu: 1000", "tokens_per_s_per_gpu: 0", GPUECON_E_INPUT, 7, 49, "must be a number above 0"},
        {"tokens_per_s_per_gpu: 1000", "tok_per_s: 1000", GPUECON_E_PARSE, 7, 30, "unknown field 'tok_per_s'"},
        {"stage: projection", "stage: guess", GPUECON_E_INPUT, 8, 64, "stage: 'guess' is not allowed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[1024];
        const char *at = strstr(good_tl, cases[i].from);
        assert_non_null(at);
        snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - good_tl), good_tl, cases[i].to,
                 at + strlen(cases[i].from));
        gpuecon_error err;
        gpuecon_error_clear(&err);
        int rc = gpuecon_catalog_load_buffer(cat, GPUECON_KIND_TIMELINE, "t.yaml", buf, strlen(buf), &err);
        if (rc != cases[i].code || err.line != cases[i].line || !strstr(err.message, cases[i].msg))
            print_error("case %zu: rc %d at %s:%d:%d: %s\n", i, rc, err.where, err.line, err.column, err.message);
        assert_int_equal(rc, cases[i].code);
        assert_string_equal(err.where, "t.yaml");
        assert_int_equal(err.line, cases[i].line);
        assert_true(err.column > 0);
        assert_non_null(strstr(err.message, cases[i].msg));
        assert_int_equal(gpuecon_catalog_count(cat, GPUECON_KIND_TIMELINE), n0);
    }
    /* no points at all */
    static const char nopoints[] = "timelines:\n  - {name: x, system: hgx-h100, model: llama3-70b, precision: fp8}\n";
    gpuecon_error err;
    assert_int_equal(gpuecon_catalog_load_buffer(cat, GPUECON_KIND_TIMELINE, "t.yaml", nopoints, strlen(nopoints),
                                                 &err), GPUECON_E_PARSE);
    assert_int_equal(err.line, 2);
    assert_non_null(strstr(err.message, "'points'"));
}

static int load_sc(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const char *txt, gpuecon_scenario **sc,
                   gpuecon_error *err)
{
    gpuecon_error_clear(err);
    return gpuecon_scenario_load_buffer(ctx, cat, "s.yaml", txt, strlen(txt), sc, err);
}

/* Scenarios: a catalog timeline by name (checked against the platform), or picked up by system,
 * model and precision when the run has a start_date in force. */
static void test_scenario_catalog(void **state)
{
    fixture *f = *state;
    gpuecon_error err;
    assert_int_equal(gpuecon_catalog_load_buffer(f->cat, GPUECON_KIND_TIMELINE, "t.yaml", good_tl, strlen(good_tl),
                                                 &err), GPUECON_OK);
    static const char head[] = "workload: {kind: train, model: llama3-70b, precision: fp8, tokens: 15e12, seq: 8192, "
                               "gbs: 1024%s}\nplatforms:\n  - {name: a, system: hgx-h100, gpus: 1024%s}\n";
    char buf[512];
    gpuecon_scenario *sc = NULL;
    /* by name */
    snprintf(buf, sizeof buf, head, "", ", throughput_timeline: mine");
    assert_int_equal(load_sc(f->ctx, f->cat, buf, &sc, &err), GPUECON_OK);
    const gpuecon_platform *p = &gpuecon_scenario_at(sc, 0)->platforms[0];
    assert_int_equal(p->n_timeline, 2);
    assert_close(p->timeline[1].tokens_per_s_per_gpu, 1200, 0);
    assert_int_equal(p->timeline[1].source.stage, GPUECON_STAGE_PROJECTION);
    gpuecon_scenario_free(sc);
    /* picked up with a start date in force */
    snprintf(buf, sizeof buf, head, ", start_date: 2025-02-01", "");
    assert_int_equal(load_sc(f->ctx, f->cat, buf, &sc, &err), GPUECON_OK);
    assert_int_equal(gpuecon_scenario_at(sc, 0)->platforms[0].n_timeline, 2);
    gpuecon_scenario_free(sc);
    /* not before its first point (the prediction stays), nor without a start date */
    snprintf(buf, sizeof buf, head, ", start_date: 2024-12-01", "");
    assert_int_equal(load_sc(f->ctx, f->cat, buf, &sc, &err), GPUECON_OK);
    assert_int_equal(gpuecon_scenario_at(sc, 0)->platforms[0].n_timeline, 0);
    gpuecon_scenario_free(sc);
    snprintf(buf, sizeof buf, head, "", "");
    assert_int_equal(load_sc(f->ctx, f->cat, buf, &sc, &err), GPUECON_OK);
    assert_int_equal(gpuecon_scenario_at(sc, 0)->platforms[0].n_timeline, 0);
    gpuecon_scenario_free(sc);
    /* named, but before its first point without a measurement to use until then */
    snprintf(buf, sizeof buf, head, ", start_date: 2024-12-01", ", throughput_timeline: mine");
    assert_int_equal(load_sc(f->ctx, f->cat, buf, &sc, &err), GPUECON_E_INPUT);
    assert_int_equal(err.line, 3);
    assert_non_null(strstr(err.message, "before this timeline's first point"));
    /* an unknown name, and one of another system */
    snprintf(buf, sizeof buf, head, "", ", throughput_timeline: mien");
    assert_int_equal(load_sc(f->ctx, f->cat, buf, &sc, &err), GPUECON_E_INPUT);
    assert_int_equal(err.line, 3);
    assert_non_null(strstr(err.message, "mine"));
    snprintf(buf, sizeof buf, head, "", ", throughput_timeline: deepseek-v3-bf16-hgx-h100");
    assert_int_equal(load_sc(f->ctx, f->cat, buf, &sc, &err), GPUECON_E_INPUT);
    assert_int_equal(err.line, 3);
    assert_true(err.column > 40);
    assert_non_null(strstr(err.message, "is deepseek-v3 on hgx-h100 in bf16"));
}

/* A run with a start date: the given throughput until the catalog timeline's first point, each
 * point from its date. GPT-3 175B BF16 on 128 H100 from 1 Nov 2024: 313 tok/s/GPU for the 30
 * days to 1 Dec 2024, then 493. Goodput does not depend on the throughput, so with the ETTR of
 * the same run at a constant throughput, tokens = 128 x ETTR x 86400 x (30 x 313 + 20 x 493)
 * take exactly 50 days. */
static void test_run_start_date(void **state)
{
    fixture *f = *state;
    gpuecon_run_request q;
    gpuecon_run_request_init(&q);
    q.system = "hgx-h100";
    q.profile = "hyperscaler";
    q.model = "gpt3-175b";
    q.seq = 2048;
    q.gpus = 128;
    q.tokens_per_s_per_gpu = 400;
    q.tokens = 1e11;
    gpuecon_platform_result flat, run;
    gpuecon_error err;
    assert_int_equal(gpuecon_run_cost(f->ctx, f->cat, &q, &flat, &err), GPUECON_OK);
    q.tokens = 128 * flat.ettr * 86400 * (30 * 313.0 + 20 * 493.0);
    q.start_date = "2024-11-01";
    assert_int_equal(gpuecon_run_cost(f->ctx, f->cat, &q, &run, &err), GPUECON_OK);
    assert_close(run.ettr, flat.ettr, 1e-12);
    assert_close(run.days_to_train, 50, 1e-9);
    assert_true(run.timeline && run.n_points_used == 2 && !run.uses_projection);
    /* wholly before the first point (2024-01): the given 400 tok/s */
    q.start_date = "2023-01-01";
    q.tokens = 128 * flat.ettr * 86400 * 400.0 * 10;
    assert_int_equal(gpuecon_run_cost(f->ctx, f->cat, &q, &run, &err), GPUECON_OK);
    assert_close(run.days_to_train, 10, 1e-9);
    assert_int_equal(run.n_points_used, 0);
    /* bad dates, and no timeline for the system */
    q.start_date = "2024-13";
    assert_int_equal(gpuecon_run_cost(f->ctx, f->cat, &q, &run, &err), GPUECON_E_INPUT);
    assert_string_equal(err.where, "options.start_date");
    q.start_date = "2024-06";
    q.system = "hgx-h200";
    assert_int_equal(gpuecon_run_cost(f->ctx, f->cat, &q, &run, &err), GPUECON_E_INPUT);
    assert_non_null(strstr(err.message, "no throughput timeline of gpt3-175b on hgx-h200 in bf16"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_dates), cmocka_unit_test(test_run),
                                       cmocka_unit_test(test_catalog_builtin), cmocka_unit_test(test_catalog_bad),
                                       cmocka_unit_test(test_scenario_catalog), cmocka_unit_test(test_run_start_date)};
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
