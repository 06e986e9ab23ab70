/*
 * replay_raw.c — runs a fuzz harness once over each file named on the command line, unchanged
 * (for harnesses without a selector byte), so every build checks the corpus without libFuzzer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int files = 0;
    uint8_t *buf = malloc((size_t)1 << 20);
    if (!buf)
        return 1;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "replay: cannot open %s\n", argv[i]);
            free(buf);
            return 1;
        }
        size_t n = fread(buf, 1, ((size_t)1 << 20), f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
        files++;
    }
    free(buf);
    printf("replayed %d files\n", files);
    return files > 0 ? 0 : 1;
}
