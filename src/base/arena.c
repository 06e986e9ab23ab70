/*
 * arena.c — bump allocation for catalog data that lives as long as the catalog.
 *
 * Entries, names and source strings are never freed one by one, so a chain of chunks
 * released together keeps ownership trivial: gpuecon_catalog_free() frees the arena.
 */
#include "base/base.h"

#include <string.h>

struct arena_chunk {
    arena_chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};

void arena_init(arena *a, gpuecon_ctx *ctx)
{
    a->ctx = ctx;
    a->head = NULL;
}

void *arena_alloc(arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!a->head || a->head->size - a->head->used < n) {
        size_t size = n > 32768 ? n : 32768;
        arena_chunk *c = ctx_alloc(a->ctx, sizeof *c + size);
        if (!c)
            return NULL;
        c->size = size;
        c->next = a->head;
        a->head = c;
    }
    void *p = a->head->data + a->head->used;
    a->head->used += n;
    memset(p, 0, n);
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
    char *d = arena_alloc(a, n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

char *arena_strdup(arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

void arena_free(arena *a)
{
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *next = c->next;
        ctx_free(a->ctx, c, sizeof *c + c->size);
        c = next;
    }
    a->head = NULL;
}
