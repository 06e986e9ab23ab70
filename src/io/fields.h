/*
 * fields.h — typed indices of the catalog fields whose provenance the model reads directly
 * (entry->src[index]), so the analyses never look a field up by its name and a misspelt
 * field cannot silently fall back to no source.
 *
 * Contract: each value is the field's position in its kind's schema table (src/io/schema.c
 * system_fields[] and profile_fields[], src/io/schema_reliability.c reliability_fields[]);
 * tests/unit/test_catalog.c checks every one against the schema's field name, so reordering a
 * table without updating this file fails a test rather than citing the wrong source.
 */
#ifndef GPUECON_IO_FIELDS_H
#define GPUECON_IO_FIELDS_H

typedef enum field_system {
    FIELD_SYSTEM_PUE = 9,
    FIELD_SYSTEM_CAPEX_USD_PER_GPU = 11,
} field_system;

typedef enum field_profile {
    FIELD_PROFILE_ELECTRICITY_USD_PER_KWH = 7,
    FIELD_PROFILE_PUE = 8,
} field_profile;

typedef enum field_reliability {
    FIELD_RELIABILITY_MTBI_GPU_DAYS = 4,
} field_reliability;

#endif
