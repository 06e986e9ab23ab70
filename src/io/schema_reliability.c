/*
 * schema_reliability.c — field table of data/reliability.yaml (operator tiers per system).
 */
#include "schema.h"

#include <stddef.h>
#include <string.h>

static const char *const tier_names[] = {"best", "typical", "poor", NULL};

static const fdesc reliability_fields[] = {
    {"name", FT_TEXT, offsetof(gpuecon_reliability, name), 0, 0, 0, 0, NULL, F_REQ | F_NAME, "",
     "<system>/<tier>", NULL},
    {"system", FT_TEXT, offsetof(gpuecon_reliability, system), 0, 0, 0, 0, NULL, F_REQ | F_NAME, "",
     "system (a name in systems.yaml)", NULL},
    {"tier", FT_TEXT, offsetof(gpuecon_reliability, tier), 0, 0, 0, 0, NULL, F_REQ, "",
     "operator tier", tier_names},
    {"mtbi_gpu_days", FT_NUM, offsetof(gpuecon_reliability, mtbi_gpu_days), 0, 1, 1e7, 0, NULL,
     F_REQ, "GPU-days", "mean time between job interruptions per active GPU", NULL},
};

static int reliability_validate(struct gpuecon_catalog *cat, centry *e, const yaml_doc *doc,
                                ynode *node, gpuecon_error *err)
{
    const gpuecon_reliability *r = e->obj;
    if (!gpuecon_catalog_system(cat, r->system)) {
        gpuecon_error tmp;
        gpuecon_catalog_find(cat, GPUECON_KIND_SYSTEM, r->system, "system", NULL, &tmp);
        return yaml_error(doc, schema_node(node, "system"), err, GPUECON_E_INPUT, "%s", tmp.message);
    }
    return GPUECON_OK;
}

const kdesc schema_kind_reliability = {
    "reliability", "reliability entry", sizeof(gpuecon_reliability),
    offsetof(gpuecon_reliability, src), reliability_fields,
    sizeof reliability_fields / sizeof reliability_fields[0], reliability_validate};
