/* samoa_proxy: an oscillating-lake proxy of sam(oa)^2 on Tide. Every rank owns a contiguous
 * range of the Sierpinski-ordered grid, cut into sections; each step every section is one Tide
 * task (its cells and halo IN, its new cells OUT), so Tide may run it on another rank. Halos move
 * between steps with plain MPI. Every K steps the mesh adapts: cells refine around the moving
 * shoreline and coarsen behind it, so the ranks' cell counts, and their loads, drift as in
 * sam(oa)^2, whose own repartitioning of the curve (every R adaptations) lags behind. */
#define _POSIX_C_SOURCE 200809L
#include "amr.h"
#include "grid.h"
#include "options.h"
#include "rank.h"
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
#define SAMOA_NFEATURES 8 /* per section task: 3 cost classes, then 5 levels */

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

/* Features of a section task: 0..2 its dry, wet and coast cells, 3..7 its cells per level, the
 * finest five levels (max - 4 .. max; coarser cells count in feature 3). A uniform grid's tasks
 * carry only 0..2, as before the adaptive mesh: their level counts would repeat the cell count. */
static void section_features(const samoa_section *s, const samoa_grid *g, const double *in,
                             double h_dry, double *f)
{
    for (int k = 0; k < SAMOA_NFEATURES; k++)
        f[k] = 0;
    for (int32_t c = 0; c < s->n; c++) {
        int lv = g->cells[s->first + c].level - (g->depth - 4);
        f[samoa_swe_classify(s->geom, in, c, h_dry)] += 1;
        f[3 + (lv < 0 ? 0 : lv)] += 1;
    }
}

static int submit_step(samoa_rank *w, const samoa_grid *g, const double *state,
                       const task_params *base, const noise_spec *noise, int step, int nfeatures)
{
    for (int k = 0; k < w->nsec; k++) {
        const samoa_section *s = &w->sec[k];
        w->res[k] = (samoa_swe_result){0};
        if (s->n == 0) continue; /* the rank holds fewer cells than sections */
        samoa_section_gather(s, state, w->in[k]);
        task_params p = *base;
        p.n = s->n;
        p.noise = noise_factor(noise, step, w->rank, k);
        double f[SAMOA_NFEATURES];
        section_features(s, g, w->in[k], p.swe.h_dry, f);
        double *out = w->out + 3 * (s->first - w->first);
        tide_arg args[5] = {
            {s->geom, (size_t)s->n * sizeof *s->geom, TIDE_IN},
            {w->in[k], ((size_t)s->n + s->nhalo) * SAMOA_NSTATE * sizeof(double), TIDE_IN},
            {out, (size_t)s->n * 3 * sizeof(double), TIDE_OUT},
            {&w->res[k], sizeof w->res[k], TIDE_OUT},
            {&p, sizeof p, TIDE_VALUE}};
        tide_task *t;
        int rc = tide_task_create(&t, section_task, 5, args);
        for (int c = 0; rc == TIDE_OK && c < nfeatures; c++)
            rc = tide_task_set_feature(t, c, f[c]);
        if (rc == TIDE_OK) rc = tide_task_submit(t);
        if (rc != TIDE_OK) {
            fprintf(stderr, "samoa_proxy: task creation failed: %s: %s\n", tide_strerror(rc),
                    tide_last_error_message());
            return -1;
        }
    }
    return 0;
}

/* Every rank gathers the whole state; rank 0 writes it with each cell's owner and section. */
static int write_vtk(const samoa_options *o, const samoa_grid *g, const samoa_mesh *m,
                     const samoa_rank *w, int step, double t)
{
    samoa_rank_allgather(w, m->state);
    int rc = 0;
    if (w->rank == 0) {
        int64_t n = g->ncells;
        double *hb = malloc(((size_t)n + 1) * 2 * sizeof *hb);
        int *owner = malloc(((size_t)n + 1) * 2 * sizeof *owner);
        if (!hb || !owner) {
            fprintf(stderr, "samoa_proxy: out of memory for the VTK output\n");
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        for (int64_t first = 0, end; first < n; first = end) { /* one rank's run of cells */
            for (end = first; end < n && m->tag[end] == m->tag[first]; end++) {
            }
            for (int64_t c = first; c < end; c++) {
                int64_t sf, sc, k = 0;
                while (samoa_range(end - first, o->sections, k, &sf, &sc), c - first >= sf + sc)
                    k++;
                owner[c] = m->tag[c], owner[n + c] = (int)k;
            }
        }
        for (int64_t c = 0; c < n; c++) {
            hb[c] = m->state[SAMOA_NSTATE * c + SAMOA_H];
            hb[n + c] = m->state[SAMOA_NSTATE * c + SAMOA_B];
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/lake_%04d.vtk", o->vtk_dir, step);
        rc = samoa_vtk_write(path, g, t, hb, hb + n, owner, owner + n);
        if (rc) fprintf(stderr, "samoa_proxy: cannot write %s: %s\n", path, strerror(errno));
        free(hb);
        free(owner);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}

/* The lake's bed as the mesh needs it: the mean over a cell. */
static double lake_bed(const void *lake, const double x[3], const double y[3])
{
    return samoa_lake_bed_mean(lake, x, y);
}

/* The criterion's neighbour layers around the front: it must not leave the refined band before
 * the next adaptation; it moves about a fiftieth of a cell per step (docs/samoa_proxy.md). */
static int criterion_buffer(const samoa_options *o)
{
    return 1 + o->adapt_every / 20;
}

/* Whether the initial lake covers a corner or the centroid of the cell: on a coarse cell the
 * water may miss the centroid, and the criterion, which sees cell means, would not refine. */
static int touches_water(const samoa_cell *k, const samoa_lake *lake)
{
    double h, u, v;
    samoa_lake_exact(lake, k->cx, k->cy, 0, &h, &u, &v);
    for (int i = 0; i < 3 && h <= 0; i++)
        samoa_lake_exact(lake, k->x[i], k->y[i], 0, &h, &u, &v);
    return h > 0;
}

/* What the adaptations changed: cells bisected (each adds a cell) and sibling pairs merged (each
 * removes one), so cells = 2 * 2^min_depth + refined - coarsened after the initial mesh. */
typedef struct mesh_changes {
    int64_t refined, coarsened;
} mesh_changes;

/* The initial mesh: from the minimum depth, refined by the criterion on the exact initial state
 * and wherever the initial lake touches a cell, until the finest level is reached; then owned in
 * equal ranges. Its bisections count in ch->refined. */
static int initial_mesh(samoa_mesh *m, samoa_grid *g, const samoa_options *o,
                        const samoa_lake *lake, const samoa_amr_params *ap, int nranks,
                        mesh_changes *ch)
{
    if (samoa_mesh_uniform(m, o->min_depth, 2.0, ap) != 0) return -1;
    for (int round = 0;; round++) {
        if (samoa_grid_from_tris(g, m->tri, m->level, m->n, m->half) != 0) return -1;
        samoa_scenario_init(g, lake, 0, m->n, m->state);
        if (round == o->depth - o->min_depth) break;
        int8_t *mark = malloc((size_t)m->n + 1);
        int rc = mark ? samoa_amr_criterion(g, m->state, o->refine_depth, o->refine_slope,
                                            criterion_buffer(o), mark)
                      : -1;
        for (int64_t c = 0; rc == 0 && c < m->n; c++)
            if (touches_water(&g->cells[c], lake)) mark[c] = 1;
        int64_t bisected = rc == 0 ? samoa_mesh_refine(m, mark, ap) : -1;
        rc = bisected < 0 ? -1 : 0;
        if (rc == 0) ch->refined += bisected;
        free(mark);
        samoa_grid_free(g);
        if (rc != 0) return -1;
    }
    samoa_partition_equal(m->tag, m->n, nranks);
    return 0;
}

/* One adaptation, the same on every rank: gather the state, mark, coarsen, refine, and every R
 * adaptations repartition the curve; then rebuild the grid and this rank's sections. What it
 * bisected and merged goes to *done. */
static int adapt(samoa_mesh *m, samoa_grid *g, samoa_rank *w, const samoa_options *o,
                 const samoa_amr_params *ap, int count, mesh_changes *done)
{
    samoa_rank_allgather(w, m->state);
    int8_t *mark = malloc((size_t)m->n + 1), *kept = malloc((size_t)m->n + 1);
    int rc = mark && kept ? samoa_amr_criterion(g, m->state, o->refine_depth, o->refine_slope,
                                                criterion_buffer(o), mark)
                          : -1;
    int64_t merged = rc == 0 ? samoa_mesh_coarsen(m, mark, kept, ap) : -1;
    int64_t bisected = merged >= 0 ? samoa_mesh_refine(m, kept, ap) : -1;
    if (bisected < 0) rc = -1;
    *done = (mesh_changes){bisected, merged};
    free(mark);
    free(kept);
    if (rc == 0 && o->repartition_every > 0 && count % o->repartition_every == 0)
        samoa_partition_equal(m->tag, m->n, w->nranks);
    int nsec = w->nsec, rank = w->rank, nranks = w->nranks;
    samoa_rank_free(w);
    samoa_grid_free(g);
    if (rc == 0) rc = samoa_grid_from_tris(g, m->tri, m->level, m->n, m->half);
    if (rc == 0) rc = samoa_rank_build(w, g, m->tag, nsec, rank, nranks);
    return rc;
}

/* Rank 0 prints the mesh after an adaptation: its cells, what this adaptation (at step 0: the
 * initial refinement) bisected and merged, and every rank's share. */
static void print_cells(const samoa_mesh *m, int nranks, int step, mesh_changes ch)
{
    int64_t per[nranks];
    for (int r = 0; r < nranks; r++)
        per[r] = 0;
    for (int64_t c = 0; c < m->n; c++)
        per[m->tag[c]]++;
    printf("adapt step %d cells %lld refined %lld coarsened %lld ranks", step, (long long)m->n,
           (long long)ch.refined, (long long)ch.coarsened);
    for (int r = 0; r < nranks; r++)
        printf(" %lld", (long long)per[r]);
    putchar('\n');
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
    if (bad == 0) bad = samoa_options_fit_ranks(&o, nranks, err, sizeof err);
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

    samoa_lake lake = samoa_lake_default();
    samoa_amr_params ap = {o.min_depth, o.depth, 1e-10, lake_bed, &lake};
    samoa_mesh mesh = {0};
    samoa_grid g = {0};
    samoa_rank w = {0};
    mesh_changes initial = {0, 0}, changes = {0, 0}; /* the initial mesh's, the adaptations' */
    int ok = initial_mesh(&mesh, &g, &o, &lake, &ap, nranks, &initial) == 0 &&
             samoa_rank_build(&w, &g, mesh.tag, o.sections, rank, nranks) == 0;
    if (!ok) {
        fprintf(stderr, "samoa_proxy: rank %d: out of memory for depth %d\n", rank, o.depth);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    double *state = mesh.state; /* every rank: the whole grid, current in its cells and halos */
    int adaptive = o.min_depth < o.depth, adaptations = 0;
    if (adaptive && rank == 0) print_cells(&mesh, nranks, 0, initial);

    double speed = 0;
    for (int64_t c = 0; c < g.ncells; c++)
        speed = fmax(speed, samoa_swe_speed(state + SAMOA_NSTATE * c, lake.g, 1e-10));
    samoa_sums s0 = samoa_scenario_sums(&g, &lake, 0, w.first, w.count, state), s0all;
    MPI_Allreduce(&s0, &s0all, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    base.swe = (samoa_swe_params){lake.g, 0, 1e-10, o.coast_work};

    double t = 0;
    int64_t classes[SAMOA_NCLASSES] = {0}, cell_steps = 0;
    int steps = 0;
    for (int step = 0, last = 0; ok && !last; step++, steps++) {
        if (adaptive && step > 0 && step % o.adapt_every == 0) {
            mesh_changes done;
            ok = adapt(&mesh, &g, &w, &o, &ap, ++adaptations, &done) == 0;
            if (!ok) break;
            changes.refined += done.refined;
            changes.coarsened += done.coarsened;
            state = mesh.state;
            speed = 0; /* every rank holds every cell now: the same maximum everywhere */
            for (int64_t c = 0; c < g.ncells; c++)
                speed = fmax(speed, samoa_swe_speed(state + SAMOA_NSTATE * c, lake.g, 1e-10));
            if (rank == 0) print_cells(&mesh, nranks, step, done);
        }
        base.swe.dt = o.cfl * g.area / (g.perimeter * speed);
        last = o.t_end > 0 ? t + base.swe.dt >= o.t_end : step == o.steps - 1;
        if (o.t_end > 0 && last) base.swe.dt = o.t_end - t;
        ok = submit_step(&w, &g, state, &base, &o.noise, step, adaptive ? SAMOA_NFEATURES : 3) == 0;
        if (tide_taskwait() != TIDE_OK) {
            fprintf(stderr, "samoa_proxy: tide_taskwait: %s\n", tide_last_error_message());
            ok = 0;
        }
        speed = 0;
        for (int k = 0; k < w.nsec; k++) {
            samoa_section_scatter(&w.sec[k], w.out + 3 * (w.sec[k].first - w.first), state);
            speed = fmax(speed, w.res[k].max_speed);
            for (int c = 0; c < SAMOA_NCLASSES; c++)
                classes[c] += w.res[k].counts[c];
        }
        cell_steps += g.ncells;
        MPI_Allreduce(MPI_IN_PLACE, &speed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        samoa_rank_halo_exchange(&w, state);
        t += base.swe.dt;
        if (o.vtk_dir && ((o.vtk_every > 0 && step % o.vtk_every == 0) || last))
            ok = write_vtk(&o, &g, &mesh, &w, step + 1, t) == 0 && ok;
    }
    if (!ok) {
        fprintf(stderr, "samoa_proxy: rank %d: the run failed (out of memory?)\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }

    samoa_sums s1 = samoa_scenario_sums(&g, &lake, t, w.first, w.count, state), s1all;
    MPI_Allreduce(&s1, &s1all, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    uint64_t hash = samoa_state_hash(w.first, w.count, state), hash_all;
    MPI_Reduce(&hash, &hash_all, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    long bad_cells = 0, bad_all;
    for (int64_t c = w.first; c < w.first + w.count; c++)
        bad_cells += !(state[SAMOA_NSTATE * c + SAMOA_H] >= 0);
    MPI_Allreduce(MPI_IN_PLACE, classes, SAMOA_NCLASSES, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&bad_cells, &bad_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    double drift = fabs(s1all.mass - s0all.mass) / s0all.mass;
    int failed = o.verify && (bad_all > 0 || !(drift <= 1e-12));
    if (rank == 0) {
        double cells = (double)cell_steps;
        printf("samoa_proxy: %d ranks x %d workers, depth %d (%lld cells), %d sections/rank, %d "
               "steps to t=%.6f, kernel %s\n",
               nranks, tide_num_threads(), o.depth, (long long)g.ncells, o.sections, steps, t,
               o.kernel == SAMOA_KERNEL_SLEEP ? "sleep" : "compute");
        if (adaptive)
            printf("adaptive depth %d..%d every %d steps, %d adaptations, repartition %s%.0d, "
                   "%.1f cells per step on average; the adaptations refined %lld cells and "
                   "coarsened %lld pairs\n",
                   o.min_depth, o.depth, o.adapt_every, adaptations,
                   o.repartition_every ? "every " : "never", o.repartition_every, cells / steps,
                   (long long)changes.refined, (long long)changes.coarsened);
        else
            printf("uniform mesh: no adaptation (min depth = depth)\n");
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
    samoa_rank_free(&w);
    samoa_grid_free(&g);
    samoa_mesh_free(&mesh);
    tide_finalize();
    MPI_Finalize();
    return failed ? 1 : 0;
}
