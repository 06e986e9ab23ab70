/*
 * main.c — the gpuecon command: a thin client of the library's request interface. It turns
 * argv into a request (gpuecon_request_from_argv), runs it (gpuecon_request_plots), draws the
 * charts it hands back through gnuplot, and prints the output on stdout or -o FILE and the
 * notes on stderr; the exit code is gpuecon_exit_code of the status: 0 success, 1 internal
 * error, 2 usage or input error, 3 infeasible, 130 cancelled.
 *
 * The CLI owns what only a program has: stdout/stderr, -o FILE, child processes (gnuplot), the
 * clock, the progress bar on a terminal. With no subcommand gpuecon runs its main job (see
 * DEFAULT_COMMAND).
 */
#include "gpuecon.h"
#include "serve/serve.h"

#include <jansson.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_COMMAND "compare"

/* the program's own exits; a request's status goes through gpuecon_exit_code */
enum { EXIT_OK = 0, EXIT_INTERNAL = 1, EXIT_USAGE = 2 };

/* Ctrl-C: the first SIGINT only sets this flag, which draw_progress returns as "cancel", so the
 * library stops at its next progress report and gpuecon exits 130 before writing any output;
 * a second SIGINT ends the program at once (the default action). The program's one piece of
 * mutable global state: a signal handler can set nothing else. */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void catch_interrupt(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

typedef struct progress {
    const char *cmd;
    int pct; /* last percentage drawn, -1 when none */
} progress;

static int fail(const gpuecon_error *e)
{
    char line[GPUECON_ERROR_LINE_MAX];
    gpuecon_error_format(e, line, sizeof line);
    fprintf(stderr, "%s\n", line);
    return gpuecon_exit_code(e->code);
}

/* Draws a bar on stderr when stderr is a terminal, nothing otherwise. Cancels after Ctrl-C. */
static int draw_progress(void *ud, double done, double total)
{
    progress *p = ud;
    if (interrupted)
        return 1;
    if (total <= 0 || !isatty(STDERR_FILENO))
        return 0;
    int pct = (int)(100 * done / total);
    if (pct == p->pct)
        return 0;
    p->pct = pct;
    int filled = pct * 40 / 100;
    fprintf(stderr, "\r%s [", p->cmd);
    for (int i = 0; i < 40; i++)
        fputs(i < filled ? "#" : "-", stderr);
    fprintf(stderr, "] %3d%%", pct);
    fflush(stderr);
    return 0;
}

static void erase_progress(progress *p)
{
    if (p->pct >= 0 && isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);
    p->pct = -1;
}

static double monotonic_s(void *ud)
{
    (void)ud;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void usage(FILE *f)
{
    fprintf(f, "gpuecon %s — what it really costs to train or serve a model on a GPU platform\n\n"
               "usage: gpuecon [command] [options]     (no command: %s)\n\ncommands:\n",
            GPUECON_VERSION, DEFAULT_COMMAND);
    const gpuecon_command_info *ci;
    for (size_t i = 0; (ci = gpuecon_command_at(i)); i++)
        fprintf(f, "  %-12s %s\n", ci->name, ci->summary);
    fprintf(f, "  %-12s %s\n", "serve", "the web app: live what-if on every uncertain input (open the URL)");
    fprintf(f, "  %-12s %s\n", "help", "help terms: the glossary (as 'glossary'); help COMMAND: its options");
    fprintf(f, "\nglobal options: --json --csv --format F -o FILE --catalog DIR --model-file FILE --max-work S\n"
               "run 'gpuecon COMMAND --help' for a command's options; docs/cli.md has them all.\n");
}

static bool takes_value(const char *a)
{
    return !strcmp(a, "--format") || !strcmp(a, "-o") || !strcmp(a, "--output") ||
           !strcmp(a, "--catalog") || !strcmp(a, "--model-file") || !strcmp(a, "--max-work");
}

/* -o FILE / --output FILE / -o=FILE: where the output goes; removed from the arguments. */
static int take_output(char **args, int *n, const char **out_path)
{
    int k = 0;
    for (int i = 0; i < *n; i++) {
        const char *a = args[i];
        bool opt = !strcmp(a, "-o") || !strcmp(a, "--output");
        bool inl = !strncmp(a, "-o=", 3) || !strncmp(a, "--output=", 9);
        if (opt && i + 1 >= *n) {
            fprintf(stderr, "gpuecon: %s: needs a value\n", a);
            return EXIT_USAGE;
        }
        if ((opt || inl) && *out_path) { /* -o a -o b once wrote b alone, silently */
            fprintf(stderr, "gpuecon: %.*s: given twice (one output file)\n", (int)strcspn(a, "="), a);
            return EXIT_USAGE;
        }
        if (opt)
            *out_path = args[++i];
        else if (inl)
            *out_path = strchr(a, '=') + 1;
        else
            args[k++] = args[i];
    }
    *n = k;
    args[k] = NULL;
    return 0;
}

/* -o FILE, checked before any work: a FIFO without a reader once blocked the write for ever after the
 * computation, and a folder failed only then. */
static int check_output(const char *path)
{
    struct stat st;
    if (path && strcmp(path, "-") && stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
        fprintf(stderr, "gpuecon: -o: %s is %s; expected a regular file (or a device such as /dev/null)\n", path,
                S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a FIFO" : "a special file");
        return EXIT_USAGE;
    }
    return 0;
}

/* Flushes stdout and says so when it could not be written (a full disk, a closed pipe): exit 1. */
static int flush_stdout(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    fprintf(stderr, "gpuecon: stdout: %s\n", strerror(errno ? errno : EIO));
    return EXIT_INTERNAL;
}

static int write_output(const char *path, const char *text, const char *cmd)
{
    if (!text || !*text)
        return 0;
    if (!path || !strcmp(path, "-")) {
        errno = 0;
        fputs(text, stdout);
        return flush_stdout();
    }
    /* non-blocking open: a FIFO made after the check above, without a reader, fails (ENXIO) at once */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0666);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "gpuecon: -o: cannot write %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return EXIT_USAGE;
    }
    (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    size_t len = strlen(text);
    errno = 0;
    bool ok = fwrite(text, 1, len, f) == len && fflush(f) == 0;
    int e = errno;
    if (fclose(f) || !ok) {
        fprintf(stderr, "gpuecon: -o: %s: %s\n", path, strerror(e ? e : errno ? errno : EIO));
        return EXIT_INTERNAL;
    }
    fprintf(stderr, "gpuecon: wrote %zu bytes (%s) to %s\n", len, cmd, path);
    return 0;
}

/* Runs one chart's gnuplot script (gnuplot writes the SVG the script names): NULL, or why not. */
static const char *draw(const char *script, const char *path, char *why, size_t cap)
{
    if (system("command -v gnuplot >/dev/null 2>&1") != 0)
        return "gnuplot is not installed (Debian: apt-get install gnuplot-nox); the table above has the same numbers";
    FILE *g = popen("gnuplot 2>/dev/null", "w");
    if (!g)
        return "cannot start gnuplot";
    fputs(script, g);
    if (pclose(g) != 0) {
        snprintf(why, cap, "gnuplot failed writing %s", path);
        return why;
    }
    return NULL;
}

/* Writes a file a request handed back (calibrate's overlay), making its folder dir first: NULL, or why not. */
static const char *put_file(const char *dir, const char *path, const char *text, char *why, size_t cap)
{
    if (dir && mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(why, cap, "cannot make the folder %s: %s", dir, strerror(errno));
        return why;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(why, cap, "cannot write %s: %s", path, strerror(errno));
        return why;
    }
    size_t len = strlen(text);
    bool ok = fwrite(text, 1, len, f) == len;
    if (fclose(f) || !ok) {
        snprintf(why, cap, "could not finish writing %s: %s", path, strerror(errno));
        return why;
    }
    return NULL;
}

/* Draws the charts a request handed back (gpuecon_request_plots). Notes go to stderr; returns
 * EXIT_USAGE when a required one could not be drawn (nothing else is printed then). */
static int draw_plots(const char *plots_json)
{
    json_t *plots = plots_json ? json_loads(plots_json, 0, NULL) : NULL;
    int rc = EXIT_OK;
    size_t i;
    json_t *p;
    json_array_foreach(plots, i, p) {
        const char *path = json_string_value(json_object_get(p, "path"));
        const char *script = json_string_value(json_object_get(p, "gnuplot"));
        const char *text = json_string_value(json_object_get(p, "text"));
        char buf[512];
        const char *why = path && text     ? put_file(json_string_value(json_object_get(p, "dir")), path, text, buf,
                                                      sizeof buf)
                          : path && script ? draw(script, path, buf, sizeof buf)
                                           : "the request's chart is malformed";
        if (why) {
            fprintf(stderr, "gpuecon: %s: %s\n", text ? "-o" : "--plot", why);
            if (json_is_true(json_object_get(p, "required")))
                rc = EXIT_USAGE;
        } else if (json_is_true(json_object_get(p, "announce"))) {
            fprintf(stderr, "gpuecon: wrote %s\n", path);
        }
    }
    json_decref(plots);
    return rc;
}

static int run(gpuecon_ctx *ctx, progress *pg, char **args, int n, const char *out_path)
{
    gpuecon_error err;
    char *req = NULL, *out = NULL, *notes = NULL, *plots = NULL;
    if (gpuecon_request_from_argv(ctx, n, args, &req, &err))
        return fail(&err);
    int st = gpuecon_request_plots(ctx, req, &out, &notes, &plots, &err);
    erase_progress(pg);
    gpuecon_free(req);
    if (notes)
        fputs(notes, stderr);
    else if (st)
        fail(&err);
    int rc = draw_plots(plots);
    if (!rc)
        rc = write_output(out_path, out, args[0]);
    gpuecon_free(out);
    gpuecon_free(notes);
    gpuecon_free(plots);
    return rc ? rc : gpuecon_exit_code(st);
}

int main(int argc, char **argv)
{
    /* find the subcommand: the first argument that is neither an option nor its value */
    int ci = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-') {
            ci = i;
            break;
        }
        if (takes_value(argv[i]) && !strchr(argv[i], '='))
            i++;
    }
    for (int i = 1; i < (ci ? ci : argc); i++) {
        if (!strcmp(argv[i], "--version")) {
            printf("gpuecon %s\n", GPUECON_VERSION);
            return EXIT_OK;
        }
        if (!ci && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) {
            usage(stdout);
            return EXIT_OK;
        }
    }
    /* argv for the command: its name, then every other argument in order */
    char **args = malloc(sizeof *args * (size_t)(argc + 2));
    if (!args)
        return EXIT_INTERNAL;
    int n = 0;
    args[n++] = ci ? argv[ci] : (char *)DEFAULT_COMMAND;
    for (int i = 1; i < argc; i++)
        if (i != ci)
            args[n++] = argv[i];
    args[n] = NULL;
    if (!strcmp(args[0], "help")) { /* help terms: the glossary command; help COMMAND: COMMAND --help */
        int topic = 0;
        for (int i = 1; i < n && !topic; i++)
            if (args[i][0] != '-')
                topic = i;
            else if (takes_value(args[i]) && !strchr(args[i], '='))
                i++;
        if (!topic) {
            usage(stdout);
            free(args);
            return EXIT_OK;
        }
        if (!strcmp(args[topic], "terms")) { /* the glossary, without the word "terms" */
            args[0] = (char *)"glossary";
            for (int i = topic; i + 1 < n; i++)
                args[i] = args[i + 1];
            args[--n] = NULL;
        } else {
            args[0] = args[topic];
            args[topic] = (char *)"--help";
        }
    }
    if (!strcmp(args[0], "serve")) { /* a front end of its own (src/serve), not a library command */
        int src = serve_main(n, args);
        free(args);
        return src;
    }
    const char *out_path = NULL;
    int nopt = n - 1;
    int rc = take_output(args + 1, &nopt, &out_path);
    if (!rc) {
        n = nopt + 1;
        if (out_path && !strcmp(args[0], "calibrate")) { /* -o DIR: where calibrate's overlay goes */
            args[n++] = (char *)"--out-dir";
            args[n++] = (char *)out_path;
            args[n] = NULL;
            out_path = NULL;
        }
        rc = check_output(out_path);
    }
    if (!rc) {
        progress pg = {args[0], -1};
        catch_interrupt();
        gpuecon_ctx_config cfg = {0};
        cfg.progress = draw_progress;
        cfg.progress_ud = &pg;
        cfg.clock = monotonic_s;
        gpuecon_ctx *ctx = gpuecon_ctx_new(&cfg);
        rc = ctx ? run(ctx, &pg, args, n, out_path) : EXIT_INTERNAL;
        gpuecon_ctx_free(ctx);
    }
    free(args);
    return rc;
}
