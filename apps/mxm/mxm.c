/* mxm: the synthetic matrix-multiplication workload of the proactive-offloading paper. Each rank
 * creates a given number of n x n multiply tasks per iteration (A, B IN; C OUT) and ends the
 * iteration with tide_taskwait(); how the counts differ between ranks (the imbalance presets)
 * and how long a task takes on each rank (--slow) is what the balancing strategies must fix. */
#define _POSIX_C_SOURCE 200809L
#include "kernel.h"
#include "options.h"
#include "preset.h"

#include <math.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tide.h>
#include <unistd.h>

/* What a task needs besides its matrices; travels as a VALUE argument. */
typedef struct task_params {
    int n;
    int kernel;     /* mxm_kernel */
    double seconds; /* sleep kernel: modelled time of the multiply */
    double noise;   /* --jitter x --disturb factor, decided where the task was created */
} task_params;

/* The slowdown of tasks executing in this process. A task offloaded to a slow rank must run
 * slowly there, so the task reads this process's copy at execution time rather than carrying
 * its origin's factor. Set by the application thread before each iteration. The noise is the
 * opposite: a property of the task, so it travels with it (task_params.noise). */
static _Atomic double exec_factor = 1.0;

static void mxm_task(void **args)
{
    const double *a = args[0], *b = args[1];
    double *c = args[2];
    const task_params *p = args[3];
    double factor = atomic_load_explicit(&exec_factor, memory_order_relaxed) * p->noise;
    if (p->kernel == MXM_KERNEL_SLEEP) {
        double start = mxm_now();
        mxm_sleep_result(p->n, a, b, c);
        mxm_sleep_until(start, p->seconds * factor);
        return;
    }
    long reps = lround(factor);
    for (long r = 0; r < (reps > 1 ? reps : 1); r++)
        mxm_multiply(p->n, a, b, c);
}

typedef struct rank_work {
    int ntasks;
    int *size_index; /* per task: index into the options' sizes */
    double **mats;   /* per task: A, B and C, n*n doubles each */
} rank_work;

static uint64_t mix64(uint64_t x)
{
    x = (x ^ (x >> 33)) * 0xff51afd7ed558ccdull;
    x = (x ^ (x >> 33)) * 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* Task j of a rank gets a size drawn from the --mix weights, the same in every run. */
static int pick_size(const mxm_options *o, int rank, int j)
{
    double sum = 0, acc = 0;
    for (int k = 0; k < o->nsizes; k++)
        sum += o->mix[k];
    uint64_t h =
        mix64(o->seed * 0x9e3779b97f4a7c15ull ^ mix64(((uint64_t)rank << 32) | (uint32_t)j));
    double u = (double)(h >> 11) * 0x1.0p-53 * sum;
    for (int k = 0; k < o->nsizes; k++) {
        acc += o->mix[k];
        if (u < acc && o->mix[k] > 0) return k;
    }
    for (int k = o->nsizes - 1; k > 0; k--)
        if (o->mix[k] > 0) return k;
    return 0;
}

static int work_create(rank_work *w, const mxm_options *o, int rank, int ntasks)
{
    w->ntasks = ntasks;
    w->size_index = calloc((size_t)ntasks + 1, sizeof *w->size_index);
    w->mats = calloc((size_t)ntasks + 1, sizeof *w->mats);
    if (!w->size_index || !w->mats) return -1;
    for (int j = 0; j < ntasks; j++) {
        int k = pick_size(o, rank, j);
        size_t nn = (size_t)o->sizes[k] * (size_t)o->sizes[k];
        w->size_index[j] = k;
        w->mats[j] = malloc(3 * nn * sizeof(double));
        if (!w->mats[j]) return -1;
        uint64_t id = ((uint64_t)rank << 32 | (uint32_t)j) << 1;
        mxm_fill(o->sizes[k], o->seed, id, w->mats[j]);
        mxm_fill(o->sizes[k], o->seed, id | 1, w->mats[j] + nn);
    }
    return 0;
}

static void work_free(rank_work *w)
{
    for (int j = 0; w->mats && j < w->ntasks; j++)
        free(w->mats[j]);
    free(w->mats);
    free(w->size_index);
}

/* Core frequency in MHz from /proc/cpuinfo, or 0 where the system does not say. */
static double cpu_mhz(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    double mhz = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "cpu MHz : %lf", &mhz) == 1) break;
    if (f) fclose(f);
    return mhz;
}

/* What --print-noise reports: per iteration, how many of this rank's tasks the noise slowed,
 * and a fingerprint of which ones (a sum over them, so that the ranks' parts add up). */
typedef struct noise_log {
    int *slowed; /* per iteration */
    uint64_t fingerprint;
} noise_log;

static void noise_log_task(noise_log *nl, int it, int rank, int j, double factor)
{
    if (!nl->slowed || factor == 1.0) return;
    uint64_t bits;
    memcpy(&bits, &factor, sizeof bits);
    nl->slowed[it]++;
    nl->fingerprint += mix64(mix64(mix64((uint64_t)it) ^ (uint64_t)rank) ^ (uint64_t)j) ^ bits;
}

static int submit_iteration(const rank_work *w, const mxm_options *o, const double *seconds,
                            double mhz, int it, int rank, noise_log *nl)
{
    for (int j = 0; j < w->ntasks; j++) {
        int k = w->size_index[j];
        int n = o->sizes[k];
        size_t bytes = (size_t)n * (size_t)n * sizeof(double);
        double *a = w->mats[j], *b = a + (size_t)n * n, *c = b + (size_t)n * n;
        task_params p = {n, (int)o->kernel, seconds[k], noise_factor(&o->noise, it, rank, j)};
        noise_log_task(nl, it, rank, j, p.noise);
        if (o->verify)
            for (size_t e = 0; e < (size_t)n * n; e++)
                c[e] = NAN; /* a result never written fails */
        tide_arg args[4] = {{a, bytes, TIDE_IN},
                            {b, bytes, TIDE_IN},
                            {c, bytes, TIDE_OUT},
                            {&p, sizeof p, TIDE_VALUE}};
        tide_task *t;
        int rc = tide_task_create(&t, mxm_task, 4, args);
        if (rc == TIDE_OK) rc = tide_task_set_feature(t, 0, (double)n);
        if (rc == TIDE_OK && mhz > 0) rc = tide_task_set_feature(t, 1, mhz);
        if (rc == TIDE_OK) rc = tide_task_submit(t);
        if (rc != TIDE_OK) {
            fprintf(stderr, "mxm: task creation failed: %s: %s\n", tide_strerror(rc),
                    tide_last_error_message());
            return -1;
        }
    }
    return 0;
}

static long verify_iteration(const rank_work *w, const mxm_options *o, int rank, int iter)
{
    long bad = 0;
    for (int j = 0; j < w->ntasks; j++) {
        int n = o->sizes[w->size_index[j]];
        const double *a = w->mats[j], *b = a + (size_t)n * n, *c = b + (size_t)n * n;
        if (mxm_check(o->kernel, n, a, b, c) != 0) {
            if (bad < 3)
                fprintf(stderr, "mxm: rank %d, iteration %d, task %d (n=%d): wrong result C\n",
                        rank, iter, j, n);
            bad++;
        }
    }
    return bad;
}

static int print_preset(const mxm_options *o)
{
    int *counts = malloc((size_t)o->ranks * sizeof *counts);
    double target = 0;
    if (!counts) return 2;
    int capped = mxm_preset_counts(o->imb, o->ranks, o->base, counts, &target);
    printf("imb %d\nranks %d\ntasks_per_rank %d\nnominal %.6f\ntarget %.6f\ncapped %d\n", o->imb,
           o->ranks, o->base, mxm_preset_nominal(o->imb), target, capped);
    printf("counts");
    for (int r = 0; r < o->ranks; r++)
        printf("%s%d", r ? "," : " ", counts[r]);
    printf("\nr_imb %.6f\n", mxm_counts_imbalance(counts, o->ranks));
    free(counts);
    return 0;
}

static void model_times(const mxm_options *o, double *seconds)
{
    for (int k = 0; k < o->nsizes; k++) {
        if (o->kernel != MXM_KERNEL_SLEEP)
            seconds[k] = 0;
        else if (o->task_ms > 0)
            seconds[k] = o->task_ms * 1e-3 * pow((double)o->sizes[k] / o->size, 3);
        else
            seconds[k] = mxm_calibrate(o->sizes[k]);
    }
}

/* --print-noise: rank 0 prints every rank's count of slowed tasks per iteration, then the
 * total and the fingerprint. Collective. */
static void print_noise(const noise_log *nl, int iters, int rank, int nranks)
{
    int *all = rank == 0 ? malloc(((size_t)iters * (size_t)nranks + 1) * sizeof *all) : NULL;
    if (rank == 0 && !all) {
        fprintf(stderr, "mxm: out of memory for --print-noise\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    uint64_t fingerprint = 0;
    MPI_Gather(nl->slowed, iters, MPI_INT, all, iters, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Reduce(&nl->fingerprint, &fingerprint, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank != 0) return;
    long total = 0;
    for (int it = 0; it < iters; it++) {
        printf("noise: iteration %d slowed", it);
        for (int r = 0; r < nranks; r++) {
            printf("%s%d", r ? "," : " ", all[(size_t)r * iters + it]);
            total += all[(size_t)r * iters + it];
        }
        printf("\n");
    }
    printf("noise: %ld tasks slowed, fingerprint %016llx\n", total,
           (unsigned long long)fingerprint);
    free(all);
}

/* Task counts of every rank: --tasks, or the preset. Rank 0 notes a capped preset. */
static void task_counts(const mxm_options *o, int rank, int nranks, int *counts)
{
    if (o->ntasks) {
        memcpy(counts, o->tasks, (size_t)nranks * sizeof *counts);
        return;
    }
    double target;
    if (mxm_preset_counts(o->imb, nranks, o->base, counts, &target) == 1 && rank == 0)
        fprintf(stderr,
                "mxm: note: --imb %d aims at R_imb %.1f, but %d ranks allow at most %.2f; "
                "using %.2f\n",
                o->imb, mxm_preset_nominal(o->imb), nranks, target, target);
}

int main(int argc, char **argv)
{
    mxm_options o;
    char err[256];
    int bad_opts = mxm_options_parse(argc, argv, &o, err, sizeof err);
    if (bad_opts == 0 && o.help) return fputs(mxm_usage, stdout), 0;
    if (bad_opts == 0 && o.print_preset) return print_preset(&o);
    if (bad_opts == 0 && o.calibrate) {
        double s[MXM_MAX_SIZES];
        model_times(&o, s);
        for (int k = 0; k < o.nsizes; k++)
            printf("task_ms %d %.6f\n", o.sizes[k], s[k] * 1e3);
        return 0;
    }

    /* MPI first, so that a bad option is reported by rank 0 alone. */
    int level, rank, nranks;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level) != MPI_SUCCESS) return 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (bad_opts == 0) bad_opts = mxm_options_check_ranks(&o, nranks, err, sizeof err);
    if (bad_opts) {
        if (rank == 0) fprintf(stderr, "%s\n", err);
        MPI_Finalize();
        return 2;
    }
    if (tide_init(&argc, &argv) != TIDE_OK) { /* tide_init printed the reason */
        MPI_Finalize();
        return 2;
    }

    double seconds[MXM_MAX_SIZES];
    if (rank == 0) model_times(&o, seconds);
    MPI_Bcast(seconds, o.nsizes, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double my_factor = 1.0;
    for (int i = 0; i < o.nslow; i++)
        if (o.slow[i].rank == rank) my_factor = o.slow[i].factor;

    int *counts = malloc((size_t)nranks * sizeof *counts);
    rank_work w = {0};
    noise_log nl = {0};
    if (o.print_noise) nl.slowed = calloc((size_t)o.iters + 1, sizeof *nl.slowed);
    int ok = counts != NULL && (nl.slowed || !o.print_noise);
    if (ok) task_counts(&o, rank, nranks, counts);
    if (ok) ok = work_create(&w, &o, rank, counts[rank]) == 0;
    if (!ok) fprintf(stderr, "mxm: rank %d: out of memory for its matrices\n", rank);
    double mhz = cpu_mhz();
    int progress = rank == 0 && isatty(STDERR_FILENO);
    long bad = 0;
    for (int it = 0; ok && it < o.iters; it++) {
        atomic_store(&exec_factor, it >= o.slow_from ? my_factor : 1.0);
        ok = submit_iteration(&w, &o, seconds, mhz, it, rank, &nl) == 0;
        if (tide_taskwait() != TIDE_OK) {
            fprintf(stderr, "mxm: tide_taskwait: %s\n", tide_last_error_message());
            ok = 0;
        }
        if (o.verify) bad += verify_iteration(&w, &o, rank, it);
        tide_phase_stats ps;
        if (progress && tide_stats_last_phase(&ps) == TIDE_OK)
            fprintf(stderr, "mxm: iteration %d/%d  time %.3f s  R_imb %.3f  moved %lld tasks\n",
                    it + 1, o.iters, ps.time, ps.R_imb, (long long)ps.offloaded);
    }
    if (!ok) MPI_Abort(MPI_COMM_WORLD, 3);
    long bad_all = 0;
    MPI_Allreduce(&bad, &bad_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        long total = 0;
        for (int r = 0; r < nranks; r++)
            total += counts[r];
        char noise[160] = "";
        if (o.noise.jitter.p > 0 || o.noise.disturb.p > 0)
            snprintf(noise, sizeof noise, ", noise jitter %g:%g disturb %g:%g seed %llu",
                     o.noise.jitter.p, o.noise.jitter.f, o.noise.disturb.p, o.noise.disturb.f,
                     (unsigned long long)o.noise.seed);
        printf("mxm: %d ranks x %d workers, kernel %s, %d iterations of %ld tasks, R_imb(counts) "
               "%.3f%s%s\n",
               nranks, tide_num_threads(), o.kernel == MXM_KERNEL_SLEEP ? "sleep" : "compute",
               o.iters, total, mxm_counts_imbalance(counts, nranks), noise,
               !o.verify ? ""
               : bad_all ? ", VERIFY FAILED"
                         : ", verified");
        if (bad_all) fprintf(stderr, "mxm: %ld wrong results\n", bad_all);
    }
    if (o.print_noise) print_noise(&nl, o.iters, rank, nranks);
    free(nl.slowed);
    work_free(&w);
    free(counts);
    tide_finalize();
    MPI_Finalize();
    return bad_all ? 1 : 0;
}
