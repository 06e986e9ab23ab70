/*
 * catalog.c — `gpuecon catalog` rendered: the listing of one kind or all (a summary table per
 * kind, with the sources of every number when one kind is listed) and the fields of one entry
 * with the stage and source of each, as JSON and as tables (terminal and CSV). The columns are
 * field names read through the library's schema, so a new field needs no code here.
 */
#include "render/render.h"

#include <string.h>

const char *const catalog_kind_names[] = {"gpus", "systems", "profiles", "models", "reliability", "stacks",
                                          "timelines", "calibrations", NULL};

/* Columns of the summary table per kind (field names). */
static const char *const *columns(gpuecon_kind k)
{
    static const char *const gpu[] = {"arch", "peak_bf16_tflops", "peak_fp8_tflops", "peak_fp4_tflops",
                                      "hbm_gib", "hbm_tbps", "tdp_w", "min_power_w", "idle_w", NULL};
    static const char *const sys[] = {"gpu_name", "gpus_per_node", "scaleup_gpus", "scaleup_gbps",
                                      "scaleout_gbps", "it_w_per_gpu", "pue", "cooling",
                                      "capex_usd_per_gpu", "power_limit_w", NULL};
    static const char *const prof[] = {"rate", "life_years", "maintenance_per_year",
                                       "capital_charge_per_year", "colo_usd_per_kw_month",
                                       "electricity_usd_per_kwh", "pue", NULL};
    static const char *const model[] = {"layers", "hidden", "heads", "kv_heads", "ffn_hidden", "ffn",
                                        "vocab", "experts", "top_k", NULL};
    static const char *const rel[] = {"system", "tier", "mtbi_gpu_days", NULL};
    static const char *const stack[] = {"grad_reduce", "fp8_param", "optimizer_states", "fp8_recipe",
                                        "tp_overlap", "tp_async_grad", "dp_overlap", "ep_overlap",
                                        "attention", "fusion", "selective_recompute", "kv_repeat", "cp_comm",
                                        "cuda_graphs", "dispatcher", "flex_dispatcher",
                                        "workload", "host_launch_us", "compiled", "fp8_linear", "profile", "kernel_us",
                                        "graph_max_bs", "sched_us", "overlap_sched", "kernel_gqa_hopper",
                                        "kernel_gqa_blackwell", "kernel_mla_hopper", "kernel_mla_blackwell", NULL};
    static const char *const timeline[] = {"system", "model", "precision", "note", NULL};
    static const char *const calibration[] = {"workload", "stack", "system", "precision", "gemm_scale", "hbm_scale",
                                              "kernel_scale", "comm_scale", "spread", "runs", NULL};
    switch (k) {
    case GPUECON_KIND_CALIBRATION: return calibration;
    case GPUECON_KIND_TIMELINE: return timeline;
    case GPUECON_KIND_STACK: return stack;
    case GPUECON_KIND_GPU: return gpu;
    case GPUECON_KIND_SYSTEM: return sys;
    case GPUECON_KIND_PROFILE: return prof;
    case GPUECON_KIND_MODEL: return model;
    default: return rel;
    }
}

static void cell(tbl *t, const gpuecon_field *f)
{
    switch (f->type) {
    case GPUECON_FIELD_TEXT: tbl_str(t, f->text ? f->text : ""); break;
    case GPUECON_FIELD_BOOL: tbl_str(t, f->number ? "true" : "false"); break;
    case GPUECON_FIELD_INTEGER: tbl_num(t, f->number, 0); break;
    case GPUECON_FIELD_NUMBER: {
        double a = f->number < 0 ? -f->number : f->number;
        tbl_num(t, f->number, a >= 100 || a == 0 ? 0 : a >= 10 ? 1 : 3);
        break;
    }
    case GPUECON_FIELD_KEYED: tbl_fmt(t, "%zu values", f->n_keyed); break;
    }
}

static json_t *field_value_json(const gpuecon_field *f)
{
    switch (f->type) {
    case GPUECON_FIELD_TEXT: return f->text ? json_string(f->text) : json_null();
    case GPUECON_FIELD_BOOL: return json_boolean(f->number != 0);
    case GPUECON_FIELD_INTEGER: return json_integer((json_int_t)f->number);
    case GPUECON_FIELD_NUMBER: return rjson_real(f->number);
    case GPUECON_FIELD_KEYED: {
        json_t *o = json_object();
        for (size_t i = 0; i < f->n_keyed; i++) {
            json_t *v = rjson_source(f->keyed[i].source);
            json_object_set_new(v, "value", rjson_real(f->keyed[i].value));
            json_object_set_new(o, f->keyed[i].key, v);
        }
        return o;
    }
    }
    return json_null();
}

static json_t *entry_json(const gpuecon_catalog *cat, gpuecon_kind k, size_t i)
{
    json_t *e = json_object();
    json_object_set_new(e, "name", json_string(gpuecon_catalog_name_at(cat, k, i)));
    json_object_set_new(e, "kind", json_string(gpuecon_kind_name(k)));
    json_object_set_new(e, "origin", json_string(gpuecon_catalog_origin(cat, k, i)));
    json_t *fields = json_object();
    size_t nf = gpuecon_catalog_field_count(k);
    for (size_t j = 0; j < nf; j++) {
        gpuecon_field f;
        if (gpuecon_catalog_field_at(cat, k, i, j, &f) || !strcmp(f.name, "name"))
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "value", field_value_json(&f));
        if (f.unit[0])
            json_object_set_new(o, "unit", json_string(f.unit));
        json_object_set_new(o, "given", json_boolean(f.present));
        if (f.type != GPUECON_FIELD_KEYED) {
            json_object_set_new(o, "source", json_string(f.source.text ? f.source.text : ""));
            json_object_set_new(o, "stage", json_string(gpuecon_stage_name(f.source.stage)));
        }
        json_object_set_new(fields, f.name, o);
    }
    json_object_set_new(e, "fields", fields);
    if (k == GPUECON_KIND_MODEL) {
        gpuecon_params p;
        gpuecon_model_params(gpuecon_catalog_at(cat, k, i), &p);
        json_object_set_new(e, "params_total", rjson_real(p.total));
        json_object_set_new(e, "params_active", rjson_real(p.active));
    }
    if (k == GPUECON_KIND_TIMELINE) {
        const gpuecon_timeline *t = gpuecon_catalog_at(cat, k, i);
        json_t *pts = json_array();
        for (size_t j = 0; j < t->n_points; j++)
            json_array_append_new(pts, json_pack("{s:s, s:o, s:s, s:o}", "date", t->points[j].date,
                                                 "tokens_per_s_per_gpu", rjson_real(t->points[j].tokens_per_s_per_gpu),
                                                 "stage", gpuecon_stage_name(t->points[j].source.stage), "source",
                                                 rjson_source(t->points[j].source)));
        json_object_set_new(e, "points", pts);
    }
    return e;
}

static void summary_table(const gpuecon_catalog *cat, gpuecon_kind k, tbl *t)
{
    const char *const *cols = columns(k);
    tbl_col(t, "name", 'l');
    for (int j = 0; cols[j]; j++) {
        gpuecon_field f;
        bool right = gpuecon_catalog_count(cat, k) == 0 ||
                     (gpuecon_catalog_field(cat, k, gpuecon_catalog_name_at(cat, k, 0), cols[j], &f) == 0 &&
                      f.type != GPUECON_FIELD_TEXT);
        tbl_col(t, cols[j], right ? 'r' : 'l');
    }
    if (k == GPUECON_KIND_MODEL) {
        tbl_col(t, "params_B", 'r');
        tbl_col(t, "active_B", 'r');
    }
    size_t n = gpuecon_catalog_count(cat, k);
    for (size_t i = 0; i < n; i++) {
        const char *name = gpuecon_catalog_name_at(cat, k, i);
        tbl_row(t);
        tbl_str(t, name);
        for (int j = 0; cols[j]; j++) {
            gpuecon_field f;
            if (gpuecon_catalog_field(cat, k, name, cols[j], &f) == 0)
                cell(t, &f);
            else
                tbl_str(t, "");
        }
        if (k == GPUECON_KIND_MODEL) {
            gpuecon_params p;
            gpuecon_model_params(gpuecon_catalog_at(cat, k, i), &p);
            tbl_num(t, p.total / 1e9, 1);
            tbl_num(t, p.active / 1e9, 1);
        }
    }
}

/* Sources of one entry, grouped: "stage  source: field, field". Free text and references to
 * other entries have none of their own; a choice among fixed names (a stack's grad_reduce) does. */
static void print_sources(const gpuecon_catalog *cat, gpuecon_kind k, size_t i, strbuf *f)
{
    size_t nf = gpuecon_catalog_field_count(k);
    bool done[64] = {false};
    sb_printf(f, "  %s\n", gpuecon_catalog_name_at(cat, k, i));
    for (size_t j = 0; j < nf && j < 64; j++) {
        gpuecon_field a;
        if (done[j] || gpuecon_catalog_field_at(cat, k, i, j, &a) || !a.present ||
            (a.type == GPUECON_FIELD_TEXT && !a.choice) || a.type == GPUECON_FIELD_KEYED)
            continue;
        sb_printf(f, "    %-18s %s: %s", gpuecon_stage_name(a.source.stage), a.source.text, a.name);
        for (size_t m = j + 1; m < nf && m < 64; m++) {
            gpuecon_field b;
            if (!done[m] && gpuecon_catalog_field_at(cat, k, i, m, &b) == 0 && b.present &&
                (b.type != GPUECON_FIELD_TEXT || b.choice) && b.type != GPUECON_FIELD_KEYED &&
                b.source.stage == a.source.stage && b.source.text == a.source.text) {
                sb_printf(f, ", %s", b.name);
                done[m] = true;
            }
        }
        sb_putc(f, '\n');
        for (size_t kf = 0; kf < nf; kf++) {
            gpuecon_field kd;
            if (gpuecon_catalog_field_at(cat, k, i, kf, &kd) == 0 && kd.type == GPUECON_FIELD_KEYED &&
                j == 0)
                for (size_t e = 0; e < kd.n_keyed; e++)
                    sb_printf(f, "    %-18s %s: %s[%s] = %s\n", gpuecon_stage_name(kd.keyed[e].source.stage),
                            kd.keyed[e].source.text, kd.name, kd.keyed[e].key, NUM_SIG(kd.keyed[e].value, 6));
        }
    }
}

static json_t *catalog_list_json(const void *view)
{
    const catalog_view *v = view;
    json_t *arr = json_array();
    for (int k = v->first; k <= (int)v->last; k++)
        for (size_t i = 0; i < gpuecon_catalog_count(v->cat, (gpuecon_kind)k); i++)
            json_array_append_new(arr, entry_json(v->cat, (gpuecon_kind)k, i));
    return json_pack("{s:o}", "entries", arr);
}

/* The summary table of the first kind listed (the only one when the listing has a CSV form). */
static tbl *catalog_list_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const catalog_view *v = view;
    tbl *t = tbl_new(ctx, oom);
    summary_table(v->cat, v->first, t);
    return t;
}

static void catalog_list_text(const render_out *out, const void *view, const tbl *first)
{
    strbuf *f = out->f;
    const catalog_view *v = view;
    for (int k = v->first; k <= (int)v->last; k++) {
        tbl *t = NULL;
        if (k != (int)v->first) {
            t = tbl_new(out->ctx, out->oom);
            summary_table(v->cat, (gpuecon_kind)k, t);
        }
        sb_printf(f, "%s%s\n", k == (int)v->first ? "" : "\n", catalog_kind_names[k]);
        tbl_print(t ? t : first, f);
        if (v->first == v->last) {
            sb_printf(f, "\nsources (stage, citation: fields)\n");
            for (size_t i = 0; i < gpuecon_catalog_count(v->cat, (gpuecon_kind)k); i++)
                print_sources(v->cat, (gpuecon_kind)k, i, f);
        }
        tbl_free(t);
    }
    if (v->first != v->last)
        sb_printf(f, "\n'gpuecon catalog KIND' adds the source of every number; 'gpuecon catalog KIND NAME' "
                   "shows one entry.\n");
}

const render_kind render_catalog_list = {catalog_list_json, catalog_list_table, catalog_list_text, NULL};

static json_t *catalog_entry_json(const void *view)
{
    const catalog_view *v = view;
    return json_pack("{s:[o]}", "entries", entry_json(v->cat, v->first, v->entry));
}

/* Every field of the entry with its unit, stage and source (a keyed field one row per key, a
 * timeline's dated points one row each). */
static tbl *catalog_entry_table(gpuecon_ctx *ctx, bool *oom, const void *view)
{
    const catalog_view *v = view;
    gpuecon_kind k = v->first;
    tbl *t = tbl_new(ctx, oom);
    tbl_col(t, "field", 'l');
    tbl_col(t, "value", 'r');
    tbl_col(t, "unit", 'l');
    tbl_col(t, "stage", 'l');
    tbl_col(t, "source", 'l');
    size_t nf = gpuecon_catalog_field_count(k);
    for (size_t j = 0; j < nf; j++) {
        gpuecon_field f;
        if (gpuecon_catalog_field_at(v->cat, k, v->entry, j, &f))
            continue;
        if (f.type == GPUECON_FIELD_KEYED) {
            for (size_t e = 0; e < f.n_keyed; e++) {
                tbl_row(t);
                tbl_fmt(t, "%s[%s]", f.name, f.keyed[e].key);
                tbl_num(t, f.keyed[e].value, 3);
                tbl_str(t, f.unit);
                tbl_str(t, gpuecon_stage_name(f.keyed[e].source.stage));
                tbl_str(t, f.keyed[e].source.text);
            }
            continue;
        }
        tbl_row(t);
        tbl_str(t, f.name);
        cell(t, &f);
        tbl_str(t, f.unit);
        tbl_str(t, f.present ? gpuecon_stage_name(f.source.stage) : "default");
        tbl_str(t, f.present ? f.source.text : f.doc);
    }
    if (k == GPUECON_KIND_TIMELINE) { /* the dated points, each with its own stage and source */
        const gpuecon_timeline *tl = gpuecon_catalog_at(v->cat, k, v->entry);
        for (size_t j = 0; j < tl->n_points; j++) {
            tbl_row(t);
            tbl_fmt(t, "points[%s]", tl->points[j].date);
            tbl_num(t, tl->points[j].tokens_per_s_per_gpu, 0);
            tbl_str(t, "tokens/s/GPU");
            tbl_str(t, gpuecon_stage_name(tl->points[j].source.stage));
            tbl_str(t, tl->points[j].source.text ? tl->points[j].source.text : "");
        }
    }
    return t;
}

static void catalog_entry_text(const render_out *out, const void *view, const tbl *t)
{
    strbuf *f = out->f;
    (void)view;
    tbl_print(t, f);
}

const render_kind render_catalog_entry = {catalog_entry_json, catalog_entry_table, catalog_entry_text, NULL};
