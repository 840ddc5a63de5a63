/* samoa_proxy: an oscillating-lake proxy of sam(oa)^2 on Tide. Every rank owns an equal
 * contiguous range of the Sierpinski-ordered grid, cut into sections; each step every section
 * is one Tide task (its cells and halo IN, its new cells OUT), so Tide may run it on another
 * rank. Halos move between steps with plain MPI. The cost of a cell depends on whether it is dry,
 * wet or on the coastline, and the coastline moves, so the ranks' loads drift as in sam(oa)^2. */
#define _POSIX_C_SOURCE 200809L
#include "grid.h"
#include "options.h"
#include "scenario.h"
#include "section.h"
#include "swe.h"
#include "vtk.h"

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tide.h>
#include <time.h>

/* What a task needs besides its arrays; travels as a VALUE argument. */
typedef struct task_params {
    samoa_swe_params swe;
    int32_t n;
    int kernel;       /* samoa_kernel */
    double cost_s[3]; /* sleep kernel: seconds per dry, wet, coast cell */
    double noise;     /* --jitter x --disturb factor, decided where the task was created */
} task_params;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_until(double end)
{
    struct timespec ts = {(time_t)end, (long)((end - floor(end)) * 1e9)};
    if (ts.tv_nsec >= 1000000000L) ts.tv_nsec = 999999999L;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

static void section_task(void **args)
{
    const samoa_cell_geom *geom = args[0];
    const double *state = args[1];
    double *out = args[2];
    samoa_swe_result *res = args[3];
    const task_params *p = args[4];
    double start = now();
    /* A slowed task of the compute kernel repeats its update (noise >= 1, so at least once):
     * the update is a pure function of its inputs, so the result stays bitwise the same. */
    long reps = p->kernel == SAMOA_KERNEL_COMPUTE ? lround(p->noise) : 1;
    for (long r = 0; r < reps; r++)
        samoa_swe_update(p->n, geom, state, out, &p->swe, res);
    if (p->kernel == SAMOA_KERNEL_SLEEP) {
        double cost = 0;
        for (int k = 0; k < SAMOA_NCLASSES; k++)
            cost += (double)res->counts[k] * p->cost_s[k];
        sleep_until(start + cost * p->noise);
    }
}

/* Seconds per cell of the compute kernel for each class, on states made of one class: all dry,
 * all wet (a deep lake at rest), and alternating wet/dry cells along the curve (all coast). */
static void calibrate(int coast_work, double *cost_s)
{
    samoa_grid g;
    samoa_section s;
    if (samoa_grid_build(&g, 10, 2.0) != 0) return;
    if (samoa_section_build(&s, &g, 0, (int32_t)g.ncells) != 0) return;
    samoa_lake l = samoa_lake_default();
    double *state = malloc((size_t)g.ncells * SAMOA_NSTATE * sizeof *state);
    double *out = malloc((size_t)g.ncells * 3 * sizeof *out);
    samoa_scenario_init(&g, &l, 0, g.ncells, state);
    samoa_swe_params p = {l.g, 1e-5, 1e-10, coast_work};
    for (int cls = 0; cls < SAMOA_NCLASSES; cls++) {
        for (int64_t c = 0; c < g.ncells; c++) {
            double *st = state + SAMOA_NSTATE * c;
            st[SAMOA_H] = cls == SAMOA_DRY   ? 0.0
                          : cls == SAMOA_WET ? 1.0 - st[SAMOA_B]
                                             : (c % 2 ? 0.1 : 0.0);
            st[SAMOA_HU] = st[SAMOA_HV] = 0.0;
        }
        double best = INFINITY;
        samoa_swe_result r;
        for (int rep = 0; rep < 5; rep++) {
            double t0 = now();
            samoa_swe_update(s.n, s.geom, state, out, &p, &r);
            best = fmin(best, now() - t0);
        }
        cost_s[cls] = best / (double)(r.counts[cls] > 0 ? r.counts[cls] : 1);
    }
    free(state);
    free(out);
    samoa_section_free(&s);
    samoa_grid_free(&g);
}

/* Halo exchange plan: which of my cells each rank needs, and which of theirs I need. */
typedef struct halo_plan {
    int nranks;
    int *send_counts, *send_displs, *recv_counts, *recv_displs;
    int64_t *send_cells, *recv_cells;
    double *send_buf, *recv_buf;
} halo_plan;

static int owner_of(int64_t cell, int64_t ncells, int nranks)
{
    int lo = 0, hi = nranks - 1;
    while (lo < hi) { /* the last rank whose first cell is <= cell */
        int mid = (lo + hi + 1) / 2;
        int64_t first, cnt;
        samoa_range(ncells, nranks, mid, &first, &cnt);
        if (first <= cell)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int halo_plan_build(halo_plan *h, const samoa_section *sec, int nsec, int64_t ncells,
                           int rank, int nranks)
{
    *h = (halo_plan){.nranks = nranks};
    int64_t total = 0;
    for (int k = 0; k < nsec; k++)
        total += sec[k].nhalo;
    int64_t *need = malloc(((size_t)total + 1) * sizeof *need);
    h->send_counts = calloc(4 * (size_t)nranks, sizeof(int));
    if (!need || !h->send_counts) return -1;
    h->send_displs = h->send_counts + nranks;
    h->recv_counts = h->send_displs + nranks;
    h->recv_displs = h->recv_counts + nranks;
    int64_t m = 0;
    for (int k = 0; k < nsec; k++)
        for (int32_t j = 0; j < sec[k].nhalo; j++)
            if (owner_of(sec[k].halo[j], ncells, nranks) != rank) need[m++] = sec[k].halo[j];
    qsort(need, (size_t)m, sizeof *need, cmp_i64);
    int64_t u = 0;
    for (int64_t i = 0; i < m; i++)
        if (u == 0 || need[u - 1] != need[i]) need[u++] = need[i];
    for (int64_t i = 0; i < u; i++)
        h->recv_counts[owner_of(need[i], ncells, nranks)]++;
    MPI_Alltoall(h->recv_counts, 1, MPI_INT, h->send_counts, 1, MPI_INT, MPI_COMM_WORLD);
    int ns = 0, nr = 0;
    for (int r = 0; r < nranks; r++) {
        h->send_displs[r] = ns;
        h->recv_displs[r] = nr;
        ns += h->send_counts[r];
        nr += h->recv_counts[r];
    }
    h->recv_cells = need;
    h->send_cells = malloc(((size_t)ns + 1) * sizeof *h->send_cells);
    h->send_buf = malloc(((size_t)ns + 1) * 3 * sizeof(double));
    h->recv_buf = malloc(((size_t)nr + 1) * 3 * sizeof(double));
    if (!h->send_cells || !h->send_buf || !h->recv_buf) return -1;
    MPI_Alltoallv(h->recv_cells, h->recv_counts, h->recv_displs, MPI_INT64_T, h->send_cells,
                  h->send_counts, h->send_displs, MPI_INT64_T, MPI_COMM_WORLD);
    return 0;
}

/* Sends my cells' (h, hu, hv) to the ranks whose sections read them. */
static void halo_exchange(halo_plan *h, double *state)
{
    int n = h->nranks, ns = h->send_displs[n - 1] + h->send_counts[n - 1];
    int nr = h->recv_displs[n - 1] + h->recv_counts[n - 1];
    for (int i = 0; i < ns; i++)
        memcpy(h->send_buf + 3 * i, state + SAMOA_NSTATE * h->send_cells[i], 3 * sizeof(double));
    int sc[n], sd[n], rc[n], rd[n]; /* in doubles */
    for (int r = 0; r < n; r++) {
        sc[r] = 3 * h->send_counts[r], sd[r] = 3 * h->send_displs[r];
        rc[r] = 3 * h->recv_counts[r], rd[r] = 3 * h->recv_displs[r];
    }
    MPI_Alltoallv(h->send_buf, sc, sd, MPI_DOUBLE, h->recv_buf, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int i = 0; i < nr; i++)
        memcpy(state + SAMOA_NSTATE * h->recv_cells[i], h->recv_buf + 3 * i, 3 * sizeof(double));
}

static void halo_plan_free(halo_plan *h)
{
    free(h->send_counts);
    free(h->send_cells);
    free(h->recv_cells);
    free(h->send_buf);
    free(h->recv_buf);
}

typedef struct rank_run {
    int nsec;
    samoa_section *sec;
    double **in; /* per section: (n + nhalo) * SAMOA_NSTATE */
    double *out; /* 3 per owned cell */
    samoa_swe_result *res;
} rank_run;

static int submit_step(rank_run *w, const double *state, const task_params *base,
                       const noise_spec *noise, int step, int rank)
{
    for (int k = 0; k < w->nsec; k++) {
        const samoa_section *s = &w->sec[k];
        samoa_section_gather(s, state, w->in[k]);
        task_params p = *base;
        p.n = s->n;
        p.noise = noise_factor(noise, step, rank, k);
        int64_t counts[SAMOA_NCLASSES] = {0};
        for (int32_t c = 0; c < s->n; c++)
            counts[samoa_swe_classify(s->geom, w->in[k], c, p.swe.h_dry)]++;
        double *out = w->out + 3 * (s->first - w->sec[0].first);
        tide_arg args[5] = {
            {s->geom, (size_t)s->n * sizeof *s->geom, TIDE_IN},
            {w->in[k], ((size_t)s->n + s->nhalo) * SAMOA_NSTATE * sizeof(double), TIDE_IN},
            {out, (size_t)s->n * 3 * sizeof(double), TIDE_OUT},
            {&w->res[k], sizeof w->res[k], TIDE_OUT},
            {&p, sizeof p, TIDE_VALUE}};
        tide_task *t;
        int rc = tide_task_create(&t, section_task, 5, args);
        for (int c = 0; rc == TIDE_OK && c < SAMOA_NCLASSES; c++)
            rc = tide_task_set_feature(t, c, (double)counts[c]);
        if (rc == TIDE_OK) rc = tide_task_submit(t);
        if (rc != TIDE_OK) {
            fprintf(stderr, "samoa_proxy: task creation failed: %s: %s\n", tide_strerror(rc),
                    tide_last_error_message());
            return -1;
        }
    }
    return 0;
}

/* Rank 0 writes the whole grid; the others send their cells' depths. */
static int write_vtk(const samoa_options *o, const samoa_grid *g, const double *state,
                     int64_t first, int64_t count, int rank, int nranks, int step, double t)
{
    int *counts = malloc(2 * (size_t)nranks * sizeof(int)), *displs = counts + nranks;
    double *mine = malloc(((size_t)count + 1) * sizeof(double));
    double *h = rank == 0 ? malloc((size_t)g->ncells * 2 * sizeof(double)) : NULL;
    int *owner = rank == 0 ? malloc((size_t)g->ncells * 2 * sizeof(int)) : NULL;
    int ok = counts && mine && (rank != 0 || (h && owner));
    for (int r = 0; ok && r < nranks; r++) {
        int64_t f, c;
        samoa_range(g->ncells, nranks, r, &f, &c);
        counts[r] = (int)c, displs[r] = (int)f;
        for (int64_t i = 0; rank == 0 && i < c; i++) {
            int64_t sf, sc, s = 0;
            for (;; s++) { /* section of cell f + i */
                samoa_range(c, o->sections, s, &sf, &sc);
                if (i < sf + sc) break;
            }
            owner[f + i] = r, owner[g->ncells + f + i] = (int)s;
        }
    }
    if (!ok) {
        fprintf(stderr, "samoa_proxy: out of memory for the VTK output\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (int64_t i = 0; i < count; i++)
        mine[i] = state[SAMOA_NSTATE * (first + i) + SAMOA_H];
    MPI_Gatherv(mine, (int)count, MPI_DOUBLE, h, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int rc = 0;
    if (rank == 0) {
        for (int64_t c = 0; c < g->ncells; c++)
            h[g->ncells + c] = state[SAMOA_NSTATE * c + SAMOA_B];
        char path[4096];
        snprintf(path, sizeof path, "%s/lake_%04d.vtk", o->vtk_dir, step);
        rc = samoa_vtk_write(path, g, t, h, h + g->ncells, owner, owner + g->ncells);
        if (rc) fprintf(stderr, "samoa_proxy: cannot write %s: %s\n", path, strerror(errno));
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(counts);
    free(mine);
    free(h);
    free(owner);
    return rc;
}

static void print_costs(const double *cost_s)
{
    printf("cost_us dry %.6f wet %.6f coast %.6f\n", cost_s[0] * 1e6, cost_s[1] * 1e6,
           cost_s[2] * 1e6);
}

int main(int argc, char **argv)
{
    samoa_options o;
    char err[256];
    int bad = samoa_options_parse(argc, argv, &o, err, sizeof err);
    if (bad == 0 && o.help) return fputs(samoa_usage, stdout), 0;
    if (bad == 0 && o.calibrate) {
        double c[3];
        calibrate(o.coast_work, c);
        print_costs(c);
        return 0;
    }
    int level, rank, nranks;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level) != MPI_SUCCESS) return 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (bad == 0) bad = samoa_options_check_ranks(&o, nranks, err, sizeof err);
    if (bad == 0 && o.vtk_dir) { /* rank 0 writes the files: it decides for all */
        if (rank == 0) bad = samoa_vtk_check_dir(o.vtk_dir, err, sizeof err);
        MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (bad) {
        if (rank == 0) fprintf(stderr, "%s\n", err);
        MPI_Finalize();
        return 2;
    }
    if (tide_init(&argc, &argv) != TIDE_OK) { /* tide_init printed the reason */
        MPI_Finalize();
        return 2;
    }

    task_params base = {.kernel = (int)o.kernel};
    if (o.kernel == SAMOA_KERNEL_SLEEP) {
        if (o.have_costs)
            for (int k = 0; k < 3; k++)
                base.cost_s[k] = o.cost_us[k] * 1e-6;
        else if (rank == 0) {
            calibrate(o.coast_work, base.cost_s);
            for (int k = 0; k < 3; k++)
                base.cost_s[k] *= o.cost_scale;
        }
        MPI_Bcast(base.cost_s, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }

    samoa_grid g;
    samoa_lake lake = samoa_lake_default();
    int64_t first, count;
    rank_run w = {.nsec = o.sections};
    halo_plan hp = {0};
    int ok = samoa_grid_build(&g, o.depth, 2.0) == 0;
    double *state = ok ? malloc((size_t)g.ncells * SAMOA_NSTATE * sizeof *state) : NULL;
    samoa_range(g.ncells, nranks, rank, &first, &count);
    w.sec = calloc((size_t)w.nsec, sizeof *w.sec);
    w.in = calloc((size_t)w.nsec, sizeof *w.in);
    w.res = calloc((size_t)w.nsec, sizeof *w.res);
    w.out = malloc(((size_t)count + 1) * 3 * sizeof *w.out);
    ok = ok && state && w.sec && w.in && w.res && w.out;
    for (int k = 0; ok && k < w.nsec; k++) {
        int64_t sf, sc;
        samoa_range(count, w.nsec, k, &sf, &sc);
        ok = samoa_section_build(&w.sec[k], &g, first + sf, (int32_t)sc) == 0;
        if (ok) w.in[k] = malloc(((size_t)sc + w.sec[k].nhalo) * SAMOA_NSTATE * sizeof(double));
        ok = ok && w.in[k];
    }
    if (ok) samoa_scenario_init(&g, &lake, 0, g.ncells, state); /* every rank: halos too */
    if (ok) ok = halo_plan_build(&hp, w.sec, w.nsec, g.ncells, rank, nranks) == 0;
    if (!ok) {
        fprintf(stderr, "samoa_proxy: rank %d: out of memory for depth %d\n", rank, o.depth);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }

    double speed = 0;
    for (int64_t c = first; c < first + count; c++)
        speed = fmax(speed, samoa_swe_speed(state + SAMOA_NSTATE * c, lake.g, 1e-10));
    MPI_Allreduce(MPI_IN_PLACE, &speed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    samoa_sums s0 = samoa_scenario_sums(&g, &lake, 0, first, count, state), s0all;
    MPI_Allreduce(&s0, &s0all, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    base.swe = (samoa_swe_params){lake.g, 0, 1e-10, o.coast_work};

    double t = 0;
    int64_t classes[SAMOA_NCLASSES] = {0};
    for (int step = 0; ok && step < o.steps; step++) {
        base.swe.dt = o.cfl * g.area / (g.perimeter * speed);
        ok = submit_step(&w, state, &base, &o.noise, step, rank) == 0;
        if (tide_taskwait() != TIDE_OK) {
            fprintf(stderr, "samoa_proxy: tide_taskwait: %s\n", tide_last_error_message());
            ok = 0;
        }
        speed = 0;
        for (int k = 0; k < w.nsec; k++) {
            samoa_section_scatter(&w.sec[k], w.out + 3 * (w.sec[k].first - first), state);
            speed = fmax(speed, w.res[k].max_speed);
            for (int c = 0; c < SAMOA_NCLASSES; c++)
                classes[c] += w.res[k].counts[c];
        }
        MPI_Allreduce(MPI_IN_PLACE, &speed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        halo_exchange(&hp, state);
        t += base.swe.dt;
        if (o.vtk_dir && ((o.vtk_every > 0 && step % o.vtk_every == 0) || step == o.steps - 1))
            ok = write_vtk(&o, &g, state, first, count, rank, nranks, step + 1, t) == 0 && ok;
    }
    if (!ok) MPI_Abort(MPI_COMM_WORLD, 3);

    samoa_sums s1 = samoa_scenario_sums(&g, &lake, t, first, count, state), s1all;
    MPI_Allreduce(&s1, &s1all, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    uint64_t hash = samoa_state_hash(first, count, state), hash_all;
    MPI_Reduce(&hash, &hash_all, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    long bad_cells = 0, bad_all;
    for (int64_t c = first; c < first + count; c++)
        bad_cells += !(state[SAMOA_NSTATE * c + SAMOA_H] >= 0);
    MPI_Allreduce(MPI_IN_PLACE, classes, SAMOA_NCLASSES, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&bad_cells, &bad_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    double drift = fabs(s1all.mass - s0all.mass) / s0all.mass;
    int failed = o.verify && (bad_all > 0 || !(drift <= 1e-12));
    if (rank == 0) {
        double cells = (double)g.ncells * o.steps;
        printf("samoa_proxy: %d ranks x %d workers, depth %d (%lld cells), %d sections/rank, %d "
               "steps to t=%.6f, kernel %s\n",
               nranks, tide_num_threads(), o.depth, (long long)g.ncells, o.sections, o.steps, t,
               o.kernel == SAMOA_KERNEL_SLEEP ? "sleep" : "compute");
        printf("cells dry %.1f%% wet %.1f%% coast %.1f%%\n", 100.0 * classes[0] / cells,
               100.0 * classes[1] / cells, 100.0 * classes[2] / cells);
        if (o.kernel == SAMOA_KERNEL_SLEEP) print_costs(base.cost_s);
        if (o.noise.jitter.p > 0 || o.noise.disturb.p > 0)
            printf("noise jitter %g:%g disturb %g:%g seed %llu\n", o.noise.jitter.p,
                   o.noise.jitter.f, o.noise.disturb.p, o.noise.disturb.f,
                   (unsigned long long)o.noise.seed);
        printf("mass drift %.3e\nL1 error %.6e\nchecksum %016llx\n", drift,
               s1all.err_l1 / s1all.exact_l1, (unsigned long long)hash_all);
        if (o.verify) printf("%s\n", failed ? "VERIFY FAILED" : "verified");
        if (failed)
            fprintf(stderr, "samoa_proxy: mass drift %.3e, %ld cells with negative or NaN depth\n",
                    drift, bad_all);
    }
    halo_plan_free(&hp);
    for (int k = 0; k < w.nsec; k++) {
        samoa_section_free(&w.sec[k]);
        free(w.in[k]);
    }
    free(w.sec);
    free(w.in);
    free(w.res);
    free(w.out);
    free(state);
    samoa_grid_free(&g);
    tide_finalize();
    MPI_Finalize();
    return failed ? 1 : 0;
}
