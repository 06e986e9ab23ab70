/*
 * schema.c — the generic, table-driven reader of catalog objects, and the field tables of
 * the GPU, system, TCO-profile and model kinds (reliability lives in schema_reliability.c).
 *
 * Every number may carry its own {value, source, stage}; otherwise it inherits the entry's
 * `source:`/`stage:`. Ranges are checked here, with the allowed range in the message, so no
 * model function ever sees a NaN, a negative price or a PUE below 1.
 */
#include "io/io.h"
#include "schema.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The names are gpuecon_stage_name's (one table, in src/base/error.c). */
bool schema_stage_parse(const char *s, gpuecon_stage *out)
{
    for (int i = 0; i < GPUECON_STAGE_COUNT; i++)
        if (strcmp(s, gpuecon_stage_name((gpuecon_stage)i)) == 0) {
            *out = (gpuecon_stage)i;
            return true;
        }
    return false;
}

int schema_field_index(const fdesc *fields, size_t nfields, const char *name)
{
    for (size_t j = 0; j < nfields; j++)
        if (strcmp(fields[j].name, name) == 0)
            return (int)j;
    return -1;
}

void schema_field_get(const fdesc *fields, size_t j, const void *obj, const gpuecon_source *src,
                      uint64_t present, gpuecon_field *out)
{
    const fdesc *f = &fields[j];
    const char *p = (const char *)obj + f->off;
    memset(out, 0, sizeof *out);
    out->name = f->name;
    out->unit = f->unit ? f->unit : "";
    out->doc = f->doc ? f->doc : "";
    out->present = (present >> j) & 1u;
    out->source = src[j];
    switch (f->type) {
    case FT_NUM: out->type = GPUECON_FIELD_NUMBER; out->number = *(const double *)p; break;
    case FT_INT: out->type = GPUECON_FIELD_INTEGER; out->number = *(const int *)p; break;
    case FT_BOOL: out->type = GPUECON_FIELD_BOOL; out->number = *(const bool *)p; break;
    case FT_TEXT: out->type = GPUECON_FIELD_TEXT; out->text = *(const char *const *)p; break;
    case FT_ENUM:
        out->type = GPUECON_FIELD_TEXT, out->choice = true;
        out->text = f->choices[*(const int *)p];
        break;
    case FT_KEYED:
        out->type = GPUECON_FIELD_KEYED;
        out->keyed = *(const gpuecon_keyed *const *)p;
        out->n_keyed = *(const size_t *)((const char *)obj + f->count_off);
        break;
    }
}

bool schema_present(const centry *e, const kdesc *k, const char *field)
{
    int j = schema_field_index(k->fields, k->nfields, field);
    return j >= 0 && (e->present >> j) & 1u;
}

ynode *schema_node(ynode *entry, const char *name)
{
    ynode *v = yaml_map_get(entry, name);
    return v ? v : entry;
}

/* ---- scalar conversions --------------------------------------------------------------- */

static int parse_number(const yaml_doc *doc, ynode *n, const char *field, double *out,
                        gpuecon_error *err)
{
    char buf[64];
    if (yaml_type(n) != Y_SCALAR)
        return yaml_error(doc, n, err, GPUECON_E_PARSE, "%s: expected a number", field);
    if (!yaml_scalar_copy(n, buf, sizeof buf) || buf[0] == '\0')
        return yaml_error(doc, n, err, GPUECON_E_PARSE, "%s: expected a number", field);
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    while (*end && isspace((unsigned char)*end))
        end++;
    /* an underflow keeps its value (1e-320 is subnormal, 1e-400 is 0): the field's range check then
       says what is wrong with it, as the command line does; only an overflow is not finite */
    if (end == buf || *end || (errno == ERANGE && fabs(v) > 1) || isnan(v) || isinf(v))
        return yaml_error(doc, n, err, GPUECON_E_PARSE, "%s: '%s' is not a finite number", field,
                          buf);
    *out = v;
    return GPUECON_OK;
}

static int check_range(const yaml_doc *doc, ynode *n, const fdesc *f, double v, gpuecon_error *err)
{
    if (v < f->lo || v > f->hi)
        return yaml_error(doc, n, err, GPUECON_E_INPUT, "%s: %s is out of range%s; allowed %s to %s%s%s", f->name,
                          NUM_BOUND(v),
                          v != 0 && fabs(v) < DBL_MIN ? " (subnormal: below 2.2e-308, the smallest normal double)" : "",
                          NUM_BOUND(f->lo), NUM_BOUND(f->hi), f->unit && *f->unit ? " " : "",
                          f->unit ? f->unit : "");
    if (f->type == FT_INT && v != floor(v))
        return yaml_error(doc, n, err, GPUECON_E_INPUT, "%s: %s is not a whole number", f->name, NUM_VAL(v));
    return GPUECON_OK;
}

static int parse_text(arena *a, const yaml_doc *doc, ynode *n, const char *field, const char **out,
                      gpuecon_error *err)
{
    size_t len;
    const char *s = yaml_scalar(n, &len);
    if (!s)
        return yaml_error(doc, n, err, GPUECON_E_PARSE, "%s: expected text", field);
    int rc = yaml_text_check(doc, n, field, s, len, 2048, true, err);
    if (rc)
        return rc;
    *out = arena_strndup(a, s, len);
    return *out ? GPUECON_OK : yaml_error(doc, n, err, GPUECON_E_NOMEM, "out of memory");
}

static int check_name(const yaml_doc *doc, ynode *n, const char *s, gpuecon_error *err)
{
    size_t len = strlen(s);
    bool ok = len >= 1 && len <= 63;
    for (size_t i = 0; ok && i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        ok = isalnum(c) || c == '-' || c == '_' || c == '.' || c == '/';
    }
    if (!ok)
        return yaml_error(doc, n, err, GPUECON_E_INPUT,
                          "name '%s' is not allowed; use 1-63 letters, digits, '-', '_', '.', '/'",
                          s);
    return GPUECON_OK;
}

static int choice_error(const yaml_doc *doc, ynode *n, const fdesc *f, const char *s,
                        gpuecon_error *err)
{
    char list[256] = "";
    size_t nc = 0;
    for (; f->choices[nc]; nc++) {
        strncat(list, nc ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, f->choices[nc], sizeof list - strlen(list) - 1);
    }
    const char *near = gpuecon_suggest(s, (const char *const *)f->choices, nc);
    if (near)
        return yaml_error(doc, n, err, GPUECON_E_INPUT,
                          "%s: '%s' is not allowed; did you mean '%s'? (allowed: %s)", f->name, s,
                          near, list);
    return yaml_error(doc, n, err, GPUECON_E_INPUT, "%s: '%s' is not allowed (allowed: %s)",
                      f->name, s, list);
}

/* ---- provenance ----------------------------------------------------------------------- */

/* Reads `source:`/`stage:` from mapping n into *src (keeping what is absent). */
static int read_provenance(arena *a, const yaml_doc *doc, ynode *n, gpuecon_source *src,
                           gpuecon_error *err)
{
    ynode *s = yaml_map_get(n, "source");
    ynode *t = yaml_map_get(n, "stage");
    if (s) {
        int rc = parse_text(a, doc, s, "source", &src->text, err);
        if (rc)
            return rc;
    }
    if (t) {
        char buf[32];
        if (!yaml_scalar_copy(t, buf, sizeof buf) || !schema_stage_parse(buf, &src->stage)) {
            char shown[32] = "";
            yaml_scalar_copy(t, shown, sizeof shown);
            return yaml_error(doc, t, err, GPUECON_E_INPUT,
                              "stage: '%s' is not allowed (allowed: datasheet, measured, "
                              "publisher-reported, projection, assumption, derived, fitted, user-input)",
                              shown);
        }
    }
    return GPUECON_OK;
}

/* A field written as {value, source, stage}: returns the value node and updates *src. */
static int unwrap_value(arena *a, const yaml_doc *doc, ynode *n, const char *field, ynode **val,
                        gpuecon_source *src, gpuecon_error *err)
{
    *val = n;
    if (yaml_type(n) != Y_MAP)
        return GPUECON_OK;
    size_t m = yaml_map_len(n);
    for (size_t i = 0; i < m; i++) {
        char key[32];
        ynode *k = yaml_map_key(n, i);
        if (!yaml_scalar_copy(k, key, sizeof key) ||
            (strcmp(key, "value") && strcmp(key, "source") && strcmp(key, "stage")))
            return yaml_error(doc, k, err, GPUECON_E_PARSE,
                              "%s: unknown key in a sourced value (allowed: value, source, stage)",
                              field);
    }
    *val = yaml_map_get(n, "value");
    if (!*val)
        return yaml_error(doc, n, err, GPUECON_E_PARSE, "%s: a sourced value needs 'value:'", field);
    return read_provenance(a, doc, n, src, err);
}

/* ---- one field ------------------------------------------------------------------------ */

static int load_keyed(arena *a, const fdesc *f, void *obj, const yaml_doc *doc, ynode *n,
                      gpuecon_source inherited, gpuecon_error *err)
{
    if (yaml_type(n) != Y_MAP)
        return yaml_error(doc, n, err, GPUECON_E_PARSE, "%s: expected a mapping of names to numbers",
                          f->name);
    size_t m = yaml_map_len(n);
    gpuecon_keyed *items = arena_alloc(a, (m ? m : 1) * sizeof *items);
    if (!items)
        return yaml_error(doc, n, err, GPUECON_E_NOMEM, "out of memory");
    for (size_t i = 0; i < m; i++) {
        ynode *k = yaml_map_key(n, i), *v = yaml_map_value(n, i);
        int rc = parse_text(a, doc, k, f->name, &items[i].key, err);
        if (rc || (rc = check_name(doc, k, items[i].key, err)))
            return rc;
        items[i].source = inherited;
        ynode *val;
        if ((rc = unwrap_value(a, doc, v, f->name, &val, &items[i].source, err)))
            return rc;
        if ((rc = parse_number(doc, val, f->name, &items[i].value, err)) ||
            (rc = check_range(doc, val, f, items[i].value, err)))
            return rc;
    }
    *(const gpuecon_keyed **)((char *)obj + f->off) = items;
    *(size_t *)((char *)obj + f->count_off) = m;
    return GPUECON_OK;
}

static int load_field(arena *a, const fdesc *f, void *obj, gpuecon_source *src, const yaml_doc *doc,
                      ynode *n, gpuecon_error *err)
{
    if (f->type == FT_KEYED)
        return load_keyed(a, f, obj, doc, n, *src, err);
    ynode *val;
    int rc = unwrap_value(a, doc, n, f->name, &val, src, err);
    if (rc)
        return rc;
    char *dst = (char *)obj + f->off;
    switch (f->type) {
    case FT_NUM:
    case FT_INT: {
        double v;
        if ((rc = parse_number(doc, val, f->name, &v, err)) || (rc = check_range(doc, val, f, v, err)))
            return rc;
        if (f->type == FT_NUM)
            *(double *)dst = v;
        else
            *(int *)dst = (int)v;
        return GPUECON_OK;
    }
    case FT_BOOL: {
        char buf[8];
        if (!yaml_scalar_copy(val, buf, sizeof buf) || (strcmp(buf, "true") && strcmp(buf, "false")))
            return yaml_error(doc, val, err, GPUECON_E_PARSE, "%s: expected true or false", f->name);
        *(bool *)dst = buf[0] == 't';
        return GPUECON_OK;
    }
    case FT_TEXT: {
        const char *s;
        if ((rc = parse_text(a, doc, val, f->name, &s, err)))
            return rc;
        if (f->flags & F_NAME && (rc = check_name(doc, val, s, err)))
            return rc;
        if (f->choices) {
            int c = 0;
            while (f->choices[c] && strcmp(f->choices[c], s))
                c++;
            if (!f->choices[c])
                return choice_error(doc, val, f, s, err);
            s = f->choices[c];
        }
        *(const char **)dst = s;
        return GPUECON_OK;
    }
    case FT_ENUM: {
        char buf[64];
        if (!yaml_scalar_copy(val, buf, sizeof buf))
            return yaml_error(doc, val, err, GPUECON_E_PARSE, "%s: expected a name", f->name);
        for (int c = 0; f->choices[c]; c++)
            if (strcmp(f->choices[c], buf) == 0) {
                *(int *)dst = c;
                return GPUECON_OK;
            }
        return choice_error(doc, val, f, buf, err);
    }
    case FT_KEYED:
        break;
    }
    return GPUECON_OK;
}

static void set_default(const fdesc *f, void *obj)
{
    char *dst = (char *)obj + f->off;
    switch (f->type) {
    case FT_NUM: *(double *)dst = f->def; break;
    case FT_INT:
    case FT_ENUM: *(int *)dst = (int)f->def; break;
    case FT_BOOL: *(bool *)dst = f->def != 0; break;
    case FT_TEXT: *(const char **)dst = f->deftext; break;
    case FT_KEYED:
        *(const gpuecon_keyed **)dst = NULL;
        *(size_t *)((char *)obj + f->count_off) = 0;
        break;
    }
}

int schema_load_object(arena *a, const fdesc *fields, size_t nfields, void *obj, gpuecon_source *src,
                       uint64_t *present, const yaml_doc *doc, ynode *node, gpuecon_source defsrc,
                       const char *const *extra, const char *fields_doc, gpuecon_error *err)
{
    if (yaml_type(node) != Y_MAP)
        return yaml_error(doc, node, err, GPUECON_E_PARSE, "expected a mapping of field: value");
    gpuecon_source entry_src = defsrc;
    int rc = read_provenance(a, doc, node, &entry_src, err);
    if (rc)
        return rc;
    *present = 0;
    for (size_t j = 0; j < nfields; j++) {
        set_default(&fields[j], obj);
        src[j] = (gpuecon_source){"default (docs/catalog.md)", GPUECON_STAGE_ASSUMPTION};
    }
    size_t m = yaml_map_len(node);
    for (size_t i = 0; i < m; i++) {
        ynode *k = yaml_map_key(node, i), *v = yaml_map_value(node, i);
        char key[64];
        if (!yaml_scalar_copy(k, key, sizeof key))
            return yaml_error(doc, k, err, GPUECON_E_PARSE, "keys must be short field names");
        if (!strcmp(key, "source") || !strcmp(key, "stage"))
            continue;
        bool handled = false;
        for (size_t e = 0; extra && extra[e] && !handled; e++)
            handled = strcmp(extra[e], key) == 0;
        if (handled)
            continue;
        int j = schema_field_index(fields, nfields, key);
        if (j < 0) {
            const char *names[SCHEMA_MAX_FIELDS + 8];
            size_t nn = 0;
            for (size_t f = 0; f < nfields && nn < SCHEMA_MAX_FIELDS; f++)
                names[nn++] = fields[f].name;
            for (size_t e = 0; extra && extra[e] && nn < SCHEMA_MAX_FIELDS + 6; e++)
                names[nn++] = extra[e];
            names[nn++] = "source";
            names[nn++] = "stage";
            const char *near = gpuecon_suggest(key, names, nn);
            if (near)
                return yaml_error(doc, k, err, GPUECON_E_PARSE,
                                  "unknown field '%s'; did you mean '%s'?", key, near);
            return yaml_error(doc, k, err, GPUECON_E_PARSE,
                              "unknown field '%s' (see %s for the fields)", key, fields_doc);
        }
        int vline = 0, vcol = 0;
        if (v)
            yaml_where(v, &vline, &vcol);
        if (!v || (yaml_type(v) == Y_SCALAR && vline == 0)) /* "layers:" alone: at the key */
            return yaml_error(doc, k, err, GPUECON_E_PARSE, "%s: no value given (%s)", key, fields[j].doc);
        src[j] = entry_src;
        if ((rc = load_field(a, &fields[j], obj, &src[j], doc, v, err)))
            return rc;
        *present |= (uint64_t)1 << j;
    }
    /* an entry that is `like:` another gets its missing fields from it: the kind's validate
       checks the like first and the required fields after the merge (schema_check_required) */
    if (schema_field_index(fields, nfields, "like") >= 0 && yaml_map_get(node, "like"))
        return GPUECON_OK;
    return schema_check_required(fields, nfields, *present, doc, node, err);
}

int schema_check_required(const fdesc *fields, size_t nfields, uint64_t present, const yaml_doc *doc,
                          ynode *node, gpuecon_error *err)
{
    for (size_t j = 0; j < nfields; j++)
        if ((fields[j].flags & F_REQ) && !((present >> j) & 1u))
            return yaml_error(doc, node, err, GPUECON_E_PARSE, "missing required field '%s' (%s)",
                              fields[j].name, fields[j].doc);
    return GPUECON_OK;
}

/* ==== the kinds ======================================================================== */

#define NUM(S, f, lo_, hi_, def_, fl, unit_, doc_)                                              \
    {#f, FT_NUM, offsetof(S, f), 0, lo_, hi_, def_, NULL, fl, unit_, doc_, NULL}
#define INT(S, f, lo_, hi_, def_, fl, doc_)                                                     \
    {#f, FT_INT, offsetof(S, f), 0, lo_, hi_, def_, NULL, fl, "", doc_, NULL}
#define BOOL(S, f, def_, doc_) {#f, FT_BOOL, offsetof(S, f), 0, 0, 1, def_, NULL, 0, "", doc_, NULL}
#define TEXT(S, f, fl, choices_, def_, doc_)                                                    \
    {#f, FT_TEXT, offsetof(S, f), 0, 0, 0, 0, def_, fl, "", doc_, choices_}
#define ENUM(S, f, choices_, def_, doc_)                                                        \
    {#f, FT_ENUM, offsetof(S, f), 0, 0, 0, def_, NULL, 0, "", doc_, choices_}
#define KEYED(S, f, n, lo_, hi_, unit_, doc_)                                                   \
    {#f, FT_KEYED, offsetof(S, f), offsetof(S, n), lo_, hi_, 0, NULL, 0, unit_, doc_, NULL}

/* ---- GPUs ---- */
static const char *const arch_names[] = {"ampere", "hopper", "blackwell", "blackwell-ultra", "blackwell-rtx",
                                         "cdna3", NULL};
static const fdesc gpu_fields[] = {
    TEXT(gpuecon_gpu, name, F_REQ | F_NAME, NULL, NULL, "catalog name"),
    TEXT(gpuecon_gpu, arch, F_REQ, arch_names, NULL, "architecture generation"),
    NUM(gpuecon_gpu, peak_bf16_tflops, 1, 1e5, 0, F_REQ, "TFLOP/s", "dense BF16 tensor peak"),
    NUM(gpuecon_gpu, peak_fp8_tflops, 0, 1e5, 0, 0, "TFLOP/s", "dense FP8 tensor peak (0: none)"),
    NUM(gpuecon_gpu, peak_fp4_tflops, 0, 1e5, 0, 0, "TFLOP/s", "dense FP4 tensor peak (0: none)"),
    NUM(gpuecon_gpu, hbm_gib, 1, 4096, 0, F_REQ, "GiB", "usable HBM as the driver reports it"),
    NUM(gpuecon_gpu, hbm_tbps, 0.1, 100, 0, F_REQ, "TB/s", "HBM bandwidth"),
    NUM(gpuecon_gpu, tdp_w, 50, 5000, 0, F_REQ, "W", "board power maximum (the highest settable power limit)"),
    NUM(gpuecon_gpu, min_power_w, 0, 5000, 0, 0, "W", "lowest settable power limit (0: unknown, no lower limit allowed)"),
    NUM(gpuecon_gpu, idle_w, 0, 5000, 0, 0, "W",
        "power that does not scale with the SM clock, as idle draw (0: unknown, a power limit leaves the clock)"),
};

static int gpu_validate(struct gpuecon_catalog *cat, centry *e, const yaml_doc *doc, ynode *node,
                        gpuecon_error *err)
{
    (void)cat;
    gpuecon_gpu *g = e->obj;
    if (g->peak_fp4_tflops > 0 && g->peak_fp8_tflops <= 0)
        return yaml_error(doc, schema_node(node, "peak_fp4_tflops"), err, GPUECON_E_INPUT,
                          "peak_fp4_tflops is set but peak_fp8_tflops is not");
    if (g->min_power_w > g->tdp_w)
        return yaml_error(doc, schema_node(node, "min_power_w"), err, GPUECON_E_INPUT,
                          "min_power_w (%s) is above tdp_w (%s)", NUM_VAL(g->min_power_w), NUM_VAL(g->tdp_w));
    if (g->idle_w > 0 && g->idle_w >= (g->min_power_w > 0 ? g->min_power_w : g->tdp_w))
        return yaml_error(doc, schema_node(node, "idle_w"), err, GPUECON_E_INPUT,
                          "idle_w (%s) must be below the lowest power limit (%s)", NUM_VAL(g->idle_w),
                          NUM_VAL(g->min_power_w > 0 ? g->min_power_w : g->tdp_w));
    return GPUECON_OK;
}

/* ---- systems ---- */
static const char *const cooling_names[] = {"air", "liquid", NULL};
static const fdesc system_fields[] = {
    TEXT(gpuecon_system, name, F_REQ | F_NAME, NULL, NULL, "catalog name"),
    TEXT(gpuecon_system, gpu_name, F_REQ | F_NAME, NULL, NULL, "GPU (a name in gpus.yaml)"),
    INT(gpuecon_system, gpus_per_node, 1, 144, 8, F_REQ, "GPUs per server or compute tray"),
    INT(gpuecon_system, scaleup_gpus, 1, 1152, 8, F_REQ, "GPUs in one NVLink (scale-up) domain"),
    NUM(gpuecon_system, scaleup_gbps, 1, 1e4, 0, F_REQ, "GB/s", "scale-up bandwidth per GPU per direction"),
    NUM(gpuecon_system, scaleout_gbps, 0.1, 1e4, 0, F_REQ, "GB/s", "scale-out bandwidth per GPU per direction"),
    NUM(gpuecon_system, scaleup_latency_us, 0, 1000, 3, 0, "us", "per-hop latency inside the domain"),
    NUM(gpuecon_system, scaleout_latency_us, 0, 1000, 6, 0, "us", "per-hop latency across the network"),
    NUM(gpuecon_system, it_w_per_gpu, 50, 1e4, 0, F_REQ, "W", "all-in IT power per GPU"),
    NUM(gpuecon_system, pue, 1, 3, 1.3, F_REQ, "", "default facility PUE for energy"),
    TEXT(gpuecon_system, cooling, F_REQ, cooling_names, NULL, "air or liquid"),
    NUM(gpuecon_system, capex_usd_per_gpu, 100, 1e7, 0, F_REQ, "USD", "all-in capital cost per GPU"),
    NUM(gpuecon_system, host_link_gbps, 0, 10000, 0, 0, "GB/s",
        "CPU-GPU link per GPU per direction for activation offload (0: unknown)"),
    NUM(gpuecon_system, power_limit_w, 0, 5000, 0, 0, "W",
        "the GPUs' power limit, within the GPU's min_power_w..tdp_w (0: the board maximum); it_w_per_gpu is at it"),
};

static int system_validate(struct gpuecon_catalog *cat, centry *e, const yaml_doc *doc, ynode *node,
                           gpuecon_error *err)
{
    gpuecon_system *s = e->obj;
    if (!gpuecon_catalog_gpu(cat, s->gpu_name)) {
        gpuecon_error tmp;
        gpuecon_catalog_find(cat, GPUECON_KIND_GPU, s->gpu_name, "gpu", NULL, &tmp);
        return yaml_error(doc, schema_node(node, "gpu_name"), err, GPUECON_E_INPUT, "%s",
                          tmp.message);
    }
    if (s->scaleup_gpus % s->gpus_per_node != 0)
        return yaml_error(doc, schema_node(node, "scaleup_gpus"), err, GPUECON_E_INPUT,
                          "scaleup_gpus (%d) must be a multiple of gpus_per_node (%d)",
                          s->scaleup_gpus, s->gpus_per_node);
    if (s->power_limit_w > 0) {
        gpuecon_error tmp;
        if (gpuecon_power_limit_check(gpuecon_catalog_gpu(cat, s->gpu_name), s->power_limit_w, "power_limit_w", &tmp))
            return yaml_error(doc, schema_node(node, "power_limit_w"), err, GPUECON_E_INPUT, "power_limit_w: %s",
                              tmp.message);
    }
    return GPUECON_OK;
}

/* ---- TCO profiles ---- */
static const fdesc profile_fields[] = {
    TEXT(gpuecon_profile, name, F_REQ | F_NAME, NULL, NULL, "catalog name"),
    NUM(gpuecon_profile, rate, 0, 1, 0.08, 0, "1/yr", "cost of capital"),
    NUM(gpuecon_profile, life_years, 0.5, 30, 5, 0, "yr", "economic life"),
    NUM(gpuecon_profile, maintenance_per_year, 0, 1, 0, 0, "1/yr", "capex-proportional opex"),
    NUM(gpuecon_profile, residual_value, 0, 1, 0, 0, "", "residual value at end of life"),
    NUM(gpuecon_profile, capital_charge_per_year, 0, 5, 0, 0, "1/yr",
        "annual capital charge k (0: from rate, life, maintenance, residual)"),
    NUM(gpuecon_profile, colo_usd_per_kw_month, 0, 1e4, 0, F_REQ, "USD/kW-month", "colocation rent per kW of IT"),
    NUM(gpuecon_profile, electricity_usd_per_kwh, 0, 10, 0, F_REQ, "USD/kWh", "utility electricity price"),
    NUM(gpuecon_profile, pue, 1, 3, 1.35, F_REQ, "", "PUE in the TCO"),
    NUM(gpuecon_profile, fixed_usd_per_gpu_hour, 0, 1000, 0, 0, "USD/GPU-h", "staff, licences, support"),
    NUM(gpuecon_profile, capex_scale, 0.01, 100, 1, 0, "", "multiplier on a system's capex without an override"),
    KEYED(gpuecon_profile, capex_usd_per_gpu, n_capex, 100, 1e7, "USD", "per-system capex overrides"),
    KEYED(gpuecon_profile, published_usd_per_gpu_hour, n_published, 0.01, 1000, "USD/GPU-h",
          "per-system published TCO"),
};

static int profile_validate(struct gpuecon_catalog *cat, centry *e, const yaml_doc *doc, ynode *node,
                            gpuecon_error *err)
{
    gpuecon_profile *p = e->obj;
    const gpuecon_keyed *lists[2] = {p->capex_usd_per_gpu, p->published_usd_per_gpu_hour};
    size_t counts[2] = {p->n_capex, p->n_published};
    const char *names[2] = {"capex_usd_per_gpu", "published_usd_per_gpu_hour"};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < counts[l]; i++)
            if (!gpuecon_catalog_system(cat, lists[l][i].key)) {
                gpuecon_error tmp;
                gpuecon_catalog_find(cat, GPUECON_KIND_SYSTEM, lists[l][i].key, names[l], NULL, &tmp);
                return yaml_error(doc, schema_node(node, names[l]), err, GPUECON_E_INPUT, "%s: %s",
                                  names[l], tmp.message);
            }
    return GPUECON_OK;
}

/* ---- models ---- */
static const char *const ffn_names[] = {"gelu", "relu2", "swiglu", "geglu", NULL};
static const char *const attention_names[] = {"mha", "gqa", "mla", NULL};
static const fdesc model_fields[] = {
    TEXT(gpuecon_model, name, F_REQ | F_NAME, NULL, NULL, "catalog name"),
    INT(gpuecon_model, layers, 1, 1000, 0, F_REQ, "transformer layers"),
    INT(gpuecon_model, hidden, 1, 1000000, 0, F_REQ, "hidden size"),
    INT(gpuecon_model, heads, 1, 10000, 0, F_REQ, "attention (query) heads"),
    INT(gpuecon_model, kv_heads, 1, 10000, 0, 0, "key/value heads (default: heads)"),
    INT(gpuecon_model, head_dim, 1, 100000, 0, 0, "head dimension (default: hidden/heads)"),
    INT(gpuecon_model, ffn_hidden, 1, 10000000, 0, 0, "FFN inner size of dense layers (default 4·hidden)"),
    ENUM(gpuecon_model, ffn, ffn_names, GPUECON_FFN_GELU, "gelu | relu2 (2 matrices), swiglu | geglu (3)"),
    INT(gpuecon_model, vocab, 1, 100000000, 0, F_REQ, "vocabulary size"),
    BOOL(gpuecon_model, tied_embeddings, 0, "input embedding shared with the LM head"),
    INT(gpuecon_model, max_seq, 0, 100000000, 0, 0, "longest context (0: unknown)"),
    INT(gpuecon_model, experts, 0, 100000, 0, 0, "routed experts per MoE layer"),
    INT(gpuecon_model, top_k, 0, 100000, 0, 0, "experts per token"),
    INT(gpuecon_model, expert_ffn_hidden, 0, 10000000, 0, 0, "FFN inner size of one expert"),
    INT(gpuecon_model, shared_experts, 0, 1000, 0, 0, "always-active experts per MoE layer"),
    INT(gpuecon_model, shared_ffn_hidden, 0, 10000000, 0, 0, "inner size of one shared expert (default expert_ffn_hidden)"),
    INT(gpuecon_model, dense_layers, 0, 1000, 0, 0, "leading dense layers of an MoE model"),
    INT(gpuecon_model, moe_every, 1, 1000, 1, 0, "after dense_layers, every n-th layer is MoE"),
    INT(gpuecon_model, routing_groups, 0, 4096, 0, 0, "node-limited routing: expert groups (0: none)"),
    INT(gpuecon_model, groups_per_token, 0, 4096, 0, 0, "node-limited routing: groups a token may reach"),
    ENUM(gpuecon_model, attention, attention_names, GPUECON_ATTN_MHA, "mha | gqa | mla"),
    INT(gpuecon_model, q_lora_rank, 0, 100000, 0, 0, "MLA query compression rank (0: none)"),
    INT(gpuecon_model, kv_lora_rank, 0, 100000, 0, 0, "MLA key/value compression rank"),
    INT(gpuecon_model, qk_nope_head_dim, 0, 100000, 0, 0, "MLA per-head q/k dimension without RoPE"),
    INT(gpuecon_model, qk_rope_head_dim, 0, 100000, 0, 0, "MLA per-head decoupled RoPE dimension"),
    INT(gpuecon_model, v_head_dim, 0, 100000, 0, 0, "MLA per-head value dimension"),
    INT(gpuecon_model, sliding_window, 0, 100000000, 0, 0, "local attention window (0: none)"),
    INT(gpuecon_model, global_every, 0, 1000, 0, 0, "with a window, every n-th layer is global"),
    INT(gpuecon_model, global_kv_heads, 0, 10000, 0, 0, "KV heads of global layers (default kv_heads)"),
    INT(gpuecon_model, global_head_dim, 0, 100000, 0, 0, "head dim of global layers (default head_dim)"),
    BOOL(gpuecon_model, global_k_eq_v, 0, "global layers use K as V (no v_proj)"),
    INT(gpuecon_model, mtp_layers, 0, 16, 0, 0, "multi-token-prediction modules"),
    INT(gpuecon_model, norms_per_layer, 1, 8, 2, 0, "norm modules over the hidden width per layer (fine-tuning kernels)"),
    BOOL(gpuecon_model, qk_norm, 0, "per-head norms of q and k (fine-tuning kernels)"),
    NUM(gpuecon_model, vision_params, 0, 1e12, 0, 0, "params", "vision tower parameters"),
    NUM(gpuecon_model, published_params, 0, 1e14, 0, 0, "params", "published total parameters"),
    NUM(gpuecon_model, published_active_params, 0, 1e14, 0, 0, "params", "published active parameters"),
};

#define MODEL_ERR(field, ...)                                                                   \
    yaml_error(doc, schema_node(node, field), err, GPUECON_E_INPUT, __VA_ARGS__)

static int model_validate(struct gpuecon_catalog *cat, centry *e, const yaml_doc *doc, ynode *node,
                          gpuecon_error *err)
{
    (void)cat;
    const kdesc *k = &schema_kind_model;
    gpuecon_model *m = e->obj;
    if (!schema_present(e, k, "head_dim")) {
        if (m->hidden % m->heads)
            return MODEL_ERR("heads", "heads (%d) must divide hidden (%d) unless head_dim is given",
                             m->heads, m->hidden);
        m->head_dim = m->hidden / m->heads;
    }
    if (!schema_present(e, k, "kv_heads"))
        m->kv_heads = m->heads;
    if (m->kv_heads > m->heads || m->heads % m->kv_heads)
        return MODEL_ERR("kv_heads", "kv_heads (%d) must divide heads (%d)", m->kv_heads, m->heads);
    if (!schema_present(e, k, "attention"))
        m->attention = m->kv_lora_rank > 0 ? GPUECON_ATTN_MLA
                       : m->kv_heads < m->heads ? GPUECON_ATTN_GQA : GPUECON_ATTN_MHA;
    if (m->attention == GPUECON_ATTN_MLA &&
        (m->kv_lora_rank <= 0 || m->qk_nope_head_dim <= 0 || m->qk_rope_head_dim <= 0 ||
         m->v_head_dim <= 0))
        return MODEL_ERR("attention", "attention mla needs kv_lora_rank, qk_nope_head_dim, "
                                      "qk_rope_head_dim and v_head_dim (all > 0)");
    if (!schema_present(e, k, "ffn_hidden"))
        m->ffn_hidden = 4 * m->hidden;
    if (m->experts > 0) {
        if (m->top_k < 1 || m->top_k > m->experts)
            return MODEL_ERR("top_k", "top_k (%d) must be between 1 and experts (%d)", m->top_k,
                             m->experts);
        if (m->expert_ffn_hidden == 0)
            m->expert_ffn_hidden = m->ffn_hidden;
        if (m->dense_layers >= m->layers)
            return MODEL_ERR("dense_layers", "dense_layers (%d) must be below layers (%d)",
                             m->dense_layers, m->layers);
        if (m->routing_groups > 0 && (m->experts % m->routing_groups || m->groups_per_token < 1 ||
                                      m->groups_per_token > m->routing_groups))
            return MODEL_ERR("routing_groups", "routing_groups (%d) must divide experts (%d) and "
                             "groups_per_token (%d) lie in 1..routing_groups", m->routing_groups,
                             m->experts, m->groups_per_token);
    } else if (m->top_k || m->shared_experts || m->expert_ffn_hidden) {
        return MODEL_ERR("experts", "top_k, shared_experts and expert_ffn_hidden need experts > 0");
    }
    if (m->shared_experts > 0 && m->shared_ffn_hidden == 0)
        m->shared_ffn_hidden = m->expert_ffn_hidden;
    if (m->sliding_window > 0 || m->global_every > 0) {
        if (m->sliding_window <= 0)
            return MODEL_ERR("global_every", "global_every needs a sliding_window");
        if (m->global_kv_heads == 0)
            m->global_kv_heads = m->kv_heads;
        if (m->global_head_dim == 0)
            m->global_head_dim = m->head_dim;
        if (m->heads % m->global_kv_heads)
            return MODEL_ERR("global_kv_heads", "global_kv_heads (%d) must divide heads (%d)",
                             m->global_kv_heads, m->heads);
    }
    return GPUECON_OK;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
const kdesc schema_kind_gpu = {"gpus", "gpu", sizeof(gpuecon_gpu), offsetof(gpuecon_gpu, src),
                               gpu_fields, COUNT(gpu_fields), gpu_validate, NULL};
const kdesc schema_kind_system = {"systems", "system", sizeof(gpuecon_system),
                                  offsetof(gpuecon_system, src), system_fields,
                                  COUNT(system_fields), system_validate, NULL};
const kdesc schema_kind_profile = {"profiles", "profile", sizeof(gpuecon_profile),
                                   offsetof(gpuecon_profile, src), profile_fields,
                                   COUNT(profile_fields), profile_validate, NULL};
const kdesc schema_kind_model = {"models", "model", sizeof(gpuecon_model),
                                 offsetof(gpuecon_model, src), model_fields, COUNT(model_fields),
                                 model_validate, NULL};
