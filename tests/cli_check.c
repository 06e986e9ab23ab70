/*
 * cli_check.c — see cli_check.h.
 */
#include "cli_check.h"

#include "analysis/analysis.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Keys whose null means "not applicable" (docs/cli.md, "JSON nulls"): everything else that
 * is null was a NaN or an infinity turned into null by rjson_real. */
static const char *const na_keys[] = {
    "overflow_term", "moe", "breakeven", "ratio", "cheapest", "fastest", "tco_profile",
    "usd_per_mtok", "usd_per_gpu_hour", "published_usd_per_gpu_hour",
    "value", /* catalog: a text field the entry does not set */
    "days_to_train", "total_usd", "energy_mwh", /* serving without a token count */
    "days_mean", "days_p10", "days_p50", "days_p90", /* a Monte Carlo without a token count */
    /* issue 15: dates and choices that do not exist (no crossing, no flip, never) */
    "breakeven_date", "advantage_vanishes_date", "flip_tier", "fastest_within_budget", "own_beats_rent_month",
    "predicted_tokens_per_s_per_gpu", /* a platform whose throughput timeline is used as published */
    "scale_warning",  /* a layout within where runs scale */
    "precision_note", /* infer --search: the precisions were given, or kept at BF16 */
    "joules_per_token", "cost_note", /* a figure the cost model refuses (with cost_note) */
    "sizing", "units", "config", /* serving not at a rate; searched at its own gpus; nothing met the targets */
    "layout_choice", "smallest", /* infer: the layout was given; the smallest that fits does not serve the rate */
    "aggregated", /* infer --disagg-search: no aggregated configuration serves the rate */
    "at_low", "at_high", /* train --target-days: no size up to --max-gpus meets the deadline at a band's end */
    /* compare's summary[]: nothing flips it (or operator tiers), no runner-up, no feasible platform */
    "flip", "runner_up", "runner_up_usd_per_mtok", "below", "difference", "cheapest_usd_per_mtok",
    NULL};

static bool na_key(const char *k)
{
    for (int i = 0; na_keys[i]; i++)
        if (!strcmp(na_keys[i], k))
            return true;
    return false;
}

static bool null_at(json_t *j, const char *key, char *path, size_t cap)
{
    size_t used = strlen(path);
    if (json_is_null(j))
        return !na_key(key);
    if (json_is_object(j)) {
        const char *k;
        json_t *v;
        json_t *trials = json_object_get(j, "trials");
        if (json_is_integer(trials) && json_integer_value(trials) == 0)
            return false; /* a Monte Carlo of no trials: its statistics are not applicable */
        if (json_is_false(json_object_get(j, "feasible")) && json_is_string(json_object_get(j, "why")))
            return false; /* a platform that cannot run the workload: its figures are not applicable */
        json_object_foreach (j, k, v) {
            snprintf(path + used, cap - used, ".%s", k);
            if (null_at(v, k, path, cap))
                return true;
        }
    } else if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach (j, i, v) {
            snprintf(path + used, cap - used, "[%zu]", i);
            if (null_at(v, key, path, cap))
                return true;
        }
    }
    path[used] = '\0';
    return false;
}

static bool takes_value(const char *a)
{
    return !strcmp(a, "--format") || !strcmp(a, "--catalog") || !strcmp(a, "--model-file") ||
           !strcmp(a, "--max-work");
}

int cli_check_run(int argc, char **argv, char **out, size_t *len)
{
    int ci = 0;
    for (int i = 1; i < argc && !ci; i++) {
        if (argv[i][0] != '-')
            ci = i;
        else if (takes_value(argv[i]) && !strchr(argv[i], '='))
            i++;
    }
    char **args = malloc(sizeof *args * (size_t)(argc + 1));
    if (!args)
        abort();
    int n = 0;
    args[n++] = ci ? argv[ci] : "compare";
    for (int i = 1; i < argc; i++)
        if (i != ci)
            args[n++] = argv[i];
    args[n] = NULL;
    gpuecon_ctx_config cfg = {0};
    cfg.seed = GPUECON_DEFAULT_SEED;
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
    if (!ctx)
        abort();
    gpuecon_error err;
    char *req = NULL, *text = NULL, *notes = NULL;
    int st = gpuecon_request_from_argv(ctx, n, args, &req, &err);
    if (!st)
        st = gpuecon_request_full(ctx, req, &text, &notes, &err);
    *len = text ? strlen(text) : 0;
    *out = malloc(*len + 1);
    if (!*out)
        abort();
    memcpy(*out, text ? text : "", *len + 1);
    gpuecon_free(req);
    gpuecon_free(text);
    gpuecon_free(notes);
    gpuecon_ctx_free(ctx);
    free(args);
    return gpuecon_exit_code(st);
}

bool cli_check_nonfinite(const char *out, size_t len, bool json, bool infeasible, char *why, size_t cap)
{
    if (json) {
        json_error_t je;
        json_t *j = json_loadb(out, len, 0, &je);
        if (!j) {
            snprintf(why, cap, "JSON does not parse: %s (line %d)", je.text, je.line);
            return true;
        }
        char path[512] = "";
        bool bad = !infeasible && null_at(j, "", path, sizeof path);
        json_decref(j);
        if (bad)
            snprintf(why, cap, "null (a NaN or infinity) at %s", path);
        return bad;
    }
    for (size_t i = 0; i + 3 <= len; i++) {
        bool start = i == 0 || !isalnum((unsigned char)out[i - 1]);
        bool nan = !strncasecmp(out + i, "nan", 3), inf = !strncasecmp(out + i, "inf", 3);
        bool end = i + 3 == len || !isalnum((unsigned char)out[i + 3]); /* printf's nan, inf */
        if (start && end && (nan || inf)) {
            size_t a = i > 30 ? i - 30 : 0;
            snprintf(why, cap, "'%.*s' in the output: ...%.*s...", 3, out + i, (int)(i + 33 - a), out + a);
            return true;
        }
    }
    return false;
}
