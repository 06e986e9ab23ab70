/*
 * json.c — the JSON pieces every result kind uses: numbers rounded for reading, sources.
 */
#include "render/render.h"

#include <math.h>
#include <stdlib.h>

json_t *rjson_real(double v)
{
    if (!isfinite(v))
        return json_null();
    char buf[32];
    snprintf(buf, sizeof buf, "%.10g", v);
    return json_real(strtod(buf, NULL));
}

json_t *rjson_source(gpuecon_source s)
{
    return json_pack("{s:s, s:s}", "source", s.text ? s.text : "", "stage", gpuecon_stage_name(s.stage));
}

void rjson_power(json_t *j, const gpuecon_system *s)
{
    if (!s || !(s->power_limit_w > 0) || !s->gpu || s->power_limit_w >= s->gpu->tdp_w)
        return;
    json_object_set_new(j, "power_limit_w", rjson_real(s->power_limit_w));
    json_object_set_new(j, "clock_factor", rjson_real(gpuecon_system_clock(s)));
}

void rjson_run(json_t *j, uint64_t seed, int threads, double elapsed_s)
{
    char s[24];
    snprintf(s, sizeof s, "%llu", (unsigned long long)seed);
    json_object_set_new(j, "seed", json_string(s));
    json_object_set_new(j, "threads", json_integer(threads));
    json_object_set_new(j, "elapsed_s", rjson_real(elapsed_s));
}

json_t *rjson_user_price(void)
{
    gpuecon_source s = {USER_PRICE_SOURCE, GPUECON_STAGE_USER_INPUT};
    return rjson_source(s);
}

json_t *rjson_user_calibration(const gpuecon_calibration *c)
{
    if (!c)
        return json_null();
    json_t *sc = json_object();
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++)
        if (gpuecon_calibration_scale(c, (gpuecon_cal_param)p) != 1)
            json_object_set_new(sc, gpuecon_cal_param_name((gpuecon_cal_param)p),
                                json_pack("{s:o, s:s}", "scale", rjson_real(c->scale[p]), "source",
                                          c->scale_source[p] ? c->scale_source[p] : ""));
    json_t *j = json_pack("{s:s, s:s, s:i, s:o}", "name", c->name ? c->name : "", "source",
                          c->source ? c->source : "", "runs", c->runs, "scales", sc);
    json_object_set_new(j, "spread", rjson_real(c->spread));
    return j;
}

const char *fmt_user_calibration(char *buf, size_t cap, const gpuecon_calibration *c)
{
    if (!c) {
        if (cap)
            buf[0] = 0;
        return buf;
    }
    int w = c->source ? snprintf(buf, cap, "%s (gpuecon calibrate on %s, %d run%s):", c->name ? c->name : "?",
                                 c->source, c->runs, c->runs == 1 ? "" : "s")
                      : snprintf(buf, cap, "%s:", c->name ? c->name : "?");
    for (int p = 0; p < GPUECON_CAL_PARAMS && w > 0 && (size_t)w < cap; p++)
        if (gpuecon_calibration_scale(c, (gpuecon_cal_param)p) != 1)
            w += snprintf(buf + w, cap - (size_t)w, " %s x%.3f", gpuecon_cal_param_name((gpuecon_cal_param)p),
                          c->scale[p]);
    return buf;
}
