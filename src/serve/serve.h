/*
 * serve.h — `gpuecon serve`: an embedded HTTP server (civetweb, from Debian's libcivetweb-dev)
 * for the page in web/ (compiled in) and the JSON API of api.h.
 */
#ifndef GPUECON_SERVE_H
#define GPUECON_SERVE_H

#include "api.h"

#include <stdio.h>

typedef struct serve_config {
    api_env env;              /* catalog, scenario, limits (api.h) */
    const char *listen;       /* HOST:PORT; port 0 picks a free one */
    int max_concurrent;       /* API requests running at once; more wait in the queue */
    int queue_depth;          /* API requests waiting for a slot at most; more answer 503 + Retry-After */
    double queue_wait_s;      /* the longest one waits in the queue; then 503 + Retry-After */
    bool quiet;               /* no access log on stderr */
} serve_config;


/* A running server (serve_start .. serve_stop): civetweb's threads answering on cfg->listen. */
typedef struct serve_server serve_server;

/* Starts answering on cfg->listen (cfg must outlive the server) and returns at once; 1 with the reason
 * on stderr when it cannot (the address in use, out of memory). The caller blocks SIGINT and SIGTERM
 * first if it wants them for itself (serve_run does). */
int serve_start(const serve_config *cfg, serve_server **out);
/* The port it listens on (the first address's; port 0 in cfg->listen picked a free one). */
int serve_port(const serve_server *s);
/* Stops it: new API requests answer 503, queued ones at once; with drain, waits for the requests in
 * flight (at most the work budget + 10 s, or until SIGINT/SIGTERM is pending), then closes. NULL: no-op. */
void serve_stop(serve_server *s, bool drain);

/* Runs the server until SIGINT or SIGTERM, then finishes the requests in flight and returns 0
 * (1 when it could not start, with the reason on stderr). Prints the URL on stdout once listening:
 *   gpuecon serve: listening on http://127.0.0.1:8080/
 * SIGINT and SIGTERM must be blocked in the calling thread before any other thread starts;
 * serve_run blocks them itself and waits for them with sigwait(). */
int serve_run(const serve_config *cfg);

/* `gpuecon serve [options] [SCENARIO.yaml]`: argv[0] is "serve". Parses the options (as every
 * gpuecon command: errors name the option, exit 2), loads the catalog (built-in + --catalog DIR)
 * and the scenario once, and runs the server. Returns the exit code. */
int serve_main(int argc, char **argv);

#endif
