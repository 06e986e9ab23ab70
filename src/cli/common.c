/*
 * common.c — what every subcommand needs: error reporting with exit codes, catalog loading
 * and look-ups, and the output sink (stdout or -o FILE) for tables and JSON.
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int cli_exit_code(int status)
{
    switch (status) {
    case GPUECON_OK: return EXIT_OK;
    case GPUECON_E_INPUT:
    case GPUECON_E_PARSE:
    case GPUECON_E_IO:
    case GPUECON_E_NOTFOUND: return EXIT_USAGE;
    case GPUECON_E_INFEASIBLE: return EXIT_INFEASIBLE;
    default: return EXIT_INTERNAL;
    }
}

int cli_fail(const gpuecon_error *err)
{
    if (err->where[0] && err->line > 0)
        fprintf(stderr, "gpuecon: %s:%d:%d: %s\n", err->where, err->line, err->column, err->message);
    else if (err->where[0])
        fprintf(stderr, "gpuecon: %s: %s\n", err->where, err->message);
    else
        fprintf(stderr, "gpuecon: %s\n", err->message[0] ? err->message : gpuecon_status_name(err->code));
    return cli_exit_code(err->code);
}

int cli_usage_error(const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gpuecon: %s: ", where);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_USAGE;
}

int cli_load_catalog(cli *c)
{
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (!c->cat && gpuecon_catalog_new(c->ctx, &c->cat, &err))
        return cli_fail(&err);
    if (c->catalog_dir && gpuecon_catalog_load_dir(c->cat, c->catalog_dir, &err))
        return cli_fail(&err);
    if (c->model_file && gpuecon_catalog_load_model_file(c->cat, c->model_file, &c->file_model, &err))
        return cli_fail(&err);
    return 0;
}

static int lookup(cli *c, gpuecon_kind kind, const char *option, const char *name, const void **out)
{
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (!name)
        return cli_usage_error(option, "is required");
    if (gpuecon_catalog_find(c->cat, kind, name, option, out, &err))
        return cli_fail(&err);
    return 0;
}

int cli_system(cli *c, const char *option, const char *name, const gpuecon_system **out)
{
    return lookup(c, GPUECON_KIND_SYSTEM, option, name, (const void **)out);
}

int cli_profile(cli *c, const char *option, const char *name, const gpuecon_profile **out)
{
    return lookup(c, GPUECON_KIND_PROFILE, option, name, (const void **)out);
}

int cli_model(cli *c, const char *option, const char *name, const gpuecon_model **out)
{
    if (!name && c->file_model) {
        *out = c->file_model;
        return 0;
    }
    if (!name)
        return cli_usage_error(option, "is required (or give --model-file FILE)");
    return lookup(c, GPUECON_KIND_MODEL, option, name, (const void **)out);
}

FILE *cli_out(cli *c)
{
    if (!c->out_path || !strcmp(c->out_path, "-"))
        return stdout;
    FILE *f = fopen(c->out_path, "w");
    if (!f)
        cli_usage_error("-o", "cannot write %s: %s", c->out_path, strerror(errno));
    return f;
}

void cli_close_out(cli *c, FILE *f)
{
    if (f && f != stdout)
        fclose(f);
    (void)c;
}

int cli_emit_json(cli *c, json_t *root)
{
    FILE *f = cli_out(c);
    if (!f) {
        json_decref(root);
        return EXIT_USAGE;
    }
    int rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    fputc('\n', f);
    json_decref(root);
    cli_close_out(c, f);
    return rc ? EXIT_INTERNAL : EXIT_OK;
}

json_t *cli_source_json(gpuecon_source s)
{
    return json_pack("{s:s, s:s}", "source", s.text ? s.text : "", "stage",
                     gpuecon_stage_name(s.stage));
}

json_t *cli_real(double v)
{
    if (!isfinite(v))
        return json_null();
    char buf[32];
    snprintf(buf, sizeof buf, "%.10g", v);
    return json_real(strtod(buf, NULL));
}

int cli_progress(void *ud, double done, double total)
{
    cli *c = ud;
    if (!c || total <= 0 || !isatty(STDERR_FILENO))
        return 0;
    int pct = (int)(100 * done / total);
    if (pct == c->progress_pct)
        return 0;
    c->progress_pct = pct;
    int filled = pct * 40 / 100;
    fprintf(stderr, "\r%s [", c->cmd ? c->cmd : "gpuecon");
    for (int i = 0; i < 40; i++)
        fputs(i < filled ? "#" : "-", stderr);
    fprintf(stderr, "] %3d%%", pct);
    fflush(stderr);
    return 0;
}

void cli_progress_done(cli *c)
{
    if (c && c->progress_pct >= 0 && isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);
    if (c)
        c->progress_pct = -1;
}

double cli_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
