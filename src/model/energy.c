/*
 * energy.c — cost and energy of a throughput (docs/model.md §2.2).
 *
 *   $/Mtok  = TCO_per_GPU_hour / (tok/s/GPU · 3600) · 1e6
 *   J/token = P_IT,all-in · PUE / (tok/s/GPU)          (utility-side energy)
 *
 * SemiAnalysis's figures (20 Aug 2025) satisfy these relations with one constant all-in power per platform
 * (H100 1,375 W, GB200 1,885 W): the check is in `gpuecon reproduce`.
 */
#include "model/model.h"

#include <string.h>

int gpuecon_cost_compute(double usd_per_gpu_hour, double it_w_per_gpu, double pue,
                         double tokens_per_s_per_gpu, double tokens, gpuecon_cost *out,
                         gpuecon_error *err)
{
    int rc;
    if ((rc = err_check_range(err, OPTION("tokens_per_s"), tokens_per_s_per_gpu, 1e-6, 1e9)) ||
        (rc = err_check_range(err, OPTION("pue"), pue, 1.0, 3.0)) ||
        (rc = err_check_range(err, "TCO per GPU-hour", usd_per_gpu_hour, 0, 1e4)) ||
        (rc = err_check_range(err, "IT watts per GPU", it_w_per_gpu, 1, 1e5)) ||
        (rc = err_check_range(err, OPTION("tokens"), tokens, 0, 1e18)))
        return rc;
    memset(out, 0, sizeof *out);
    out->tokens_per_s_per_gpu = tokens_per_s_per_gpu;
    out->usd_per_gpu_hour = usd_per_gpu_hour;
    out->usd_per_mtok = usd_per_gpu_hour / (tokens_per_s_per_gpu * 3600) * 1e6;
    out->it_watts_per_gpu = it_w_per_gpu;
    out->pue = pue;
    out->joules_per_token = it_w_per_gpu * pue / tokens_per_s_per_gpu;
    out->tokens_per_s_per_mw = 1e6 / (it_w_per_gpu * pue) * tokens_per_s_per_gpu;
    out->tokens = tokens;
    if (tokens > 0) {
        out->gpu_hours = tokens / tokens_per_s_per_gpu / 3600;
        out->total_usd = out->gpu_hours * usd_per_gpu_hour;
        out->energy_mwh = tokens * out->joules_per_token / 3.6e9;
    }
    return GPUECON_OK;
}
