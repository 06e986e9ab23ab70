/*
 * schema_calibration.c — field table of calibrations.yaml, the overlay `gpuecon calibrate -o DIR`
 * writes (docs/model.md §3.8, docs/catalog.md): one entry per calibrated group, a scale per family
 * of the model's efficiency parameters (GEMM, HBM, per-kernel time, collectives), each with stage
 * measured and the user's file and rows as its source.
 *
 * Key choice: the kind holds scales of model parameters and nothing else, so an overlay cannot
 * change a datasheet value: any other key is refused (the schema's unknown-field error), a scale
 * must say it was measured, and the system and stack it names must be in the catalog.
 */
#include "io/io.h"
#include "catalog.h"
#include "schema.h"

#include <stddef.h>
#include <string.h>

static const char *const workload_names[] = {"train", "finetune", "serve", "any", NULL};
static const char *const precision_names[] = {"bf16", "fp8", "fp4", "any", NULL};

#define C(f) offsetof(gpuecon_calibration, f)
#define SCALE(key, i, what)                                                                                    \
    {key, FT_NUM, C(scale[i]), 0, 0.01, 100, 1, NULL, 0, "",                                                     \
     "multiplies " what " (1: as built in; fitted within the bounds of docs/model.md §3.8)", NULL}

enum { F_NAME_ = 0, F_WORKLOAD, F_STACK, F_SYSTEM, F_PRECISION, F_GEMM, F_HBM, F_KERNEL, F_COMM, F_SPREAD, F_RUNS,
       F_FILE };

static const fdesc calibration_fields[] = {
    {"name", FT_TEXT, C(name), 0, 0, 0, 0, NULL, F_REQ | F_NAME, "", "STACK/SYSTEM/PRECISION", NULL},
    {"workload", FT_ENUM, C(workload), 0, 0, 0, 3, NULL, 0, "", "what it calibrates: train, finetune, serve or any", workload_names},
    {"stack", FT_TEXT, C(stack), 0, 0, 0, 0, "", 0, "", "the stack it applies to (empty: any)", NULL},
    {"system", FT_TEXT, C(system), 0, 0, 0, 0, "", 0, "", "the system it applies to (empty: any)", NULL},
    {"precision", FT_ENUM, C(precision), 0, 0, 0, 3, NULL, 0, "", "the precision it applies to (any)", precision_names},
    SCALE("gemm_scale", GPUECON_CAL_GEMM, "the tensor-core fractions (GEMM, attention; serving eta_c)"),
    SCALE("hbm_scale", GPUECON_CAL_HBM, "the HBM fractions (training hbm; serving eta_bw, eta_kv, eta_moe)"),
    SCALE("kernel_scale", GPUECON_CAL_KERNEL, "the fixed time per kernel and host step"),
    SCALE("comm_scale", GPUECON_CAL_COMM, "the collective bus-bandwidth fractions"),
    {"spread", FT_NUM, C(spread), 0, 0, 5, 0, NULL, 0, "", "80% half-width of the leave-one-out |ln(predicted/measured)|", NULL},
    {"runs", FT_INT, C(runs), 0, 0, 100000, 0, NULL, 0, "", "measurements the scales were fitted on", NULL},
    {"runs_file", FT_TEXT, C(source), 0, 0, 0, 0, "", 0, "", "the user's RUNS.yaml", NULL},
};
#define NFIELDS (sizeof calibration_fields / sizeof calibration_fields[0])

static int calibration_validate(struct gpuecon_catalog *cat, centry *e, const yaml_doc *doc, ynode *node,
                                gpuecon_error *err)
{
    gpuecon_calibration *c = e->obj;
    if (c->workload == 3)
        c->workload = -1;
    if (c->precision == 3)
        c->precision = -1;
    if (c->stack && !c->stack[0])
        c->stack = NULL;
    if (c->system && !c->system[0])
        c->system = NULL;
    if (c->source && !c->source[0])
        c->source = NULL;
    if (c->system && !catalog_entry(cat, GPUECON_KIND_SYSTEM, c->system))
        return yaml_error(doc, schema_node(node, "system"), err, GPUECON_E_INPUT,
                          "system: '%s' is not in the catalog (gpuecon catalog systems lists them)", c->system);
    /* a stack of the catalog, or (serving) a built-in efficiency profile that infer runs as a bare engine */
    if (c->stack && !catalog_entry(cat, GPUECON_KIND_STACK, c->stack) && !gpuecon_serving_profile_find(c->stack))
        return yaml_error(doc, schema_node(node, "stack"), err, GPUECON_E_INPUT,
                          "stack: '%s' is neither in the catalog (gpuecon catalog stacks lists them) nor a built-in "
                          "serving profile", c->stack);
    for (int p = 0; p < GPUECON_CAL_PARAMS; p++) {
        size_t j = F_GEMM + (size_t)p;
        if (!(e->present & 1ull << j))
            continue;
        if (e->src[j].stage != GPUECON_STAGE_MEASURED)
            return yaml_error(doc, schema_node(node, calibration_fields[j].name), err, GPUECON_E_INPUT,
                              "%s: a calibration's scale is fitted on measured runs (stage: measured, source: the "
                              "runs file and rows); it is %s here", calibration_fields[j].name,
                              gpuecon_stage_name(e->src[j].stage));
        c->scale_source[p] = e->src[j].text;
    }
    return GPUECON_OK;
}

const kdesc schema_kind_calibration = {"calibrations", "calibration", sizeof(gpuecon_calibration),
                                       offsetof(gpuecon_calibration, src), calibration_fields, NFIELDS,
                                       calibration_validate, NULL};
