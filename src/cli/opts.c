/*
 * opts.c — declarative command-line options.
 *
 * Each subcommand lists its options (name, type, destination, allowed range, help) in a table;
 * this file parses argv against it, checks every value (finite, in range, one of the choices)
 * and prints help, so every command rejects bad input the same way:
 *   gpuecon: --pue: 0.9 is out of range; allowed 1 to 3
 */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[] = {"table", "json", "csv", "html", NULL};

static const char *const global_names[] = {"--json", "--csv", "--format", "-o", "--output",
                                           "--catalog", "--model-file", "--help", "-h", NULL};

bool opt_seen(const opt *opts, size_t nopts, const char *name)
{
    for (size_t i = 0; i < nopts; i++)
        if (strcmp(opts[i].name, name) == 0)
            return opts[i].seen;
    return false;
}

/* A number with an optional SI-style suffix: 15e12, 15T, 300B, 2.5M, 64k. */
static bool parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE)
        return false;
    if (*end) {
        static const struct {
            char c;
            double mult;
        } sfx[] = {{'k', 1e3}, {'K', 1e3}, {'M', 1e6}, {'G', 1e9}, {'B', 1e9}, {'T', 1e12}, {'P', 1e15}};
        bool found = false;
        for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++)
            if (end[0] == sfx[i].c && end[1] == '\0') {
                v *= sfx[i].mult;
                found = true;
            }
        if (!found)
            return false;
    }
    if (!isfinite(v))
        return false;
    *out = v;
    return true;
}

static bool parse_int(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno == ERANGE)
        return false;
    *out = v;
    return true;
}

static int range_error(const char *name, const char *value, double lo, double hi)
{
    return cli_usage_error(name, "%s is out of range; allowed %g to %g", value, lo, hi);
}

static int parse_list(const opt *o, const char *s, int_list *l)
{
    l->n = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s);
    char *save = NULL;
    bool ellipsis = false;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "...") == 0) {
            if (l->n < 2 || ellipsis)
                return cli_usage_error(o->name, "'...' needs two values before it, e.g. 64,128,...,2048");
            ellipsis = true;
            continue;
        }
        long long v;
        if (!parse_int(tok, &v))
            return cli_usage_error(o->name, "'%s' is not a whole number (expected a list like 64,128,256)", tok);
        if (v < o->lo || v > o->hi)
            return range_error(o->name, tok, o->lo, o->hi);
        if (ellipsis) {
            ellipsis = false;
            int a = l->v[l->n - 2], b = l->v[l->n - 1];
            bool geometric = a > 0 && b % a == 0 && b / a > 1;
            if (b <= a)
                return cli_usage_error(o->name, "'...' needs increasing values before it");
            for (long long x = geometric ? (long long)b * (b / a) : 2LL * b - a; x < v;
                 x = geometric ? x * (b / a) : x + (b - a)) {
                if (l->n >= 63)
                    return cli_usage_error(o->name, "too many values (at most 64)");
                l->v[l->n++] = (int)x;
            }
        }
        if (l->n >= 64)
            return cli_usage_error(o->name, "too many values (at most 64)");
        l->v[l->n++] = (int)v;
    }
    if (ellipsis)
        return cli_usage_error(o->name, "'...' needs a last value after it");
    if (l->n == 0)
        return cli_usage_error(o->name, "expected a list of whole numbers");
    return 0;
}

static int choice_error(const char *name, const char *value, const char *const *choices)
{
    char list[256] = "";
    size_t n = 0;
    for (; choices[n]; n++) {
        strncat(list, n ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, choices[n], sizeof list - strlen(list) - 1);
    }
    const char *near = gpuecon_suggest(value, choices, n);
    if (near)
        return cli_usage_error(name, "'%s' is not allowed; did you mean '%s'? (allowed: %s)", value,
                               near, list);
    return cli_usage_error(name, "'%s' is not allowed (allowed: %s)", value, list);
}

static int set_value(opt *o, const char *v)
{
    switch (o->kind) {
    case O_FLAG: *(bool *)o->dst = true; return 0;
    case O_DOUBLE: {
        double d;
        if (!parse_double(v, &d))
            return cli_usage_error(o->name, "'%s' is not a finite number", v);
        if (d < o->lo || d > o->hi)
            return range_error(o->name, v, o->lo, o->hi);
        *(double *)o->dst = d;
        return 0;
    }
    case O_INT: {
        long long d;
        if (!parse_int(v, &d))
            return cli_usage_error(o->name, "'%s' is not a whole number", v);
        if (d < o->lo || d > o->hi)
            return range_error(o->name, v, o->lo, o->hi);
        *(int *)o->dst = (int)d;
        return 0;
    }
    case O_STR:
        if (!*v)
            return cli_usage_error(o->name, "needs a value");
        *(const char **)o->dst = v;
        return 0;
    case O_CHOICE:
        for (int i = 0; o->choices[i]; i++)
            if (strcmp(o->choices[i], v) == 0) {
                *(int *)o->dst = i;
                return 0;
            }
        return choice_error(o->name, v, o->choices);
    case O_LIST: return parse_list(o, v, o->dst);
    }
    return 0;
}

static void print_help(const cli *c, const opt *opts, size_t nopts, const cmd_usage *u)
{
    FILE *f = stdout;
    fprintf(f, "usage: gpuecon %s\n\n%s\n\noptions:\n", u->synopsis, u->about);
    for (size_t i = 0; i < nopts; i++) {
        const opt *o = &opts[i];
        char left[64];
        snprintf(left, sizeof left, "%s%s%s", o->name, o->kind == O_FLAG ? "" : " ",
                 o->kind == O_FLAG ? "" : (o->metavar ? o->metavar : "X"));
        fprintf(f, "  %-24s %s", left, o->help ? o->help : "");
        /* a range wider than +-1e11 is checked by the command itself, with its own message */
        if ((o->kind == O_DOUBLE || o->kind == O_INT || o->kind == O_LIST) && o->lo > -1e11 && o->hi < 1e11)
            fprintf(f, " [%g to %g]", o->lo, o->hi);
        if (o->kind == O_CHOICE) {
            fputs(" [", f);
            for (int k = 0; o->choices[k]; k++)
                fprintf(f, "%s%s", k ? "|" : "", o->choices[k]);
            fputs("]", f);
        }
        fputc('\n', f);
    }
    fputs("\nglobal options:\n"
          "  --json                   one JSON object on stdout\n"
          "  --csv                    the main table as CSV\n"
          "  --format F               table | json | csv | html\n"
          "  -o FILE                  write the output to FILE\n"
          "  --catalog DIR            add or override catalog entries from DIR/*.yaml\n"
          "  --model-file FILE        add a model in the model-file format\n"
          "  -h, --help               this help\n",
          f);
    if (u->example)
        fprintf(f, "\nexample:\n  %s\n", u->example);
    (void)c;
}

static int unknown_option(const char *name, const opt *opts, size_t nopts)
{
    const char *names[128];
    size_t n = 0;
    for (size_t i = 0; i < nopts && n < 100; i++)
        names[n++] = opts[i].name;
    for (size_t i = 0; global_names[i]; i++)
        names[n++] = global_names[i];
    const char *near = gpuecon_suggest(name, names, n);
    if (near)
        return cli_usage_error(name, "unknown option; did you mean %s? (see --help)", near);
    return cli_usage_error(name, "unknown option (see --help)");
}

int opts_parse(cli *c, int argc, char **argv, opt *opts, size_t nopts, const cmd_usage *usage,
               const char **pos, int maxpos, int *npos)
{
    int np = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0' || (isdigit((unsigned char)a[1]) && a[0] == '-')) {
            if (np >= maxpos)
                return cli_usage_error(a, "unexpected argument (see gpuecon %s --help)", c->cmd);
            pos[np++] = a;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            print_help(c, opts, nopts, usage);
            return EXIT_HELP;
        }
        char name[64];
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        if (len >= sizeof name)
            return cli_usage_error(a, "unknown option");
        memcpy(name, a, len);
        name[len] = '\0';
        const char *inline_val = eq ? eq + 1 : NULL;
        /* global options */
        if (!strcmp(name, "--json") || !strcmp(name, "--csv")) {
            if (inline_val)
                return cli_usage_error(name, "takes no value");
            c->format = name[2] == 'j' ? FMT_JSON : FMT_CSV;
            c->format_given = true;
            continue;
        }
        bool takes = !strcmp(name, "--format") || !strcmp(name, "-o") || !strcmp(name, "--output") ||
                     !strcmp(name, "--catalog") || !strcmp(name, "--model-file");
        opt *o = NULL;
        for (size_t k = 0; k < nopts && !takes; k++)
            if (!strcmp(opts[k].name, name))
                o = &opts[k];
        if (!takes && !o)
            return unknown_option(name, opts, nopts);
        const char *val = inline_val;
        if ((takes || o->kind != O_FLAG) && !val) {
            if (i + 1 >= argc)
                return cli_usage_error(name, "needs a value%s%s", o && o->metavar ? " " : "",
                                       o && o->metavar ? o->metavar : "");
            val = argv[++i];
        }
        if (takes) {
            if (!strcmp(name, "--format")) {
                int k = 0;
                while (format_names[k] && strcmp(format_names[k], val))
                    k++;
                if (!format_names[k])
                    return choice_error(name, val, format_names);
                c->format = (out_format)k;
                c->format_given = true;
            } else if (!strcmp(name, "-o") || !strcmp(name, "--output")) {
                c->out_path = val;
            } else if (!strcmp(name, "--catalog")) {
                c->catalog_dir = val;
            } else {
                c->model_file = val;
            }
            continue;
        }
        if (o->kind == O_FLAG && inline_val)
            return cli_usage_error(name, "takes no value");
        if (o->seen)
            return cli_usage_error(name, "given twice");
        o->seen = true;
        int rc = set_value(o, val);
        if (rc)
            return rc;
    }
    if (npos)
        *npos = np;
    return 0;
}
