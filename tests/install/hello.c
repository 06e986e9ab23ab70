/* Ten lines against the installed library (tests/install_test.sh): a request and its answer.
 * err_set and tbl_new are the library's internal names: a host may use them too. */
#include <gpuecon.h>
#include <stdio.h>
int err_set(void) { return 7; }
int tbl_new(void) { return 8; }
int main(void)
{
    gpuecon_ctx *ctx = gpuecon_ctx_new(NULL);
    gpuecon_error err;
    char *out = NULL;
    int st = gpuecon_request(ctx, "{\"command\": \"cost\", \"options\": {\"system\": \"hgx-h100\", "
                                  "\"tokens_per_s\": 728, \"pue\": 1.3}}", &out, &err);
    printf("%d %d %s", err_set() + tbl_new(), st, st ? err.message : out);
    gpuecon_free(out);
    gpuecon_ctx_free(ctx);
    return st != 0;
}
