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
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[] = {"table", "json", "csv", "html", NULL};

static const char *const global_names[] = {"--json", "--csv", "--format", "-o", "--output",
                                           "--catalog", "--model-file", "--max-work", "--help", "-h", NULL};

bool opt_seen(const opt *opts, size_t nopts, const char *name)
{
    for (size_t i = 0; i < nopts; i++)
        if (strcmp(opts[i].name, name) == 0)
            return opts[i].seen;
    return false;
}

/* s without leading and trailing blanks, in buf (false when it does not fit). */
static bool trimmed(const char *s, char *buf, size_t cap)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    if (n + 1 > cap)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return true;
}

/* Whether s is a decimal number: [+-] digits [. digits] [e [+-] digits], then at most one
 * more character (the caller checks it is a suffix). No hexadecimal, no nan or inf. */
static bool decimal_form(const char *s)
{
    size_t i = s[0] == '+' || s[0] == '-', digits = 0;
    while (isdigit((unsigned char)s[i]))
        i++, digits++;
    if (s[i] == '.')
        for (i++; isdigit((unsigned char)s[i]); i++)
            digits++;
    if (!digits)
        return false;
    if (s[i] == 'e' || s[i] == 'E') {
        i++;
        i += s[i] == '+' || s[i] == '-';
        if (!isdigit((unsigned char)s[i]))
            return false;
        while (isdigit((unsigned char)s[i]))
            i++;
    }
    return s[i] == '\0' || s[i + 1] == '\0';
}

/* A decimal number with an optional SI-style suffix: 15e12, 15T, 300B, 2.5M, 64k; blanks
 * around it are ignored. A value too small for a double (1e-400) reads as 0, one too large
 * is refused. */
static bool parse_double(const char *text, double *out)
{
    char s[400], *end;
    if (!trimmed(text, s, sizeof s) || !decimal_form(s))
        return false;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || (errno == ERANGE && fabs(v) > 1))
        return false;
    /* an underflow keeps its value: 1e-320 is subnormal and 1e-400 is 0, and the range check (or
       the option's own "must be above 0") then says what is wrong with that value */
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

/* Scientific notation of a whole number, as the docs write counts: "1e7", "2.5e3" (digits, an
 * optional fraction, e or E, an unsigned exponent) whose value is whole; one beyond 2^53 (1e400
 * included) saturates, so that the range check, not "not a whole number", refuses it. */
static bool parse_int_exp(const char *s, long long *out)
{
    const char *p = s + (s[0] == '+' || s[0] == '-');
    size_t d = strspn(p, "0123456789");
    if (!d)
        return false;
    p += d;
    if (*p == '.' && isdigit((unsigned char)p[1]))
        p += 1 + strspn(p + 1, "0123456789");
    if (*p != 'e' && *p != 'E')
        return false;
    p += 1 + (p[1] == '+');
    if (!isdigit((unsigned char)*p) || p[strspn(p, "0123456789")])
        return false;
    double v = strtod(s, NULL);
    if (fabs(v) > 9007199254740992.0) { /* inf included */
        *out = v > 0 ? LLONG_MAX : LLONG_MIN;
        return true;
    }
    if (v != floor(v))
        return false;
    *out = (long long)v;
    return true;
}

static bool parse_int(const char *text, long long *out)
{
    char s[400], *end;
    if (!trimmed(text, s, sizeof s) || !isdigit((unsigned char)s[s[0] == '+' || s[0] == '-']))
        return false;
    long long v = strtoll(s, &end, 10); /* digits beyond long long saturate (ERANGE) */
    if (end == s || *end)
        return parse_int_exp(s, out);
    *out = v;
    return true;
}

/* A value as messages show it: at most 60 characters (a longer one is cut, with "..."). */
static const char *shown(const char *v, char *buf, size_t cap)
{
    if (strlen(v) <= 60 || cap < 64)
        return v;
    snprintf(buf, cap, "%.57s...", v);
    return buf;
}

static int range_error(cli *c, const char *name, const char *value, double lo, double hi)
{
    char b[64];
    /* 1e-320 reads as a subnormal double and 1e-400 as 0: say so, as the value is not what was typed */
    errno = 0;
    double v = strtod(value, NULL);
    const char *why = v != 0 && fabs(v) < DBL_MIN ? " (subnormal: below 2.2e-308, the smallest normal double)"
                      : v == 0 && errno == ERANGE ? " (it underflows to 0)"
                                                  : "";
    return cli_usage_error(c, name, "%s is out of range%s; allowed %s to %s", shown(value, b, sizeof b), why,
                           NUM_BOUND(lo), NUM_BOUND(hi));
}

/* A value that is not a number of the option's kind, with what is allowed. */
static int not_a_number(cli *c, const opt *o, const char *v)
{
    char b[64], t[64];
    char first = trimmed(v, t, sizeof t) ? (char)tolower((unsigned char)t[t[0] == '+' || t[0] == '-']) : 0;
    bool nonfinite = first == 'n' || first == 'i'; /* nan, inf, infinity */
    /* a decimal number strtod cannot hold: say which way it fails (1e400 was "not a decimal number") */
    char *end = NULL;
    errno = 0;
    double x = first && !nonfinite ? strtod(t, &end) : 0;
    bool range = end && end != t && !*end && errno == ERANGE;
    const char *what = o->kind == O_INT ? "is not a whole number"
                       : nonfinite      ? "is not a finite number"
                       : range && fabs(x) > 1 ? "is too large for a double-precision number (above 1.8e308)"
                                              : "is not a decimal number";
    if (o->lo > -1e11 && o->hi < 1e11)
        return cli_usage_error(c, o->name, "'%s' %s; allowed %s to %s", shown(v, b, sizeof b), what, NUM_BOUND(o->lo),
                               NUM_BOUND(o->hi));
    return cli_usage_error(c, o->name, "'%s' %s", shown(v, b, sizeof b), what);
}

/* A range "A-B" of a list: A doubled while it stays within B (8-64: 8, 16, 32, 64). */
static int parse_range(cli *c, const opt *o, const char *a, const char *b, int_list *l)
{
    long long lo, hi;
    char x[64], y[64];
    if (!parse_int(a, &lo) || !parse_int(b, &hi))
        return cli_usage_error(c, o->name, "'%s-%s' is not a range of whole numbers (expected A-B, e.g. 8-64: A "
                               "doubled up to B)", shown(a, x, sizeof x), shown(b, y, sizeof y));
    if (lo < o->lo || lo > o->hi || lo < 1)
        return range_error(c, o->name, a, o->lo > 1 ? o->lo : 1, o->hi);
    if (hi < o->lo || hi > o->hi)
        return range_error(c, o->name, b, o->lo, o->hi);
    if (hi < lo)
        return cli_usage_error(c, o->name, "range %lld-%lld ends below its start", lo, hi);
    for (long long v = lo; v <= hi; v *= 2) {
        if (l->n >= 64)
            return cli_usage_error(c, o->name, "too many values (at most 64)");
        l->v[l->n++] = (int)v;
    }
    return 0;
}

static int parse_list(cli *c, const opt *o, const char *s, int_list *l)
{
    l->n = 0;
    l->range_lo = l->range_hi = 0;
    int ntok = 0, ranges = 0;
    char buf[2048]; /* 64 values of up to 10 digits and separators fit many times over */
    if (strlen(s) >= sizeof buf) /* never cut: a cut list once read "...,2048" as 204 */
        return cli_usage_error(c, o->name, "the list is longer than %zu characters (at most 64 values)",
                               sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", s);
    char *save = NULL;
    bool ellipsis = false;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        ntok++;
        if (strcmp(tok, "...") == 0) {
            if (l->n < 2 || ellipsis)
                return cli_usage_error(c, o->name, "'...' needs two values before it, e.g. 64,128,...,2048");
            ellipsis = true;
            continue;
        }
        long long v;
        char *dash = tok[0] >= '0' && tok[0] <= '9' ? strchr(tok, '-') : NULL;
        if (dash && !ellipsis) { /* A-B: A, 2A, 4A, ... up to B */
            *dash = 0;
            int rc = parse_range(c, o, tok, dash + 1, l);
            if (rc)
                return rc;
            ranges++;
            continue;
        }
        if (!parse_int(tok, &v)) {
            char b[64];
            return cli_usage_error(c, o->name, "'%s' is not a whole number (expected a list like 64,128,256 of "
                                   "values %s to %s)", shown(tok, b, sizeof b), NUM_BOUND(o->lo), NUM_BOUND(o->hi));
        }
        if (v < o->lo || v > o->hi)
            return range_error(c, o->name, tok, o->lo, o->hi);
        if (ellipsis) {
            ellipsis = false;
            int a = l->v[l->n - 2], b = l->v[l->n - 1];
            bool geometric = a > 0 && b % a == 0 && b / a > 1;
            if (b <= a)
                return cli_usage_error(c, o->name, "'...' needs increasing values before it");
            for (long long x = geometric ? (long long)b * (b / a) : 2LL * b - a; x < v;
                 x = geometric ? x * (b / a) : x + (b - a)) {
                if (l->n >= 63)
                    return cli_usage_error(c, o->name, "too many values (at most 64)");
                l->v[l->n++] = (int)x;
            }
        }
        if (l->n >= 64)
            return cli_usage_error(c, o->name, "too many values (at most 64)");
        l->v[l->n++] = (int)v;
    }
    if (ellipsis)
        return cli_usage_error(c, o->name, "'...' needs a last value after it");
    if (l->n == 0)
        return cli_usage_error(c, o->name, "expected a list of whole numbers");
    if (ntok == 1 && ranges == 1) { /* the bounds, for a command that reads a range as bounds */
        const char *dash = strchr(s, '-');
        l->range_lo = l->v[0];
        l->range_hi = dash ? atoi(dash + 1) : l->v[l->n - 1];
    }
    return 0;
}

static int choice_error(cli *c, const char *name, const char *value, const char *const *choices)
{
    char list[256] = "";
    size_t n = 0;
    for (; choices[n]; n++) {
        strncat(list, n ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, choices[n], sizeof list - strlen(list) - 1);
    }
    const char *near = gpuecon_suggest(value, choices, n);
    char b[64];
    if (near)
        return cli_usage_error(c, name, "'%s' is not allowed; did you mean '%s'? (allowed: %s)",
                               shown(value, b, sizeof b), near, list);
    return cli_usage_error(c, name, "'%s' is not allowed (allowed: %s)", shown(value, b, sizeof b), list);
}

/* The options whose file a request may give inline: they read it (an output path such as --plot has no
   contents to give) */
static bool reads_inline(const char *name)
{
    return !strcmp(name, "--lengths");
}

static int set_value(cli *c, opt *o, const char *v)
{
    switch (o->kind) {
    case O_FLAG: *(bool *)o->dst = true; return 0;
    case O_DOUBLE: {
        double d;
        if (!parse_double(v, &d))
            return not_a_number(c, o, v);
        if (d < o->lo || d > o->hi)
            return range_error(c, o->name, v, o->lo, o->hi);
        *(double *)o->dst = d;
        return 0;
    }
    case O_INT: {
        long long d;
        if (!parse_int(v, &d))
            return not_a_number(c, o, v);
        if (d < o->lo || d > o->hi)
            return range_error(c, o->name, v, o->lo, o->hi);
        *(int *)o->dst = (int)d;
        return 0;
    }
    case O_PATH:
        if (c->mode == CLI_REQUEST && gpuecon_ctx_get_config(c->ctx)->no_files) {
            bool word = false;
            for (int i = 0; o->choices && o->choices[i]; i++)
                word |= !strcmp(o->choices[i], v);
            if (!word) {
                char allowed[128] = "";
                for (int i = 0, k = 0; o->choices && o->choices[i] && k < (int)sizeof allowed; i++)
                    k += snprintf(allowed + k, sizeof allowed - (size_t)k, "%s%s", i ? " | " : "; allowed: ",
                                  o->choices[i]);
                return cli_usage_error(c, o->name, "names a file on this machine, which a request here may not do "
                                       "(gpuecon serve reads no file named over the network)%s%s", allowed,
                                       reads_inline(o->name) ? "; or give the file's contents: {\"text\": \"...\"}" : "");
            }
        }
        /* fall through */
    case O_STR:
        if (!*v)
            return cli_usage_error(c, o->name, "needs a value");
        *(const char **)o->dst = v;
        return 0;
    case O_CHOICE:
        for (int i = 0; o->choices[i]; i++)
            if (strcmp(o->choices[i], v) == 0) {
                *(int *)o->dst = i;
                return 0;
            }
        return choice_error(c, o->name, v, o->choices);
    case O_LIST: return parse_list(c, o, v, o->dst);
    }
    return 0;
}

int opts_require(cli *c, const opt *opts, size_t nopts)
{
    for (size_t i = 0; i < nopts; i++)
        if (opts[i].required && !opts[i].seen)
            return cli_usage_error(c, opts[i].name, "is required (%s)", opts[i].required);
    return 0;
}

static void print_help(cli *c, const opt *opts, size_t nopts, const cmd_usage *u)
{
    strbuf *f = c->out;
    sb_printf(f, "usage: gpuecon %s\n\n%s\n\noptions:\n", u->synopsis, u->about);
    for (size_t i = 0; i < nopts; i++) {
        const opt *o = &opts[i];
        char left[64];
        snprintf(left, sizeof left, "%s%s%s", o->name, o->kind == O_FLAG ? "" : " ",
                 o->kind == O_FLAG ? "" : (o->metavar ? o->metavar : "X"));
        sb_printf(f, "  %-24s %s", left, o->help ? o->help : "");
        /* A bound at or past -1e9 (int) or +-1e11 marks a range the command checks itself, with its
         * own message; its help text states the range, so none is printed from the table. */
        if ((o->kind == O_DOUBLE || o->kind == O_INT || o->kind == O_LIST) && o->lo > -1e9 && o->hi < 1e11)
            sb_printf(f, " [%s to %s]", NUM_BOUND(o->lo), NUM_BOUND(o->hi));
        if (o->kind == O_CHOICE) {
            sb_puts(f, " [");
            for (int k = 0; o->choices[k]; k++)
                sb_printf(f, "%s%s", k ? "|" : "", o->choices[k]);
            sb_puts(f, "]");
        }
        sb_putc(f, '\n');
    }
    sb_puts(f, "\nglobal options:\n"
          "  --json                   one JSON object on stdout\n"
          "  --csv                    the main table as CSV\n"
          "  --format F               table | json | csv | html\n"
          "  -o FILE                  write the output to FILE\n"
          "  --catalog DIR            add or override catalog entries from DIR/*.yaml\n"
          "  --model-file FILE        add a model in the model-file format\n"
          "  --max-work S             refuse work estimated above S CPU-seconds [default 60]\n"
          "  -h, --help               this help\n");
    if (u->example)
        sb_printf(f, "\nexample:\n  %s\n", u->example);
}

static int unknown_option(cli *c, const char *name, const opt *opts, size_t nopts)
{
    const char *names[128];
    size_t n = 0;
    for (size_t i = 0; i < nopts && n < 100; i++)
        names[n++] = opts[i].name;
    for (size_t i = 0; global_names[i]; i++)
        names[n++] = global_names[i];
    const char *near = gpuecon_suggest(name, names, n);
    if (near)
        return cli_usage_error(c, name, "unknown option; did you mean %s? (see --help)", near);
    return cli_usage_error(c, name, "unknown option (see --help)");
}

/* The request value of an option just parsed from the command line (its destination). */
static json_t *value_json(const opt *o, const char *v)
{
    switch (o->kind) {
    case O_FLAG: return json_true();
    case O_DOUBLE: return json_real(*(const double *)o->dst);
    case O_INT: return json_integer(*(const int *)o->dst);
    case O_STR:
    case O_PATH: return json_string(v);
    case O_CHOICE: return json_string(o->choices[*(const int *)o->dst]);
    case O_LIST: {
        const int_list *l = o->dst;
        if (l->range_hi > 0) /* one range "A-B": kept as written, for a command that reads it as bounds */
            return json_string(v);
        json_t *a = json_array();
        for (int k = 0; k < l->n; k++)
            json_array_append_new(a, json_integer(l->v[k]));
        return a;
    }
    }
    return NULL;
}

/* "--tokens-per-s" -> "tokens_per_s" (the request's name for an option). */
static void request_name(const char *opt_name, char *buf, size_t cap)
{
    const char *s = opt_name + strspn(opt_name, "-");
    size_t k = 0;
    for (; s[k] && k + 1 < cap; k++)
        buf[k] = s[k] == '-' ? '_' : s[k];
    buf[k] = '\0';
}

static int built_set(cli *c, const char *opt_name, json_t *v)
{
    char key[64];
    request_name(opt_name, key, sizeof key);
    json_t *o = json_object_get(c->built, "options");
    if (!v || json_object_set_new(o, key, v))
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory while building the request");
    return 0;
}

static bool is_global_with_value(const char *name)
{
    return !strcmp(name, "--format") || !strcmp(name, "-o") || !strcmp(name, "--output") ||
           !strcmp(name, "--catalog") || !strcmp(name, "--model-file") || !strcmp(name, "--max-work");
}

static int set_global(cli *c, const char *name, const char *val)
{
    if (!strcmp(name, "--format")) {
        int k = 0;
        while (format_names[k] && strcmp(format_names[k], val))
            k++;
        if (!format_names[k])
            return choice_error(c, name, val, format_names);
        c->format = (out_format)k;
        c->format_given = true;
    } else if (!strcmp(name, "-o") || !strcmp(name, "--output")) {
        return cli_usage_error(c, name, "is for the command line only: a request returns its output");
    } else if (!strcmp(name, "--catalog")) {
        c->catalog_dir = val;
    } else if (!strcmp(name, "--max-work")) {
        /* the work budget of this request (docs/cli.md "Work budget"); the request functions
           restore the context's own budget afterwards */
        double w;
        if (!parse_double(val, &w))
            return cli_usage_error(c, name, "'%s' is not a number of CPU-seconds; allowed 0.01 to 10M", val);
        if (w < 0.01 || w > 1e7)
            return range_error(c, name, val, 0.01, 1e7);
        double limit = gpuecon_ctx_get_config(c->ctx)->max_work_limit_s;
        if (limit > 0 && w > limit)
            return cli_usage_error(c, name, "%s CPU-seconds is above this server's limit of %s (gpuecon serve "
                                   "--max-work); ask for %s or less", val, NUM_BOUND(limit), NUM_BOUND(limit));
        gpuecon_ctx_set_max_work(c->ctx, w);
    } else {
        c->model_file = val;
    }
    return 0;
}

/* CLI_ARGV: checks argv as the command line always did, and records each option in
 * c->built["options"] (the positional arguments in c->built["args"]). */
static int argv_parse(cli *c, int argc, char **argv, opt *opts, size_t nopts, int maxpos)
{
    int np = 0;
    json_t *args = json_object_get(c->built, "args");
    for (int i = 1; i < argc; i++) { /* a request is JSON: its text must be UTF-8 (found by fuzz_cli) */
        json_t *utf8 = json_string(argv[i]);
        if (!utf8) {
            char where[32];
            snprintf(where, sizeof where, "argument %d", i);
            return cli_usage_error(c, where, "not valid UTF-8 text; options and their values must be UTF-8");
        }
        json_decref(utf8);
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0' || (isdigit((unsigned char)a[1]) && a[0] == '-')) {
            if (np >= maxpos) {
                char b[64];
                return cli_usage_error(c, shown(a, b, sizeof b), "unexpected argument (see gpuecon %s --help)",
                                       c->cmd);
            }
            np++;
            if (json_array_append_new(args, json_string(a)))
                return cli_error(c, GPUECON_E_NOMEM, "", "out of memory while building the request");
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            /* help stops the parse, as it always did: the request is help alone */
            json_object_clear(json_object_get(c->built, "options"));
            json_array_clear(args);
            return built_set(c, "help", json_true()) ? EXIT_INTERNAL : EXIT_BUILT;
        }
        char name[64];
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        if (len >= sizeof name) {
            char b[64];
            return cli_usage_error(c, shown(a, b, sizeof b), "unknown option");
        }
        memcpy(name, a, len);
        name[len] = '\0';
        const char *inline_val = eq ? eq + 1 : NULL;
        /* one output format, one catalog, one budget: a second one was last-wins (--json --csv) */
        json_t *given = json_object_get(c->built, "options");
        bool fmt = !strcmp(name, "--json") || !strcmp(name, "--csv") || !strcmp(name, "--format");
        char key[64];
        request_name(fmt ? "--format" : name, key, sizeof key);
        if ((fmt || is_global_with_value(name)) && json_object_get(given, key))
            return cli_usage_error(c, name, fmt ? "a second output format (--json, --csv, --format: one of them, once)"
                                                : "given twice");
        if (!strcmp(name, "--json") || !strcmp(name, "--csv")) {
            if (inline_val)
                return cli_usage_error(c, name, "takes no value");
            if (built_set(c, "format", json_string(name + 2)))
                return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
            continue;
        }
        bool takes = is_global_with_value(name);
        opt *o = NULL;
        for (size_t k = 0; k < nopts && !takes; k++)
            if (!strcmp(opts[k].name, name))
                o = &opts[k];
        if (!takes && !o)
            return unknown_option(c, name, opts, nopts);
        const char *val = inline_val;
        if ((takes || o->kind != O_FLAG) && !val) {
            if (i + 1 >= argc)
                return cli_usage_error(c, name, "needs a value%s%s", o && o->metavar ? " " : "",
                                       o && o->metavar ? o->metavar : "");
            val = argv[++i];
        }
        if (takes) {
            int rc = set_global(c, name, val);
            if (rc)
                return rc;
            if (built_set(c, name, json_string(val)))
                return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
            continue;
        }
        if (o->kind == O_FLAG && inline_val)
            return cli_usage_error(c, name, "takes no value");
        if (o->seen)
            return cli_usage_error(c, name, "given twice");
        o->seen = true;
        int rc = set_value(c, o, val);
        if (rc)
            return rc;
        if (built_set(c, o->name, value_json(o, val)))
            return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    }
    /* a request answers in JSON unless told otherwise; a command line prints a table */
    if (!json_object_get(json_object_get(c->built, "options"), "format") &&
        built_set(c, "format", json_string("table")))
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory");
    return EXIT_BUILT;
}

static int type_error(cli *c, const opt *o, const char *want)
{
    return cli_usage_error(c, o->name, "expected %s in the request", want);
}

static int number_value(cli *c, opt *o, const json_t *v)
{
    char text[40];
    if (!json_is_number(v))
        return type_error(c, o, o->kind == O_INT ? "a whole number" : "a number");
    double d = json_number_value(v);
    snprintf(text, sizeof text, "%.15g", d);
    if (o->kind == O_INT && (!json_is_integer(v) && d != floor(d)))
        return cli_usage_error(c, o->name, "'%s' is not a whole number", text);
    if (!isfinite(d) || d < o->lo || d > o->hi)
        return range_error(c, o->name, text, o->lo, o->hi);
    if (o->kind == O_INT)
        *(int *)o->dst = json_is_integer(v) ? (int)json_integer_value(v) : (int)d;
    else
        *(double *)o->dst = d;
    return 0;
}

static int list_value(cli *c, opt *o, const json_t *v)
{
    int_list *l = o->dst;
    if (!json_is_array(v))
        return type_error(c, o, "an array of whole numbers");
    if (json_array_size(v) == 0)
        return cli_usage_error(c, o->name, "expected a list of whole numbers");
    if (json_array_size(v) > 64)
        return cli_usage_error(c, o->name, "too many values (at most 64)");
    l->n = 0;
    l->range_lo = l->range_hi = 0;
    size_t k;
    const json_t *x;
    json_array_foreach(v, k, x) {
        char text[40];
        if (!json_is_integer(x))
            return type_error(c, o, "an array of whole numbers");
        long long n = json_integer_value(x);
        snprintf(text, sizeof text, "%lld", n);
        if (n < o->lo || n > o->hi)
            return range_error(c, o->name, text, o->lo, o->hi);
        l->v[l->n++] = (int)n;
    }
    return 0;
}

/* A file given inline in a request: {"text": "...", "name": "..."} for an option that reads a file (--lengths,
 * --model-file). "name" (optional, default dflt) is the file's name as errors quote it and as a model file's stem
 * names the model. The object is kept in c->keep; *text and *label point into it. Exit 2 naming the option when
 * the object has anything else, the text is empty, over CLI_INLINE_MAX bytes or holds a NUL, or the name is not
 * 1-200 printable characters. */
static int inline_doc(cli *c, const char *name, const json_t *v, const char *dflt, const char **text,
                      const char **label)
{
    const json_t *t = json_object_get(v, "text"), *nm = json_object_get(v, "name");
    if (!json_is_string(t) || (nm && !json_is_string(nm)) || json_object_size(v) != 1u + (nm != NULL))
        return cli_usage_error(c, name, "a file given in the request is {\"text\": \"...\"} (its contents) with an "
                               "optional \"name\": \"...\" (its file name), and nothing else");
    size_t len = json_string_length(t);
    if (len == 0)
        return cli_usage_error(c, name, "the file given in the request is empty");
    if (len > CLI_INLINE_MAX)
        return cli_usage_error(c, name, "the file given in the request is %zu bytes; at most %d", len, CLI_INLINE_MAX);
    if (memchr(json_string_value(t), 0, len))
        return cli_usage_error(c, name, "the file given in the request holds a NUL byte; it must be text");
    if (nm) {
        const char *s = json_string_value(nm);
        size_t n = json_string_length(nm);
        bool ok = n >= 1 && n <= 200;
        for (size_t k = 0; ok && k < n; k++)
            ok = (unsigned char)s[k] >= 0x20 && s[k] != 0x7f;
        if (!ok)
            return cli_usage_error(c, name, "\"name\" of the file given in the request must be 1-200 printable "
                                   "characters");
    }
    if (!c->keep || json_array_append(c->keep, (json_t *)v))
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory while reading the request");
    *text = json_string_value(t);
    *label = nm ? json_string_value(nm) : dflt;
    return 0;
}

const char *cli_inline(const cli *c, const char *option, size_t *len, const char **label)
{
    const json_t *d = c->inline_docs ? json_object_get(c->inline_docs, option) : NULL;
    const json_t *t = json_object_get(d, "text"), *nm = json_object_get(d, "name");
    if (len)
        *len = t ? json_string_length(t) : 0;
    if (label)
        *label = nm ? json_string_value(nm) : "lengths (inline)";
    return t ? json_string_value(t) : NULL;
}

/* One option of a request: a JSON value of the option's type, or a string in the command
 * line's syntax (so "15T", "64,128,...,1024" and "fp8" work as they do there). */
static int json_value(cli *c, opt *o, const json_t *v)
{
    if (o->kind == O_FLAG) {
        if (!json_is_boolean(v))
            return type_error(c, o, "true or false");
        *(bool *)o->dst = json_is_true(v);
        o->seen = json_is_true(v);
        return 0;
    }
    o->seen = true;
    if (json_is_string(v))
        return set_value(c, o, json_string_value(v));
    if (o->kind == O_PATH && json_is_object(v) && reads_inline(o->name)) {
        const char *text, *label;
        int rc = inline_doc(c, o->name, v, "", &text, &label);
        if (rc)
            return rc;
        if (!c->inline_docs) { /* owned by c->keep, as the texts are */
            json_t *d = json_object();
            if (!d || json_array_append_new(c->keep, d))
                return cli_error(c, GPUECON_E_NOMEM, "", "out of memory while reading the request");
            c->inline_docs = d;
        }
        if (json_object_set(c->inline_docs, o->name, (json_t *)v))
            return cli_error(c, GPUECON_E_NOMEM, "", "out of memory while reading the request");
        *(const char **)o->dst = "(inline)"; /* not a word of the option's: the consumer asks cli_inline */
        return 0;
    }
    if (o->kind == O_STR && (json_is_object(v) || json_is_array(v))) {
        /* a document inline (a scenario): its JSON text, which the YAML loaders read */
        char *t = json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17));
        if (!t || !c->keep || json_array_append_new(c->keep, json_string(t))) {
            free(t);
            return cli_error(c, GPUECON_E_NOMEM, "", "out of memory while reading the request");
        }
        free(t);
        *(const char **)o->dst = json_string_value(json_array_get(c->keep, json_array_size(c->keep) - 1));
        return 0;
    }
    switch (o->kind) {
    case O_DOUBLE:
    case O_INT: return number_value(c, o, v);
    case O_LIST: return list_value(c, o, v);
    default: return type_error(c, o, "a string");
    }
}

static int request_global(cli *c, const char *name, const json_t *v)
{
    if (!strcmp(name, "--model-file") && json_is_object(v)) { /* the file's contents, inline */
        const char *text, *label;
        int rc = inline_doc(c, name, v, "inline-model.json", &text, &label);
        if (!rc)
            c->model_text = text, c->model_label = label;
        return rc;
    }
    if ((!strcmp(name, "--catalog") || !strcmp(name, "--model-file")) && gpuecon_ctx_get_config(c->ctx)->no_files)
        return cli_usage_error(c, name, "names a file on this machine, which a request here may not do (gpuecon "
                               "serve reads catalogs from its own command line only)%s",
                               name[2] == 'm' ? "; give the model file's contents instead: {\"text\": \"...\"}" : "");
    if (!strcmp(name, "--json") || !strcmp(name, "--csv")) {
        if (!json_is_boolean(v))
            return cli_usage_error(c, name, "expected true or false in the request");
        if (json_is_true(v)) {
            c->format = name[2] == 'j' ? FMT_JSON : FMT_CSV;
            c->format_given = true;
        }
        return 0;
    }
    if (!strcmp(name, "--max-work") && json_is_number(v)) {
        char text[40];
        snprintf(text, sizeof text, "%.17g", json_number_value(v));
        return set_global(c, name, text);
    }
    if (!json_is_string(v))
        return cli_usage_error(c, name, "expected a string in the request");
    return set_global(c, name, json_string_value(v));
}

/* CLI_REQUEST: the options come from c->req_opts and the positional arguments from c->req_args. */
static int request_parse(cli *c, opt *opts, size_t nopts, const cmd_usage *usage, const char **pos, int maxpos,
                         int *npos)
{
    const json_t *help = json_object_get(c->req_opts, "help");
    if (help && !json_is_boolean(help))
        return cli_usage_error(c, "--help", "expected true or false in the request");
    if (json_is_true(help)) {
        print_help(c, opts, nopts, usage);
        return EXIT_HELP;
    }
    const char *key;
    json_t *v;
    json_object_foreach(c->req_opts, key, v) {
        char name[72];
        snprintf(name, sizeof name, "--%s", key);
        for (char *p = name + 2; *p; p++)
            if (*p == '_')
                *p = '-';
        if (!strcmp(name, "--help"))
            continue;
        if (!strcmp(name, "--json") || !strcmp(name, "--csv") || is_global_with_value(name)) {
            int rc = request_global(c, name, v);
            if (rc)
                return rc;
            continue;
        }
        opt *o = NULL;
        for (size_t k = 0; k < nopts; k++)
            if (!strcmp(opts[k].name, name))
                o = &opts[k];
        if (!o)
            return unknown_option(c, name, opts, nopts);
        int rc = json_value(c, o, v);
        if (rc)
            return rc;
    }
    int np = 0;
    size_t k;
    json_array_foreach(c->req_args, k, v) {
        if (!json_is_string(v))
            return cli_usage_error(c, "args", "expected strings in the request");
        if (np >= maxpos)
            return cli_usage_error(c, json_string_value(v), "unexpected argument (see gpuecon %s --help)", c->cmd);
        pos[np++] = json_string_value(v);
    }
    if (npos)
        *npos = np;
    return 0;
}

/* CLI_DESCRIBE: the option table as JSON, for front ends and docs/api/request.schema.json. */
static int describe(cli *c, const opt *opts, size_t nopts, int maxpos)
{
    static const char *const kinds[] = {"flag", "number", "integer", "string", "choice", "list", "path"};
    json_t *a = json_array();
    for (size_t i = 0; a && i < nopts; i++) {
        const opt *o = &opts[i];
        char key[64];
        request_name(o->name, key, sizeof key);
        json_t *j = json_pack("{s:s, s:s, s:s, s:s}", "name", key, "option", o->name, "kind", kinds[o->kind],
                              "help", o->help ? o->help : "");
        if (j && (o->kind == O_DOUBLE || o->kind == O_INT || o->kind == O_LIST)) {
            json_object_set_new(j, "minimum", json_real(o->lo));
            json_object_set_new(j, "maximum", json_real(o->hi));
        }
        if (j && o->kind == O_PATH && reads_inline(o->name)) /* {"text": ...} in a request (cli_inline) */
            json_object_set_new(j, "inline", json_true());
        if (j && (o->kind == O_CHOICE || (o->kind == O_PATH && o->choices))) {
            json_t *ch = json_array();
            for (int k = 0; o->choices[k]; k++)
                json_array_append_new(ch, json_string(o->choices[k]));
            json_object_set_new(j, "choices", ch);
        }
        if (!j || json_array_append_new(a, j)) {
            json_decref(a);
            a = NULL;
        }
    }
    if (!a || json_object_set_new(c->built, "options", a) ||
        json_object_set_new(c->built, "positional", json_integer(maxpos)))
        return cli_error(c, GPUECON_E_NOMEM, "", "out of memory while describing the options");
    return EXIT_BUILT;
}

int opts_parse(cli *c, int argc, char **argv, opt *opts, size_t nopts, const cmd_usage *usage,
               const char **pos, int maxpos, int *npos)
{
    c->opts = opts;
    c->nopts = nopts;
    if (c->mode == CLI_DESCRIBE)
        return describe(c, opts, nopts, maxpos);
    if (c->mode == CLI_ARGV)
        return argv_parse(c, argc, argv, opts, nopts, maxpos);
    return request_parse(c, opts, nopts, usage, pos, maxpos, npos);
}
