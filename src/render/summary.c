/*
 * summary.c — the first screen of `gpuecon compare` (and of `gpuecon` with no arguments): one line
 * per comparison saying which platform is cheapest, by how much (the one framing of a difference,
 * "20% below"), and what would flip it (the nearest break-even the comparison found,
 * gpuecon_nearest_flip); the same fields as the JSON "summary" array. `--summary` prints only this.
 */
#include "render/render.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

/* Appends to the text in buf (cap bytes), cut at the end of buf when full: a platform name may be
 * 512 bytes, so the line can be longer than the buffer, and a cut never writes past it. */
static void append(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(buf);
    if (n + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, cap - n, fmt, ap);
    va_end(ap);
}

/* "MTBI", "TCO", "throughput", "PUE", "electricity": an input's label up to its unit. */
static void short_label(char *buf, size_t cap, const char *input)
{
    const char *l = gpuecon_input_label(input);
    snprintf(buf, cap, "%.*s", (int)strcspn(l, ","), l);
}

/* A break-even figure in its unit: "$2.940/GPU-h", "$0.315/kWh", "928 GPU-days", "1.82". */
static void in_unit(char *buf, size_t cap, double v, const char *unit)
{
    if (unit && unit[0] == '$')
        snprintf(buf, cap, "$%.3f%s", v, unit + 1);
    else
        snprintf(buf, cap, "%s%s%s", v >= 100 ? NUM_FIXED(v, 0) : NUM_SIG(v, 3), unit && *unit ? " " : "",
                 unit ? unit : "");
}

void compare_summary_of(const gpuecon_comparison_result *cr, compare_summary *s)
{
    memset(s, 0, sizeof *s);
    s->name = cr->name;
    s->title = cr->title ? cr->title : cr->name;
    s->flip = -1;
    s->below = NAN;
    s->cheapest_usd_per_mtok = s->runner_up_usd_per_mtok = NAN;
    const char *per = cr->kind == GPUECON_WORKLOAD_RL      ? "per 1M trained tokens"
                      : cr->kind == GPUECON_WORKLOAD_SERVE ? "per 1M output tokens"
                                                           : "per 1M tokens";
    if (cr->cheapest < 0) {
        snprintf(s->text, sizeof s->text, "no platform can run it (each platform's reason is below)");
        return;
    }
    const gpuecon_platform_result *c = &cr->platforms[cr->cheapest];
    s->cheapest = c->name;
    s->cheapest_usd_per_mtok = c->rank_usd_per_mtok;
    append(s->text, sizeof s->text, "%s is cheapest at %s %s", c->name, NUM_MONEY(c->rank_usd_per_mtok), per);
    if (cr->runner_up < 0) {
        snprintf(s->flip_text, sizeof s->flip_text, "no other platform can run it");
    } else {
        const gpuecon_platform_result *r = &cr->platforms[cr->runner_up];
        s->runner_up = r->name;
        s->runner_up_usd_per_mtok = r->rank_usd_per_mtok;
        s->below = 1 - c->rank_usd_per_mtok / r->rank_usd_per_mtok;
        num_below(s->difference, sizeof s->difference, c->rank_usd_per_mtok, r->rank_usd_per_mtok);
        append(s->text, sizeof s->text, ", %s %s (%s)", s->difference, r->name, NUM_MONEY(r->rank_usd_per_mtok));
        s->flip = gpuecon_nearest_flip(cr);
        if (s->flip >= 0) {
            const gpuecon_breakeven *b = &cr->breakeven[s->flip];
            const char *who = cr->platforms[b->platform].name;
            if (!strcmp(b->input, "spare_policy")) {
                snprintf(s->flip_text, sizeof s->flip_text, "flips if %s's %.0f spare GPUs %s",
                         who, cr->platforms[b->platform].charged_gpus - cr->platforms[b->platform].gpus,
                         b->value > 0.5 ? "are charged to the job" : "earn other work");
            } else {
                char label[64], val[64], cur[64];
                short_label(label, sizeof label, b->input);
                in_unit(val, sizeof val, b->value, b->unit);
                in_unit(cur, sizeof cur, b->current, b->unit);
                snprintf(s->flip_text, sizeof s->flip_text, "flips if %s's %s %s %s (today %s)", who, label,
                         b->value > b->current ? "rises above" : "falls below", val, cur);
            }
        } else if (cr->n_breakeven) {
            snprintf(s->flip_text, sizeof s->flip_text,
                     "no single input flips it (MTBI, TCO, throughput, PUE and electricity each moved alone)");
        } else {
            snprintf(s->flip_text, sizeof s->flip_text, "what would flip it was not analysed (--no-sensitivity)");
        }
    }
    if (cr->tier_analysis) {
        /* the same hardware at two operator tiers is not a choice a buyer has: the line is the
         * winner at each tier, and what flips it is the tier at which the kind of system changes */
        s->by_tier = true;
        s->flip = -1;
        if (cr->flip_tier[0])
            snprintf(s->flip_text, sizeof s->flip_text, "the cheapest kind of system changes at the %s tier",
                     cr->flip_tier);
        else
            snprintf(s->flip_text, sizeof s->flip_text, "the same kind of system wins at every operator tier");
        snprintf(s->text, sizeof s->text, "by operator tier, %s", cr->tier_text);
    } else {
        append(s->text, sizeof s->text, "; %s", s->flip_text);
    }
    text_utf8_scrub(s->text);
    text_utf8_scrub(s->flip_text);
}

void compare_summary_text(strbuf *f, const gpuecon_compare_result *r)
{
    sb_printf(f, "summary (cheapest per token, failures and spares included; what would flip it):\n");
    for (size_t i = 0; i < r->n; i++) {
        compare_summary s;
        compare_summary_of(&r->cmp[i], &s);
        sb_printf(f, "  - %s: %s.\n", s.title, s.text);
    }
}

json_t *compare_summary_json(const gpuecon_compare_result *r)
{
    json_t *a = json_array();
    for (size_t i = 0; i < r->n; i++) {
        const gpuecon_comparison_result *cr = &r->cmp[i];
        compare_summary s;
        compare_summary_of(cr, &s);
        json_t *o = json_object();
        json_object_set_new(o, "comparison", json_string(s.name));
        json_object_set_new(o, "title", json_string(s.title));
        json_object_set_new(o, "cheapest", s.cheapest ? json_string(s.cheapest) : json_null());
        json_object_set_new(o, "cheapest_usd_per_mtok", rjson_real(s.cheapest_usd_per_mtok));
        json_object_set_new(o, "runner_up", s.runner_up ? json_string(s.runner_up) : json_null());
        json_object_set_new(o, "runner_up_usd_per_mtok", rjson_real(s.runner_up_usd_per_mtok));
        json_object_set_new(o, "below", rjson_real(s.below));
        json_object_set_new(o, "difference", s.difference[0] ? json_string(s.difference) : json_null());
        if (s.flip >= 0) {
            const gpuecon_breakeven *b = &cr->breakeven[s.flip];
            json_object_set_new(o, "flip", json_pack("{s:s, s:s, s:s, s:o, s:o, s:s}", "platform",
                                                      cr->platforms[b->platform].name, "input", b->input, "label",
                                                      gpuecon_input_label(b->input), "current", rjson_real(b->current),
                                                      "breakeven", rjson_real(b->value), "unit", b->unit));
        } else {
            json_object_set_new(o, "flip", json_null());
        }
        json_object_set_new(o, "flip_text", json_string(s.flip_text));
        json_object_set_new(o, "by_tier", json_boolean(s.by_tier));
        json_object_set_new(o, "text", json_string(s.text));
        json_array_append_new(a, o);
    }
    return a;
}
