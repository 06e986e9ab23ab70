/*
 * test_util.h — shared helpers for the cmocka unit tests.
 *
 * Expected numbers in tests are derived by hand or taken from published figures (each test
 * says which); never copied from the program's own output.
 */
#ifndef GPUECON_TEST_UTIL_H
#define GPUECON_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>

#include "analysis/analysis.h"

/* |actual/expected − 1| <= rel (or |actual − expected| <= rel when expected == 0). */
#define assert_close(actual, expected, rel)                                                     \
    do {                                                                                        \
        double a_ = (actual), e_ = (expected), r_ = (rel);                                      \
        double err_ = e_ != 0 ? fabs(a_ / e_ - 1) : fabs(a_);                                   \
        if (!(err_ <= r_)) {                                                                    \
            print_error("%s = %.10g, expected %.10g within %g (off by %.4g)\n", #actual, a_,    \
                        e_, r_, err_);                                                          \
            fail();                                                                             \
        }                                                                                       \
    } while (0)

/* |actual − expected| <= abs_tol */
#define assert_near(actual, expected, abs_tol)                                                  \
    do {                                                                                        \
        double a_ = (actual), e_ = (expected), t_ = (abs_tol);                                  \
        if (!(fabs(a_ - e_) <= t_)) {                                                           \
            print_error("%s = %.10g, expected %.10g +- %g\n", #actual, a_, e_, t_);            \
            fail();                                                                             \
        }                                                                                       \
    } while (0)

typedef struct fixture {
    gpuecon_ctx *ctx;
    gpuecon_catalog *cat;
} fixture;

static inline int fixture_setup(void **state)
{
    static fixture f;
    gpuecon_error err;
    f.ctx = gpuecon_ctx_new(NULL);
    if (!f.ctx || gpuecon_catalog_new(f.ctx, &f.cat, &err)) {
        fprintf(stderr, "catalog: %s:%d:%d: %s\n", err.where, err.line, err.column, err.message);
        return -1;
    }
    *state = &f;
    return 0;
}

static inline int fixture_teardown(void **state)
{
    fixture *f = *state;
    gpuecon_catalog_free(f->cat);
    gpuecon_ctx_free(f->ctx);
    return 0;
}

#define CAT(state) (((fixture *)*(state))->cat)

#endif
