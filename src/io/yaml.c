/*
 * yaml.c — the one libfyaml adapter: parse a buffer into a document, walk it, locate nodes.
 *
 * libfyaml prints diagnostics to stderr by default; here a diag object collects them instead
 * and the first one becomes the error record, so the library stays silent.
 */
#include "yaml.h"

#include <errno.h>
#include <libfyaml.h>
#include <stdio.h>
#include <string.h>

struct yaml_doc {
    gpuecon_ctx *ctx;
    struct fy_document *fyd;
    char name[256];
};

static void diag_discard(struct fy_diag *diag, void *user, const char *buf, size_t len)
{
    (void)diag;
    (void)user;
    (void)buf;
    (void)len;
}

static int find_alias(ynode *n, ynode **where)
{
    switch (fy_node_get_type(n)) {
    case FYNT_SCALAR:
        if (fy_node_is_alias(n)) {
            *where = n;
            return 1;
        }
        if (fy_node_get_anchor(n)) {
            *where = n;
            return 1;
        }
        return 0;
    case FYNT_SEQUENCE: {
        if (fy_node_get_anchor(n)) {
            *where = n;
            return 1;
        }
        void *it = NULL;
        ynode *c;
        while ((c = fy_node_sequence_iterate(n, &it)))
            if (find_alias(c, where))
                return 1;
        return 0;
    }
    case FYNT_MAPPING: {
        if (fy_node_get_anchor(n)) {
            *where = n;
            return 1;
        }
        void *it = NULL;
        struct fy_node_pair *p;
        while ((p = fy_node_mapping_iterate(n, &it))) {
            ynode *k = fy_node_pair_key(p), *v = fy_node_pair_value(p);
            if ((k && find_alias(k, where)) || (v && find_alias(v, where)))
                return 1;
        }
        return 0;
    }
    }
    return 0;
}

/* Offset of the first byte that is not well-formed UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or len. YAML text must be Unicode; checking here keeps
 * malformed bytes away from libfyaml, which can loop forever on some of them (found by
 * fuzzing: a '%' directive line holding bytes 0x9a 0x8c). */
static size_t utf8_invalid_at(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t n;
        unsigned min;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
            min = 0x80;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            min = 0x800;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            min = 0x10000;
        } else {
            return i;
        }
        unsigned cp = c & (0x3F >> n);
        for (size_t k = 1; k <= n; k++) {
            if (i + k >= len || (s[i + k] & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += n + 1;
    }
    return len;
}

int yaml_parse(gpuecon_ctx *ctx, const char *name, const char *buf, size_t len, yaml_doc **out,
               gpuecon_error *err)
{
    *out = NULL;
    struct fy_diag_cfg dc;
    fy_diag_cfg_default(&dc);
    dc.fp = NULL;
    dc.output_fn = diag_discard;
    dc.colorize = false;
    struct fy_diag *diag = fy_diag_create(&dc);
    if (!diag)
        return err_set(err, GPUECON_E_NOMEM, name, 0, 0, "out of memory");
    fy_diag_set_collect_errors(diag, true);

    struct fy_parse_cfg pc;
    memset(&pc, 0, sizeof pc);
    pc.flags = FYPCF_QUIET | FYPCF_COLLECT_DIAG;
    pc.diag = diag;
    if (len == 0 || memchr(buf, '\0', len)) {
        fy_diag_destroy(diag);
        return err_set(err, GPUECON_E_PARSE, name, 1, 1,
                       len ? "the file contains a NUL byte; expected YAML text"
                           : "the file is empty; expected a YAML mapping");
    }
    size_t badpos = utf8_invalid_at((const unsigned char *)buf, len);
    if (badpos < len) {
        int line = 1, col = 1;
        for (size_t i = 0; i < badpos; i++) {
            if (buf[i] == '\n') {
                line++;
                col = 1;
            } else if (((unsigned char)buf[i] & 0xC0) != 0x80) {
                col++;
            }
        }
        fy_diag_destroy(diag);
        return err_set(err, GPUECON_E_PARSE, name, line, col,
                       "byte 0x%02x is not valid UTF-8; YAML files must be UTF-8 text",
                       (unsigned char)buf[badpos]);
    }
    struct fy_document *fyd = fy_document_build_from_string(&pc, buf, len);
    if (!fyd) {
        void *it = NULL;
        struct fy_diag_error *e = fy_diag_errors_iterate(diag, &it);
        if (e)
            err_set(err, GPUECON_E_PARSE, name, e->line > 0 ? e->line : 1,
                    e->column > 0 ? e->column : 1, "invalid YAML: %s", e->msg ? e->msg : "?");
        else
            err_set(err, GPUECON_E_PARSE, name, 1, 1, "invalid YAML");
        fy_diag_destroy(diag);
        return GPUECON_E_PARSE;
    }
    fy_diag_destroy(diag);
    yaml_doc *doc = ctx_alloc(ctx, sizeof *doc);
    if (!doc) {
        fy_document_destroy(fyd);
        return err_set(err, GPUECON_E_NOMEM, name, 0, 0, "out of memory");
    }
    doc->ctx = ctx;
    doc->fyd = fyd;
    snprintf(doc->name, sizeof doc->name, "%s", name);
    ynode *root = fy_document_root(fyd);
    if (!root) {
        yaml_free(doc);
        return err_set(err, GPUECON_E_PARSE, name, 1, 1, "the file holds no YAML document");
    }
    ynode *bad = NULL;
    if (find_alias(root, &bad)) {
        int rc = yaml_error(doc, bad, err, GPUECON_E_PARSE,
                            "YAML anchors and aliases are not supported; write the value out");
        yaml_free(doc);
        return rc;
    }
    *out = doc;
    return GPUECON_OK;
}

int yaml_read_file(gpuecon_ctx *ctx, const char *path, char **buf, size_t *len, gpuecon_error *err)
{
    *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return err_set(err, GPUECON_E_IO, path, 0, 0, "cannot open: %s", strerror(errno));
    size_t cap = ctx->cfg.max_file_bytes;
    size_t n = 0, size = 4096;
    char *b = ctx_alloc(ctx, size);
    if (!b) {
        fclose(f);
        return err_set(err, GPUECON_E_NOMEM, path, 0, 0, "out of memory");
    }
    for (;;) {
        if (n + 1 >= size) {
            char *nb = ctx_realloc(ctx, b, size, size * 2);
            if (!nb) {
                ctx_free(ctx, b, size);
                fclose(f);
                return err_set(err, GPUECON_E_NOMEM, path, 0, 0, "out of memory");
            }
            b = nb;
            size *= 2;
        }
        size_t got = fread(b + n, 1, size - n - 1, f);
        n += got;
        if (n > cap) {
            ctx_free(ctx, b, size);
            fclose(f);
            return err_set(err, GPUECON_E_IO, path, 0, 0,
                           "file is larger than the %zu-byte limit for input files", cap);
        }
        if (got == 0)
            break;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        ctx_free(ctx, b, size);
        return err_set(err, GPUECON_E_IO, path, 0, 0, "read error (is it a directory?)");
    }
    /* shrink to exactly n + 1 so the caller can free with the length it knows */
    char *exact = ctx_realloc(ctx, b, size, n + 1);
    if (!exact) {
        ctx_free(ctx, b, size);
        return err_set(err, GPUECON_E_NOMEM, path, 0, 0, "out of memory");
    }
    exact[n] = '\0';
    *buf = exact;
    *len = n;
    return GPUECON_OK;
}

void yaml_free(yaml_doc *doc)
{
    if (!doc)
        return;
    fy_document_destroy(doc->fyd);
    ctx_free(doc->ctx, doc, sizeof *doc);
}

const char *yaml_name(const yaml_doc *doc) { return doc->name; }
ynode *yaml_root(const yaml_doc *doc) { return fy_document_root(doc->fyd); }

int yaml_type(ynode *n)
{
    if (fy_node_is_alias(n))
        return Y_ALIAS;
    switch (fy_node_get_type(n)) {
    case FYNT_SEQUENCE: return Y_SEQ;
    case FYNT_MAPPING: return Y_MAP;
    default: return Y_SCALAR;
    }
}

const char *yaml_scalar(ynode *n, size_t *len)
{
    if (!n || fy_node_get_type(n) != FYNT_SCALAR)
        return NULL;
    return fy_node_get_scalar(n, len);
}

bool yaml_scalar_copy(ynode *n, char *buf, size_t cap)
{
    size_t len;
    const char *s = yaml_scalar(n, &len);
    if (!s || len + 1 > cap || memchr(s, '\0', len))
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return true;
}

size_t yaml_seq_len(ynode *n) { return (size_t)fy_node_sequence_item_count(n); }
ynode *yaml_seq_at(ynode *n, size_t i) { return fy_node_sequence_get_by_index(n, (int)i); }
ynode *yaml_seq_next(ynode *n, void **iter) { return fy_node_sequence_iterate(n, iter); }
size_t yaml_map_len(ynode *n) { return (size_t)fy_node_mapping_item_count(n); }

ynode *yaml_map_key(ynode *n, size_t i)
{
    struct fy_node_pair *p = fy_node_mapping_get_by_index(n, (int)i);
    return p ? fy_node_pair_key(p) : NULL;
}

ynode *yaml_map_value(ynode *n, size_t i)
{
    struct fy_node_pair *p = fy_node_mapping_get_by_index(n, (int)i);
    return p ? fy_node_pair_value(p) : NULL;
}

ynode *yaml_map_key_node(ynode *n, const char *key)
{
    size_t m = yaml_map_len(n);
    for (size_t i = 0; i < m; i++) {
        size_t len;
        ynode *k = yaml_map_key(n, i);
        const char *s = yaml_scalar(k, &len);
        if (s && len == strlen(key) && memcmp(s, key, len) == 0)
            return k;
    }
    return NULL;
}

ynode *yaml_map_get(ynode *n, const char *key)
{
    size_t m = yaml_map_len(n);
    for (size_t i = 0; i < m; i++) {
        size_t len;
        const char *k = yaml_scalar(yaml_map_key(n, i), &len);
        if (k && len == strlen(key) && memcmp(k, key, len) == 0)
            return yaml_map_value(n, i);
    }
    return NULL;
}

void yaml_where(ynode *n, int *line, int *col)
{
    *line = 0;
    *col = 0;
    for (int depth = 0; n && depth < 64; depth++) {
        switch (fy_node_get_type(n)) {
        case FYNT_SCALAR: {
            struct fy_token *t = fy_node_get_scalar_token(n);
            const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;
            if (m) {
                *line = m->line + 1;
                *col = m->column + 1;
            }
            return;
        }
        case FYNT_SEQUENCE:
            n = fy_node_sequence_item_count(n) > 0 ? fy_node_sequence_get_by_index(n, 0) : NULL;
            break;
        case FYNT_MAPPING:
            n = fy_node_mapping_item_count(n) > 0 ? yaml_map_key(n, 0) : NULL;
            break;
        }
    }
}

int yaml_error(const yaml_doc *doc, ynode *n, gpuecon_error *err, int code, const char *fmt, ...)
{
    int line = 0, col = 0;
    if (n)
        yaml_where(n, &line, &col);
    va_list ap;
    va_start(ap, fmt);
    err_vset(err, code, doc->name, line, col, fmt, ap);
    va_end(ap);
    return code;
}
