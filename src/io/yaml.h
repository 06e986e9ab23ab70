/*
 * yaml.h — the library's one adapter over libfyaml (private).
 *
 * Everything else reads YAML through these few functions, so libfyaml types never leak
 * and every location is reported the same way: 1-based line and column of the node.
 */
#ifndef GPUECON_YAML_H
#define GPUECON_YAML_H

#include "io/io.h"

typedef struct yaml_doc yaml_doc;
typedef struct fy_node ynode;

enum ytype { Y_SCALAR, Y_SEQ, Y_MAP, Y_ALIAS };

/* Parse len bytes; `name` is the file name used in errors. Anchors/aliases are refused
 * (a catalog never needs them and they allow exponential expansion). */
int yaml_parse(gpuecon_ctx *ctx, const char *name, const char *buf, size_t len, yaml_doc **out,
               gpuecon_error *err);
/* Read a whole file (refusing files above the context's max_file_bytes) into a NUL-ended
 * buffer owned by the caller (free with ctx_free(ctx, buf, *len + 1)). */
int yaml_read_file(gpuecon_ctx *ctx, const char *path, char **buf, size_t *len, gpuecon_error *err);
void yaml_free(yaml_doc *doc);

const char *yaml_name(const yaml_doc *doc);
ynode *yaml_root(const yaml_doc *doc);
int yaml_type(ynode *n);
/* Scalar text (not NUL-terminated) or NULL for a non-scalar. */
const char *yaml_scalar(ynode *n, size_t *len);
/* Copies a scalar into buf (NUL-terminated, truncated); returns false for non-scalars or
 * text longer than cap-1. */
bool yaml_scalar_copy(ynode *n, char *buf, size_t cap);
/* Checks the text of scalar n for a field: at most max bytes, no NUL byte, and no control character
 * (U+0000-U+001F, U+007F) but newline and tab where lines is true: a name reaches terminals, logs and
 * CSV, where ESC or BEL would act. GPUECON_OK, or the error at n naming the field and what is wrong. */
int yaml_text_check(const yaml_doc *doc, ynode *n, const char *field, const char *s, size_t len, size_t max,
                    bool lines, gpuecon_error *err);
size_t yaml_seq_len(ynode *n);
ynode *yaml_seq_at(ynode *n, size_t i);
/* Items of sequence n in order, in linear time: start with *iter = NULL; NULL at the end. */
ynode *yaml_seq_next(ynode *n, void **iter);
size_t yaml_map_len(ynode *n);
ynode *yaml_map_key(ynode *n, size_t i);
ynode *yaml_map_value(ynode *n, size_t i);
/* The key node `key` of mapping n (for locating an empty value), or NULL. */
ynode *yaml_map_key_node(ynode *n, const char *key);
/* Value of the key `key` in mapping n, or NULL. */
ynode *yaml_map_get(ynode *n, const char *key);
/* 1-based location of a node (first scalar inside a collection); 0,0 when unknown. */
void yaml_where(ynode *n, int *line, int *col);
/* Error at node n of doc: "file:line:col: message". */
int yaml_error(const yaml_doc *doc, ynode *n, gpuecon_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
