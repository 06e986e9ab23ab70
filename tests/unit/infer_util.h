/*
 * infer_util.h — helpers shared by the serving-model tests (test_infer.c, test_infer_moe.c).
 */
#ifndef GPUECON_INFER_UTIL_H
#define GPUECON_INFER_UTIL_H

#include "test_util.h"

/* gpuecon_infer must succeed. */
static inline gpuecon_infer_result run(const gpuecon_infer_request *r)
{
    gpuecon_infer_result o;
    gpuecon_error err;
    if (gpuecon_infer(r, &o, &err))
        fail_msg("gpuecon_infer: %s", err.message);
    return o;
}

/* The deployment at one concurrency c (all replicas); gpuecon_infer_sweep must succeed. */
static inline gpuecon_infer_point at(const gpuecon_infer_request *r, double c)
{
    gpuecon_infer_point p;
    gpuecon_error err;
    if (gpuecon_infer_sweep(r, &c, 1, &p, &err))
        fail_msg("gpuecon_infer_sweep: %s", err.message);
    return p;
}

#endif
