/*
 * validate_band.c — the 80% bands judged on the validate rows (docs/model.md §7.6), rendered for
 * `gpuecon validate`: each group's leave-one-out band_coverage and band_median_width in the JSON
 * groups (training, serving, fine-tuning), a "band" summary against the targets, and the text
 * section. Its own file so the leave-one-out calibration columns can sit beside it.
 */
#include "render/render.h"

#include <string.h>

#define TARGET_BAND_COVERAGE 0.80 /* issue targets: the 80% band holds 8 rows in 10 ... */
#define TARGET_BAND_WIDTH 1.6     /* ... at a median high/low of at most 1.6 */

static json_t *stats_json(const band_stats *s)
{
    return json_pack("{s:i, s:o, s:o}", "n", (json_int_t)s->n, "coverage", rjson_real(s->coverage), "median_width",
                     rjson_real(s->median_width));
}

/* Sets band_coverage and band_median_width on each group object of the array that b has. */
static void groups_json(json_t *groups, const band_validation *b)
{
    size_t i;
    json_t *g;
    json_array_foreach(groups, i, g) {
        const char *name = json_string_value(json_object_get(g, "name"));
        for (size_t k = 0; name && k < b->ngroups; k++)
            if (!strcmp(b->groups[k].name, name) && b->groups[k].s.n) {
                json_object_set_new(g, "band_coverage", rjson_real(b->groups[k].s.coverage));
                json_object_set_new(g, "band_median_width", rjson_real(b->groups[k].s.median_width));
                json_object_set_new(g, "band_n", json_integer((json_int_t)b->groups[k].s.n));
            }
    }
}

void validate_band_json(json_t *j, const band_validation *b)
{
    if (!b)
        return;
    groups_json(json_object_get(j, "groups"), b);
    groups_json(json_object_get(json_object_get(j, "serving"), "groups"), b);
    groups_json(json_object_get(json_object_get(j, "finetune"), "groups"), b);
    json_t *o = json_object();
    json_object_set_new(o, "level", rjson_real(0.8));
    json_object_set_new(o, "all", stats_json(&b->all));
    json_object_set_new(o, "training", stats_json(&b->train));
    json_object_set_new(o, "serving", stats_json(&b->serve));
    json_object_set_new(o, "target_coverage", rjson_real(TARGET_BAND_COVERAGE));
    json_object_set_new(o, "target_median_width", rjson_real(TARGET_BAND_WIDTH));
    json_object_set_new(o, "targets_met",
                        json_boolean(b->train.coverage >= TARGET_BAND_COVERAGE &&
                                     b->serve.coverage >= TARGET_BAND_COVERAGE &&
                                     b->all.median_width <= TARGET_BAND_WIDTH));
    json_object_set_new(j, "band", o);
}

void validate_band_text(strbuf *f, const band_validation *b)
{
    if (!b)
        return;
    sb_printf(f, "\n80%% bands, leave-one-out on the held-out rows (docs/model.md §7.6): each row's band computed "
                 "without it\n\n");
    sb_printf(f, "%-28s %4s  %8s  %12s\n", "group", "n", "coverage", "median width");
    for (size_t k = 0; k < b->ngroups; k++)
        if (b->groups[k].s.n)
            sb_printf(f, "%-28s %4zu  %7.0f%%  %12.2f\n", b->groups[k].name, b->groups[k].s.n,
                      100 * b->groups[k].s.coverage, b->groups[k].s.median_width);
    const struct {
        const char *what;
        const band_stats *s;
    } sum[] = {{"training", &b->train}, {"serving", &b->serve}, {"all", &b->all}};
    for (size_t k = 0; k < 3; k++)
        sb_printf(f, "%s, %zu held out: coverage %.1f%% (target >= %.0f%% %s), median width %.2f (target <= %.1f %s)\n",
                  sum[k].what, sum[k].s->n, 100 * sum[k].s->coverage, 100 * TARGET_BAND_COVERAGE,
                  sum[k].s->coverage >= TARGET_BAND_COVERAGE ? "met" : "MISSED", sum[k].s->median_width,
                  TARGET_BAND_WIDTH, sum[k].s->median_width <= TARGET_BAND_WIDTH ? "met" : "MISSED");
}
