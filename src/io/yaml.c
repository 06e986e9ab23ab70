/*
 * yaml.c — the one libfyaml adapter: parse a buffer into a document, walk it, locate nodes.
 *
 * libfyaml prints diagnostics to stderr by default; here a diag object collects them instead
 * and the first one becomes the error record, so the library stays silent.
 */
#include "io/io.h"
#include "yaml.h"

#include <errno.h>
#include <fcntl.h>
#include <libfyaml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Limits that keep every later walk of a document short: no schema has more than ~60 fields,
 * and a catalog of 65,536 entries is far above any real one. */
#define MAX_MAP_KEYS 1024
#define MAX_SEQ_ITEMS 65536

struct yaml_doc {
    gpuecon_ctx *ctx;
    struct fy_diag *diag;
    struct fy_parser *fyp; /* owns fyd */
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

typedef struct keyref {
    const char *s;
    size_t len, index;
    ynode *node;
} keyref;

static int keyref_cmp(const void *pa, const void *pb)
{
    const keyref *a = pa, *b = pb;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->s, b->s, n);
    if (c || a->len != b->len)
        return c ? c : a->len < b->len ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* The first problem of mapping m's keys: too many, or a scalar key given twice (the later
 * one, in file order). Sorting makes it O(k log k); libfyaml's own check is quadratic, so it
 * is turned off (FYPCF_ALLOW_DUPLICATE_KEYS) and this one runs instead. */
static const char *map_keys_problem(ynode *m, ynode **where, const keyref **first, keyref *buf)
{
    size_t k = 0;
    void *it = NULL;
    struct fy_node_pair *p;
    while ((p = fy_node_mapping_iterate(m, &it))) {
        ynode *key = fy_node_pair_key(p);
        if (k == MAX_MAP_KEYS) {
            *where = key ? key : m;
            return "too many keys";
        }
        size_t len;
        const char *s = key && fy_node_get_type(key) == FYNT_SCALAR ? fy_node_get_scalar(key, &len) : NULL;
        if (s)
            buf[k] = (keyref){s, len, k, key}, k++;
    }
    qsort(buf, k, sizeof *buf, keyref_cmp);
    const keyref *dup = NULL;
    for (size_t i = 1; i < k; i++)
        if (buf[i].len == buf[i - 1].len && !memcmp(buf[i].s, buf[i - 1].s, buf[i].len) &&
            (!dup || buf[i].index < dup->index))
            dup = &buf[i], *first = &buf[i - 1];
    if (!dup)
        return NULL;
    while (*first > buf && (*first)[-1].len == dup->len && !memcmp((*first)[-1].s, dup->s, dup->len))
        (*first)--;
    *where = dup->node;
    return "duplicate key";
}

/* Walks the tree for the limits above and duplicate keys; reports the first problem. */
static int check_tree(const yaml_doc *doc, ynode *n, keyref *buf, int depth, gpuecon_error *err)
{
    if (depth > 64)
        return yaml_error(doc, n, err, GPUECON_E_PARSE, "nested more than 64 levels deep");
    if (fy_node_get_type(n) == FYNT_SEQUENCE) {
        void *it = NULL;
        ynode *c;
        size_t i = 0;
        while ((c = fy_node_sequence_iterate(n, &it))) {
            if (++i > MAX_SEQ_ITEMS)
                return yaml_error(doc, c, err, GPUECON_E_PARSE,
                                  "more than %d items in one list", MAX_SEQ_ITEMS);
            int rc = check_tree(doc, c, buf, depth + 1, err);
            if (rc)
                return rc;
        }
    } else if (fy_node_get_type(n) == FYNT_MAPPING) {
        ynode *where = NULL;
        const keyref *first = NULL;
        const char *why = map_keys_problem(n, &where, &first, buf);
        if (why && first) {
            int line, col;
            yaml_where(first->node, &line, &col);
            return yaml_error(doc, where, err, GPUECON_E_PARSE,
                              "duplicate key '%.*s' (first given at line %d); each key may appear once",
                              (int)(first->len < 80 ? first->len : 80), first->s, line);
        }
        if (why)
            return yaml_error(doc, where, err, GPUECON_E_PARSE,
                              "key %d of one mapping: a mapping holds at most %d keys",
                              MAX_MAP_KEYS + 1, MAX_MAP_KEYS);
        void *it = NULL;
        struct fy_node_pair *p;
        while ((p = fy_node_mapping_iterate(n, &it))) {
            ynode *v = fy_node_pair_value(p);
            int rc = v ? check_tree(doc, v, buf, depth + 1, err) : 0;
            if (rc)
                return rc;
        }
    }
    return GPUECON_OK;
}

/* Text that libfyaml must never see: empty, NUL bytes, malformed UTF-8 (YAML text must be
 * Unicode, and libfyaml can loop forever on some malformed bytes: found by fuzzing, a '%'
 * directive line holding bytes 0x9a 0x8c). */
static int check_text(const char *name, const char *buf, size_t len, gpuecon_error *err)
{
    if (len == 0 || memchr(buf, '\0', len))
        return err_set(err, GPUECON_E_PARSE, name, 1, 1,
                       len ? "the file contains a NUL byte; expected YAML text"
                           : "the file is empty; expected a YAML mapping");
    /* A block-context explicit key ('?' opening a line, after indentation and "- " markers): no
     * gpuecon file needs one, and libfyaml 0.7.12 crashes freeing its parser after some of them
     * ("? s:\t:", six bytes found by fuzz_runs: a SEGV in fy_indent_vacuum_internal), so its
     * parser never sees one. */
    for (size_t i = 0, line = 1; i < len; line++) {
        size_t j = i;
        while (j < len && (buf[j] == ' ' || buf[j] == '\t' || (buf[j] == '-' && j + 1 < len &&
                                                               (buf[j + 1] == ' ' || buf[j + 1] == '\t'))))
            j++;
        if (j < len && buf[j] == '?' && (j + 1 == len || buf[j + 1] == ' ' || buf[j + 1] == '\t' ||
                                         buf[j + 1] == '\n' || buf[j + 1] == '\r'))
            return err_set(err, GPUECON_E_PARSE, name, (int)line, (int)(j - i + 1),
                           "an explicit '?' mapping key; write the key plainly (key: value)");
        const char *nl = memchr(buf + i, '\n', len - i);
        i = nl ? (size_t)(nl - buf) + 1 : len;
    }
    /* A carriage return that does not end a CRLF pair: YAML counts it as a line break, so libfyaml's
     * line numbers would run ahead of the lines an editor shows (a one-line config.json with 37 CRs in
     * a string was reported at line 38; fuzz_hf). LF and CRLF files are read as they are. */
    for (size_t i = 0, line = 1, col = 1; i < len; i++) {
        if (buf[i] == '\r' && (i + 1 == len || buf[i + 1] != '\n'))
            return err_set(err, GPUECON_E_PARSE, name, (int)line, (int)col,
                           "a carriage return (CR) that is not followed by a line feed; save the file with "
                           "LF or CRLF line endings");
        if (buf[i] == '\n')
            line++, col = 1;
        else if (((unsigned char)buf[i] & 0xC0) != 0x80)
            col++;
    }
    size_t badpos = text_utf8_invalid_at((const unsigned char *)buf, len);
    if (badpos == len)
        return GPUECON_OK;
    int line = 1, col = 1;
    for (size_t i = 0; i < badpos; i++) {
        if (buf[i] == '\n') {
            line++;
            col = 1;
        } else if (((unsigned char)buf[i] & 0xC0) != 0x80) {
            col++;
        }
    }
    return err_set(err, GPUECON_E_PARSE, name, line, col,
                   "byte 0x%02x is not valid UTF-8; YAML files must be UTF-8 text",
                   (unsigned char)buf[badpos]);
}

/* Parses the one document of buf into doc (whose diag collects libfyaml's errors); a syntax
 * error anywhere, or a second document, is an error. */
static int load_one_document(yaml_doc *doc, const char *buf, size_t len, gpuecon_error *err)
{
    struct fy_parse_cfg pc;
    memset(&pc, 0, sizeof pc);
    /* duplicate keys are checked by check_tree in O(k log k); libfyaml's check is quadratic */
    pc.flags = FYPCF_QUIET | FYPCF_COLLECT_DIAG | FYPCF_ALLOW_DUPLICATE_KEYS;
    pc.diag = doc->diag;
    doc->fyp = fy_parser_create(&pc);
    if (!doc->fyp || fy_parser_set_string(doc->fyp, buf, len))
        return err_set(err, GPUECON_E_NOMEM, doc->name, 0, 0, "out of memory");
    doc->fyd = fy_parse_load_document(doc->fyp);
    struct fy_document *second = doc->fyd ? fy_parse_load_document(doc->fyp) : NULL;
    void *eit = NULL;
    struct fy_diag_error *e = fy_diag_errors_iterate(doc->diag, &eit);
    int line = 1, col = 1;
    if (second && !e && fy_document_root(second))
        yaml_where(fy_document_root(second), &line, &col);
    if (second)
        fy_parse_document_destroy(doc->fyp, second);
    if (e || !doc->fyd)
        return err_set(err, GPUECON_E_PARSE, doc->name, e && e->line > 0 ? e->line : 1,
                       e && e->column > 0 ? e->column : 1, "invalid YAML%s%s", e ? ": " : "",
                       e && e->msg ? e->msg : "");
    if (second)
        return err_set(err, GPUECON_E_PARSE, doc->name, line > 0 ? line : 1, col > 0 ? col : 1,
                       "a second YAML document (after '---'); a file holds exactly one");
    if (!fy_document_root(doc->fyd))
        return err_set(err, GPUECON_E_PARSE, doc->name, 1, 1, "the file holds no YAML document");
    keyref *kbuf = ctx_alloc(doc->ctx, MAX_MAP_KEYS * sizeof *kbuf);
    if (!kbuf)
        return err_set(err, GPUECON_E_NOMEM, doc->name, 0, 0, "out of memory");
    int rc = check_tree(doc, fy_document_root(doc->fyd), kbuf, 0, err);
    ctx_free(doc->ctx, kbuf, MAX_MAP_KEYS * sizeof *kbuf);
    return rc;
}

int yaml_parse(gpuecon_ctx *ctx, const char *name, const char *buf, size_t len, yaml_doc **out,
               gpuecon_error *err)
{
    *out = NULL;
    int rc = check_text(name, buf, len, err);
    if (rc)
        return rc;
    struct fy_diag_cfg dc;
    fy_diag_cfg_default(&dc);
    dc.fp = NULL;
    dc.output_fn = diag_discard;
    dc.colorize = false;
    yaml_doc *doc = ctx_alloc(ctx, sizeof *doc);
    if (!doc || !(doc->diag = fy_diag_create(&dc))) {
        if (doc)
            ctx_free(ctx, doc, sizeof *doc);
        return err_set(err, GPUECON_E_NOMEM, name, 0, 0, "out of memory");
    }
    fy_diag_set_collect_errors(doc->diag, true);
    doc->ctx = ctx;
    snprintf(doc->name, sizeof doc->name, "%s", name);
    if ((rc = load_one_document(doc, buf, len, err))) {
        yaml_free(doc);
        return rc;
    }
    ynode *bad = NULL;
    if (find_alias(fy_document_root(doc->fyd), &bad)) {
        rc = yaml_error(doc, bad, err, GPUECON_E_PARSE,
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
    /* non-blocking, so that a FIFO cannot hang the open; then only a regular file is read */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return err_set(err, GPUECON_E_IO, path, 0, 0, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const char *what = S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a FIFO"
                         : S_ISSOCK(st.st_mode) ? "a socket" : "a device or special file";
        close(fd);
        return err_set(err, GPUECON_E_IO, path, 0, 0, "is %s; expected a regular file", what);
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return err_set(err, GPUECON_E_NOMEM, path, 0, 0, "out of memory");
    }
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
    if (doc->fyd)
        fy_parse_document_destroy(doc->fyp, doc->fyd);
    if (doc->fyp)
        fy_parser_destroy(doc->fyp);
    if (doc->diag)
        fy_diag_destroy(doc->diag);
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

int yaml_text_check(const yaml_doc *doc, ynode *n, const char *field, const char *s, size_t len, size_t max,
                    bool lines, gpuecon_error *err)
{
    if (len > max)
        return yaml_error(doc, n, err, GPUECON_E_PARSE, "%s: text longer than %zu bytes", field, max);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0)
            return yaml_error(doc, n, err, GPUECON_E_PARSE, "%s: text holds a NUL byte (\\0)", field);
        if ((c < 0x20 || c == 0x7f) && !(lines && (c == '\n' || c == '\t')))
            return yaml_error(doc, n, err, GPUECON_E_PARSE,
                              "%s: text holds the control character U+%04X; allowed: printable text%s", field, c,
                              lines ? ", newlines and tabs" : "");
    }
    return GPUECON_OK;
}

/* libfyaml's counts are int and -1 on a node of another type (a scalar where a mapping was
 * expected: "vision_config": "x"); a cast to size_t made that SIZE_MAX and every loop over it
 * endless. Every count here is 0 for a node of the wrong type and never negative, and every
 * index is checked against INT_MAX before libfyaml sees it. */
size_t yaml_seq_len(ynode *n)
{
    int c = n && fy_node_get_type(n) == FYNT_SEQUENCE ? fy_node_sequence_item_count(n) : 0;
    return c > 0 ? (size_t)c : 0;
}
ynode *yaml_seq_at(ynode *n, size_t i)
{
    return i < yaml_seq_len(n) ? fy_node_sequence_get_by_index(n, (int)i) : NULL;
}
ynode *yaml_seq_next(ynode *n, void **iter)
{
    return n && fy_node_get_type(n) == FYNT_SEQUENCE ? fy_node_sequence_iterate(n, iter) : NULL;
}
size_t yaml_map_len(ynode *n)
{
    int c = n && fy_node_get_type(n) == FYNT_MAPPING ? fy_node_mapping_item_count(n) : 0;
    return c > 0 ? (size_t)c : 0;
}

static struct fy_node_pair *map_pair(ynode *n, size_t i)
{
    return i < yaml_map_len(n) ? fy_node_mapping_get_by_index(n, (int)i) : NULL;
}

ynode *yaml_map_key(ynode *n, size_t i)
{
    struct fy_node_pair *p = map_pair(n, i);
    return p ? fy_node_pair_key(p) : NULL;
}

ynode *yaml_map_value(ynode *n, size_t i)
{
    struct fy_node_pair *p = map_pair(n, i);
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
            n = yaml_seq_at(n, 0);
            break;
        case FYNT_MAPPING:
            n = yaml_map_key(n, 0);
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
