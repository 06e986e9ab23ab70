/*
 * table.c — aligned terminal tables that print as CSV too.
 *
 * A command builds one tbl of its main result; --csv prints the same cells unformatted, so
 * the terminal and CSV forms can never disagree. Width is measured in UTF-8 code points. A
 * table never cuts a cell: a column is as wide as its widest cell, and a message that stands for
 * the rest of its row (tbl_span) runs over the columns to its right, wrapped at the table's width
 * (at least SPAN_LINE columns).
 */
#include "render/render.h"

#include <stdarg.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#define TBL_MAXCOL 64 /* compare's CSV has 39; a column past it fails the table (never dropped silently) */
#define SPAN_LINE 100 /* a spanning cell wraps at the table's width, or at this many columns if wider */

typedef struct cell {
    char *text; /* display */
    char *raw;  /* CSV; NULL = same as text */
    bool span;  /* the rest of the row: sets no column's width, wraps at the table's (tbl_span) */
} cell;

typedef struct trow {
    cell cells[TBL_MAXCOL];
    int n;
    bool sep;
} trow;

struct tbl {
    char *names[TBL_MAXCOL];
    char *keys[TBL_MAXCOL]; /* the CSV header of a column whose terminal name is a label; NULL: names */
    char align[TBL_MAXCOL];
    bool pair[TBL_MAXCOL]; /* an "80% band" column: one cell on the terminal, two CSV fields (low, high) */
    int ncol;
    trow *rows;
    size_t nrow, cap;
    gpuecon_ctx *ctx; /* every allocation goes through its allocator */
    bool failed; /* an allocation failed: the table takes no more cells and prints nothing */
    bool *oom;   /* the caller's flag, set when that happens (may be NULL) */
};

/* What tbl_new returns when it cannot allocate a table: failed from the start, never written
 * (every function returns before touching a failed table) and never freed. */
static tbl dead_table = {.failed = true};

static void fail(tbl *t)
{
    t->failed = true;
    if (t->oom)
        *t->oom = true;
}

static char *xstrdup(tbl *t, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = ctx_alloc(t->ctx, n);
    if (!d) {
        fail(t);
        return NULL;
    }
    return memcpy(d, s, n);
}

static void xfree(tbl *t, char *s)
{
    if (s)
        ctx_free(t->ctx, s, strlen(s) + 1);
}

tbl *tbl_new(gpuecon_ctx *ctx, bool *oom)
{
    tbl *t = ctx_alloc(ctx, sizeof *t);
    if (!t) {
        if (oom)
            *oom = true;
        return &dead_table;
    }
    t->ctx = ctx;
    t->oom = oom;
    return t;
}

void tbl_free(tbl *t)
{
    if (!t || t == &dead_table)
        return;
    for (int c = 0; c < t->ncol; c++) {
        xfree(t, t->names[c]);
        xfree(t, t->keys[c]);
    }
    for (size_t r = 0; r < t->nrow; r++)
        for (int c = 0; c < t->rows[r].n; c++) {
            xfree(t, t->rows[r].cells[c].text);
            xfree(t, t->rows[r].cells[c].raw);
        }
    ctx_free(t->ctx, t->rows, t->cap * sizeof *t->rows);
    ctx_free(t->ctx, t, sizeof *t);
}

void tbl_col_key(tbl *t, const char *label, const char *key, char align)
{
    int c = t->ncol;
    tbl_col(t, label, align);
    if (t->failed || t->ncol != c + 1)
        return;
    t->keys[c] = xstrdup(t, key);
}

void tbl_col(tbl *t, const char *name, char align)
{
    if (t->failed)
        return;
    if (t->ncol >= TBL_MAXCOL) { /* a programming error: an output losing a column would go unseen */
        fail(t);
        return;
    }
    char *copy = xstrdup(t, name);
    if (!copy)
        return;
    t->names[t->ncol] = copy;
    t->align[t->ncol] = align;
    size_t n = strlen(name), k = strlen("80% band");
    t->pair[t->ncol] = n >= k && !strcmp(name + n - k, "80% band"); /* figband_cell's cells: low, high in CSV */
    t->ncol++;
}

/* A new empty row, or NULL (the table failed) */
static trow *push_row(tbl *t)
{
    if (t->failed)
        return NULL;
    if (t->nrow == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        trow *rows = ctx_realloc(t->ctx, t->rows, t->cap * sizeof *rows, cap * sizeof *rows);
        if (!rows) {
            fail(t);
            return NULL;
        }
        t->rows = rows;
        t->cap = cap;
    }
    trow *r = &t->rows[t->nrow++];
    memset(r, 0, sizeof *r);
    return r;
}

void tbl_row(tbl *t) { push_row(t); }

void tbl_sep(tbl *t)
{
    trow *r = push_row(t);
    if (r)
        r->sep = true;
}

static void add_cell(tbl *t, const char *text, const char *raw)
{
    if (t->failed || ((t->nrow == 0 || t->rows[t->nrow - 1].sep) && !push_row(t)))
        return;
    trow *r = &t->rows[t->nrow - 1];
    if (r->n >= TBL_MAXCOL)
        return;
    char *a = xstrdup(t, text), *b = raw ? xstrdup(t, raw) : NULL;
    if (!a || (raw && !b)) {
        xfree(t, a);
        xfree(t, b);
        return;
    }
    r->cells[r->n].text = a;
    r->cells[r->n].raw = b;
    r->n++;
}

void tbl_str(tbl *t, const char *s) { add_cell(t, s ? s : "", NULL); }

void tbl_span(tbl *t, const char *display, const char *raw)
{
    add_cell(t, display ? display : "", raw);
    if (!t->failed && t->nrow && t->rows[t->nrow - 1].n)
        t->rows[t->nrow - 1].cells[t->rows[t->nrow - 1].n - 1].span = true;
}

void tbl_text(tbl *t, const char *display, const char *raw) { add_cell(t, display, raw); }

void tbl_fmt(tbl *t, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    add_cell(t, buf, NULL);
}

void tbl_num(tbl *t, double v, int decimals)
{
    if (!isfinite(v)) { /* a figure the model could not give (the JSON's null): never "nan" */
        add_cell(t, "n/a", "");
        return;
    }
    char disp[64], raw[64];
    fmt_num(disp, sizeof disp, v, decimals);
    snprintf(raw, sizeof raw, "%.10g", v);
    add_cell(t, disp, raw);
}

void tbl_pct(tbl *t, double v, int decimals)
{
    char disp[64], raw[64];
    snprintf(disp, sizeof disp, "%.*f%%", decimals, v * 100);
    snprintf(raw, sizeof raw, "%.10g", v);
    add_cell(t, disp, raw);
}

static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

/* s from column `at` on, in lines of at most `room` code points broken at spaces (a word longer
 * than the room gets a line of its own), each further line indented to `at`: nothing is cut. */
static void print_span(strbuf *f, const char *s, size_t at, size_t room)
{
    bool first = true;
    while (*s) {
        size_t len = strlen(s), n = 0, cut = 0, i = 0;
        for (; i < len && n < room; i++)
            if (((unsigned char)s[i] & 0xC0) != 0x80)
                n++;
        while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80) /* end on a character's last byte */
            i++;
        if (i >= len) {
            cut = len;
        } else {
            for (size_t k = i; k > 0 && !cut; k--)
                if (s[k] == ' ')
                    cut = k;
            if (!cut) /* one word longer than the room: it runs on to the next space */
                for (cut = i; cut < len && s[cut] != ' '; cut++)
                    ;
        }
        if (!first)
            sb_printf(f, "\n%*s", (int)at, "");
        sb_write(f, s, cut);
        first = false;
        s += cut;
        while (*s == ' ')
            s++;
    }
}

void tbl_print(const tbl *t, strbuf *f)
{
    if (t->failed)
        return;
    size_t w[TBL_MAXCOL] = {0};
    for (int c = 0; c < t->ncol; c++)
        w[c] = width(t->names[c]);
    for (size_t r = 0; r < t->nrow; r++)
        for (int c = 0; c < t->rows[r].n && c < t->ncol; c++) {
            if (t->rows[r].cells[c].span)
                continue;
            size_t cw = width(t->rows[r].cells[c].text);
            if (cw > w[c])
                w[c] = cw;
        }
    size_t total = 0;
    for (int c = 0; c < t->ncol; c++)
        total += w[c] + (c ? 2 : 0);
    for (int c = 0; c < t->ncol; c++) {
        size_t pad = w[c] - width(t->names[c]);
        if (c)
            sb_puts(f, "  ");
        if (t->align[c] == 'r')
            sb_printf(f, "%*s%s", (int)pad, "", t->names[c]);
        else
            sb_printf(f, "%s%*s", t->names[c], c + 1 < t->ncol ? (int)pad : 0, "");
    }
    sb_putc(f, '\n');
    for (size_t i = 0; i < total; i++)
        sb_puts(f, "─");
    sb_putc(f, '\n');
    for (size_t r = 0; r < t->nrow; r++) {
        const trow *row = &t->rows[r];
        if (row->sep) {
            for (size_t i = 0; i < total; i++)
                sb_puts(f, "·");
            sb_putc(f, '\n');
            continue;
        }
        for (int c = 0; c < t->ncol; c++) {
            const char *s = c < row->n ? row->cells[c].text : "";
            if (c < row->n && row->cells[c].span) { /* the rest of the row, whole, wrapped */
                size_t at = 0;
                for (int k = 0; k < c; k++)
                    at += w[k] + 2;
                if (c)
                    sb_puts(f, "  ");
                size_t line = total > SPAN_LINE ? total : SPAN_LINE; /* a narrow table still gets a readable line */
                print_span(f, s, at, line > at + 24 ? line - at : 24);
                break;
            }
            size_t pad = w[c] - width(s);
            if (c)
                sb_puts(f, "  ");
            if (t->align[c] == 'r')
                sb_printf(f, "%*s%s", (int)pad, "", s);
            else
                sb_printf(f, "%s%*s", s, c + 1 < t->ncol ? (int)pad : 0, "");
        }
        sb_putc(f, '\n');
    }
}

/* The CSV header of a band column's two fields: "<figure> 80% low" and "<figure> 80% high", the figure being
 * what the column's name says before " 80% band" ("mean 80% band"), else the column before it ("TPOT ms"). */
static void pair_header(const tbl *t, int c, strbuf *f)
{
    const char *n = t->names[c], *base = n;
    size_t len = strlen(n), sl = strlen("80% band");
    size_t bl = len > sl ? len - sl - 1 : 0;
    if (!bl && c > 0)
        base = t->keys[c - 1] ? t->keys[c - 1] : t->names[c - 1], bl = strlen(base);
    char h[160];
    snprintf(h, sizeof h, "%.*s 80%% low", (int)bl, base);
    csv_field(f, h);
    sb_putc(f, ',');
    snprintf(h, sizeof h, "%.*s 80%% high", (int)bl, base);
    csv_field(f, h);
}

/* A band cell's CSV fields: its raw "low\x1fhigh" (figband_cell), or two empty fields. */
static void pair_cell(const char *raw, strbuf *f)
{
    const char *us = raw ? strchr(raw, '\x1f') : NULL;
    if (us) {
        char lo[64];
        snprintf(lo, sizeof lo, "%.*s", (int)(us - raw), raw);
        csv_field(f, lo);
        sb_putc(f, ',');
        csv_field(f, us + 1);
    } else {
        sb_putc(f, ',');
    }
}

void tbl_csv(const tbl *t, strbuf *f)
{
    if (t->failed)
        return;
    for (int c = 0; c < t->ncol; c++) {
        if (c)
            sb_putc(f, ',');
        if (t->pair[c])
            pair_header(t, c, f);
        else
            csv_field(f, t->keys[c] ? t->keys[c] : t->names[c]);
    }
    sb_putc(f, '\n');
    for (size_t r = 0; r < t->nrow; r++) {
        const trow *row = &t->rows[r];
        if (row->sep)
            continue;
        for (int c = 0; c < t->ncol; c++) {
            if (c)
                sb_putc(f, ',');
            if (t->pair[c])
                pair_cell(c < row->n ? row->cells[c].raw : NULL, f);
            else if (c < row->n)
                csv_field(f, row->cells[c].raw ? row->cells[c].raw : row->cells[c].text);
        }
        sb_putc(f, '\n');
    }
}

void tbl_html(const tbl *t, strbuf *b)
{
    tbl_html_part(t, b, 0, t->ncol);
}

int tbl_ncol(const tbl *t)
{
    return t->failed ? 0 : t->ncol;
}

void tbl_html_part(const tbl *t, strbuf *b, int from, int to)
{
    if (t->failed)
        return;
    from = from < 0 ? 0 : from;
    to = to > t->ncol ? t->ncol : to;
    sb_printf(b, "<table>\n<thead><tr>");
    for (int c = 0; c < t->ncol; c++) {
        if (c && (c < from || c >= to))
            continue;
        sb_printf(b, "<th%s>", t->align[c] == 'r' ? " class=\"num\"" : "");
        sb_escape(b, t->names[c]);
        sb_printf(b, "</th>");
    }
    sb_printf(b, "</tr></thead>\n<tbody>\n");
    for (size_t r = 0; r < t->nrow; r++) {
        const trow *row = &t->rows[r];
        if (row->sep)
            continue;
        sb_printf(b, "<tr>");
        for (int c = 0; c < t->ncol; c++) {
            bool shown = !c || (c >= from && c < to);
            if (c < row->n && row->cells[c].span) { /* the rest of the row, over this part's columns from here */
                int rest = 0;
                for (int k = c; k < t->ncol; k++)
                    rest += !k || (k >= from && k < to);
                if (rest > 0) {
                    sb_printf(b, "<td colspan=\"%d\">", rest);
                    sb_escape(b, row->cells[c].text);
                    sb_printf(b, "</td>");
                }
                break;
            }
            if (!shown)
                continue;
            sb_printf(b, "<td%s>", t->align[c] == 'r' ? " class=\"num\"" : "");
            if (c < row->n)
                sb_escape(b, row->cells[c].text);
            sb_printf(b, "</td>");
        }
        sb_printf(b, "</tr>\n");
    }
    sb_printf(b, "</tbody></table>\n");
}

void tbl_quantity(tbl *t, const char *quantity, double v, int decimals, const char *unit, const char *note)
{
    tbl_row(t);
    tbl_str(t, quantity);
    tbl_num(t, v, decimals);
    tbl_str(t, unit);
    tbl_str(t, note ? note : "");
}
