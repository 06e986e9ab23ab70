/*
 * schema_reliability.c — field table of data/reliability.yaml: one entry per system and
 * operator tier, with the failure classes flattened into per-class fields (gpu_share,
 * gpu_blast, gpu_mttr_min_h, gpu_mttr_max_h, gpu_detect_extra_s, gpu_restart_extra_s, ...).
 *
 * Key choice: `like: OTHER` fills every field an entry leaves out from an entry defined
 * earlier in the same file (or already in the catalog), keeping that entry's source and
 * stage. Tiers and related systems then state only what differs (usually the MTBI) while
 * every inherited number still says where it comes from. Only earlier entries can be named,
 * so there are no cycles, and chains are at most LIKE_DEPTH deep, so loading stays linear.
 */
#include "io/io.h"
#include "schema.h"
#include "model/names.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define LIKE_DEPTH 4

static const char *const blast_names[] = {"node", "domain", "job", NULL};

#define R(f) offsetof(gpuecon_reliability, f)
#define RNUM(f, lo, hi, def, unit, doc) {#f, FT_NUM, R(f), 0, lo, hi, def, NULL, 0, unit, doc, NULL}
#define CLASS(c, i, share_, blast_, lo_, hi_, what)                                             \
    {c "_share", FT_NUM, R(fclass[i].share), 0, 0, 1, share_, NULL, 0, "",                      \
     "share of interruptions: " what, NULL},                                                    \
    {c "_blast", FT_ENUM, R(fclass[i].blast), 0, 0, 0, blast_, NULL, 0, "",                     \
     "blast radius of " c " faults: node (server/tray), domain (NVLink domain) or job",         \
     blast_names},                                                                              \
    {c "_mttr_min_h", FT_NUM, R(fclass[i].mttr_min_h), 0, 0, 8760, lo_, NULL, 0, "h",           \
     "shortest repair of a unit after a " c " fault", NULL},                                    \
    {c "_mttr_max_h", FT_NUM, R(fclass[i].mttr_max_h), 0, 0, 8760, hi_, NULL, 0, "h",           \
     "longest repair (uniform between min and max)", NULL},                                     \
    {c "_detect_extra_s", FT_NUM, R(fclass[i].detect_extra_s), 0, 0, 1e6, 0, NULL, 0, "s",      \
     "added to detect_s for " c " faults", NULL},                                               \
    {c "_restart_extra_s", FT_NUM, R(fclass[i].restart_extra_s), 0, 0, 1e6, 0, NULL, 0, "s",    \
     "added to restart_s after " c " faults", NULL}

/* Defaults (for user entries without `like`): Llama 3 Table 5's mix, no rack drains. */
static const fdesc reliability_fields[] = {
    {"name", FT_TEXT, R(name), 0, 0, 0, 0, NULL, F_REQ | F_NAME, "", "<system>/<tier>", NULL},
    {"system", FT_TEXT, R(system), 0, 0, 0, 0, NULL, F_REQ | F_NAME, "",
     "system (a name in systems.yaml)", NULL},
    {"tier", FT_TEXT, R(tier), 0, 0, 0, 0, NULL, F_REQ, "", "operator tier", names_tier},
    {"like", FT_TEXT, R(like), 0, 0, 0, 0, NULL, F_NAME, "",
     "entry (earlier in the file, or in the catalog) whose values fill absent fields", NULL},
    {"mtbi_gpu_days", FT_NUM, R(mtbi_gpu_days), 0, 1, 1e7, 0, NULL, F_REQ, "GPU-days",
     "mean time between job interruptions per active GPU", NULL},
    RNUM(detect_s, 0, 1e6, 900, "s", "fault detection and eviction decision"),
    RNUM(restart_s, 0, 1e6, 900, "s", "re-schedule, init, checkpoint load, warm-up"),
    RNUM(queue_s, 0, 1e6, 0, "s", "queue time per (re)submission"),
    RNUM(ckpt_interval_s, 0, 1e7, 0, "s", "work between checkpoints (0: optimal, Daly)"),
    RNUM(ckpt_write_s, 0, 1e6, 60, "s", "time to write one checkpoint"),
    {"async_ckpt", FT_BOOL, R(async_ckpt), 0, 0, 1, 0, NULL, 0, "",
     "checkpoint written in the background after a blocking copy", NULL},
    RNUM(ckpt_block_s, 0, 1e6, 5, "s", "blocking part of an asynchronous checkpoint"),
    {"spares_per_domain", FT_INT, R(spares_per_domain), 0, 0, 1152, 0, NULL, 0, "",
     "GPUs of each job domain held as hot spares", NULL},
    RNUM(spare_domain_pct, 0, 100, 0, "%", "pool of whole spare domains, % of the job's domains"),
    CLASS("gpu", GPUECON_FCLASS_GPU, 268.0 / 419, GPUECON_BLAST_NODE, 1, 4,
          "GPU, HBM, SRAM, GSP, thermal, SDC"),
    CLASS("host", GPUECON_FCLASS_HOST, 53.0 / 419, GPUECON_BLAST_NODE, 1, 4,
          "host maintenance, NIC, SSD, PSU, CPU, memory, chassis"),
    CLASS("network", GPUECON_FCLASS_NETWORK, 35.0 / 419, GPUECON_BLAST_NODE, 0.5, 2,
          "network switch or cable"),
    CLASS("software", GPUECON_FCLASS_SOFTWARE, 63.0 / 419, GPUECON_BLAST_JOB, 0, 0,
          "software bug, NCCL watchdog, dependency"),
    CLASS("switch", GPUECON_FCLASS_SWITCH, 0, GPUECON_BLAST_DOMAIN, 1, 4,
          "NVLink switch tray (rack drain)"),
    CLASS("backplane", GPUECON_FCLASS_BACKPLANE, 0, GPUECON_BLAST_DOMAIN, 8, 24,
          "NVLink backplane, rack power or cooling (rack drain)"),
};

#define NFIELDS (sizeof reliability_fields / sizeof reliability_fields[0])

static void copy_field(const fdesc *f, void *dst, const void *src)
{
    size_t n = f->type == FT_NUM ? sizeof(double)
               : f->type == FT_INT || f->type == FT_ENUM ? sizeof(int)
               : f->type == FT_BOOL ? sizeof(bool)
               : sizeof(const char *);
    memcpy((char *)dst + f->off, (const char *)src + f->off, n);
}

/* An entry's name node; `name:` usually comes first, so look there before searching. */
static ynode *entry_name(ynode *n)
{
    size_t len;
    if (yaml_type(n) != Y_MAP)
        return NULL;
    const char *k = yaml_scalar(yaml_map_key(n, 0), &len); /* NULL for an empty mapping */
    if (k && len == 4 && memcmp(k, "name", 4) == 0)
        return yaml_map_value(n, 0);
    return yaml_map_get(n, "name");
}

/* The entry named `name` that comes before `node` in this file's list, or NULL. Earlier
 * names are unique (a duplicate is refused before the next entry is read), so the first
 * match is the one. Linear in the entries before `node`. */
static ynode *earlier_entry(const yaml_doc *doc, ynode *node, const char *name)
{
    ynode *list = yaml_map_get(yaml_root(doc), "reliability"), *n;
    size_t want = strlen(name), len;
    void *it = NULL;
    while (list && yaml_type(list) == Y_SEQ && (n = yaml_seq_next(list, &it)) && n != node) {
        const char *s = yaml_scalar(entry_name(n), &len);
        if (s && len == want && memcmp(s, name, len) == 0)
            return n;
    }
    return NULL;
}

/* Fills the fields of r that are absent (bit clear in *present) from its `like` entry. */
static int merge_like(struct gpuecon_catalog *cat, const yaml_doc *doc, ynode *top, ynode *node,
                      gpuecon_reliability *r, gpuecon_source *src, uint64_t *present, int depth,
                      gpuecon_error *err)
{
    if (!r->like)
        return GPUECON_OK;
    if (depth >= LIKE_DEPTH)
        return yaml_error(doc, schema_node(top, "like"), err, GPUECON_E_INPUT,
                          "like: the chain of like: entries is longer than %d", LIKE_DEPTH);
    ynode *base = earlier_entry(doc, node, r->like);
    gpuecon_reliability b;
    gpuecon_source bsrc[NFIELDS];
    uint64_t bpresent = 0;
    if (base) {
        gpuecon_source defsrc = {yaml_name(doc), GPUECON_STAGE_ASSUMPTION};
        int rc = schema_load_object(catalog_arena(cat), reliability_fields, NFIELDS, &b, bsrc,
                                    &bpresent, doc, base, defsrc, NULL, "docs/catalog.md", err);
        if (rc || (rc = merge_like(cat, doc, top, base, &b, bsrc, &bpresent, depth + 1, err)))
            return rc;
    } else {
        const gpuecon_reliability *c = gpuecon_catalog_reliability(cat, r->like);
        if (!c)
            return yaml_error(doc, schema_node(node, "like"), err, GPUECON_E_INPUT,
                              "like: no reliability entry '%s' earlier in this file or in the "
                              "catalog",
                              r->like);
        b = *c;
        for (size_t j = 0; j < NFIELDS; j++)
            bsrc[j] = c->src[j];
        bpresent = catalog_present(cat, GPUECON_KIND_RELIABILITY, c->name);
    }
    for (size_t j = 1; j < NFIELDS; j++) { /* field 0, the name, is the entry's own: never inherited */
        if ((*present >> j) & 1u)
            continue;
        copy_field(&reliability_fields[j], r, &b);
        src[j] = bsrc[j];
        *present |= bpresent & ((uint64_t)1 << j);
    }
    return GPUECON_OK;
}

static int reliability_validate(struct gpuecon_catalog *cat, centry *e, const yaml_doc *doc,
                                ynode *node, gpuecon_error *err)
{
    gpuecon_reliability *r = e->obj;
    int rc = merge_like(cat, doc, node, node, r, e->src, &e->present, 0, err);
    if (rc || (rc = schema_check_required(reliability_fields, NFIELDS, e->present, doc, node, err)))
        return rc;
    const gpuecon_system *s = gpuecon_catalog_system(cat, r->system);
    if (!s) {
        gpuecon_error tmp;
        gpuecon_catalog_find(cat, GPUECON_KIND_SYSTEM, r->system, "system", NULL, &tmp);
        return yaml_error(doc, schema_node(node, "system"), err, GPUECON_E_INPUT, "%s", tmp.message);
    }
    double sum = 0;
    for (int c = 0; c < GPUECON_FCLASS_COUNT; c++) {
        const gpuecon_fclass_params *p = &r->fclass[c];
        sum += p->share;
        if (p->mttr_min_h > p->mttr_max_h) {
            char field[40];
            snprintf(field, sizeof field, "%s_mttr_max_h", gpuecon_fclass_name((gpuecon_fclass)c));
            return yaml_error(doc, schema_node(node, field), err, GPUECON_E_INPUT,
                              "%s: %s h is below %s_mttr_min_h (%s h)", field, NUM_VAL(p->mttr_max_h),
                              gpuecon_fclass_name((gpuecon_fclass)c), NUM_VAL(p->mttr_min_h));
        }
    }
    if (fabs(sum - 1) > 0.01)
        return yaml_error(doc, node, err, GPUECON_E_INPUT,
                          "the failure-class shares (gpu_share ... backplane_share) sum to %s; "
                          "they must sum to 1", NUM_VAL(sum));
    int k = r->spares_per_domain;
    if (k >= s->scaleup_gpus || k % s->gpus_per_node)
        return yaml_error(doc, schema_node(node, "spares_per_domain"), err, GPUECON_E_INPUT,
                          "spares_per_domain: %d is not allowed for %s; allowed 0 to %d in steps "
                          "of %d (whole nodes, fewer than the %d-GPU domain)",
                          k, s->name, s->scaleup_gpus - s->gpus_per_node, s->gpus_per_node,
                          s->scaleup_gpus);
    if (r->async_ckpt && r->ckpt_block_s > r->ckpt_write_s)
        return yaml_error(doc, schema_node(node, "ckpt_block_s"), err, GPUECON_E_INPUT,
                          "ckpt_block_s: %s s is longer than ckpt_write_s (%s s)", NUM_VAL(r->ckpt_block_s),
                          NUM_VAL(r->ckpt_write_s));
    if (r->ckpt_interval_s > 0 && r->ckpt_interval_s < r->ckpt_write_s)
        return yaml_error(doc, schema_node(node, "ckpt_interval_s"), err, GPUECON_E_INPUT,
                          "ckpt_interval_s: %s s is shorter than ckpt_write_s (%s s); allowed "
                          "0 (optimal) or at least the write time", NUM_VAL(r->ckpt_interval_s),
                          NUM_VAL(r->ckpt_write_s));
    return GPUECON_OK;
}

const kdesc schema_kind_reliability = {
    "reliability", "reliability entry", sizeof(gpuecon_reliability),
    offsetof(gpuecon_reliability, src), reliability_fields, NFIELDS, reliability_validate, NULL};
