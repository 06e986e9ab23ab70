/*
 * common.c — what every command needs: error records with exit codes, catalog loading and
 * look-ups, option names spelled as the option table does, and the output: JSON, tables and pages
 * through the result kinds' renderers (cli_render).
 */
#include "cli.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

static void note_error(cli *c, const gpuecon_error *e)
{
    char line[GPUECON_ERROR_LINE_MAX];
    gpuecon_error_format(e, line, sizeof line);
    sb_printf(c->notes, "%s\n", line);
}

/* The command-line form of a request key: "tokens_per_s" -> "--tokens-per-s". */
static void key_flag(const char *key, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < 2 && o + 1 < cap; i++)
        out[o++] = '-';
    for (size_t i = 0; i < n && o + 1 < cap; i++)
        out[o++] = key[i] == '_' ? '-' : key[i];
    out[o] = '\0';
}

/* The option of the command's table whose request key is key[0..n) ("--tp" for "tp"), or NULL. */
static const char *table_option(const cli *c, const char *key, size_t n)
{
    for (size_t i = 0; i < c->nopts; i++) {
        const char *name = c->opts[i].name + 2;
        size_t k = 0;
        while (k < n && name[k] && (name[k] == '-' ? '_' : name[k]) == key[k])
            k++;
        if (k == n && !name[k])
            return c->opts[i].name;
    }
    return NULL;
}

void cli_spell_options(const cli *c, char *s, size_t cap)
{
    static const char prefix[] = OPTION_PREFIX;
    const size_t np = sizeof prefix - 1;
    char out[1024];
    size_t o = 0;
    bool changed = false;
    for (size_t i = 0; s[i] && o + 1 < sizeof out;) {
        char prev = i ? s[i - 1] : ' ';
        bool word_start = !(isalnum((unsigned char)prev) || prev == '_' || prev == '.' || prev == '/' || prev == '-');
        if (word_start && !strncmp(s + i, prefix, np) && islower((unsigned char)s[i + np])) {
            const char *key = s + i + np;
            size_t n = 0;
            while (islower((unsigned char)key[n]) || isdigit((unsigned char)key[n]) || key[n] == '_')
                n++;
            char flag[128];
            const char *name = table_option(c, key, n);
            if (!name) {
                key_flag(key, n, flag, sizeof flag);
                name = flag;
            }
            for (const char *p = name; *p && o + 1 < sizeof out; p++)
                out[o++] = *p;
            i += np + n;
            changed = true;
            continue;
        }
        out[o++] = s[i++];
    }
    out[o] = '\0';
    if (changed)
        snprintf(s, cap, "%s", out);
}

void cli_spell_platform(const cli *c, gpuecon_platform_result *p)
{
    cli_spell_options(c, p->why, sizeof p->why);
    cli_spell_options(c, p->predicted_note, sizeof p->predicted_note);
    cli_spell_options(c, p->life_why, sizeof p->life_why);
    for (size_t i = 0; i < p->n_trade; i++)
        cli_spell_options(c, p->trade[i].why, sizeof p->trade[i].why);
}

int cli_fail(cli *c, const gpuecon_error *err)
{
    c->err = *err;
    cli_spell_options(c, c->err.where, sizeof c->err.where);
    cli_spell_options(c, c->err.message, sizeof c->err.message);
    gpuecon_error_scrub(&c->err); /* a command may cut a library message into its own */
    if (c->err.code == GPUECON_OK)
        c->err.code = GPUECON_E_INTERNAL;
    note_error(c, &c->err);
    return gpuecon_exit_code(c->err.code);
}

__attribute__((format(printf, 4, 0))) static int verror(cli *c, int status, const char *where, const char *fmt,
                                                        va_list ap)
{
    gpuecon_error *e = &c->err;
    gpuecon_error_clear(e);
    e->code = status;
    snprintf(e->where, sizeof e->where, "%s", where ? where : "");
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    gpuecon_error_scrub(e);
    note_error(c, e);
    return gpuecon_exit_code(status);
}

int cli_usage_error(cli *c, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verror(c, GPUECON_E_INPUT, where, fmt, ap);
    va_end(ap);
    return rc;
}

int cli_error(cli *c, int status, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verror(c, status, where, fmt, ap);
    va_end(ap);
    return rc;
}

int cli_load_catalog(cli *c)
{
    gpuecon_error err;
    gpuecon_error_clear(&err);
    const gpuecon_catalog *fixed = gpuecon_ctx_get_config(c->ctx)->catalog;
    if (fixed && !c->cat) {
        if (c->catalog_dir || c->model_file)
            return cli_usage_error(c, c->catalog_dir ? "--catalog" : "--model-file",
                                   "not allowed here: this context serves a fixed catalog (gpuecon serve reads "
                                   "catalogs from its own command line only)");
        c->cat = (gpuecon_catalog *)fixed; /* read-only from here on: nothing below loads into it */
        c->cat_borrowed = true;
        /* a model file given inline goes to a catalog of this request's own; --model NAME still looks in the
           fixed one, and the model's own name finds it (cli_model) */
        if (c->model_text && (gpuecon_catalog_new(c->ctx, &c->model_cat, &err) ||
                              gpuecon_catalog_load_model_buffer(c->model_cat, c->model_label, c->model_text,
                                                                strlen(c->model_text), &c->file_model, &err)))
            return cli_fail(c, &err);
        return 0;
    }
    if (!c->cat && gpuecon_catalog_new(c->ctx, &c->cat, &err))
        return cli_fail(c, &err);
    if (c->catalog_dir && gpuecon_catalog_load_dir(c->cat, c->catalog_dir, &err))
        return cli_fail(c, &err);
    if (c->model_file && gpuecon_catalog_load_model_file(c->cat, c->model_file, &c->file_model, &err))
        return cli_fail(c, &err);
    if (c->model_text && gpuecon_catalog_load_model_buffer(c->cat, c->model_label, c->model_text,
                                                           strlen(c->model_text), &c->file_model, &err))
        return cli_fail(c, &err);
    return 0;
}

static int lookup(cli *c, gpuecon_kind kind, const char *option, const char *name, const void **out)
{
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (!name)
        return cli_usage_error(c, option, "is required");
    if (gpuecon_catalog_find(c->cat, kind, name, option, out, &err))
        return cli_fail(c, &err);
    return 0;
}

int cli_system(cli *c, const char *option, const char *name, const gpuecon_system **out)
{
    return lookup(c, GPUECON_KIND_SYSTEM, option, name, (const void **)out);
}

int cli_power_limit(cli *c, const char *option, double watts, const gpuecon_system **sys)
{
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (gpuecon_system_at_power_limit(*sys, watts, option, &c->power_system, sys, &err))
        return cli_fail(c, &err);
    return 0;
}

int cli_stack(cli *c, const char *option, const char *name, int workload, const gpuecon_stack **out)
{
    int rc = lookup(c, GPUECON_KIND_STACK, option, name, (const void **)out);
    if (rc || (*out)->workload == workload)
        return rc;
    char names[512] = "";
    size_t n = gpuecon_catalog_count(c->cat, GPUECON_KIND_STACK), len = 0;
    for (size_t i = 0; i < n; i++) {
        const gpuecon_stack *s = gpuecon_catalog_at(c->cat, GPUECON_KIND_STACK, i);
        if (s->workload == workload && len < sizeof names)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", s->name);
    }
    static const char *const kind[] = {"training", "fine-tuning", "serving-engine"};
    int w = (*out)->workload >= 0 && (*out)->workload <= 2 ? (*out)->workload : 0;
    return cli_usage_error(c, option, "%s is a %s stack; %s stacks: %s", name, kind[w],
                           kind[workload >= 0 && workload <= 2 ? workload : 0], names);
}

int cli_profile(cli *c, const char *option, const char *name, const gpuecon_profile **out)
{
    return lookup(c, GPUECON_KIND_PROFILE, option, name, (const void **)out);
}

int cli_model(cli *c, const char *option, const char *name, const gpuecon_model **out)
{
    if (c->file_model && (!name || !strcmp(name, c->file_model->name))) {
        *out = c->file_model;
        return 0;
    }
    if (!name)
        return cli_usage_error(c, option, "is required (or give --model-file FILE)");
    /* a path or a Hugging Face id ("org/name") is not a catalog name */
    size_t n = strlen(name);
    bool file_like = strchr(name, '/') || (n > 5 && (!strcmp(name + n - 5, ".json") || !strcmp(name + n - 5, ".yaml")));
    if (file_like && !gpuecon_catalog_model(c->cat, name))
        return cli_usage_error(c, option,
                               "'%s' is not a catalog model; for a Hugging Face model give its config.json with "
                               "--model-file FILE (a model file works too, docs/catalog.md)",
                               name);
    return lookup(c, GPUECON_KIND_MODEL, option, name, (const void **)out);
}

/* jansson's output callback: appends to the strbuf; -1 stops the dump when memory ran out. */
static int dump_to(const char *buf, size_t size, void *data)
{
    strbuf *b = data;
    size_t before = b->len;
    sb_write(b, buf, size);
    return b->len == before + size ? 0 : -1;
}

int cli_emit_json(cli *c, json_t *root)
{
    if (!root)
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory while building the JSON output");
    int rc = json_dump_callback(root, dump_to, c->out, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    sb_putc(c->out, '\n');
    json_decref(root);
    if (rc)
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory while writing the JSON output");
    return EXIT_OK;
}

double cli_now_s(const cli *c)
{
    const gpuecon_ctx_config *cfg = gpuecon_ctx_get_config(c->ctx);
    return cfg && cfg->clock ? cfg->clock(cfg->clock_ud) : 0;
}

int cli_render(cli *c, const render_kind *kind, const void *view)
{
    if (c->format == FMT_JSON)
        return cli_emit_json(c, kind->json(view));
    if (c->format == FMT_HTML) {
        if (!kind->html)
            return cli_usage_error(c, "--format", "html is only for compare and rl");
        kind->html(c->out, view);
        return EXIT_OK;
    }
    if (c->format == FMT_CSV && !kind->table)
        return cli_usage_error(c, "--csv", "this output has no table form (leave out --csv, or use --json)");
    strbuf *f = c->out;
    tbl *t = kind->table ? kind->table(c->ctx, &c->oom, view) : NULL;
    if (c->format == FMT_CSV)
        tbl_csv(t, f);
    else
        kind->text(&(render_out){f, c->ctx, &c->oom}, view, t);
    tbl_free(t);
    return EXIT_OK;
}

int cli_plot(cli *c, const char *path, const plot_spec *spec, const plot_series *series, size_t n, bool required,
             bool announce)
{
    if (!c->plots) {
        sb_printf(c->notes, "gpuecon: --plot: not drawn: this front end takes no charts (the gpuecon program "
                          "draws them; gpuecon_request_plots returns them)\n");
        return EXIT_OK;
    }
    strbuf b;
    sb_init(&b, c->ctx, &c->oom);
    plot_script(&b, path, spec, series, n);
    json_t *o = c->oom ? NULL
                       : json_pack("{s:s, s:s, s:b, s:b}", "path", path, "gnuplot", b.s ? b.s : "", "required",
                                   required, "announce", announce);
    sb_free(&b);
    if (!o || json_array_append_new(c->plots, o))
        return cli_error(c, GPUECON_E_NOMEM, "--plot", "out of memory");
    return EXIT_OK;
}
