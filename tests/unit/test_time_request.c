/*
 * test_time_request.c — issue 15's options through the library's JSON entry point
 * (gpuecon_request): the run costed with goodput, the fewest GPUs for a deadline, owning vs
 * renting. Expected values follow from the inputs (the same relations as tests/cli_time.cmake).
 */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

/* the number after "key": in a JSON text (first occurrence), NaN when absent */
static double num(const char *json, const char *key)
{
    char pat[80];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(json, pat);
    return p ? strtod(p + strlen(pat), NULL) : NAN;
}

/* The reply of a request that must end with status `want`, in *out (the caller's variable:
 * gcc 12's -Wdangling-pointer misreads a reply returned from a local here). */
static void request(gpuecon_ctx *ctx, const char *req, int want, char **out)
{
    gpuecon_error err;
    *out = NULL;
    int st = gpuecon_request(ctx, req, out, &err);
    if (st != want)
        fail_msg("status %d (want %d): %s: %s", st, want, err.where, err.message);
}

#define JOB "\"model\": \"llama3-8b\", \"system\": \"hgx-b200\", \"precision\": \"fp8\", \"seq\": 8192, " \
            "\"gbs\": 512, \"profile\": \"neocloud\", \"tokens\": 1.5e13"

static void test_target_days(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    char *out;
    request(ctx, "{\"command\": \"train\", \"options\": {" JOB ", \"target_days\": 30}}", GPUECON_OK, &out);
    double n = num(out, "gpus_needed"), days = num(out, "days_to_train");
    assert_true(n > 0 && fmod(n, 8) == 0); /* whole 8-GPU nodes */
    assert_true(days <= 30);
    gpuecon_free(out);
    /* fed back with gpus: the same days; one node fewer misses the deadline or cannot run */
    char req[512];
    snprintf(req, sizeof req, "{\"command\": \"train\", \"options\": {" JOB ", \"gpus\": %.0f}}", n);
    request(ctx, req, GPUECON_OK, &out);
    double toks = num(out, "tokens_per_s_per_gpu"), ettr = num(out, "ettr");
    assert_close(num(out, "days_to_train"), days, 1e-12);
    assert_close(days, 1.5e13 / (n * toks * ettr) / 86400, 1e-9);
    gpuecon_free(out);
    snprintf(req, sizeof req, "{\"command\": \"train\", \"options\": {" JOB ", \"gpus\": %.0f}}", n - 8);
    gpuecon_error err;
    int st = gpuecon_request(ctx, req, &out, &err);
    if (st == GPUECON_OK)
        assert_true(num(out, "days_to_train") > 30);
    else
        assert_true(st == GPUECON_E_INPUT || st == GPUECON_E_INFEASIBLE);
    gpuecon_free(out);
    /* a deadline <= 0 is refused with the option's name */
    st = gpuecon_request(ctx, "{\"command\": \"train\", \"options\": {" JOB ", \"target_days\": 0}}", &out, &err);
    assert_int_equal(st, GPUECON_E_INPUT);
    assert_string_equal(err.where, "--target-days");
    gpuecon_free(out);
    gpuecon_ctx_free(ctx);
}

static void test_rent(void **state)
{
    (void)state;
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    char *out;
    request(ctx, "{\"command\": \"train\", \"options\": {" JOB ", \"gpus\": 256, "
                 "\"rent_usd_per_gpu_hour\": 3.0, \"utilisation\": 0.5}}", GPUECON_OK, &out);
    /* levelised: owning's TCO every hour against the rent for half of them */
    double tco = num(out, "tco_usd_per_gpu_hour");
    assert_close(num(out, "breakeven_utilisation"), tco / 3.0, 1e-9);
    assert_close(num(out, "own_usd_per_mtok") / num(out, "rent_usd_per_mtok"), tco / (3.0 * 0.5), 1e-9);
    gpuecon_free(out);
    gpuecon_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_target_days), cmocka_unit_test(test_rent)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
