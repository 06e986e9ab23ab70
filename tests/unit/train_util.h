/*
 * train_util.h — helpers shared by the training-model tests (test_train.c, test_moe.c).
 */
#ifndef GPUECON_TRAIN_UTIL_H
#define GPUECON_TRAIN_UTIL_H

#include "test_util.h"

#include <string.h>

/* A request for `model` on `system` with the framework defaults; sizes left to search. */
static inline gpuecon_train_request req_for(void **state, const char *model, const char *system, int gpus, int seq,
                                            int gbs)
{
    gpuecon_train_request q;
    gpuecon_train_request_init(&q);
    q.model = gpuecon_catalog_model(CAT(state), model);
    q.system = gpuecon_catalog_system(CAT(state), system);
    assert_non_null(q.model);
    assert_non_null(q.system);
    q.gpus = gpus, q.seq = seq, q.gbs = gbs;
    return q;
}

/* gpuecon_train_predict must succeed. */
static inline gpuecon_train_result predict_ok(gpuecon_train_request *q)
{
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_train_result r;
    gpuecon_error err;
    int rc = gpuecon_train_predict(ctx, q, &r, &err);
    gpuecon_ctx_free(ctx);
    if (rc)
        fail_msg("predict: %s: %s", err.where, err.message);
    return r;
}

/* gpuecon_train_predict must refuse q with GPUECON_E_INPUT, naming `where` and saying `what`. */
static inline void expect_input(gpuecon_train_request *q, const char *where, const char *what)
{
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_train_result r;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    int rc = gpuecon_train_predict(ctx, q, &r, &err);
    gpuecon_ctx_free(ctx);
    if (rc != GPUECON_E_INPUT)
        fail_msg("expected GPUECON_E_INPUT for %s, got %d (%s)", where, rc, err.message);
    assert_string_equal(err.where, where);
    if (!strstr(err.message, what))
        fail_msg("%s: '%s' lacks '%s'", where, err.message, what);
}

#endif
