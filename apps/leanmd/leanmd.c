/*
 * leanmd.c - a LeanMD-like workload on Tide's objects layer (docs/leanmd.md).
 *
 * Charm++'s LeanMD mini-app (the molecular dynamics benchmark of the PackDrop paper) decomposes
 * a periodic 3D box into cells no smaller than the cutoff; a compute object evaluates the pair
 * forces between two cells within KAWAY cells of each other (or within one cell). Every step
 * each cell sends its particles to its computes, each compute sends forces back to its cells,
 * and the cells integrate. This program keeps that object graph and its costs, with the
 * physics replaced by sleeps (no CPU use, so oversubscribed ranks measure strategies): a
 * compute costs pair_ns per pair of particles it evaluates (Na x Nb, or N (N - 1) / 2 for a
 * self compute), a cell costs cell_ns per particle it integrates. Particle counts grow linearly
 * with the cell id from --particles MIN to MAX, as in LeanMD. Messages carry
 * bytes_per_particle per particle; a cell's state holds CELL_BYTES_PER_PARTICLE per particle
 * (what it costs to migrate). The step is pipelined over iterations (a message sent in
 * iteration k arrives in k + 1): positions then forces, every object working every iteration.
 *
 * Objects start where a locality-minded code puts them: cells in blocks of ids over the ranks,
 * each compute with its first cell. With counts growing with the cell id, the last ranks hold
 * the heaviest computes. The first rescheduling runs after --first-lb iterations, then every
 * --lbfreq (the PackDrop paper: first at the 10th step, then every 30 or 60); the strategy is
 * TIDE_GLOBAL_LB. --json writes cbench's summary schema (cbench-1, docs/cbench.md).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tide.h>

#include "objects_json.h"

typedef struct md_config {
    int dim[3], kaway[3];
    int pmin, pmax;
    double pair_ns, cell_ns;
    int bytes_per_particle;
    int64_t iters, first_lb, lbfreq;
    const char *json;
} md_config;

/* The object graph, identical on every rank (rebuilt from the configuration). */
typedef struct md_graph {
    int64_t ncells, ncomputes;
    int64_t (*pair)[2];  /* compute k: its cells (equal for a self compute) */
    int64_t *cell_start; /* computes of cell c: cell_comp[cell_start[c] .. cell_start[c+1]) */
    int64_t *cell_comp;
} md_graph;

/* Object state: a header and the particles' bytes (their migration cost). */
typedef struct md_state {
    int64_t id, received, bad;
} md_state;

/* LeanMD's Particle: position, velocity, force (3 doubles each) and mass. */
enum { CELL_BYTES_PER_PARTICLE = 80 };

static md_config cfg;
static md_graph graph;

static int64_t particles(int64_t cell)
{
    return cfg.pmin + cell * (cfg.pmax - cfg.pmin) / graph.ncells;
}

static int64_t cell_index(const int c[3])
{
    return c[0] + (int64_t)cfg.dim[0] * (c[1] + (int64_t)cfg.dim[1] * c[2]);
}

static void sleep_ns(double ns)
{
    if (ns < 1.0) return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t t = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + (int64_t)ns;
    ts.tv_sec = (time_t)(t / 1000000000);
    ts.tv_nsec = (long)(t % 1000000000);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

/* Every unordered pair of cells within kaway of each other (periodic), self pairs included,
 * numbered in the order cell, then offset; and per cell the computes it belongs to. */
static int graph_build(void)
{
    graph.ncells = (int64_t)cfg.dim[0] * cfg.dim[1] * cfg.dim[2];
    int64_t nbrs =
        (int64_t)(2 * cfg.kaway[0] + 1) * (2 * cfg.kaway[1] + 1) * (2 * cfg.kaway[2] + 1);
    graph.ncomputes = graph.ncells * (nbrs + 1) / 2;
    graph.pair = malloc((size_t)graph.ncomputes * sizeof *graph.pair);
    graph.cell_start = calloc((size_t)graph.ncells + 1, sizeof *graph.cell_start);
    graph.cell_comp = malloc((size_t)graph.ncells * (size_t)nbrs * sizeof *graph.cell_comp);
    if (!graph.pair || !graph.cell_start || !graph.cell_comp) return -1;
    int64_t k = 0;
    for (int64_t c = 0; c < graph.ncells; c++) {
        int x[3] = {(int)(c % cfg.dim[0]), (int)(c / cfg.dim[0] % cfg.dim[1]),
                    (int)(c / cfg.dim[0] / cfg.dim[1])};
        for (int dz = -cfg.kaway[2]; dz <= cfg.kaway[2]; dz++)
            for (int dy = -cfg.kaway[1]; dy <= cfg.kaway[1]; dy++)
                for (int dx = -cfg.kaway[0]; dx <= cfg.kaway[0]; dx++) {
                    int y[3] = {(x[0] + dx + cfg.dim[0]) % cfg.dim[0],
                                (x[1] + dy + cfg.dim[1]) % cfg.dim[1],
                                (x[2] + dz + cfg.dim[2]) % cfg.dim[2]};
                    int64_t d = cell_index(y);
                    if (d < c) continue; /* the pair was numbered from cell d */
                    graph.pair[k][0] = c;
                    graph.pair[k][1] = d;
                    graph.cell_start[c + 1]++;
                    if (d != c) graph.cell_start[d + 1]++;
                    k++;
                }
    }
    if (k != graph.ncomputes) return -1; /* a dimension below 2 kaway + 1 would wrap onto itself */
    for (int64_t c = 0; c < graph.ncells; c++)
        graph.cell_start[c + 1] += graph.cell_start[c];
    int64_t *fill = calloc((size_t)graph.ncells, sizeof *fill);
    if (!fill) return -1;
    for (int64_t j = 0; j < graph.ncomputes; j++)
        for (int e = 0; e < 1 + (graph.pair[j][0] != graph.pair[j][1]); e++) {
            int64_t c = graph.pair[j][e];
            graph.cell_comp[graph.cell_start[c] + fill[c]++] = graph.ncells + j;
        }
    free(fill);
    return 0;
}

static void graph_free(void)
{
    free(graph.pair);
    free(graph.cell_start);
    free(graph.cell_comp);
}

/* A cell integrates the forces its computes sent (from the second iteration on: one message
 * from each of them) and sends its particles to every compute it belongs to. */
static void cell_iterate(void *state, size_t size, const tide_object_msg *inbox, size_t ninbox,
                         const tide_object_info *info)
{
    (void)size, (void)inbox;
    md_state *s = state;
    int64_t c = s->id, n = particles(c);
    int64_t ncomp = graph.cell_start[c + 1] - graph.cell_start[c];
    if (info->iteration >= 2 && (int64_t)ninbox != ncomp) s->bad++;
    s->received += (int64_t)ninbox;
    sleep_ns(cfg.cell_ns * (double)n);
    size_t bytes = (size_t)n * (size_t)cfg.bytes_per_particle;
    void *msg = calloc(1, bytes ? bytes : 1);
    for (int64_t j = graph.cell_start[c]; j < graph.cell_start[c + 1] && msg; j++)
        if (tide_object_send(c, graph.cell_comp[j], msg, bytes) != TIDE_OK) s->bad++;
    if (!msg) s->bad++;
    free(msg);
}

/* A compute evaluates the pairs of the particles its cells sent (one message per distinct cell
 * from the second iteration on) and sends each cell its forces. */
static void compute_iterate(void *state, size_t size, const tide_object_msg *inbox, size_t ninbox,
                            const tide_object_info *info)
{
    (void)size, (void)inbox;
    md_state *s = state;
    const int64_t *pc = graph.pair[s->id - graph.ncells];
    int self = pc[0] == pc[1];
    int64_t na = particles(pc[0]), nb = particles(pc[1]);
    if (info->iteration == 0) return; /* no positions yet */
    if ((int64_t)ninbox != 2 - self) s->bad++;
    s->received += (int64_t)ninbox;
    double pairs = self ? (double)na * (double)(na - 1) / 2.0 : (double)na * (double)nb;
    sleep_ns(cfg.pair_ns * pairs);
    for (int e = 0; e < 2 - self; e++) {
        size_t bytes = (size_t)particles(pc[e]) * (size_t)cfg.bytes_per_particle;
        void *msg = calloc(1, bytes ? bytes : 1);
        if (!msg || tide_object_send(s->id, pc[e], msg, bytes) != TIDE_OK) s->bad++;
        free(msg);
    }
}

static int usage(const char *msg, const char *arg)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        fprintf(stderr,
                "leanmd: %s%s%s\nusage: leanmd [--cells X Y Z] [--kaway X Y Z] [--particles MIN "
                "MAX] [--pair-ns NS] [--cell-ns NS] [--bytes-per-particle B] [--iters R] "
                "[--first-lb K] [--lbfreq L] [--json OUT]\n",
                msg, arg ? ": " : "", arg ? arg : "");
    return 2;
}

/* One integer option value in [lo, hi]; -1 and a message when it is not. */
static int int_arg(const char *name, const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = s ? strtoll(s, &end, 10) : 0;
    if (!s || errno || *end || v < lo || v > hi) {
        char buf[160];
        snprintf(buf, sizeof buf, "%s needs an integer in [%" PRId64 ", %" PRId64 "]", name, lo,
                 hi);
        usage(buf, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_triple(char **argv, int *i, int argc, const char *name, int lo, int *out)
{
    for (int d = 0; d < 3; d++) {
        int64_t v;
        if (int_arg(name, *i + 1 < argc ? argv[++*i] : NULL, lo, 1000, &v)) return -1;
        out[d] = (int)v;
    }
    return 0;
}

static int parse(int argc, char **argv)
{
    cfg = (md_config){.dim = {6, 6, 4},
                      .kaway = {2, 2, 1},
                      .pmin = 100,
                      .pmax = 250,
                      .pair_ns = 2.0,
                      .cell_ns = 100.0,
                      .bytes_per_particle = 24,
                      .iters = 40,
                      .first_lb = 10,
                      .lbfreq = 30};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t x = 0, y = 0;
        int rc = 0;
        if (!strcmp(a, "--cells")) {
            rc = parse_triple(argv, &i, argc, a, 1, cfg.dim);
        } else if (!strcmp(a, "--kaway")) {
            rc = parse_triple(argv, &i, argc, a, 0, cfg.kaway);
        } else if (!strcmp(a, "--particles")) {
            rc = int_arg(a, v, 1, 100000, &x) ||
                 int_arg(a, i + 2 < argc ? argv[i + 2] : NULL, x, 100000, &y);
            cfg.pmin = (int)x, cfg.pmax = (int)y, i += 2;
        } else if (!strcmp(a, "--pair-ns") || !strcmp(a, "--cell-ns")) {
            rc = int_arg(a, v, 0, 1000000, &x);
            *(!strcmp(a, "--pair-ns") ? &cfg.pair_ns : &cfg.cell_ns) = (double)x, i++;
        } else if (!strcmp(a, "--bytes-per-particle")) {
            rc = int_arg(a, v, 0, 1 << 20, &x);
            cfg.bytes_per_particle = (int)x, i++;
        } else if (!strcmp(a, "--iters") || !strcmp(a, "--first-lb") || !strcmp(a, "--lbfreq")) {
            rc = int_arg(a, v, 1, 1000000000, &x);
            *(!strcmp(a, "--iters")    ? &cfg.iters
              : !strcmp(a, "--lbfreq") ? &cfg.lbfreq
                                       : &cfg.first_lb) = x;
            i++;
        } else if (!strcmp(a, "--json") && v) {
            cfg.json = v, i++;
        } else {
            return usage("unknown option or missing value", a);
        }
        if (rc) return 2;
    }
    for (int d = 0; d < 3; d++)
        if (cfg.dim[d] < 2 * cfg.kaway[d] + 1)
            return usage("every --cells dimension must be at least 2 x kaway + 1 (a compute "
                         "would pair a cell with itself across the periodic boundary)",
                         NULL);
    return 0;
}

/* Cells in blocks of ids over the ranks; a compute on its first cell's rank. */
static int create_objects(int rank, int size)
{
    for (int64_t c = 0; c < graph.ncells; c++) {
        if (c * size / graph.ncells != rank) continue;
        size_t bytes = sizeof(md_state) + (size_t)particles(c) * CELL_BYTES_PER_PARTICLE;
        md_state *s = calloc(1, bytes);
        if (!s) return TIDE_ERR_NOMEM;
        s->id = c;
        int rc = tide_object_create(c, s, bytes, cell_iterate);
        free(s);
        if (rc) return rc;
    }
    for (int64_t j = 0; j < graph.ncomputes; j++) {
        if (graph.pair[j][0] * size / graph.ncells != rank) continue;
        md_state s = {.id = graph.ncells + j};
        int rc = tide_object_create(s.id, &s, sizeof s, compute_iterate);
        if (rc) return rc;
    }
    return TIDE_OK;
}

typedef struct md_result {
    double total_s, *iter_s, *load_max, *load_avg;
    tide_objects_lb_record *resched;
    int64_t nresched, failures;
    tide_objects_stats final;
} md_result;

static int64_t local_failures(void)
{
    size_t n = 0;
    tide_objects_local(NULL, 0, &n);
    int64_t *ids = malloc((n ? n : 1) * sizeof *ids), bad = 0;
    if (!ids) return 1;
    tide_objects_local(ids, n, &n);
    for (size_t k = 0; k < n; k++) {
        void *st;
        size_t sz;
        if (tide_object_state(ids[k], &st, &sz) || ((md_state *)st)->bad) bad++;
    }
    free(ids);
    return bad;
}

static int run(const char *strategy, md_result *res)
{
    int64_t r = cfg.iters;
    res->iter_s = calloc((size_t)r, sizeof(double));
    res->load_max = calloc((size_t)r, sizeof(double));
    res->load_avg = calloc((size_t)r, sizeof(double));
    res->resched = calloc((size_t)r, sizeof *res->resched);
    if (!res->iter_s || !res->load_max || !res->load_avg || !res->resched) return TIDE_ERR_NOMEM;
    int rc = tide_objects_set_lb(strategy, (int)cfg.first_lb);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int64_t i = 0; i < r && rc == TIDE_OK; i++) {
        double t0 = MPI_Wtime();
        rc = tide_objects_iterate();
        res->iter_s[i] = MPI_Wtime() - t0;
        tide_objects_stats s;
        tide_objects_stats_get(&s);
        res->load_max[i] = s.load_max;
        res->load_avg[i] = s.load_avg;
        if (s.reschedules > res->nresched) res->resched[res->nresched++] = s.last;
        if (rc == TIDE_OK && i + 1 == cfg.first_lb)
            rc = tide_objects_set_lb(strategy, (int)cfg.lbfreq);
    }
    res->total_s = MPI_Wtime() - start;
    if (rc) return rc;
    tide_objects_stats_get(&res->final);
    int64_t bad = local_failures();
    MPI_Allreduce(&bad, &res->failures, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return TIDE_OK;
}

/* cbench's summary schema (cbench-1), so that the same tools read both. */
static int write_json(const char *strategy, const md_result *res, int ranks)
{
    FILE *f = fopen(cfg.json, "w");
    if (!f) return -1;
    fprintf(f,
            "{\n  \"schema\": \"cbench-1\",\n  \"config\": {\"app\": \"leanmd\", \"cells\": "
            "[%d, %d, %d], \"kaway\": [%d, %d, %d], \"n\": %" PRId64 ", \"r\": %" PRId64
            ", \"first_lb\": %" PRId64 ", \"lbfreq\": %" PRId64 ", \"ranks\": %d, \"kernel\": "
            "\"sleep\", \"strategy\": \"%s\"},\n  \"total_s\": %.9g,\n",
            cfg.dim[0], cfg.dim[1], cfg.dim[2], cfg.kaway[0], cfg.kaway[1], cfg.kaway[2],
            graph.ncells + graph.ncomputes, cfg.iters, cfg.first_lb, cfg.lbfreq, ranks, strategy,
            res->total_s);
    objects_json_series(f, res->iter_s, res->load_max, res->load_avg, cfg.iters);
    objects_json_tail(f, &res->final, res->failures, res->resched, res->nresched);
    return fclose(f) ? -1 : 0;
}

static void report(const char *strategy, const md_result *res, int ranks)
{
    const tide_objects_stats *s = &res->final;
    int64_t last = cfg.iters - 1;
    printf("leanmd: %dx%dx%d cells, kaway %d %d %d: %" PRId64 " cells + %" PRId64
           " computes on %d ranks, %s (first at %" PRId64 ", then every %" PRId64 ")\n",
           cfg.dim[0], cfg.dim[1], cfg.dim[2], cfg.kaway[0], cfg.kaway[1], cfg.kaway[2],
           graph.ncells, graph.ncomputes, ranks, strategy, cfg.first_lb, cfg.lbfreq);
    printf("leanmd: total %.4f s over %" PRId64 " iterations; last iteration load max %.4f s / avg "
           "%.4f s\n",
           res->total_s, cfg.iters, res->load_max[last], res->load_avg[last]);
    printf("leanmd: %" PRId64 " reschedules: decision %.3f ms (gather %.3f, migrate %.3f), %" PRId64
           " migrations\n",
           s->reschedules, 1e3 * s->decision_s_total, 1e3 * s->gather_s_total,
           1e3 * s->migrate_s_total, s->moved_total);
    if (res->failures)
        printf("leanmd: FAILED: %" PRId64 " objects saw a wrong number of messages\n",
               res->failures);
    else
        printf("leanmd: checks passed: %" PRId64 " messages delivered\n", s->messages);
}

int main(int argc, char **argv)
{
    if (tide_init(&argc, &argv) != TIDE_OK) return 2;
    int code = parse(argc, argv);
    int rank = tide_rank(), size = tide_size();
    const char *env = getenv("TIDE_GLOBAL_LB");
    const char *strategy = env && *env ? env : "none";
    md_result res = {0};
    if (!code && graph_build()) {
        fprintf(stderr, "leanmd: out of memory for the object graph\n");
        code = 2;
    }
    int rc = code ? TIDE_OK : create_objects(rank, size);
    if (!code && rc == TIDE_OK) rc = run(strategy, &res);
    if (!code && rc != TIDE_OK) {
        fprintf(stderr, "leanmd: %s\n", tide_strerror(rc));
        code = 2;
    }
    if (!code && rank == 0) {
        report(strategy, &res, size);
        if (cfg.json && write_json(strategy, &res, size)) {
            fprintf(stderr, "leanmd: --json %s: cannot write\n", cfg.json);
            code = 2;
        }
    }
    if (!code && res.failures) code = 1;
    free(res.iter_s);
    free(res.load_max);
    free(res.load_avg);
    free(res.resched);
    graph_free();
    tide_objects_finalize();
    tide_finalize();
    return code;
}
