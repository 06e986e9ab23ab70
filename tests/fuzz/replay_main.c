/*
 * replay_main.c — runs the fuzz harness over files named on the command line (a CTest runs
 * it over tests/cases/ and tests/fuzz/corpus/), so every build checks the corpus without
 * libFuzzer. Each file is fed once per loader (the first byte selects the loader).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int files = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "replay: cannot open %s\n", argv[i]);
            return 1;
        }
        uint8_t *buf = malloc((size_t)1 << 20);
        if (!buf) {
            fclose(f);
            return 1;
        }
        size_t n = fread(buf + 1, 1, ((size_t)1 << 20) - 1, f);
        fclose(f);
        for (uint8_t which = 0; which < 6; which++) {
            buf[0] = which;
            LLVMFuzzerTestOneInput(buf, n + 1);
        }
        free(buf);
        files++;
    }
    printf("replayed %d files through every loader\n", files);
    return files > 0 ? 0 : 1;
}
