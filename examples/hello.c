/* The smallest useful Tide program: each rank squares blocks of a vector in tasks; rank 0 has
 * more blocks than the others, and Tide may run some of them elsewhere. */
#include <stdio.h>
#include <tide.h>

enum { BLOCKS = 64, N = 4096 };

static void square(void **args) /* args: IN x[N], OUT y[N] */
{
    const double *x = args[0];
    double *y = args[1];
    for (int i = 0; i < N; i++)
        y[i] = x[i] * x[i];
}

int main(int argc, char **argv)
{
    static double x[BLOCKS][N], y[BLOCKS][N];
    if (tide_init(&argc, &argv) != TIDE_OK) return 1; /* it printed why */
    int blocks = tide_rank() == 0 ? BLOCKS : BLOCKS / 4;
    for (int it = 0; it < 10; it++) {      /* the application's time steps */
        for (int b = 0; b < blocks; b++) { /* one task per block */
            for (int i = 0; i < N; i++)
                x[b][i] = it + b + i * 1e-3;
            tide_arg args[] = {{x[b], sizeof x[b], TIDE_IN}, {y[b], sizeof y[b], TIDE_OUT}};
            tide_task *t;
            tide_task_create(&t, square, 2, args);
            tide_task_submit(t);
        }
        tide_taskwait(); /* all ranks' tasks done, outputs home */
    }
    double want = (9.0 + 1 + 1e-3) * (9.0 + 1 + 1e-3);
    printf("rank %d: y[1][1] = %g (expected %g)\n", tide_rank(), y[1][1], want);
    int ok = y[1][1] == want;
    tide_finalize();
    return ok ? 0 : 1;
}
