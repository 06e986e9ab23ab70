/* embedded.h — the YAML files of data/, compiled into the library by cmake/embed.cmake. */
#ifndef GPUECON_EMBEDDED_H
#define GPUECON_EMBEDDED_H
#include <stddef.h>
typedef struct embedded_file {
    const char *path; /* "data/gpus.yaml" */
    const char *data; /* NUL-terminated */
    size_t len;
} embedded_file;
extern const embedded_file embedded_files[]; /* ends with a NULL path */
/* The compiled-in file at path ("data/gpus.yaml"), NULL when there is none; *len its bytes
 * (catalog.c). */
const char *catalog_embedded(const char *path, size_t *len);
#endif
