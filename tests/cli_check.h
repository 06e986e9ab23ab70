/*
 * cli_check.h — runs a command line in-process, as src/cli/main.c does (argv -> request ->
 * output), and checks what it printed: shared by the command-line fuzz harness
 * (tests/fuzz/fuzz_cli.c) and the NaN scan over extreme inputs (tests/nan_scan.c).
 */
#ifndef GPUECON_CLI_CHECK_H
#define GPUECON_CLI_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/* Runs `gpuecon argv[1..]` (argv[0] is the program name; no -o) through the request interface
 * as src/cli/main.c does: the command is the first argument that is neither an option nor a
 * global option's value (compare when none). Returns the exit code main() would return (0, 1,
 * 2, 3, 130) and the output (malloc'd, NUL-ended; free it). */
int cli_check_run(int argc, char **argv, char **out, size_t *len);

/* The first place where a non-finite number reached the output, written into why (cap bytes):
 * a null in JSON at a key that is not one of the documented "not applicable" keys
 * (docs/cli.md; an infeasible answer, exit 3, nulls the results it has not got), or a nan/inf
 * word in a table or CSV. Returns false when the output is clean. JSON that does not parse is
 * also reported. */
bool cli_check_nonfinite(const char *out, size_t len, bool json, bool infeasible, char *why, size_t cap);

#endif
