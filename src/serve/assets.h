/*
 * assets.h — the page's files (web/), compiled into the binary by cmake/embed_web.cmake so
 * `gpuecon serve` reads no files at run time and the page works offline.
 */
#ifndef GPUECON_SERVE_ASSETS_H
#define GPUECON_SERVE_ASSETS_H

#include <stddef.h>

typedef struct serve_asset {
    const char *path;  /* "/index.html" */
    const char *type;  /* media type with charset */
    const char *data;
    size_t size;
} serve_asset;

/* Terminated by an entry whose path is NULL. */
extern const serve_asset serve_assets[];

#endif
