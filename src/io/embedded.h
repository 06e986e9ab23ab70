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
#endif
