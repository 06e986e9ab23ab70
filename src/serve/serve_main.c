/*
 * serve_main.c — the command line of `gpuecon serve [--listen HOST:PORT] [SCENARIO.yaml]`.
 *
 * serve is not a library command (the library does no I/O): the CLI hands it over here. It
 * parses its options, loads the catalog (built-in + --catalog DIR, the only way catalogs reach
 * the server) and the scenario file once, checks that the scenario loads (so a typo fails here,
 * with path:line:col, rather than in the browser), and runs server.c. Error lines and exit codes
 * are the CLI's: "gpuecon: <option or path:line:col>: <what is wrong>", exit 2.
 */
#include "serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int usage_error(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage_error(const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gpuecon: %s: ", where);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

static int fail(const gpuecon_error *e)
{
    if (e->where[0] && e->line > 0)
        fprintf(stderr, "gpuecon: %s:%d:%d: %s\n", e->where, e->line, e->column, e->message);
    else
        fprintf(stderr, "gpuecon: %s%s%s\n", e->where, e->where[0] ? ": " : "", e->message);
    return e->code == GPUECON_E_NOMEM || e->code == GPUECON_E_INTERNAL ? 1 : 2;
}

static const char help[] =
    "usage: gpuecon serve [--listen 127.0.0.1:8080] [SCENARIO.yaml] [options]\n\n"
    "Serves the web app: open the URL it prints. The page edits the scenario (default: the\n"
    "built-in one), compares its platforms with what-if controls on every input the sensitivity\n"
    "analysis moves, and exports YAML, the HTML report and CSV. The JSON API (POST\n"
    "/api/v1/<command>, GET /api/v1/catalog/<kind>, GET /api/v1/scenario) is in docs/cli.md.\n"
    "It listens on loopback only, unless --allow-remote, and never reads a file named over the\n"
    "network: catalogs come from --catalog DIR here.\n\n"
    "options:\n"
    "  --listen HOST:PORT    address (default 127.0.0.1:8080; port 0 picks a free one); HOST is an\n"
    "                        IPv4 address, [IPv6] or localhost; up to 4, comma-separated\n"
    "  --allow-remote        allow a --listen address other machines may reach (a warning is\n"
    "                        printed: gpuecon serve has no authentication)\n"
    "  --catalog DIR         catalog files that add to or override the built-in ones\n"
    "  --max-body BYTES      largest request body (default 1048576; more: 413)\n"
    "  --max-depth N         deepest JSON nesting in a request (default 32; more: 400)\n"
    "  --max-concurrent N    API requests computing at once (default 4; more wait in the queue)\n"
    "  --queue-depth N       API requests waiting for a slot, at most (default 64; more: 503\n"
    "                        with Retry-After)\n"
    "  --queue-wait S        the longest a request waits in the queue, seconds (default 10; then\n"
    "                        503 with Retry-After)\n"
    "  --budget-s S          work per request, seconds (default 10; then 503)\n"
    "  --max-work S          the most estimated work a request may ask for with \"max_work\",\n"
    "                        CPU-seconds (default 60, the library's; more: 400)\n"
    "  --threads N           threads per request (default 0: OpenMP's)\n"
    "  --quiet               no request log on stderr\n"
    "  -h, --help            this text\n\n"
    "example: gpuecon serve my-decision.yaml --catalog ./my-catalog\n";

typedef struct serve_opts {
    const char *listen, *catalog, *scenario;
    bool allow_remote;
    double max_body, budget, max_work, queue_wait;
    int max_depth, max_conc, threads, queue_depth;
    bool quiet;
} serve_opts;

/* A limit in a message, without an exponent ("10000000", not "1e+07"; a front end has only the public
 * header, so not the library's formatter). */
static const char *bound_text(double x, char *buf, size_t cap)
{
    if (x == floor(x) && fabs(x) < 1e15)
        snprintf(buf, cap, "%.0f", x);
    else
        snprintf(buf, cap, "%g", x);
    return buf;
}

static int number(const char *name, const char *v, double lo, double hi, bool integer, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    /* an underflow (1e-320, subnormal) keeps its value and meets the range check below */
    if (end == v || *end || (errno && fabs(d) > 1) || !isfinite(d) || (integer && d != floor(d)))
        return usage_error(name, "'%s' is not %s", v, integer ? "a whole number" : "a finite number");
    if (d < lo || d > hi)
        return usage_error(name, "%s is out of range; allowed %s to %s", v, bound_text(lo, (char[40]){0}, 40),
                           bound_text(hi, (char[40]){0}, 40));
    *out = d;
    return 0;
}

/* Parses argv[1..]; returns 0, -1 after printing help, or an exit code. */
static int parse(int argc, char **argv, serve_opts *o)
{
    static const struct {
        const char *name;
        double lo, hi;
        bool integer;
    } nums[] = {{"--max-body", 1024, 64 << 20, true}, {"--budget-s", 0.001, 3600, false},
                {"--max-depth", 2, 256, true},     {"--max-concurrent", 1, 256, true},
                {"--threads", 0, 1024, true},      {"--max-work", 0.01, 1e7, false},
                {"--queue-depth", 0, 256, true},  {"--queue-wait", 0, 600, false}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char name[64];
        const char *val = NULL, *eq = strchr(a, '=');
        snprintf(name, sizeof name, "%.*s", eq && a[0] == '-' ? (int)(eq - a) : (int)strlen(a), a);
        if (eq && a[0] == '-')
            val = eq + 1;
        if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
            fputs(help, stdout);
            return -1;
        }
        if (!strcmp(name, "--quiet")) {
            o->quiet = true;
            continue;
        }
        if (!strcmp(name, "--allow-remote")) {
            o->allow_remote = true;
            continue;
        }
        if (a[0] != '-') {
            if (o->scenario)
                return usage_error(a, "one scenario file only (already %s)", o->scenario);
            o->scenario = a;
            continue;
        }
        bool known = !strcmp(name, "--listen") || !strcmp(name, "--catalog");
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
            known |= !strcmp(name, nums[k].name);
        if (!known)
            return usage_error(name, "unknown option of serve (gpuecon serve --help lists them)");
        if (!val && ++i >= argc)
            return usage_error(name, "needs a value");
        if (!val)
            val = argv[i];
        if (!strcmp(name, "--listen"))
            o->listen = val;
        else if (!strcmp(name, "--catalog"))
            o->catalog = val;
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
            double d = 0;
            if (strcmp(name, nums[k].name))
                continue;
            int rc = number(name, val, nums[k].lo, nums[k].hi, nums[k].integer, &d);
            if (rc)
                return rc;
            double *dst[] = {&o->max_body, &o->budget, NULL, NULL, NULL, &o->max_work, NULL, &o->queue_wait};
            int *idst[] = {NULL, NULL, &o->max_depth, &o->max_conc, &o->threads, NULL, &o->queue_depth, NULL};
            if (dst[k])
                *dst[k] = d;
            else
                *idst[k] = (int)d;
        }
    }
    return 0;
}

#define LISTEN_MAX 4

/* One HOST:PORT of --listen into civetweb's form: a bare port and localhost become 127.0.0.1; HOST
 * must be an IPv4 address or a bracketed IPv6 one (never a name to resolve), the port 0..65535.
 * *loopback: whether only this machine can reach it (127.0.0.0/8, [::1]). */
static int listen_one(const char *in, size_t len, char *out, size_t cap, bool *loopback)
{
    char a[128];
    if (len == 0 || len >= sizeof a)
        return usage_error("--listen", "'%.*s' is not HOST:PORT (e.g. 127.0.0.1:8080; port 0 picks a free one)",
                           (int)(len < 120 ? len : 120), in);
    memcpy(a, in, len);
    a[len] = '\0';
    char *colon = strrchr(a, ':');
    const char *port = colon ? colon + 1 : a;
    char *end;
    errno = 0;
    long p = strtol(port, &end, 10);
    if (!*port || *end || *port == '-' || *port == '+' || errno || p < 0 || p > 65535 || (colon && colon == a))
        return usage_error("--listen", "'%s' is not HOST:PORT (e.g. 127.0.0.1:8080; port 0 picks a free one)", a);
    if (!colon) {
        *loopback = true;
        snprintf(out, cap, "127.0.0.1:%ld", p);
        return 0;
    }
    *colon = '\0';
    const char *host = a;
    unsigned char bin[16];
    if (!strcmp(host, "localhost")) {
        *loopback = true;
        snprintf(out, cap, "127.0.0.1:%ld", p);
        return 0;
    }
    size_t hl = strlen(host);
    if (hl > 2 && host[0] == '[' && host[hl - 1] == ']') {
        char v6[64];
        snprintf(v6, sizeof v6, "%.*s", (int)(hl - 2), host + 1);
        if (inet_pton(AF_INET6, v6, bin) != 1)
            return usage_error("--listen", "'%s' is not an IPv6 address", host);
        static const unsigned char one[16] = {[15] = 1};
        *loopback = !memcmp(bin, one, sizeof one);
    } else if (inet_pton(AF_INET, host, bin) == 1) {
        *loopback = bin[0] == 127;
    } else {
        return usage_error("--listen", "'%s' is not an address; HOST is an IPv4 address (127.0.0.1), [IPv6] ([::1]) "
                                       "or localhost", host);
    }
    snprintf(out, cap, "%s:%ld", host, p);
    return 0;
}

/* --listen: up to LISTEN_MAX comma-separated HOST:PORT, each checked; an address other machines may
 * reach is refused without --allow-remote, and warned about with it. */
static int listen_address(const char *in, bool allow_remote, char *out, size_t cap)
{
    size_t k = 0;
    int n = 0;
    out[0] = '\0';
    for (const char *s = in;; n++) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (n == LISTEN_MAX)
            return usage_error("--listen", "at most %d addresses", LISTEN_MAX);
        char one[160];
        bool loop = false;
        int rc = listen_one(s, len, one, sizeof one, &loop);
        if (rc)
            return rc;
        if (!loop && !allow_remote)
            return usage_error("--listen", "%s is not a loopback address: other machines could reach it, and gpuecon "
                                           "serve has no authentication; add --allow-remote if you mean it", one);
        if (!loop)
            fprintf(stderr, "gpuecon serve: warning: listening on %s, which other machines may reach; gpuecon has "
                            "no authentication\n", one);
        int w = snprintf(out + k, cap - k, "%s%s", k ? "," : "", one);
        if (w < 0 || (size_t)w >= cap - k)
            return usage_error("--listen", "too long");
        k += (size_t)w;
        if (!comma)
            break;
        s = comma + 1;
    }
    return 0;
}

static char *slurp(const char *path, size_t cap, size_t *len)
{
    /* non-blocking, so a FIFO cannot hang the open; then only a regular file is read (a folder once
       read as an empty scenario) */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        usage_error(path, "cannot read: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        usage_error(path, "is %s; expected a scenario file", S_ISDIR(st.st_mode) ? "a folder"
                                                           : S_ISFIFO(st.st_mode) ? "a FIFO" : "a special file");
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        usage_error(path, "cannot read: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    char *buf = malloc(cap + 1);
    size_t n = buf ? fread(buf, 1, cap + 1, f) : 0;
    fclose(f);
    if (buf && n > cap) {
        usage_error(path, "larger than %zu bytes", cap);
        free(buf);
        return NULL;
    }
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

static const char *base_name(const char *path, char *buf, size_t cap)
{
    const char *b = strrchr(path, '/');
    snprintf(buf, cap, "%s", b ? b + 1 : path);
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf)
        *dot = '\0';
    return buf;
}

/* Loads the catalog and checks the scenario, then serves; everything is released after. */
static int serve_with(const serve_opts *o, const char *addr)
{
    gpuecon_ctx_config cc = {0};
    cc.seed = GPUECON_DEFAULT_SEED; /* the CLI's seed, so answers match gpuecon compare */
    gpuecon_ctx *ctx = gpuecon_ctx_new(&cc);
    gpuecon_catalog *cat = NULL;
    gpuecon_error err;
    gpuecon_error_clear(&err);
    if (!ctx)
        return 1;
    int rc = 0;
    char *text = NULL, name[256];
    size_t len = 0;
    if (gpuecon_catalog_new(ctx, &cat, &err) || (o->catalog && gpuecon_catalog_load_dir(cat, o->catalog, &err)))
        rc = fail(&err);
    if (!rc && o->scenario && !(text = slurp(o->scenario, 4u << 20, &len)))
        rc = 2;
    if (!rc && text) {
        gpuecon_scenario *sc = NULL;
        if (gpuecon_scenario_load_buffer(ctx, cat, o->scenario, text, len, &sc, &err))
            rc = fail(&err);
        gpuecon_scenario_free(sc);
    }
    serve_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.listen = addr;
    cfg.max_concurrent = o->max_conc;
    cfg.queue_depth = o->queue_depth;
    cfg.queue_wait_s = o->queue_wait;
    cfg.quiet = o->quiet;
    cfg.env = (api_env){.cat = cat,
                        .scenario_name = text ? base_name(o->scenario, name, sizeof name) : "default",
                        .scenario_yaml = text,
                        .scenario_len = len,
                        .max_body_bytes = (size_t)o->max_body,
                        .max_depth = o->max_depth,
                        .budget_s = o->budget,
                        .max_work_s = o->max_work,
                        .seed = cc.seed,
                        .threads = o->threads,
                        .memo = NULL};
    /* what-if re-runs of compare reuse the training predictions (the searches) of earlier ones */
    if (!rc && !(cfg.env.memo = gpuecon_memo_new(ctx, 1024)))
        rc = 1;
    if (!rc)
        rc = serve_run(&cfg);
    gpuecon_memo_free(cfg.env.memo);
    gpuecon_catalog_free(cat);
    gpuecon_ctx_free(ctx);
    free(text);
    return rc;
}

int serve_main(int argc, char **argv)
{
    serve_opts o = {.listen = "127.0.0.1:8080", .max_body = 1 << 20, .budget = 10, .max_work = 60, .max_depth = 32,
                    .max_conc = 4, .threads = 0, .queue_depth = 64, .queue_wait = 10, .quiet = false};
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    char addr[LISTEN_MAX * 160];
    if ((rc = listen_address(o.listen, o.allow_remote, addr, sizeof addr)))
        return rc;
    return serve_with(&o, addr);
}
