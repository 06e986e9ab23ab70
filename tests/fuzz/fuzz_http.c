/*
 * fuzz_http.c — libFuzzer harness for the network side of `gpuecon serve`: the request line and
 * headers as civetweb reads them and the server's own checks after it (Host, Origin, Content-Type,
 * method, path, body length; src/serve/server.c), over a real loopback connection.
 *
 * One server runs in this process for the whole run (serve_start on 127.0.0.1, a free port), so
 * coverage of its handler threads counts. Each input is sent as is on a fresh connection, the write
 * side is shut, and the answer is read until the server closes. It must close within 20 s (a hang:
 * crash), and what it sends, if anything, must be HTTP/1.1 responses, the first with a known status
 * and the server's nosniff header — civetweb's own errors included (server.c http_error). The work
 * budget (0.25 s a request) keeps a valid API request short, as fuzz_request does.
 */
#define _GNU_SOURCE /* strcasestr */
#include "serve/serve.h"
#include "fuzz_once.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static serve_server *server_once(int *port)
{
    static serve_server *srv;
    static serve_config cfg;
    static gpuecon_ctx *ctx;
    static gpuecon_catalog *cat;
    if (srv) {
        *port = serve_port(srv);
        return srv;
    }
    signal(SIGPIPE, SIG_IGN); /* a server that closes first is an answer, not a crash */
    fuzz_catalog_once(&ctx, &cat);
    memset(&cfg, 0, sizeof cfg);
    cfg.env.cat = cat;
    cfg.env.scenario_name = "default";
    cfg.env.max_body_bytes = 64 * 1024;
    cfg.env.max_depth = 32;
    cfg.env.budget_s = 0.25;
    cfg.env.max_work_s = 2;
    cfg.env.seed = 1;
    cfg.env.threads = 1;
    cfg.listen = "127.0.0.1:0";
    cfg.max_concurrent = 2;
    cfg.queue_depth = 4;
    cfg.queue_wait_s = 5;
    cfg.quiet = true;
    if (serve_start(&cfg, &srv))
        __builtin_trap();
    *port = serve_port(srv);
    return srv;
}

/* Which check failed, on stderr, then the crash libFuzzer keeps the input for (a 20 s silence on a
 * loaded machine and a real fault look alike without it). */
static void fail(const char *why)
{
    fprintf(stderr, "fuzz_http: %s\n", why);
    __builtin_trap();
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int port;
    server_once(&port);
    if (size > 32 * 1024) /* beyond civetweb's 16 KiB of headers and our 64 KiB body the answer is known */
        size = 32 * 1024;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    /* closed with a reset (linger 0): the client keeps no TIME_WAIT, whose thousands a minute once used up
       the ephemeral ports after 940,000 inputs; a port still busy is waited for (a fresh socket each try,
       as a failed connect leaves its socket unspecified), not a crash */
    int fd = -1;
    for (int tries = 0; fd < 0; tries++) {
        if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
            fail("socket() failed");
        struct linger lg = {1, 0};
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
        if (!connect(fd, (struct sockaddr *)&a, sizeof a))
            break;
        int e = errno;
        close(fd);
        fd = -1;
        if ((e != EADDRNOTAVAIL && e != EAGAIN && e != EINTR) || tries >= 200) {
            fprintf(stderr, "fuzz_http: connect() after %d tries: %s\n", tries + 1, strerror(e));
            fail("connect() failed");
        }
        struct timespec pause = {0, 50 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    for (size_t off = 0; off < size;) { /* the server may answer and close before reading it all */
        ssize_t n = send(fd, data + off, size - off, MSG_NOSIGNAL);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    shutdown(fd, SHUT_WR);
    char head[4096];
    size_t got = 0;
    double t0 = now_s();
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        double left = 20 - (now_s() - t0);
        if (left <= 0)
            fail("neither an answer nor a close in 20 s");
        if (poll(&p, 1, (int)(left * 1000) + 1) <= 0)
            continue;
        char buf[4096];
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0)
            break;
        size_t keep = got + (size_t)n < sizeof head - 1 ? (size_t)n : sizeof head - 1 - got;
        memcpy(head + got, buf, keep);
        got += keep;
    }
    close(fd);
    head[got] = 0;
    if (getenv("FUZZ_HTTP_SHOW")) /* what each input got: the status line, or nothing */
        fprintf(stderr, "%.*s\n", (int)strcspn(head, "\r\n"), got ? head : "(closed without an answer)");
    if (got == 0) /* closed without a word: civetweb drops what is not HTTP at all */
        return 0;
    static const int known[] = {200, 204, 304, 400, 403, 404, 405, 408, 411, 413, 414, 415, 422, 431, 500, 503, 505};
    int status = 0;
    if (got < 12 || memcmp(head, "HTTP/1.1 ", 9) || sscanf(head + 9, "%3d", &status) != 1)
        fail("the answer is not an HTTP/1.1 status line");
    bool ok = false;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        ok |= status == known[i];
    if (!ok)
        fail("an unknown status");
    /* the first response's headers carry the server's own (a truncated capture cannot say) */
    char *end = strstr(head, "\r\n\r\n");
    if (end) {
        *end = 0;
        if (!strcasestr(head, "\r\nX-Content-Type-Options: nosniff"))
            fail("no X-Content-Type-Options: nosniff");
    }
    return 0;
}
