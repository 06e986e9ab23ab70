/*
 * calibfit.c — fitting a calibration's scales to a user's measured runs (docs/model.md §3.8).
 *
 * The unknowns are a few multiplicative scales, one per family of efficiency parameters
 * (gpuecon_cal_param); the model is a callback. Which families are fitted is decided by the rows:
 * a family whose scale barely moves the predictions (mean |d ln pred / d ln scale| < 0.05) is not
 * determined by them, and one whose effect on the rows is parallel to an already chosen family's
 * (|cos| > 0.98 between the two sensitivity vectors) cannot be told apart from it, so each is
 * left as built in; never more families than rows. The fit is Gauss-Newton on the squared log
 * errors in ln(scale), projected onto the bounds, with a numerical Jacobian and step halving.
 * Leave-one-out: each row predicted from a fit on the others (the families chosen again on
 * them), started from the built-in values as a user with only those rows would be. Key choice: log errors, so a 2x miss on a small figure
 * weighs what it does on a large one, and scales act multiplicatively as they do in the model.
 */
#include "analysis/analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SENS_MIN 0.05
#define COLLINEAR 0.98
#define GN_ITER 12
#define FD_STEP 0.05 /* ln(scale) step of the numerical derivative */

typedef struct fitq {
    size_t n;
    const size_t *rows;      /* the rows fitted (indices into the caller's) */
    const double *measured;  /* by caller's index */
    calib_predict_fn predict;
    void *user;
    const double *lo, *hi;
} fitq;

static int pred_at(const fitq *q, size_t row, const double x[GPUECON_CAL_PARAMS], double *out, gpuecon_error *err)
{
    double s[GPUECON_CAL_PARAMS];
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
        s[p] = exp(x[p]);
    double f = 0;
    int rc = q->predict(q->user, row, s, &f, err);
    if (rc)
        return rc;
    if (!(f > 0) || !isfinite(f))
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "run %zu: the model predicts no positive figure", row + 1);
    *out = log(f);
    return GPUECON_OK;
}

/* Residuals r[k] = ln pred - ln measured of the fitted rows at x, and their squared sum. */
static int resid(const fitq *q, const double x[GPUECON_CAL_PARAMS], double *r, double *ss, gpuecon_error *err)
{
    *ss = 0;
    for (size_t k = 0; k < q->n; k++) {
        double lp;
        int rc = pred_at(q, q->rows[k], x, &lp, err);
        if (rc)
            return rc;
        r[k] = lp - log(q->measured[q->rows[k]]);
        *ss += r[k] * r[k];
    }
    return GPUECON_OK;
}

/* J[k][p] = d r_k / d x_p for the families in mask (central differences would double the cost;
 * a forward step of 5% in the scale is well inside the model's smooth range). */
static int jacobian(const fitq *q, const double x[GPUECON_CAL_PARAMS], const double *r, unsigned mask,
                    double J[][GPUECON_CAL_PARAMS], gpuecon_error *err)
{
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++) {
        if (!(mask & 1u << p))
            continue;
        double y[GPUECON_CAL_PARAMS];
        memcpy(y, x, sizeof y);
        double h = y[p] + FD_STEP > log(q->hi[p]) ? -FD_STEP : FD_STEP;
        y[p] += h;
        for (size_t k = 0; k < q->n; k++) {
            double lp;
            int rc = pred_at(q, q->rows[k], y, &lp, err);
            if (rc)
                return rc;
            J[k][p] = (lp - log(q->measured[q->rows[k]]) - r[k]) / h;
        }
    }
    return GPUECON_OK;
}

/* The families the rows determine, from the Jacobian at x (see the file comment). */
static unsigned choose(const fitq *q, double J[][GPUECON_CAL_PARAMS], unsigned allowed, double *sens)
{
    int order[GPUECON_CAL_PARAMS];
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++) {
        order[p] = p;
        sens[p] = 0;
        if (allowed & 1u << p)
            for (size_t k = 0; k < q->n; k++)
                sens[p] += fabs(J[k][p]) / (double)q->n;
    }
    for (int a = 0; a < GPUECON_CAL_PARAMS; a++) /* by sensitivity, largest first (stable) */
        for (int b = a + 1; b < GPUECON_CAL_PARAMS; b++)
            if (sens[order[b]] > sens[order[a]]) {
                int t = order[a];
                order[a] = order[b], order[b] = t;
            }
    unsigned mask = 0;
    size_t chosen = 0;
    for (int i = 0; i < GPUECON_CAL_PARAMS && chosen < q->n; i++) {
        int p = order[i];
        if (!(allowed & 1u << p) || sens[p] < SENS_MIN)
            continue;
        bool parallel = false;
        for (int c = 0; c < GPUECON_CAL_PARAMS && !parallel; c++) {
            if (!(mask & 1u << c))
                continue;
            double dot = 0, na = 0, nb = 0;
            for (size_t k = 0; k < q->n; k++)
                dot += J[k][p] * J[k][c], na += J[k][p] * J[k][p], nb += J[k][c] * J[k][c];
            parallel = q->n < 2 || (na > 0 && nb > 0 && fabs(dot) / sqrt(na * nb) > COLLINEAR);
        }
        if (parallel)
            continue;
        mask |= 1u << p;
        chosen++;
    }
    return mask;
}

/* Solves the normal equations (J'J + mu I) d = -J'r over the families in mask (at most 4 unknowns;
 * Gaussian elimination with partial pivoting). */
static void gn_step(size_t n, double J[][GPUECON_CAL_PARAMS], const double *r, unsigned mask, double mu,
                    double d[GPUECON_CAL_PARAMS])
{
    int idx[GPUECON_CAL_PARAMS], m = 0;
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++) {
        d[p] = 0;
        if (mask & 1u << p)
            idx[m++] = p;
    }
    double A[GPUECON_CAL_PARAMS][GPUECON_CAL_PARAMS + 1];
    for (int a = 0; a < m; a++) {
        for (int b = 0; b < m; b++) {
            A[a][b] = a == b ? mu : 0;
            for (size_t k = 0; k < n; k++)
                A[a][b] += J[k][idx[a]] * J[k][idx[b]];
        }
        A[a][m] = 0;
        for (size_t k = 0; k < n; k++)
            A[a][m] -= J[k][idx[a]] * r[k];
    }
    for (int c = 0; c < m; c++) {
        int piv = c;
        for (int a = c + 1; a < m; a++)
            if (fabs(A[a][c]) > fabs(A[piv][c]))
                piv = a;
        if (!(fabs(A[piv][c]) > 1e-12))
            return; /* singular: no step (choose() keeps this from happening) */
        for (int b = 0; b <= m; b++) {
            double t = A[c][b];
            A[c][b] = A[piv][b], A[piv][b] = t;
        }
        for (int a = 0; a < m; a++) {
            if (a == c)
                continue;
            double f = A[a][c] / A[c][c];
            for (int b = c; b <= m; b++)
                A[a][b] -= f * A[c][b];
        }
    }
    for (int a = 0; a < m; a++)
        d[idx[a]] = A[a][m] / A[a][a];
}

/* Fits q's rows from x (in/out, ln scales) over the families chosen at x. */
static int fit_rows(const fitq *q, unsigned allowed, double x[GPUECON_CAL_PARAMS], unsigned *mask_out, double *sens,
                    gpuecon_error *err)
{
    double r[CALIB_FIT_MAX], J[CALIB_FIT_MAX][GPUECON_CAL_PARAMS], ss;
    int rc = resid(q, x, r, &ss, err);
    if (!rc)
        rc = jacobian(q, x, r, allowed, J, err);
    if (rc)
        return rc;
    unsigned mask = choose(q, J, allowed, sens);
    *mask_out = mask;
    for (int it = 0; it < GN_ITER && mask && ss > 1e-14; it++) {
        if (it > 0 && (rc = jacobian(q, x, r, mask, J, err)))
            return rc;
        double d[GPUECON_CAL_PARAMS];
        gn_step(q->n, J, r, mask, 1e-9, d);
        bool moved = false;
        for (double t = 1; t > 1.0 / 64; t /= 2) { /* step halving on the projected step */
            double y[GPUECON_CAL_PARAMS], r2[CALIB_FIT_MAX], ss2;
            for (int p = 0; p < GPUECON_CAL_PARAMS; p++) {
                y[p] = x[p] + t * d[p];
                y[p] = fmin(fmax(y[p], log(q->lo[p])), log(q->hi[p]));
            }
            if ((rc = resid(q, y, r2, &ss2, err)))
                return rc;
            if (ss2 < ss) {
                memcpy(x, y, sizeof y);
                memcpy(r, r2, q->n * sizeof r[0]);
                moved = ss - ss2 > 1e-12 * (1 + ss);
                ss = ss2;
                break;
            }
        }
        if (!moved)
            break;
    }
    return GPUECON_OK;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int calib_fit_run(size_t n, const double *measured, calib_predict_fn predict, void *user, unsigned allowed,
                  const double lo[GPUECON_CAL_PARAMS], const double hi[GPUECON_CAL_PARAMS], calib_fit *out,
                  gpuecon_error *err)
{
    if (!out || !measured || !predict || !lo || !hi || n < 1 || n > CALIB_FIT_MAX)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "calibration fit: 1 to %d runs are needed", CALIB_FIT_MAX);
    memset(out, 0, sizeof *out);
    out->n = n;
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++) {
        out->scale[p] = 1;
        if (!(lo[p] > 0) || !(hi[p] >= lo[p]) || !(lo[p] <= 1 && hi[p] >= 1))
            allowed &= ~(1u << p); /* a family whose bounds exclude "as built in" is not fitted */
    }
    for (size_t i = 0; i < n; i++)
        if (!(measured[i] > 0) || !isfinite(measured[i]))
            return err_set(err, GPUECON_E_INPUT, "", 0, 0, "run %zu: the measured figure must be positive", i + 1);
    size_t all[CALIB_FIT_MAX];
    for (size_t i = 0; i < n; i++)
        all[i] = i;
    fitq q = {n, all, measured, predict, user, lo, hi};
    double x0[GPUECON_CAL_PARAMS] = {0}, x[GPUECON_CAL_PARAMS] = {0}, ss;
    int rc = resid(&q, x0, out->before, &ss, err);
    unsigned mask = 0;
    if (!rc)
        rc = fit_rows(&q, allowed, x, &mask, out->sensitivity, err);
    if (!rc)
        rc = resid(&q, x, out->after, &ss, err);
    if (rc)
        return rc;
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++) {
        out->fitted[p] = mask & 1u << p;
        out->scale[p] = exp(x[p]);
        out->at_bound[p] = out->fitted[p] && (x[p] <= log(lo[p]) + 1e-9 || x[p] >= log(hi[p]) - 1e-9);
    }
    for (size_t i = 0; i < n; i++) {
        if (out->after[i] > out->after[out->worst_a])
            out->worst_a = i;
        if (out->after[i] < out->after[out->worst_b])
            out->worst_b = i;
        out->loo[i] = NAN;
    }
    out->residual_gap = out->after[out->worst_a] - out->after[out->worst_b];
    if (n < 2)
        return GPUECON_OK;
    double absloo[CALIB_FIT_MAX];
    for (size_t i = 0; i < n; i++) {
        size_t rest[CALIB_FIT_MAX], k = 0;
        for (size_t j = 0; j < n; j++)
            if (j != i)
                rest[k++] = j;
        fitq qi = {k, rest, measured, predict, user, lo, hi};
        double xi[GPUECON_CAL_PARAMS], sens[GPUECON_CAL_PARAMS], lp;
        unsigned mi;
        memcpy(xi, x0, sizeof xi); /* from the built-in values: what the row would have been told */
        if ((rc = fit_rows(&qi, allowed, xi, &mi, sens, err)) || (rc = pred_at(&q, i, xi, &lp, err)))
            return rc;
        out->loo[i] = lp - log(measured[i]);
        absloo[i] = fabs(out->loo[i]);
    }
    qsort(absloo, n, sizeof absloo[0], cmp_d);
    double pos = 0.8 * (double)(n - 1);
    size_t a = (size_t)pos;
    out->spread = a + 1 < n ? absloo[a] + (pos - (double)a) * (absloo[a + 1] - absloo[a]) : absloo[n - 1];
    return GPUECON_OK;
}
