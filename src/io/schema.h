/*
 * schema.h — table-driven description of catalog entries (private).
 *
 * Each entry kind is a C struct plus a table of field descriptors: name, type, offset,
 * allowed range, default, unit and one line of documentation. One loader (schema.c) reads
 * any kind from YAML through the table, checks ranges, records each field's provenance and
 * suggests the nearest field name for a typo; `gpuecon catalog` lists fields through the same
 * table. Adding a field is one line here and one in the struct.
 */
#ifndef GPUECON_SCHEMA_H
#define GPUECON_SCHEMA_H

#include "io/io.h"
#include "yaml.h"

typedef enum ftype { FT_NUM, FT_INT, FT_BOOL, FT_TEXT, FT_ENUM, FT_KEYED } ftype;

enum { F_REQ = 1u, F_NAME = 2u };

typedef struct fdesc {
    const char *name;
    ftype type;
    size_t off;                 /* offset in the entry struct */
    size_t count_off;           /* FT_KEYED: offset of the size_t count */
    double lo, hi;              /* inclusive range for FT_NUM / FT_INT */
    double def;                 /* default for absent numbers / enums / bools */
    const char *deftext;        /* default for absent text */
    unsigned flags;
    const char *unit;
    const char *doc;
    const char *const *choices; /* FT_ENUM: NULL-terminated names, stored as int index */
} fdesc;

#define SCHEMA_MAX_FIELDS 64

typedef struct kdesc kdesc;
typedef struct centry centry;
struct gpuecon_catalog;

/* Post-load check and defaults that depend on other fields. */
typedef int (*kvalidate_fn)(struct gpuecon_catalog *cat, centry *e, const yaml_doc *doc,
                            ynode *node, gpuecon_error *err);

struct kdesc {
    const char *key;      /* "gpus": file stem and top-level YAML key */
    const char *singular; /* "gpu" (in messages) */
    size_t size;          /* sizeof the public struct */
    size_t src_off;       /* offset of its `const gpuecon_source *src` */
    const fdesc *fields;
    size_t nfields;
    kvalidate_fn validate;
    const char *const *extra; /* further keys validate reads itself (NULL-terminated), or NULL */
};

struct centry {
    void *obj;                 /* the public struct */
    const char *name;
    const char *origin;        /* file it came from */
    gpuecon_source *src;       /* one per field */
    uint64_t present;          /* bit j: field j was in the file */
};

extern const kdesc schema_kind_gpu, schema_kind_system, schema_kind_profile, schema_kind_model,
    schema_kind_reliability, schema_kind_stack, schema_kind_timeline, schema_kind_calibration;
/* The descriptor of a kind (indexed by gpuecon_kind). */
const kdesc *schema_kind(gpuecon_kind kind);

/* Reads one object described by `fields` from mapping `node`. Entry-level `source:` and
 * `stage:` keys give the default provenance; a field may instead be written as
 * {value: ..., source: ..., stage: ...}. Absent provenance falls back to `defsrc`.
 * `extra` lists further keys the caller handles itself (may be NULL). An unknown key without a
 * near name is sent to `fields_doc`, the page that lists the fields (docs/catalog.md,
 * docs/scenarios.md). */
int schema_load_object(arena *a, const fdesc *fields, size_t nfields, void *obj, gpuecon_source *src,
                       uint64_t *present, const yaml_doc *doc, ynode *node, gpuecon_source defsrc,
                       const char *const *extra, const char *fields_doc, gpuecon_error *err);
/* GPUECON_E_PARSE at node naming the first required field not in `present`, or 0. An object
 * with a `like:` key is loaded without this check; its kind runs it after the merge. */
int schema_check_required(const fdesc *fields, size_t nfields, uint64_t present, const yaml_doc *doc,
                          ynode *node, gpuecon_error *err);

/* Field j of an object read through `fields` (value, unit, doc, provenance, presence). */
void schema_field_get(const fdesc *fields, size_t j, const void *obj, const gpuecon_source *src,
                      uint64_t present, gpuecon_field *out);
/* Index of field `name` in a table, or -1. */
int schema_field_index(const fdesc *fields, size_t nfields, const char *name);
bool schema_present(const centry *e, const kdesc *k, const char *field);
/* The value node of field `name` in an entry's mapping (for error locations), or the
 * mapping itself when absent. */
ynode *schema_node(ynode *entry, const char *name);
bool schema_stage_parse(const char *s, gpuecon_stage *out);
/* An ISO date (YYYY-MM or YYYY-MM-DD) at node v into text (11 bytes) and days since 1970-01-01;
 * GPUECON_E_INPUT at v naming `field` otherwise. */
int schema_date(const yaml_doc *doc, ynode *v, const char *field, char *text, long *day, gpuecon_error *err);
/* The dated points of list node tl (1 to GPUECON_TIMELINE_MAX, strictly increasing dates), in
 * arena a; `field` names the list in messages, defsrc is the points' default provenance. */
int schema_timeline_points(arena *a, const yaml_doc *doc, ynode *tl, const char *field, gpuecon_source defsrc,
                           gpuecon_timeline_point **out, size_t *n, gpuecon_error *err);
/* The catalog's arena, for kinds whose validation loads further objects (catalog.c). */
arena *catalog_arena(struct gpuecon_catalog *cat);
/* What loads into cat may change, saved so that several loads are all or nothing
 * (catalog.c): take it (GPUECON_E_NOMEM when it cannot), then end it restoring the saved state
 * (after a failure) or keeping what was loaded; ending cannot fail. */
typedef struct catalog_snapshot catalog_snapshot;
int catalog_snapshot_take(struct gpuecon_catalog *cat, catalog_snapshot **out);
void catalog_snapshot_end(struct gpuecon_catalog *cat, catalog_snapshot *s, bool restore);

#endif
