/*
 * server.c — the HTTP side of `gpuecon serve` over civetweb: the page's embedded files, the
 * API (api.c), the security headers and limits, and graceful shutdown.
 *
 * Key choices. civetweb runs with no document root, so it can serve no file from disk; every
 * response is written here with the same headers (a strict Content-Security-Policy that allows
 * only the server's own scripts and styles, X-Content-Type-Options: nosniff, no CORS headers,
 * so browsers refuse cross-origin API calls). At most max_concurrent API requests run at once;
 * more wait in a bounded first-come queue (slots.c: at most queue_depth of them, each at most
 * queue_wait_s) and beyond it answer 503 with Retry-After; bodies are read only up to the cap
 * (413), and whole, before a request joins the queue. Signals are not handled in a handler:
 * SIGINT/SIGTERM are blocked in every thread and the main thread waits for them with sigwait(),
 * then mg_stop() lets the requests in flight finish — no global state.
 */
#include "serve.h"
#include "assets.h"
#include "slots.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

typedef struct server {
    const serve_config *cfg;
    slots work;           /* API requests computing (--max-concurrent) and queued (--queue-depth) */
    atomic_int open;      /* API requests not yet answered (what a shutdown waits for) */
    atomic_bool draining; /* after SIGINT/SIGTERM: new API requests answer 503 */
} server;

static const char *const security_headers =
    "Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'\r\n"
    "X-Content-Type-Options: nosniff\r\n"
    "X-Frame-Options: DENY\r\n"
    "Referrer-Policy: no-referrer\r\n"
    "Cache-Control: no-store\r\n";

static const char *reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 411: return "Length Required";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    case 413: return "Payload Too Large";
    case 422: return "Unprocessable Content";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    default: return "Status";
    }
}

static int respond(struct mg_connection *conn, int status, const char *type, const char *body, size_t len,
                bool head, const char *extra)
{
    mg_printf(conn,
              "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s%s\r\n", status,
              reason(status), type, len, security_headers, extra ? extra : "",
              status == 413 || status == 408 ? "Connection: close\r\n" : "");
    if (!head && len)
        mg_write(conn, body, len);
    return status;
}

/* Retry-After for a request the queue refused: the queue wait, rounded up to whole seconds (at
 * least 1): by then every request queued now has a slot or has been refused. */
static int retry_after_s(const serve_config *cfg)
{
    double r = ceil(cfg->queue_wait_s);
    return r < 1 ? 1 : r > 3600 ? 3600 : (int)r;
}

/* The 503 for a request that got no work slot (see slot_result); fills *r, and the Retry-After
 * header into extra. */
static void refuse_busy(const serve_config *cfg, slot_result why, double waited, api_reply *r, char *extra,
                        size_t cap)
{
    char msg[240];
    int after = retry_after_s(cfg);
    if (why == SLOT_FULL)
        snprintf(msg, sizeof msg, "all %d work slots are busy and %d requests are queued (gpuecon serve "
                 "--max-concurrent, --queue-depth); try again in %d s", cfg->max_concurrent, cfg->queue_depth, after);
    else if (why == SLOT_TIMEOUT)
        snprintf(msg, sizeof msg, "waited %.1f s in the queue for one of the %d work slots (gpuecon serve "
                 "--queue-wait); try again in %d s", waited, cfg->max_concurrent, after);
    else
        snprintf(msg, sizeof msg, "shutting down");
    api_reply_error(r, 503, GPUECON_E_CANCELED, "server", msg);
    snprintf(extra, cap, why == SLOT_CLOSED ? "Connection: close\r\n" : "Retry-After: %d\r\n", after);
}

/* Every network read and write of a connection (the headers, a piece of the body, a piece of the
 * answer) must finish within IO_TIMEOUT_MS (civetweb's request_timeout_ms; it may wait twice that
 * for one read), and a whole body within BODY_DEADLINE_S: a client that trickles its request is
 * dropped, not waited for. */
#define IO_TIMEOUT_MS 2000
#define BODY_DEADLINE_S 5

static int send_reply(struct mg_connection *conn, api_reply *r, const char *extra)
{
    int st = respond(conn, r->status, r->type, r->body, r->len, false, extra);
    api_reply_free(r);
    return st;
}

static int asset(struct mg_connection *conn, const struct mg_request_info *ri)
{
    const char *path = ri->local_uri ? ri->local_uri : "/";
    bool head = !strcmp(ri->request_method, "HEAD");
    if (strcmp(ri->request_method, "GET") && !head) {
        api_reply r;
        api_reply_error(&r, 405, GPUECON_E_INPUT, "method", "only GET for the page's files");
        return send_reply(conn, &r, "Allow: GET, HEAD\r\n");
    }
    if (!strcmp(path, "/"))
        path = "/index.html";
    for (const serve_asset *a = serve_assets; a->path; a++)
        if (!strcmp(a->path, path))
            return respond(conn, 200, a->type, a->data, a->size, head, NULL);
    api_reply r;
    api_reply_error(&r, 404, GPUECON_E_NOTFOUND, path, "no such page");
    return send_reply(conn, &r, NULL);
}

/* Reads the body up to cap + 1 bytes; returns the buffer (NUL-terminated) or NULL. */
static char *read_body(struct mg_connection *conn, size_t cap, size_t *len, bool *over)
{
    char *buf = malloc(cap + 2);
    size_t n = 0;
    *over = false;
    if (!buf)
        return NULL;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec >= BODY_DEADLINE_S)
            break; /* past the body's deadline: what came is all there is (408 when short) */
        int got = mg_read(conn, buf + n, cap + 1 - n);
        if (got <= 0)
            break;
        n += (size_t)got;
        if (n > cap) {
            *over = true;
            break;
        }
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Whether the Host header names this machine by address (an IPv4 or bracketed IPv6 literal) or as
 * localhost. A browser tricked by DNS rebinding sends the attacker's domain name, which never
 * passes; a client reaching an --allow-remote address by IP does. */
static bool host_ok(const char *host)
{
    if (!host || !*host || strlen(host) > 100)
        return false;
    char h[112];
    snprintf(h, sizeof h, "%s", host);
    if (h[0] == '[') {
        char *end = strchr(h, ']');
        if (!end || (end[1] && (end[1] != ':' || !end[2] || strspn(end + 2, "0123456789") != strlen(end + 2))))
            return false;
        *end = '\0';
        unsigned char bin[16];
        return inet_pton(AF_INET6, h + 1, bin) == 1;
    }
    char *colon = strchr(h, ':');
    if (colon) {
        if (!colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1))
            return false;
        *colon = '\0';
    }
    unsigned char bin[4];
    return !strcmp(h, "localhost") || inet_pton(AF_INET, h, bin) == 1;
}

/* A POST to the API must be JSON (a cross-origin form or text/plain POST needs no preflight, so
 * a page elsewhere could send one) and same-origin: an Origin header, when sent, names this
 * server's own Host, and Sec-Fetch-Site, when sent, is same-origin or none (typed or bookmarked).
 * NULL when the request may run; else why not. */
static const char *post_refused(const struct mg_connection *conn)
{
    const char *type = mg_get_header(conn, "Content-Type");
    size_t n = type ? strcspn(type, "; \t") : 0;
    if (!type || n != strlen("application/json") || strncasecmp(type, "application/json", n))
        return "an API POST must have Content-Type: application/json";
    const char *site = mg_get_header(conn, "Sec-Fetch-Site");
    if (site && strcmp(site, "same-origin") && strcmp(site, "none"))
        return "a cross-site API POST is refused (Sec-Fetch-Site)";
    const char *origin = mg_get_header(conn, "Origin"), *host = mg_get_header(conn, "Host");
    if (origin) {
        char want[160];
        snprintf(want, sizeof want, "http://%s", host ? host : "");
        if (strcmp(origin, want))
            return "a cross-origin API POST is refused (Origin is not this server)";
    }
    return NULL;
}

/* text as the log shows it: control bytes and backslashes as \\xNN, so what a client sent (a URL-decoded
 * path, a request line civetweb quotes) cannot act on the operator's terminal; cut to fit cap. */
static const char *log_text(const char *text, char *out, size_t cap)
{
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p && k + 5 < cap; p++)
        k += (size_t)(*p < 0x20 || *p == 0x7f || *p == '\\' ? snprintf(out + k, cap - k, "\\x%02x", *p)
                                                            : snprintf(out + k, cap - k, "%c", *p));
    out[k] = '\0';
    return out;
}

/* How many header fields of this name the request has (civetweb's mg_get_header sees the first only). */
static int header_count(const struct mg_request_info *ri, const char *name)
{
    int n = 0;
    for (int i = 0; i < ri->num_headers && i < MG_MAX_HEADERS; i++)
        n += ri->http_headers[i].name && !strcasecmp(ri->http_headers[i].name, name);
    return n;
}

static int handle(struct mg_connection *conn, void *cbdata)
{
    server *s = cbdata;
    const struct mg_request_info *ri = mg_get_request_info(conn);
    const char *path = ri->local_uri ? ri->local_uri : "/";
    api_reply r;
    /* a server MUST answer 400 to more than one Host field (RFC 9112 section 3.2): the first is what
       host_ok would check, and a second one is what something behind a proxy might read */
    if (header_count(ri, "Host") > 1) {
        api_reply_error(&r, 400, GPUECON_E_INPUT, "Host", "more than one Host header");
        return send_reply(conn, &r, "Connection: close\r\n");
    }
    if (!host_ok(mg_get_header(conn, "Host"))) {
        api_reply_error(&r, 403, GPUECON_E_INPUT, "Host",
                        "the Host header must name this server by address (127.0.0.1:PORT) or as localhost");
        return send_reply(conn, &r, "Connection: close\r\n");
    }
    if (strncmp(path, "/api/", 5))
        return asset(conn, ri);
    const char *why = !strcmp(ri->request_method, "POST") ? post_refused(conn) : NULL;
    if (why) {
        api_reply_error(&r, 403, GPUECON_E_INPUT, "request", why);
        return send_reply(conn, &r, NULL);
    }
    if (!strcmp(ri->request_method, "OPTIONS")) {
        /* no CORS: a preflight gets no Access-Control-Allow-* headers, so cross-origin calls fail */
        api_reply_error(&r, 405, GPUECON_E_INPUT, "method", "OPTIONS (CORS preflight) is not supported");
        return send_reply(conn, &r, "Allow: GET, POST\r\n");
    }
    const api_env *env = &s->cfg->env;
    if (ri->content_length > 0 && (unsigned long long)ri->content_length > env->max_body_bytes) {
        char msg[160];
        snprintf(msg, sizeof msg, "request body of %lld bytes is over the limit of %zu (gpuecon serve --max-body)",
                 ri->content_length, env->max_body_bytes);
        api_reply_error(&r, 413, GPUECON_E_INPUT, "request", msg);
        return send_reply(conn, &r, NULL);
    }
    if (atomic_load(&s->draining)) {
        api_reply_error(&r, 503, GPUECON_E_CANCELED, "server", "shutting down");
        return send_reply(conn, &r, "Connection: close\r\n");
    }
    /* the body is read first, under its deadline (BODY_DEADLINE_S), and only a
       whole one takes a work slot or joins the queue: clients that declare a body and trickle it
       once held every slot (refused for everyone) */
    atomic_fetch_add(&s->open, 1);
    size_t len = 0;
    bool over = false;
    char *body = read_body(conn, env->max_body_bytes, &len, &over);
    if (!body) {
        api_reply_error(&r, 500, GPUECON_E_NOMEM, "", "out of memory");
    } else if (over) {
        char msg[160];
        snprintf(msg, sizeof msg, "request body is over the limit of %zu bytes (gpuecon serve --max-body)",
                 env->max_body_bytes);
        api_reply_error(&r, 413, GPUECON_E_INPUT, "request", msg);
    } else if (ri->content_length >= 0 && (unsigned long long)ri->content_length != len) {
        char msg[200];
        snprintf(msg, sizeof msg, "the request body ended after %zu of the %lld bytes declared (a body has %d s "
                 "to arrive)", len, ri->content_length, BODY_DEADLINE_S);
        api_reply_error(&r, 408, GPUECON_E_INPUT, "request", msg);
    } else {
        double waited = 0;
        slot_result got = slots_acquire(&s->work, &waited);
        if (got != SLOT_TAKEN) {
            free(body);
            char extra[64];
            refuse_busy(s->cfg, got, waited, &r, extra, sizeof extra);
            int st = send_reply(conn, &r, extra);
            atomic_fetch_sub(&s->open, 1);
            return st;
        }
        api_handle(env, ri->request_method, path, body, len, &r);
        slots_release(&s->work); /* the work is done: the next queued request, or a client reading its answer */
    }
    free(body);
    int st = send_reply(conn, &r, NULL);
    atomic_fetch_sub(&s->open, 1);
    if (!s->cfg->quiet) {
        /* the path is URL-decoded: a %1b or %07 in it must not reach the terminal as a control byte */
        char shown[512];
        fprintf(stderr, "gpuecon serve: %s %s %d\n", ri->request_method, log_text(path, shown, sizeof shown), st);
    }
    return st;
}

/* civetweb's own errors (a bad method, an over-long URI, a malformed request line) in the server's
 * form: a JSON error record with the same security headers as every other response. */
static int http_error(struct mg_connection *conn, int status, const char *errmsg)
{
    api_reply r;
    char msg[200];
    snprintf(msg, sizeof msg, "%s", errmsg && *errmsg ? errmsg : reason(status));
    for (char *p = msg; *p; p++) /* civetweb may quote the request: no control byte in the record */
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    api_reply_error(&r, status >= 400 && status < 600 ? status : 400, GPUECON_E_INPUT, "request", msg);
    send_reply(conn, &r, "Connection: close\r\n");
    return 0;
}

/* civetweb's own log lines quote what the client sent ("Bad HTTP version: [...]"): escaped like the
 * request log */
static int log_message(const struct mg_connection *conn, const char *message)
{
    (void)conn;
    char shown[1024];
    fprintf(stderr, "gpuecon serve: %s\n", log_text(message ? message : "", shown, sizeof shown));
    return 1;
}

struct serve_server {
    server s;
    struct mg_context *ctx;
    int port;
};

int serve_start(const serve_config *cfg, serve_server **out)
{
    *out = NULL;
    serve_server *h = calloc(1, sizeof *h);
    if (!h) {
        fprintf(stderr, "gpuecon serve: out of memory\n");
        return 1;
    }
    /* worker threads: the work slots, the queue, plus 16 for connections that are still sending or
       reading (neither a full queue nor a few slow clients may leave none for the page) */
    char threads[16], timeout[16];
    snprintf(threads, sizeof threads, "%d", cfg->max_concurrent + cfg->queue_depth + 16);
    snprintf(timeout, sizeof timeout, "%d", IO_TIMEOUT_MS);
    /* cfg->listen is civetweb's form already (serve_main.c checked and mapped every address) */
    char ports[640];
    snprintf(ports, sizeof ports, "%s", cfg->listen);
    const char *options[] = {"listening_ports", ports, "num_threads", threads, "request_timeout_ms", timeout,
                             "enable_keep_alive", "yes", "max_request_size", "16384", NULL};
    h->s.cfg = cfg;
    atomic_init(&h->s.open, 0);
    atomic_init(&h->s.draining, false);
    if (slots_init(&h->s.work, cfg->max_concurrent, cfg->queue_depth, cfg->queue_wait_s)) {
        fprintf(stderr, "gpuecon serve: cannot set up the work slots\n");
        free(h);
        return 1;
    }
    struct mg_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.log_message = log_message;
    cb.http_error = http_error;
    mg_init_library(0);
    h->ctx = mg_start(&cb, &h->s, options);
    if (!h->ctx) {
        fprintf(stderr, "gpuecon: --listen: cannot listen on %s (in use, or not an address of this machine)\n",
                cfg->listen);
        mg_exit_library();
        slots_destroy(&h->s.work);
        free(h);
        return 1;
    }
    mg_set_request_handler(h->ctx, "/", handle, &h->s);
    struct mg_server_port sp[4];
    int np = mg_get_server_ports(h->ctx, 4, sp);
    h->port = np > 0 ? sp[0].port : 0;
    *out = h;
    return 0;
}

int serve_port(const serve_server *h)
{
    return h->port;
}

void serve_stop(serve_server *h, bool drain)
{
    if (!h)
        return;
    /* civetweb stops writing once mg_stop() begins, so let the requests in flight finish first
     * (each is bounded by the work budget); a second signal stops at once */
    atomic_store(&h->s.draining, true);
    slots_close(&h->s.work); /* the queued requests are answered 503 now; the running ones finish */
    struct timespec tick = {0, 20 * 1000 * 1000};
    for (double waited = 0; drain && (slots_running(&h->s.work) > 0 || atomic_load(&h->s.open) > 0) &&
                            waited < h->s.cfg->env.budget_s + 10;
         waited += 0.02) {
        sigset_t pending;
        sigpending(&pending);
        if (sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM))
            break;
        nanosleep(&tick, NULL);
    }
    mg_stop(h->ctx);
    mg_exit_library();
    slots_destroy(&h->s.work);
    free(h);
}

int serve_run(const serve_config *cfg)
{
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    serve_server *h;
    if (serve_start(cfg, &h))
        return 1;
    char host[160];
    snprintf(host, sizeof host, "%.*s", (int)strcspn(cfg->listen, ","), cfg->listen); /* the first address */
    char *colon = strrchr(host, ':');
    if (colon)
        *colon = '\0';
    printf("gpuecon serve: listening on http://%s:%d/ (Ctrl-C stops)\n", colon ? host : "127.0.0.1", serve_port(h));
    fflush(stdout);
    int sig = 0;
    sigwait(&sigs, &sig);
    fprintf(stderr, "gpuecon serve: %s: finishing the requests in flight\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    serve_stop(h, true);
    return 0;
}
