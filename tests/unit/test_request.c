/*
 * test_request.c — the request interface (src/request/request.c): a request written by hand
 * with typed JSON values gives byte for byte the output of the same command line turned
 * into a request (what the CLI runs), errors carry the same record either way, and the
 * request's own shape is checked.
 *
 * The one number asserted is worked by hand: H100 at 728 tok/s/GPU with the hyperscaler
 * profile's published owned TCO of $1.42/GPU-h (SemiAnalysis, 20 Aug 2025) costs
 * 1.42 / (728 x 3600) x 1e6 = $0.5418 per 1M tokens; asserted within 1%.
 */
#include "test_util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static gpuecon_ctx *new_ctx(void)
{
    gpuecon_ctx_config cfg = {0};
    cfg.seed = GPUECON_DEFAULT_SEED;
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    assert_non_null(ctx);
    return ctx;
}

/* Whether s is well-formed UTF-8: jansson refuses to make a JSON string of anything else. */
static bool is_utf8(const char *s)
{
    json_t *j = json_string(s);
    json_decref(j);
    return j != NULL;
}

/* Runs the command line argv (argv[0] = command) through gpuecon_request_from_argv and
 * gpuecon_request; returns the status, the output in *out. */
static int run_argv(gpuecon_ctx *ctx, const char *line, char **out, gpuecon_error *err)
{
    char buf[1024], *argv[64];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    char *save = NULL;
    for (char *t = strtok_r(buf, " ", &save); t && argc < 63; t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    argv[argc] = NULL;
    char *req = NULL;
    *out = NULL;
    int st = gpuecon_request_from_argv(ctx, argc, argv, &req, err);
    if (st)
        return st;
    st = gpuecon_request(ctx, req, out, err);
    gpuecon_free(req);
    return st;
}

typedef struct pair {
    const char *argv;
    const char *json;
} pair;

/* The same request both ways. Values in the JSON are typed as a user writes them. */
static const pair pairs[] = {
    {"cost --system hgx-h100 --profile hyperscaler --tokens-per-s 728 --pue 1.3 --json",
     "{\"command\": \"cost\", \"options\": {\"system\": \"hgx-h100\", \"profile\": \"hyperscaler\","
     " \"tokens_per_s\": 728, \"pue\": 1.3}}"},
    {"cost --system hgx-h100 --tokens-per-s 202.3 --tokens 15T",
     "{\"command\": \"cost\", \"options\": {\"system\": \"hgx-h100\", \"tokens_per_s\": 202.3,"
     " \"tokens\": 15e12, \"format\": \"table\"}}"},
    {"train --model gpt3-175b --system hgx-h100 --gpus 128 --precision fp8 --seq 2048 --gbs 256 --tp 4 --pp 8 "
     "--vpp 12 --mbs 1 --json",
     "{\"command\": \"train\", \"options\": {\"model\": \"gpt3-175b\", \"system\": \"hgx-h100\", \"gpus\": 128,"
     " \"precision\": \"fp8\", \"seq\": 2048, \"gbs\": 256, \"tp\": 4, \"pp\": 8, \"vpp\": 12, \"mbs\": 1}}"},
    {"infer --model gemma4-31b --system hgx-h100 --weights fp8 --kv fp8 --json",
     "{\"command\": \"infer\", \"options\": {\"model\": \"gemma4-31b\", \"system\": \"hgx-h100\","
     " \"weights\": \"fp8\", \"kv\": \"fp8\"}}"},
    {"comm --system hgx-h100 --op all-reduce --gpus 8 --bytes 1G --json",
     "{\"command\": \"comm\", \"options\": {\"system\": \"hgx-h100\", \"op\": \"all-reduce\", \"gpus\": 8,"
     " \"bytes\": 1e9}}"},
    {"reliability --system hgx-h100 --mtbi-gpu-days 2111.5 --active-gpus 16384 --days 54 --json",
     "{\"command\": \"reliability\", \"options\": {\"system\": \"hgx-h100\", \"mtbi_gpu_days\": 2111.5,"
     " \"active_gpus\": 16384, \"days\": 54}}"},
    {"catalog systems hgx-h100 --json",
     "{\"command\": \"catalog\", \"args\": [\"systems\", \"hgx-h100\"], \"options\": {\"format\": \"json\"}}"},
    {"catalog gpus --csv", "{\"command\": \"catalog\", \"args\": [\"gpus\"], \"options\": {\"csv\": true}}"},
    {"reproduce --json", "{\"command\": \"reproduce\"}"},
};

static void test_argv_and_json_agree(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = new_ctx();
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        gpuecon_error e1, e2;
        char *a = NULL, *b = NULL;
        int s1 = run_argv(ctx, pairs[i].argv, &a, &e1);
        int s2 = gpuecon_request(ctx, pairs[i].json, &b, &e2);
        if (s1 || s2)
            print_error("%s: %d %s: %s / %d %s: %s\n", pairs[i].argv, s1, e1.where, e1.message, s2, e2.where,
                        e2.message);
        assert_int_equal(s1, GPUECON_OK);
        assert_int_equal(s2, GPUECON_OK);
        assert_non_null(a);
        assert_non_null(b);
        assert_true(strlen(a) > 40);
        if (strcmp(a, b))
            print_error("%s: outputs differ\n", pairs[i].argv);
        assert_string_equal(a, b);
        gpuecon_free(a);
        gpuecon_free(b);
    }
    gpuecon_ctx_free(ctx);
}

/* The response is the JSON of `cost --json`, with SemiAnalysis's figure in it. */
static void test_cost_value(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = new_ctx();
    char *out = NULL;
    gpuecon_error err;
    assert_int_equal(gpuecon_request(ctx, pairs[0].json, &out, &err), GPUECON_OK);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    assert_non_null(j);
    assert_close(json_number_value(json_object_get(j, "usd_per_mtok")), 0.542, 0.01);
    assert_string_equal(json_string_value(json_object_get(j, "system")), "hgx-h100");
    json_decref(j);
    gpuecon_free(out);
    gpuecon_ctx_free(ctx);
}

typedef struct bad {
    const char *argv;          /* NULL: no command-line form */
    const char *json;
    int code;
    const char *where, *message; /* message: a prefix */
} bad;

static const bad bads[] = {
    {"cost --sytem hgx-h100", "{\"command\": \"cost\", \"options\": {\"sytem\": \"hgx-h100\"}}", GPUECON_E_INPUT,
     "--sytem", "unknown option; did you mean --system?"},
    {"cost --system hgx-h100 --tokens-per-s 100 --pue 0.9",
     "{\"command\": \"cost\", \"options\": {\"system\": \"hgx-h100\", \"tokens_per_s\": 100, \"pue\": 0.9}}",
     GPUECON_E_INPUT, "--pue", "0.9 is out of range; allowed 1 to 3"},
    {"cost --system hgx-h100", "{\"command\": \"cost\", \"options\": {\"system\": \"hgx-h100\"}}", GPUECON_E_INPUT,
     "--tokens-per-s", "is required"},
    {"frobnicate", "{\"command\": \"frobnicate\"}", GPUECON_E_INPUT, "frobnicate", "unknown command"},
    {"cost --system hgx-h10 --tokens-per-s 100",
     "{\"command\": \"cost\", \"options\": {\"system\": \"hgx-h10\", \"tokens_per_s\": 100}}", GPUECON_E_NOTFOUND,
     "--system", ""},
    {"infer --model gemma4-31b --system hgx-h100 --gpus many",
     "{\"command\": \"infer\", \"options\": {\"model\": \"gemma4-31b\", \"system\": \"hgx-h100\", \"gpus\": \"many\"}}",
     GPUECON_E_INPUT, "--gpus", "'many' is not a whole number"},
    {NULL, "{\"command\": \"infer\", \"options\": {\"gpus\": 2.5}}", GPUECON_E_INPUT, "--gpus",
     "'2.5' is not a whole number"},
    {NULL, "{\"command\": \"cost\", \"options\": {\"tokens_per_s\": true}}", GPUECON_E_INPUT, "--tokens-per-s",
     "expected a number"},
    {NULL, "{\"command\": \"compare\", \"options\": {\"no_sensitivity\": 1}}", GPUECON_E_INPUT, "--no-sensitivity",
     "expected true or false"},
    /* the model names options by request key (options.tp, options.gpus): the request spells them
     * as the command line does, in where and in the message */
    {"infer --model llama3-8b --system hgx-h100 --gpus 8 --tp 3",
     "{\"command\": \"infer\", \"options\": {\"model\": \"llama3-8b\", \"system\": \"hgx-h100\", \"gpus\": 8, "
     "\"tp\": 3}}",
     GPUECON_E_INPUT, "--tp", "3 does not divide --gpus 8"},
    {NULL, "{\"command\": \"cost\", \"opts\": {}}", GPUECON_E_INPUT, "request", "unknown key 'opts'"},
    {NULL, "{\"options\": {}}", GPUECON_E_INPUT, "request", "\"command\" is required"},
    {NULL, "[1, 2]", GPUECON_E_INPUT, "request", "expected a JSON object"},
    {NULL, "{\"command\": \"cost\", \"options\": {\"pue\": 1.3, \"pue\": 1.2}}", GPUECON_E_PARSE, "request",
     "duplicate object key"},
    {NULL, "{\"command\": \"catalog\", \"args\": [\"gpus\", \"h100\", \"x\"]}", GPUECON_E_INPUT, "x",
     "unexpected argument"},
};

static void check_bad(const char *label, int st, const gpuecon_error *e, const bad *b)
{
    if (st != b->code || strcmp(e->where, b->where) || strncmp(e->message, b->message, strlen(b->message)))
        print_error("%s: got %d '%s' '%s', expected %d '%s' '%s...'\n", label, st, e->where, e->message, b->code,
                    b->where, b->message);
    assert_int_equal(st, b->code);
    assert_string_equal(e->where, b->where);
    assert_int_equal(strncmp(e->message, b->message, strlen(b->message)), 0);
}

static void test_errors(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = new_ctx();
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        gpuecon_error e1, e2;
        char *out = NULL;
        int st = gpuecon_request(ctx, bads[i].json, &out, &e2);
        check_bad(bads[i].json, st, &e2, &bads[i]);
        assert_null(out);
        if (bads[i].argv) {
            st = run_argv(ctx, bads[i].argv, &out, &e1);
            check_bad(bads[i].argv, st, &e1, &bads[i]);
            assert_string_equal(e1.message, e2.message);
            gpuecon_free(out);
        }
    }
    gpuecon_ctx_free(ctx);
}

/* A context's max_work_limit_s (what gpuecon serve sets): "max_work" may lower the budget, never
 * raise it, read by the library's own parser, so "1k" is 1000 CPU-seconds (> 60) and is refused
 * while "30" is not. */
static void test_max_work_limit(void **state)
{
    (void)state;
    gpuecon_ctx_config cfg = {.max_work_limit_s = 60};
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    assert_non_null(ctx);
    const char *over[] = {"\"1k\"", "61", "\"6.1e1\""};
    for (size_t i = 0; i < sizeof over / sizeof over[0]; i++) {
        char req[256];
        snprintf(req, sizeof req,
                 "{\"command\": \"cost\", \"options\": {\"max_work\": %s, \"system\": \"hgx-h100\", "
                 "\"profile\": \"hyperscaler\", \"tokens_per_s\": 800}}", over[i]);
        char *out = NULL;
        gpuecon_error err;
        assert_int_equal(gpuecon_request(ctx, req, &out, &err), GPUECON_E_INPUT);
        assert_null(out);
        assert_string_equal(err.where, "--max-work");
        assert_non_null(strstr(err.message, "limit of 60"));
    }
    char *out = NULL;
    gpuecon_error err;
    assert_int_equal(gpuecon_request(ctx,
                                     "{\"command\": \"cost\", \"options\": {\"max_work\": \"30\", \"system\": "
                                     "\"hgx-h100\", \"profile\": \"hyperscaler\", \"tokens_per_s\": 800}}",
                                     &out, &err),
                     GPUECON_OK);
    gpuecon_free(out);
    gpuecon_ctx_free(ctx);
}

/* A file given inline ({"text": ...}, issue 49): in a no_files context (gpuecon serve's) a lengths histogram
 * travels as text and is used; one byte over CLI_INLINE_MAX (1 MiB) is refused naming the option, as is an
 * output path (--plot) given as an object, which has no contents to give. */
static void test_inline_files(void **state)
{
    (void)state;
    gpuecon_ctx_config cfg = {.no_files = true};
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    assert_non_null(ctx);
    static const char head[] = "{\"command\": \"infer\", \"options\": {\"model\": \"llama3-8b\", \"system\": "
                               "\"hgx-h100\", \"gpus\": 8, \"simulate\": true, \"rate\": 1, \"requests\": 50, "
                               "\"json\": true, \"lengths\": {\"text\": \"";
    size_t big = 1024 * 1024 + 1, hl = strlen(head);
    char *req = malloc(hl + big + 16);
    assert_non_null(req);
    memcpy(req, head, hl);
    memset(req + hl, ' ', big); /* blanks: one byte over the cap */
    memcpy(req + hl + big - 4, "1 1 ", 4);
    strcpy(req + hl + big, "\"}}}");
    char *out = NULL;
    gpuecon_error err;
    assert_int_equal(gpuecon_request(ctx, req, &out, &err), GPUECON_E_INPUT);
    assert_null(out);
    assert_string_equal(err.where, "--lengths");
    assert_non_null(strstr(err.message, "1048577 bytes; at most 1048576"));
    /* at the cap it is read (and parsed: "1 1" is one bin of a 1-token prompt and a 1-token output) */
    strcpy(req + hl + big - 1, "\"}}}");
    assert_int_equal(gpuecon_request(ctx, req, &out, &err), GPUECON_OK);
    assert_non_null(strstr(out, "\"tpot_ms_p50\""));
    gpuecon_free(out);
    free(req);
    assert_int_equal(gpuecon_request(ctx,
                                     "{\"command\": \"infer\", \"options\": {\"model\": \"llama3-8b\", \"system\": "
                                     "\"hgx-h100\", \"gpus\": 8, \"sweep\": true, \"plot\": {\"text\": \"x\"}}}",
                                     &out, &err),
                     GPUECON_E_INPUT);
    assert_string_equal(err.where, "--plot");
    gpuecon_ctx_free(ctx);
}

/* Malformed JSON: a parse error with its position. */
static void test_malformed(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = new_ctx();
    char *out = (char *)"x";
    gpuecon_error e;
    assert_int_equal(gpuecon_request(ctx, "{\"command\": \"cost\",\n \"options\": {\"pue\": }}", &out, &e),
                     GPUECON_E_PARSE);
    assert_null(out);
    assert_string_equal(e.where, "request");
    assert_int_equal(e.line, 2);
    assert_true(e.column > 10);
    gpuecon_ctx_free(ctx);
}

/* Error texts are well-formed UTF-8, so every front end can put them in JSON: jansson's
 * message for a bad escape quotes the request up to the lead byte of a two-byte character
 * (0xdf 0xa7, U+07E7) and cuts it; gpuecon_error_scrub turns each byte of a malformed or cut
 * sequence into '?' and keeps valid ones. (The web API answered this request with a 500 "out of
 * memory" before: fuzz_request, tests/fuzz/corpus-request/utf8-cut-in-parse-error.) */
static void test_error_text_utf8(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = new_ctx();
    char *out = NULL;
    gpuecon_error e;
    assert_int_equal(gpuecon_request(ctx, "{\"command\": \"cost\", \"options\": {\"pue\": \"\\\xdf\xa7\"}}", &out, &e),
                     GPUECON_E_PARSE);
    assert_true(is_utf8(e.message));
    assert_non_null(strstr(e.message, "\\?"));
    gpuecon_error s;
    gpuecon_error_clear(&s);
    snprintf(s.where, sizeof s.where, "caf\xc3\xa9 \xe2\x82");               /* é kept, a cut € */
    snprintf(s.message, sizeof s.message, "\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 ok"); /* overlong, surrogate, > U+10FFFF */
    gpuecon_error_scrub(&s);
    assert_string_equal(s.where, "caf\xc3\xa9 "); /* the cut euro sign at the end is dropped */
    assert_string_equal(s.message, "?? ??? ???? ok");
    gpuecon_error_scrub(NULL);
    gpuecon_ctx_free(ctx);
}

/* A platform may be named with any UTF-8 text up to 512 bytes, and the comparison's sentences
 * (verdict, break-even lines, chart titles) quote names in fixed buffers: every output format
 * stays well-formed UTF-8, a cut character dropped, and the JSON keeps every break-even text
 * (jansson refuses a malformed one, which dropped the field before). */
static void test_compare_names_utf8(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = new_ctx();
    char name[520] = "";
    while (strlen(name) + 12 < 500) /* 10 bytes: two 2-byte letters and a 3-byte euro sign */
        strcat(name, "Pl\xc3\xa4tf\xc3\xb6rm\xe2\x82\xac");
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "workload: {kind: train, model: llama3-8b, precision: bf16, tokens: 1e12, seq: 8192, gbs: 64}\n"
             "platforms:\n  - {name: \"%s\", system: hgx-h100, gpus: 64}\n"
             "  - {name: \"B%s\", system: hgx-b200, gpus: 64}\n",
             name, name);
    const char *formats[] = {"json", "table", "html", "csv"};
    for (size_t i = 0; i < 4; i++) {
        json_t *q = json_pack("{s:s, s:{s:s, s:s}}", "command", "compare", "options", "scenario", yaml, "format",
                              formats[i]);
        char *rq = json_dumps(q, 0), *out = NULL;
        gpuecon_error e;
        assert_int_equal(gpuecon_request(ctx, rq, &out, &e), GPUECON_OK);
        if (!is_utf8(out))
            fail_msg("compare --format %s: output is not well-formed UTF-8", formats[i]);
        if (i == 0) {
            json_t *doc = json_loads(out, 0, NULL);
            json_t *be = json_object_get(doc, "breakeven");
            assert_true(json_array_size(be) >= 1);
            for (size_t k = 0; k < json_array_size(be); k++)
                assert_non_null(json_string_value(json_object_get(json_array_get(be, k), "text")));
            json_decref(doc);
        }
        gpuecon_free(out);
        free(rq);
        json_decref(q);
    }
    gpuecon_ctx_free(ctx);
}

/* Help is a response, and an infeasible job returns its report with E_INFEASIBLE. */
static void test_help_and_infeasible(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = new_ctx();
    char *out = NULL;
    gpuecon_error e;
    assert_int_equal(gpuecon_request(ctx, "{\"command\": \"cost\", \"options\": {\"help\": true}}", &out, &e),
                     GPUECON_OK);
    assert_non_null(out);
    assert_int_equal(strncmp(out, "usage: gpuecon cost", 19), 0);
    gpuecon_free(out);
    char *notes = NULL;
    int st = gpuecon_request_full(ctx,
                                  "{\"command\": \"infer\", \"options\": {\"model\": \"llama3-405b\", \"system\":"
                                  " \"hgx-h100\", \"gpus\": 1, \"tp\": 1}}",
                                  &out, &notes, &e);
    assert_int_equal(st, GPUECON_E_INFEASIBLE);
    assert_non_null(out);
    assert_non_null(strstr(out, "\"fits\": false"));
    assert_non_null(strstr(notes, "does not fit"));
    assert_non_null(strstr(e.message, "does not fit"));
    gpuecon_free(out);
    gpuecon_free(notes);
    gpuecon_ctx_free(ctx);
}

/* compare: a scenario inline (YAML text, or the same document as a JSON object) answers as
 * the file does. */
static void test_compare_inline(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = new_ctx();
    const char *path = GPUECON_SOURCE_DIR "/tests/cases/scenarios/infeasible.yaml";
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char doc[8192];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = '\0';
    json_t *a = json_pack("{s:s, s:[s], s:{s:b}}", "command", "compare", "args", path, "options", "no_sensitivity", 1);
    json_t *b = json_pack("{s:s, s:{s:s, s:b}}", "command", "compare", "options", "scenario", doc, "no_sensitivity", 1);
    char *ra = json_dumps(a, 0), *rb = json_dumps(b, 0);
    char *oa = NULL, *ob = NULL;
    gpuecon_error e;
    assert_int_equal(gpuecon_request(ctx, ra, &oa, &e), GPUECON_OK);
    assert_int_equal(gpuecon_request(ctx, rb, &ob, &e), GPUECON_OK);
    assert_string_equal(oa, ob);
    assert_non_null(strstr(oa, "\"comparisons\""));
    /* a JSON object is the same document */
    const char *yaml = "workload: {kind: serve, model: llama3-405b}\n"
                       "platforms:\n  - {name: eight B200, system: hgx-b200, gpus: 8, tp: 8, precision: fp8}\n";
    const char *obj = "{\"command\": \"compare\", \"options\": {\"scenario\": {\"workload\": {\"kind\": \"serve\","
                      " \"model\": \"llama3-405b\"}, \"platforms\": [{\"name\": \"eight B200\", \"system\":"
                      " \"hgx-b200\", \"gpus\": 8, \"tp\": 8, \"precision\": \"fp8\"}]}, \"no_sensitivity\": true}}";
    json_t *y = json_pack("{s:s, s:{s:s, s:b}}", "command", "compare", "options", "scenario", yaml, "no_sensitivity", 1);
    char *ry = json_dumps(y, 0), *oy = NULL, *oo = NULL;
    assert_int_equal(gpuecon_request(ctx, ry, &oy, &e), GPUECON_OK);
    assert_int_equal(gpuecon_request(ctx, obj, &oo, &e), GPUECON_OK);
    assert_string_equal(oy, oo);
    assert_non_null(strstr(oy, "eight B200"));
    free(ry);
    gpuecon_free(oy);
    gpuecon_free(oo);
    json_decref(y);
    /* both at once is refused */
    json_object_set_new(a, "options", json_pack("{s:s}", "scenario", doc));
    char *rc = json_dumps(a, 0), *oc = NULL;
    assert_int_equal(gpuecon_request(ctx, rc, &oc, &e), GPUECON_E_INPUT);
    assert_string_equal(e.where, "--scenario");
    free(ra);
    free(rb);
    free(rc);
    gpuecon_free(oa);
    gpuecon_free(ob);
    json_decref(a);
    json_decref(b);
    gpuecon_ctx_free(ctx);
}

/* --plot: the chart comes back as a gnuplot script for the front end; the library writes no file */
static void test_plots(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = new_ctx();
    char dir[] = "/tmp/gpuecon-plot-XXXXXX", path[64], req[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/comm.svg", dir);
    snprintf(req, sizeof req,
             "{\"command\": \"comm\", \"options\": {\"system\": \"hgx-h100\", \"op\": \"all-reduce\", "
             "\"gpus\": 8, \"sweep_bytes\": true, \"plot\": \"%s\", \"format\": \"table\"}}",
             path);
    char *out = NULL, *notes = NULL, *plots = NULL;
    gpuecon_error err;
    assert_int_equal(gpuecon_request_plots(ctx, req, &out, &notes, &plots, &err), GPUECON_OK);
    assert_non_null(out);
    assert_non_null(plots);
    json_t *a = json_loads(plots, 0, NULL);
    assert_true(json_is_array(a));
    assert_int_equal(json_array_size(a), 1);
    json_t *p = json_array_get(a, 0);
    assert_string_equal(json_string_value(json_object_get(p, "path")), path);
    assert_true(json_is_false(json_object_get(p, "required"))); /* comm: a failed chart is a note */
    assert_true(json_is_false(json_object_get(p, "announce")));
    const char *script = json_string_value(json_object_get(p, "gnuplot"));
    assert_non_null(script);
    char want[128];
    snprintf(want, sizeof want, "set output \"%s\"\n", path);
    assert_non_null(strstr(script, want));
    assert_true(strncmp(script, "set terminal svg size 800,480", 29) == 0);
    assert_non_null(strstr(script, "set logscale x 2\nset logscale y 10\n")); /* bytes and GB/s on log axes */
    const char *data = strstr(script, "$D0 << EOD\n"), *end = data ? strstr(data, "EOD\nplot ") : NULL;
    assert_non_null(end);
    int rows = 0;
    for (const char *q = data; q < end; q++)
        rows += *q == '\n';
    assert_true(rows - 1 >= 10); /* a sweep of message sizes, one "x y" line each */
    assert_int_equal(access(path, F_OK), -1); /* nothing written */
    json_decref(a);
    gpuecon_free(out);
    gpuecon_free(notes);
    gpuecon_free(plots);
    /* a front end that takes no charts is told, and still nothing is written */
    assert_int_equal(gpuecon_request_full(ctx, req, &out, &notes, &err), GPUECON_OK);
    assert_non_null(strstr(notes, "gpuecon: --plot: not drawn"));
    assert_int_equal(access(path, F_OK), -1);
    gpuecon_free(out);
    gpuecon_free(notes);
    assert_int_equal(rmdir(dir), 0);
    gpuecon_ctx_free(ctx);
}

/* One exit code per status, and one error line, for every front end (docs/cli.md) */
static void test_exit_codes_and_error_line(void **state)
{
    (void)state;
    assert_int_equal(gpuecon_exit_code(GPUECON_OK), 0);
    assert_int_equal(gpuecon_exit_code(GPUECON_E_INPUT), 2);
    assert_int_equal(gpuecon_exit_code(GPUECON_E_PARSE), 2);
    assert_int_equal(gpuecon_exit_code(GPUECON_E_IO), 2);
    assert_int_equal(gpuecon_exit_code(GPUECON_E_NOTFOUND), 2);
    assert_int_equal(gpuecon_exit_code(GPUECON_E_INFEASIBLE), 3);
    assert_int_equal(gpuecon_exit_code(GPUECON_E_CANCELED), 130);
    assert_int_equal(gpuecon_exit_code(GPUECON_E_NOMEM), 1);
    assert_int_equal(gpuecon_exit_code(GPUECON_E_INTERNAL), 1);
    gpuecon_error e;
    gpuecon_error_clear(&e);
    char line[GPUECON_ERROR_LINE_MAX];
    e.code = GPUECON_E_PARSE;
    snprintf(e.where, sizeof e.where, "cat/systems.yaml");
    e.line = 9, e.column = 10;
    snprintf(e.message, sizeof e.message, "pue: 0.8 is out of range; allowed 1 to 3");
    gpuecon_error_format(&e, line, sizeof line);
    assert_string_equal(line, "gpuecon: cat/systems.yaml:9:10: pue: 0.8 is out of range; allowed 1 to 3");
    e.line = e.column = 0;
    snprintf(e.where, sizeof e.where, "--pue");
    gpuecon_error_format(&e, line, sizeof line);
    assert_string_equal(line, "gpuecon: --pue: pue: 0.8 is out of range; allowed 1 to 3");
    e.where[0] = e.message[0] = '\0';
    gpuecon_error_format(&e, line, sizeof line);
    assert_string_equal(line, "gpuecon: parse error");
    /* the longest record fits in GPUECON_ERROR_LINE_MAX, whole */
    memset(e.where, 'w', sizeof e.where - 1), e.where[sizeof e.where - 1] = '\0';
    memset(e.message, 'm', sizeof e.message - 1), e.message[sizeof e.message - 1] = '\0';
    e.line = e.column = 2147483647;
    gpuecon_error_format(&e, line, sizeof line);
    assert_int_equal(strlen(line), strlen("gpuecon: ") + 255 + strlen(":2147483647:2147483647: ") + 511);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_argv_and_json_agree), cmocka_unit_test(test_cost_value),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_max_work_limit),              cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_inline_files),
        cmocka_unit_test(test_help_and_infeasible), cmocka_unit_test(test_compare_inline),
        cmocka_unit_test(test_error_text_utf8),     cmocka_unit_test(test_compare_names_utf8),
        cmocka_unit_test(test_plots),               cmocka_unit_test(test_exit_codes_and_error_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
