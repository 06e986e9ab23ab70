/*
 * strbuf.c — a growable string whose memory comes from the context's allocator: the request's
 * output and notes, pages, charts and the model file a Hugging Face config maps to are written
 * into one. When an append runs out of memory the caller's flag is set (a request then fails as
 * a whole, with no output).
 */
#include "base/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sb_init(strbuf *b, gpuecon_ctx *ctx, bool *oom)
{
    b->s = NULL;
    b->len = b->cap = 0;
    b->ctx = ctx;
    b->oom = oom;
}

void sb_free(strbuf *b)
{
    ctx_free(b->ctx, b->s, b->cap);
    b->s = NULL;
    b->len = b->cap = 0;
}

static void sb_fail(strbuf *b)
{
    if (b->oom)
        *b->oom = true;
}

void sb_vprintf(strbuf *b, const char *fmt, va_list ap)
{
    for (;;) {
        size_t room = b->cap - b->len;
        va_list aq;
        va_copy(aq, ap);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, aq);
        va_end(aq);
        if (n < 0)
            return;
        if (b->s && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *s = ctx_realloc(b->ctx, b->s, b->cap, cap);
        if (!s) {
            sb_fail(b); /* the text stops here; the caller's flag says so */
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

void sb_printf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void sb_write(strbuf *b, const char *s, size_t n)
{
    if (b->cap - b->len <= n) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap <= b->len + n)
            cap *= 2;
        char *t = ctx_realloc(b->ctx, b->s, b->cap, cap);
        if (!t) {
            sb_fail(b);
            return;
        }
        b->s = t;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void sb_puts(strbuf *b, const char *s)
{
    sb_write(b, s, strlen(s));
}

void sb_putc(strbuf *b, char c)
{
    sb_write(b, &c, 1);
}

void sb_escape(strbuf *b, const char *text)
{
    /* labels and titles are built in fixed buffers from the scenario's names (any UTF-8 text):
     * a cut character is dropped, not written as a malformed byte (text_utf8_scrub) */
    size_t n = text ? strlen(text) + 1 : 0;
    char *copy = text ? ctx_alloc(b->ctx, n) : NULL;
    if (copy) {
        memcpy(copy, text, n);
        text_utf8_scrub(copy);
    } else if (text) {
        sb_fail(b);
        return;
    }
    const char *s = copy ? copy : text;
    for (; s && *s; s++) {
        switch (*s) {
        case '<': sb_printf(b, "&lt;"); break;
        case '>': sb_printf(b, "&gt;"); break;
        case '&': sb_printf(b, "&amp;"); break;
        case '"': sb_printf(b, "&quot;"); break;
        case '\'': sb_printf(b, "&#39;"); break;
        default: sb_printf(b, "%c", *s);
        }
    }
    ctx_free(b->ctx, copy, n);
}
