/*
 * test_inputs.c — hostile input files (issue 14, items 1-3, 6, 7): a FIFO, links that do not
 * resolve, a second YAML document, duplicate and excessive keys, very long catalogs. Each case
 * must end in a located error or a correct load, quickly: the sizes here took minutes with
 * the quadratic loaders (a CTest TIMEOUT of 120 s stops a regression).
 */
#include "test_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct infix {
    gpuecon_ctx *ctx;
    gpuecon_catalog *cat;
    char dir[64];
} infix;

static int setup(void **state)
{
    infix *f = calloc(1, sizeof *f);
    gpuecon_error err;
    if (!f || !(f->ctx = gpuecon_ctx_new(NULL)) || gpuecon_catalog_new(f->ctx, &f->cat, &err))
        return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/gpuecon-inputs-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    infix *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    if (system(cmd) != 0)
        return -1;
    gpuecon_catalog_free(f->cat);
    gpuecon_ctx_free(f->ctx);
    free(f);
    return 0;
}

static void path_in(const infix *f, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", f->dir, name);
}


/* item 1: a FIFO as a model file, a scenario and DIR/models.yaml is refused at once (no
 * writer ever opens it: the old blocking fopen waited forever) */
static void test_fifo_refused(void **state)
{
    infix *f = *state;
    char p[128];
    path_in(f, "models.yaml", p, sizeof p);
    assert_int_equal(mkfifo(p, 0600), 0);
    gpuecon_error err;
    const gpuecon_model *m;
    assert_int_equal(gpuecon_catalog_load_model_file(f->cat, p, &m, &err), GPUECON_E_IO);
    assert_non_null(strstr(err.message, "is a FIFO; expected a regular file"));
    assert_int_equal(gpuecon_catalog_load_dir(f->cat, f->dir, &err), GPUECON_E_IO);
    assert_non_null(strstr(err.message, "FIFO"));
    gpuecon_scenario *sc = NULL;
    assert_int_equal(gpuecon_scenario_load(f->ctx, f->cat, p, &sc, &err), GPUECON_E_IO);
    assert_null(sc);
    assert_int_equal(gpuecon_catalog_load_model_file(f->cat, f->dir, &m, &err), GPUECON_E_IO);
    assert_non_null(strstr(err.message, "is a folder"));
}

/* item 6: a dangling link or a link loop as DIR/models.yaml next to a valid systems.yaml is an
 * error naming the file, not a catalog silently without models */
static void test_bad_links_refused(void **state)
{
    infix *f = *state;
    char p[128], q[128];
    path_in(f, "systems.yaml", p, sizeof p);
    assert_int_equal(symlink(GPUECON_SOURCE_DIR "/tests/cases/override/systems.yaml", p), 0);
    path_in(f, "models.yaml", p, sizeof p);
    assert_int_equal(symlink("no-such-file.yaml", p), 0);
    gpuecon_error err;
    assert_int_equal(gpuecon_catalog_load_dir(f->cat, f->dir, &err), GPUECON_E_IO);
    assert_non_null(strstr(err.where, "models.yaml"));
    assert_non_null(strstr(err.message, "No such file"));
    assert_int_equal(unlink(p), 0);
    path_in(f, "loop.yaml", q, sizeof q);
    assert_int_equal(symlink("loop.yaml", q), 0);
    assert_int_equal(symlink("loop.yaml", p), 0);
    assert_int_equal(gpuecon_catalog_load_dir(f->cat, f->dir, &err), GPUECON_E_IO);
    assert_non_null(strstr(err.message, "symbolic links"));
    /* an absent models.yaml is fine: only "no such file" means absent */
    assert_int_equal(unlink(p), 0);
    assert_int_equal(gpuecon_catalog_load_dir(f->cat, f->dir, &err), GPUECON_OK);
}

/* item 7: a second document is refused, and so is a syntax error after '---' */
static void test_second_document_refused(void **state)
{
    infix *f = *state;
    gpuecon_error err;
    const char *two = "models:\n  - name: a\n---\nmodels: []\n";
    assert_int_equal(gpuecon_catalog_load_buffer(f->cat, GPUECON_KIND_MODEL, "two.yaml", two,
                                                 strlen(two), &err), GPUECON_E_PARSE);
    assert_int_equal(err.line, 4);
    assert_non_null(strstr(err.message, "a second YAML document"));
    const char *bad = "name: x\nlayers: 2\n---\n: : [\n";
    const gpuecon_model *m;
    assert_int_equal(gpuecon_catalog_load_model_buffer(f->cat, "bad.yaml", bad, strlen(bad), &m, &err),
                     GPUECON_E_PARSE);
    assert_true(err.line >= 4);
    /* one document with an explicit start marker is fine as far as YAML goes */
    const char *one = "---\nname: x\n";
    gpuecon_catalog_load_model_buffer(f->cat, "one.yaml", one, strlen(one), &m, &err);
    assert_null(strstr(err.message, "YAML")); /* the model lacks its fields: the schema speaks */
    assert_non_null(strstr(err.message, "layers"));
}

/* A CR that does not end a CRLF pair is refused where it stands, counting lines as an editor does
 * (YAML would count it as a line break: a one-line config.json with 37 CRs inside a string was
 * reported at line 38); CRLF files load. */
static void test_bare_cr_refused(void **state)
{
    infix *f = *state;
    gpuecon_error err;
    const gpuecon_model *m;
    const char *cr = "{\"architectures\": [\"x\r\r\r\"]}";
    assert_int_equal(gpuecon_catalog_load_model_buffer(f->cat, "config.json", cr, strlen(cr), &m, &err),
                     GPUECON_E_PARSE);
    assert_int_equal(err.line, 1);
    assert_int_equal(err.column, 22); /* {"architectures": ["x is 21 characters */
    assert_non_null(strstr(err.message, "carriage return"));
    const char *later = "name: x\nlayers: 2\rhidden: 8\n";
    assert_int_equal(gpuecon_catalog_load_model_buffer(f->cat, "m.yaml", later, strlen(later), &m, &err),
                     GPUECON_E_PARSE);
    assert_int_equal(err.line, 2);
    assert_int_equal(err.column, 10);
    const char *crlf = "name: x\r\nlayers: 2\r\n";
    gpuecon_catalog_load_model_buffer(f->cat, "crlf.yaml", crlf, strlen(crlf), &m, &err);
    assert_null(strstr(err.message, "carriage return")); /* read; the model lacks its other fields */
}

/* head, then fmt printed n times with (i, i); fmt is one of the literals of this file */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static char *repeat(const char *head, const char *fmt, int n, size_t *len)
{
    size_t cap = strlen(head) + (size_t)n * (strlen(fmt) + 24) + 1, k = strlen(head);
    char *b = malloc(cap);
    assert_non_null(b);
    memcpy(b, head, k);
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(b + k, cap - k, fmt, i, i);
    b[k] = '\0';
    *len = k;
    return b;
}
#pragma GCC diagnostic pop

/* item 2: duplicate keys are found by the loader itself, with both lines; a mapping of
 * 100,000 keys (1.1 MB, over a minute in libfyaml's quadratic check) is refused at key 1,025 */
static void test_keys(void **state)
{
    infix *f = *state;
    gpuecon_error err;
    const gpuecon_model *m;
    const char *dup = "name: x\nlayers: 2\nhidden: 64\nlayers: 4\n";
    assert_int_equal(gpuecon_catalog_load_model_buffer(f->cat, "dup.yaml", dup, strlen(dup), &m, &err),
                     GPUECON_E_PARSE);
    assert_int_equal(err.line, 4);
    assert_int_equal(err.column, 1);
    assert_string_equal(err.message, "duplicate key 'layers' (first given at line 2); each key may appear once");
    size_t len;
    char *many = repeat("", "k%d: %d\n", 100000, &len);
    assert_int_equal(gpuecon_catalog_load_model_buffer(f->cat, "many.yaml", many, len, &m, &err),
                     GPUECON_E_PARSE);
    assert_int_equal(err.line, 1025);
    assert_non_null(strstr(err.message, "a mapping holds at most 1024 keys"));
    free(many);
    /* 1,000 distinct keys parse; the schema then names the first unknown one */
    char *some = repeat("name: x\n", "k%d: %d\n", 1000, &len);
    assert_int_equal(gpuecon_catalog_load_model_buffer(f->cat, "some.yaml", some, len, &m, &err),
                     GPUECON_E_PARSE);
    assert_non_null(strstr(err.message, "unknown field 'k0'"));
    free(some);
}

/* item 3: 65,536 models load, each found by name, and a repeated name is still caught (at the
 * repeat); quadratic loops made this take minutes */
static void test_long_catalog(void **state)
{
    infix *f = *state;
    gpuecon_error err;
    size_t len;
    const char *entry = "  - {name: m%d, layers: 24, hidden: 2304, heads: 24, kv_heads: 24, head_dim: 96, "
                        "ffn_hidden: 9216, ffn: gelu, vocab: 51200, tied_embeddings: false} # %d\n";
    char *big = repeat("models:\n", entry, 65536, &len);
    size_t before = gpuecon_catalog_count(f->cat, GPUECON_KIND_MODEL);
    assert_int_equal(gpuecon_catalog_load_buffer(f->cat, GPUECON_KIND_MODEL, "big.yaml", big, len, &err),
                     GPUECON_OK);
    assert_int_equal(gpuecon_catalog_count(f->cat, GPUECON_KIND_MODEL), before + 65536);
    for (int i = 0; i < 65536; i += 1) {
        char name[16];
        snprintf(name, sizeof name, "m%d", i);
        const gpuecon_model *m = gpuecon_catalog_model(f->cat, name);
        assert_non_null(m);
        assert_int_equal(m->layers, 24);
    }
    assert_non_null(gpuecon_catalog_model(f->cat, "llama3-70b")); /* the built-in ones stay */
    free(big);
    /* 20,000 entries with m70000 given twice (entries 15,000 and 18,000) */
    big = repeat("models:\n", entry, 20000, &len);
    char *a = strstr(big, "name: m15000,"), *b = strstr(big, "name: m18000,");
    assert_non_null(a);
    assert_non_null(b);
    memcpy(a + 6, "m7000", 5);
    memcpy(b + 6, "m7000", 5);
    assert_int_equal(gpuecon_catalog_load_buffer(f->cat, GPUECON_KIND_MODEL, "twice.yaml", big, len, &err),
                     GPUECON_E_INPUT);
    assert_int_equal(err.line, 18002); /* "models:" then entry 18,000 on line 18,002 */
    assert_non_null(strstr(err.message, "model 'm70000' is defined twice in this file"));
    free(big);
    /* 65,537 entries are more than one list may hold */
    big = repeat("models:\n", "  - {name: n%d} # %d\n", 65537, &len);
    assert_int_equal(gpuecon_catalog_load_buffer(f->cat, GPUECON_KIND_MODEL, "huge.yaml", big, len, &err),
                     GPUECON_E_PARSE);
    assert_int_equal(err.line, 65538);
    assert_non_null(strstr(err.message, "more than 65536 items in one list"));
    free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fifo_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_links_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_second_document_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bare_cr_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_catalog, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
