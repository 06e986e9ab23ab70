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
