/*
 * names.c — the names of the model's enums as parsers and printers spell them (model/names.h):
 * precisions and their bytes per element, FFN kinds and their matrix counts, operator tiers.
 */
#include "model/model.h"
#include "names.h"

const char *const names_precision[] = {"bf16", "fp8", "fp4", NULL};
const char *const names_precision_no_fp4[] = {"bf16", "fp8", NULL};
const char *const names_tier[] = {"best", "typical", "poor", NULL};

const char *gpuecon_precision_name(gpuecon_precision p)
{
    return (unsigned)p <= GPUECON_FP4 ? names_precision[p] : "unknown";
}

double gpuecon_precision_bytes(gpuecon_precision p)
{
    switch (p) {
    case GPUECON_BF16: return 2.0;
    case GPUECON_FP8: return 1.0;
    case GPUECON_FP4: return 0.5625; /* NVFP4: 4 bits + one FP8 scale per 16 elements */
    }
    return 2.0;
}

const char *gpuecon_ffn_name(gpuecon_ffn f)
{
    switch (f) {
    case GPUECON_FFN_GELU: return "gelu";
    case GPUECON_FFN_RELU2: return "relu2";
    case GPUECON_FFN_SWIGLU: return "swiglu";
    case GPUECON_FFN_GEGLU: return "geglu";
    }
    return "unknown";
}

int gpuecon_ffn_matrices(gpuecon_ffn f)
{
    return (f == GPUECON_FFN_SWIGLU || f == GPUECON_FFN_GEGLU) ? 3 : 2;
}
