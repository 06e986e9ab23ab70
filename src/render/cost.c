/*
 * cost.c — `gpuecon cost` rendered: the economics of one throughput as JSON, as a table of
 * quantities (terminal and CSV) with the TCO's derivation beside each.
 */
#include "render/render.h"

#include <string.h>

static json_t *tco_json(const gpuecon_tco *t, const gpuecon_profile *p, const gpuecon_system *s)
{
    json_t *j = json_object();
    json_object_set_new(j, "used_usd_per_gpu_hour", rjson_real(t->usd_per_gpu_hour));
    json_object_set_new(j, "uses_published", json_boolean(t->uses_published));
    json_object_set_new(j, "derived_usd_per_gpu_hour", rjson_real(t->derived_usd_per_gpu_hour));
    json_object_set_new(j, "published_usd_per_gpu_hour",
                        t->published_usd_per_gpu_hour > 0 ? rjson_real(t->published_usd_per_gpu_hour) : json_null());
    json_object_set_new(j, "capital_usd_per_hour", rjson_real(t->capital_usd_per_hour));
    json_object_set_new(j, "colo_usd_per_hour", rjson_real(t->colo_usd_per_hour));
    json_object_set_new(j, "power_usd_per_hour", rjson_real(t->power_usd_per_hour));
    json_object_set_new(j, "fixed_usd_per_hour", rjson_real(t->fixed_usd_per_hour));
    json_object_set_new(j, "capex_usd_per_gpu", rjson_real(t->capex_usd));
    json_object_set_new(j, "capital_charge_per_year", rjson_real(t->capital_charge_per_year));
    json_object_set_new(j, "pue", rjson_real(t->pue));
    for (size_t i = 0; i < p->n_published; i++)
        if (!strcmp(p->published_usd_per_gpu_hour[i].key, s->name))
            json_object_set_new(j, "published_source",
                                rjson_source(p->published_usd_per_gpu_hour[i].source));
    if (t->user_price)
        json_object_set_new(j, "used_source", rjson_user_price());
    return j;
}

static json_t *cost_json(const void *view)
{
    const cost_view *v = view;
    json_t *j = json_object();
    json_object_set_new(j, "system", json_string(v->system->name));
    json_object_set_new(j, "profile", json_string(v->profile->name));
    json_object_set_new(j, "tokens_per_s_per_gpu", rjson_real(v->tokens_per_s));
    json_object_set_new(j, "tco_usd_per_gpu_hour", rjson_real(v->tco.usd_per_gpu_hour));
    json_object_set_new(j, "usd_per_mtok", rjson_real(v->cost.usd_per_mtok));
    json_object_set_new(j, "joules_per_token", rjson_real(v->cost.joules_per_token));
    json_object_set_new(j, "it_watts_per_gpu", rjson_real(v->cost.it_watts_per_gpu));
    json_object_set_new(j, "pue", rjson_real(v->cost.pue));
    json_object_set_new(j, "tokens_per_s_per_mw", rjson_real(v->cost.tokens_per_s_per_mw));
    json_object_set_new(j, "tco", tco_json(&v->tco, v->profile, v->system));
    if (v->tokens > 0) {
        json_object_set_new(j, "tokens", rjson_real(v->tokens));
        json_object_set_new(j, "gpu_hours", rjson_real(v->cost.gpu_hours));
        json_object_set_new(j, "total_usd", rjson_real(v->cost.total_usd));
        json_object_set_new(j, "energy_mwh", rjson_real(v->cost.energy_mwh));
    }
    return j;
}

static tbl *cost_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const cost_view *v = view;
    tbl *tb = tbl_new(ctx, oom);
    tbl_col(tb, "quantity", 'l');
    tbl_col(tb, "value", 'r');
    tbl_col(tb, "unit", 'l');
    tbl_col(tb, "how", 'l');
    tbl_row(tb);
    tbl_str(tb, "TCO per GPU-hour (used)");
    tbl_num(tb, v->tco.usd_per_gpu_hour, 3);
    tbl_str(tb, "$/GPU-h");
    tbl_str(tb, v->tco.user_price       ? "your rate (--usd-per-gpu-hour)"
                : v->tco.uses_published ? "published by the profile"
                                   : "derived (no published value)");
    tbl_row(tb);
    tbl_str(tb, "  derived from capex");
    tbl_num(tb, v->tco.derived_usd_per_gpu_hour, 3);
    tbl_str(tb, "$/GPU-h");
    tbl_fmt(tb, "capital %.3f + colo %.3f + power %.3f + fixed %.3f", v->tco.capital_usd_per_hour,
            v->tco.colo_usd_per_hour, v->tco.power_usd_per_hour, v->tco.fixed_usd_per_hour);
    tbl_row(tb);
    tbl_str(tb, "$ per 1M tokens");
    tbl_num(tb, v->cost.usd_per_mtok, 4);
    tbl_str(tb, "$/Mtok");
    tbl_str(tb, "TCO / (tok/s x 3600) x 1e6");
    tbl_row(tb);
    tbl_str(tb, "energy per token");
    tbl_num(tb, v->cost.joules_per_token, 3);
    tbl_str(tb, "J");
    tbl_fmt(tb, "%.0f W IT x PUE %.2f / tok/s", v->cost.it_watts_per_gpu, v->cost.pue);
    tbl_row(tb);
    tbl_str(tb, "tokens/s per MW of facility");
    tbl_num(tb, v->cost.tokens_per_s_per_mw, 0);
    tbl_str(tb, "tok/s/MW");
    tbl_str(tb, "");
    if (v->tokens > 0) {
        char b[64];
        tbl_row(tb);
        tbl_str(tb, "tokens");
        tbl_num(tb, v->tokens, 0);
        tbl_str(tb, "");
        tbl_fmt(tb, "%s tokens", fmt_si(b, sizeof b, v->tokens, ""));
        tbl_row(tb);
        tbl_str(tb, "GPU-hours");
        tbl_num(tb, v->cost.gpu_hours, 0);
        tbl_str(tb, "GPU-h");
        tbl_str(tb, "");
        tbl_row(tb);
        tbl_str(tb, "total cost");
        tbl_num(tb, v->cost.total_usd, 0);
        tbl_str(tb, "$");
        tbl_fmt(tb, "$%s", fmt_si(b, sizeof b, v->cost.total_usd, ""));
        tbl_row(tb);
        tbl_str(tb, "energy");
        tbl_num(tb, v->cost.energy_mwh, 1);
        tbl_str(tb, "MWh");
        tbl_str(tb, "utility side");
    }
    return tb;
}

static void cost_text(const render_out *out, const void *view, const tbl *tb)
{
    strbuf *f = out->f;
    const cost_view *v = view;
    sb_printf(f, "%s on %s (%s x %d), %s profile, %s tokens/s/GPU\n\n", v->system->name, v->system->gpu_name,
            v->system->cooling, v->system->scaleup_gpus, v->profile->name, NUM_SIG(v->tokens_per_s, 6));
    tbl_print(tb, f);
}

const render_kind render_cost = {cost_json, cost_table, cost_text, NULL};
