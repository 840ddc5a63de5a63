/* Writes a seeded load series of tests/series.h as a tide-predict CSV (phase,rank,load):
 *   tide_series_gen KIND RANKS PHASES [SEED] > loads.csv
 * KIND: clean-ar2, periodic, spikes, noisy. Rank r uses seed SEED*1000+r. */
#include "series.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    int kind = argc >= 4 ? series_kind(argv[1]) : -1;
    int ranks = argc >= 4 ? atoi(argv[2]) : 0, phases = argc >= 4 ? atoi(argv[3]) : 0;
    long seed = argc >= 5 ? atol(argv[4]) : 1;
    if (kind < 0 || ranks < 1 || phases < 1 || ranks > 100000 || phases > 1000000) {
        fprintf(stderr, "usage: tide_series_gen clean-ar2|periodic|spikes|noisy RANKS PHASES "
                        "[SEED]\n");
        return 2;
    }
    double *y = malloc(sizeof(double) * (size_t)phases * (size_t)ranks);
    if (!y) return 1;
    for (int r = 0; r < ranks; r++)
        series_make(kind, (uint64_t)seed * 1000 + (uint64_t)r, y + (size_t)r * phases, phases);
    printf("phase,rank,load\n");
    for (int t = 0; t < phases; t++)
        for (int r = 0; r < ranks; r++)
            printf("%d,%d,%.17g\n", t, r, y[(size_t)r * phases + t]);
    free(y);
    return 0;
}
