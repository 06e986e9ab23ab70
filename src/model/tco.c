/*
 * tco.c — total cost of ownership per available GPU-hour (docs/model.md §2.1).
 *
 *   TCO/h = C·k/8760 + P_IT·c_colo·12/8760 + P_IT·PUE·p_e + F
 *   k     = CRF(r, L)·(1 − RV·(1+r)^−L) + m,   CRF = r / (1 − (1+r)^−L)
 *
 * Both the derived value and the profile's published value (when it has one for the system)
 * are returned; the published one is used for cost when present, as SemiAnalysis's figures do.
 */
#include "model/model.h"

#include <math.h>
#include <string.h>

double gpuecon_crf(double rate, double life_years)
{
    if (life_years <= 0)
        return 0;
    if (rate == 0)
        return 1 / life_years;
    return rate / (1 - pow(1 + rate, -life_years));
}

static const gpuecon_keyed *keyed_find(const gpuecon_keyed *items, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(items[i].key, key) == 0)
            return &items[i];
    return NULL;
}

int gpuecon_tco_compute(const gpuecon_profile *p, const gpuecon_system *s, double pue_override,
                        gpuecon_tco *out, gpuecon_error *err)
{
    if (!p || !s || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "profile and system are required");
    if (pue_override != 0) {
        int rc = err_check_range(err, OPTION("pue"), pue_override, 1.0, 3.0);
        if (rc)
            return rc;
    }
    memset(out, 0, sizeof *out);
    const gpuecon_keyed *capex = keyed_find(p->capex_usd_per_gpu, p->n_capex, s->name);
    out->capex_usd = capex ? capex->value : s->capex_usd_per_gpu * p->capex_scale;
    if (p->capital_charge_per_year > 0) {
        out->capital_charge_per_year = p->capital_charge_per_year;
    } else {
        double disc = p->rate > 0 ? pow(1 + p->rate, -p->life_years) : 1;
        out->capital_charge_per_year =
            gpuecon_crf(p->rate, p->life_years) * (1 - p->residual_value * disc) +
            p->maintenance_per_year;
    }
    out->pue = pue_override > 0 ? pue_override : p->pue;
    out->it_w_per_gpu = s->it_w_per_gpu;
    double kw = s->it_w_per_gpu / 1000;
    out->capital_usd_per_hour = out->capex_usd * out->capital_charge_per_year / 8760;
    out->colo_usd_per_hour = kw * p->colo_usd_per_kw_month * 12 / 8760;
    out->power_usd_per_hour = kw * out->pue * p->electricity_usd_per_kwh;
    out->fixed_usd_per_hour = p->fixed_usd_per_gpu_hour;
    out->derived_usd_per_gpu_hour = out->capital_usd_per_hour + out->colo_usd_per_hour +
                                    out->power_usd_per_hour + out->fixed_usd_per_hour;
    const gpuecon_keyed *pub =
        keyed_find(p->published_usd_per_gpu_hour, p->n_published, s->name);
    out->published_usd_per_gpu_hour = pub ? pub->value : 0;
    out->uses_published = pub != NULL;
    out->usd_per_gpu_hour = pub ? pub->value : out->derived_usd_per_gpu_hour;
    return GPUECON_OK;
}

int gpuecon_tco_price(const gpuecon_profile *p, const gpuecon_system *s, double pue_override,
                      double usd_per_gpu_hour, gpuecon_tco *out, gpuecon_error *err)
{
    if (usd_per_gpu_hour <= 0)
        return gpuecon_tco_compute(p, s, pue_override, out, err);
    int rc = err_check_range(err, OPTION("usd_per_gpu_hour"), usd_per_gpu_hour, 0.001, 1000);
    if (rc)
        return rc;
    if (p) {
        if ((rc = gpuecon_tco_compute(p, s, pue_override, out, err)))
            return rc;
    } else {
        if (!s || !out)
            return err_set(err, GPUECON_E_INPUT, "", 0, 0, "system is required");
        memset(out, 0, sizeof *out);
        out->pue = pue_override > 0 ? pue_override : s->pue;
        out->it_w_per_gpu = s->it_w_per_gpu;
    }
    out->usd_per_gpu_hour = usd_per_gpu_hour;
    out->uses_published = false;
    out->user_price = true;
    return GPUECON_OK;
}
