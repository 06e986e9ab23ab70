/*
 * fit_train.c — the tool that fitted the efficiency parameters of src/model/calib.c on the
 * calibration runs (gpuecon validate's cases marked "fit"). Not a benchmark and not run by
 * `make bench`; build with `cmake --build build-bench --target fit_train`.
 *
 *   fit_train show [ARCH.KEY=VALUE ...]            rows and errors with the given values
 *   fit_train fit ARCH KEY,KEY,... [ARCH.KEY=V ...] Nelder-Mead on those keys of ARCH
 *   FIT_MOE=1 fits the mixture-of-experts rows (group moe; least squares on log throughput)
 *   FIT_EXCLUDE=A,B,... leaves rows out of the loss (a group name or an id prefix), for
 *   hold-out checks: fit on one data set, look at the errors of the other.
 *
 * The loss is the mean absolute log error of tokens/s/GPU over the fitted rows of the
 * architecture, each data set (vtrain, narayanan, dgxc) weighted equally, with each row's
 * error capped at 0.3 (a trimmed L1): a run the model cannot explain (an anomalous
 * measurement) then cannot drag every other prediction towards it.
 */
#include "analysis/analysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gpuecon_ctx *ctx;
static gpuecon_catalog *cat;
static gpuecon_efficiency tab[16];
static size_t ntab;
static gpuecon_validate_row rows[GPUECON_VALIDATE_MAX];

static double *field(gpuecon_efficiency *e, const char *key)
{
    static const struct {
        const char *k;
        size_t off;
    } f[] = {{"gemm_bf16", offsetof(gpuecon_efficiency, gemm_bf16)},
             {"gemm_fp8", offsetof(gpuecon_efficiency, gemm_fp8)},
             {"gemm_fp4", offsetof(gpuecon_efficiency, gemm_fp4)},
             {"attn_flash", offsetof(gpuecon_efficiency, attn_flash)},
             {"attn_fwd", offsetof(gpuecon_efficiency, attn_fwd)},
             {"hbm", offsetof(gpuecon_efficiency, hbm)},
             {"kernel_s", offsetof(gpuecon_efficiency, kernel_s)},
             {"speed_cv", offsetof(gpuecon_efficiency, speed_cv)},
             {"scaleup_busbw", offsetof(gpuecon_efficiency, scaleup_busbw)},
             {"scaleout_busbw", offsetof(gpuecon_efficiency, scaleout_busbw)},
             {"coll_launch_s", offsetof(gpuecon_efficiency, coll_launch_s)},
             {"scaleout_a2a", offsetof(gpuecon_efficiency, scaleout_a2a)},
             {"grouped_gemm", offsetof(gpuecon_efficiency, grouped_gemm)},
             {"moe_host_s", offsetof(gpuecon_efficiency, moe_host_s)},
             {"moe_load_cv", offsetof(gpuecon_efficiency, moe_load_cv)}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!strcmp(f[i].k, key))
            return (double *)((char *)e + f[i].off);
    fprintf(stderr, "fit_train: unknown key %s\n", key);
    exit(2);
}

static gpuecon_efficiency *row_of(const char *arch)
{
    for (size_t i = 0; i < ntab; i++)
        if (!strcmp(tab[i].arch, arch))
            return &tab[i];
    fprintf(stderr, "fit_train: unknown arch %s\n", arch);
    exit(2);
}

static void apply(const char *assign)
{
    char a[128];
    snprintf(a, sizeof a, "%s", assign);
    char *dot = strchr(a, '.'), *eq = strchr(a, '=');
    if (!dot || !eq || eq < dot) {
        fprintf(stderr, "fit_train: expected ARCH.KEY=VALUE, got %s\n", assign);
        exit(2);
    }
    *dot = *eq = '\0';
    *field(row_of(a), dot + 1) = atof(eq + 1);
}

static size_t run(void)
{
    size_t n = 0;
    gpuecon_error err;
    if (gpuecon_validate(ctx, cat, tab, ntab, rows, GPUECON_VALIDATE_MAX, &n, NULL, NULL, &err))
        return 0; /* out of range: the loss is then infinite */
    return n;
}

static bool excluded(const gpuecon_validate_row *r)
{
    const char *ex = getenv("FIT_EXCLUDE");
    if (!ex || !*ex)
        return false;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", ex);
    for (char *s = strtok(buf, ","); s; s = strtok(NULL, ","))
        if (!strcmp(r->group, s) || !strncmp(r->id, s, strlen(s)))
            return true;
    return false;
}

static bool on_arch(const gpuecon_validate_row *r, const char *arch)
{
    bool ampere = strstr(r->what, "a100") || strstr(r->what, "A100");
    bool blackwell = strstr(r->what, "gb200") || strstr(r->what, "b200");
    if (!strcmp(arch, "all"))
        return true;
    if (!strcmp(arch, "blackwell"))
        return blackwell;
    return !strcmp(arch, "ampere") ? ampere : !ampere && !blackwell;
}

static double loss(const char *arch)
{
    size_t n = run();
    if (!n)
        return INFINITY;
    const char *groups[] = {"vtrain", "narayanan", "dgxc", "moe"};
    bool moe = getenv("FIT_MOE") != NULL; /* fit the MoE rows (docs/model.md §4.5) instead */
    double total = 0, worst = 0;
    int ng = 0;
    for (int g = moe ? 3 : 0; g < (moe ? 4 : 3); g++) {
        double s = 0;
        int k = 0;
        for (size_t i = 0; i < n; i++) {
            if (!rows[i].fitted_on || strcmp(rows[i].group, groups[g]) || !on_arch(&rows[i], arch) ||
                excluded(&rows[i]))
                continue;
            double e = fabs(log1p(rows[i].rel_err));
            s += moe ? e * e : (e < 0.3 ? e : 0.3); /* MoE: least squares, every run must come close */
            k++;
            if (e > worst)
                worst = e;
        }
        if (k) {
            total += s / k;
            ng++;
        }
    }
    (void)worst;
    return ng ? total / ng : 0;
}

static void show(void)
{
    size_t n = run();
    if (!n)
        fprintf(stderr, "fit_train: a value is out of range\n");
    for (size_t i = 0; i < n; i++)
        printf("%-10s %-9s %-44s %-30s %10.1f %10.1f %+7.1f%%\n", rows[i].id, rows[i].group, rows[i].what,
               rows[i].config, rows[i].published, rows[i].predicted, 100 * rows[i].rel_err);
}

/* Nelder-Mead over k parameters, in log space (all are positive). */
static void fit(const char *arch, char **keys, int k)
{
    gpuecon_efficiency *e = row_of(arch);
    double *p[8];
    for (int i = 0; i < k; i++)
        p[i] = field(e, keys[i]);
    double x[9][8], f[9];
    for (int v = 0; v <= k; v++) {
        for (int i = 0; i < k; i++)
            x[v][i] = log(*p[i]) + (v == i + 1 ? 0.15 : 0);
    }
    for (int v = 0; v <= k; v++) {
        for (int i = 0; i < k; i++)
            *p[i] = exp(x[v][i]);
        f[v] = loss(arch);
    }
    for (int it = 0; it < 400; it++) {
        int hi = 0, lo = 0;
        for (int v = 1; v <= k; v++) {
            if (f[v] > f[hi])
                hi = v;
            if (f[v] < f[lo])
                lo = v;
        }
        double c[8] = {0}, xr[8], xe[8];
        for (int v = 0; v <= k; v++)
            if (v != hi)
                for (int i = 0; i < k; i++)
                    c[i] += x[v][i] / k;
        for (int i = 0; i < k; i++)
            xr[i] = c[i] + (c[i] - x[hi][i]), *p[i] = exp(xr[i]);
        double fr = loss(arch);
        if (fr < f[lo]) {
            for (int i = 0; i < k; i++)
                xe[i] = c[i] + 2 * (c[i] - x[hi][i]), *p[i] = exp(xe[i]);
            double fe = loss(arch);
            if (fe < fr)
                memcpy(x[hi], xe, sizeof xe), f[hi] = fe;
            else
                memcpy(x[hi], xr, sizeof xr), f[hi] = fr;
        } else {
            int second = lo;
            for (int v = 0; v <= k; v++)
                if (v != hi && f[v] > f[second])
                    second = v;
            if (fr < f[second]) {
                memcpy(x[hi], xr, sizeof xr), f[hi] = fr;
            } else {
                for (int i = 0; i < k; i++)
                    xr[i] = c[i] + 0.5 * (x[hi][i] - c[i]), *p[i] = exp(xr[i]);
                double fc = loss(arch);
                if (fc < f[hi])
                    memcpy(x[hi], xr, sizeof xr), f[hi] = fc;
                else
                    for (int v = 0; v <= k; v++)
                        if (v != lo) {
                            for (int i = 0; i < k; i++)
                                x[v][i] = x[lo][i] + 0.5 * (x[v][i] - x[lo][i]), *p[i] = exp(x[v][i]);
                            f[v] = loss(arch);
                        }
            }
        }
    }
    int lo = 0;
    for (int v = 1; v <= k; v++)
        if (f[v] < f[lo])
            lo = v;
    for (int i = 0; i < k; i++)
        *p[i] = exp(x[lo][i]);
    printf("loss %.5f\n", loss(arch));
    for (int i = 0; i < k; i++)
        printf("%s.%s=%.6g\n", arch, keys[i], *p[i]);
}

int main(int argc, char **argv)
{
    gpuecon_error err;
    ctx = gpuecon_ctx_new(NULL);
    if (!ctx || gpuecon_catalog_new(ctx, &cat, &err))
        return 1;
    const gpuecon_efficiency *t = gpuecon_efficiency_table(&ntab);
    memcpy(tab, t, ntab * sizeof *t);
    if (argc >= 2 && !strcmp(argv[1], "fit") && argc >= 4) {
        for (int i = 4; i < argc; i++)
            apply(argv[i]);
        char *keys[8], buf[256];
        int k = 0;
        snprintf(buf, sizeof buf, "%s", argv[3]);
        for (char *s = strtok(buf, ","); s && k < 8; s = strtok(NULL, ","))
            keys[k++] = s;
        fit(argv[2], keys, k);
    } else {
        for (int i = 2; i < argc; i++)
            apply(argv[i]);
        show();
        printf("loss ampere %.5f hopper %.5f blackwell %.5f\n", loss("ampere"), loss("hopper"), loss("blackwell"));
    }
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
    return 0;
}
