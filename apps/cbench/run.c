/* The benchmark run (run.h): one Tide object per ComprehensiveBench task, iterated r times
 * under the global strategy TIDE_GLOBAL_LB, every message and state checked at the end.
 *
 * The iteration function reads the configuration and the calibration through globals. That is
 * allowed for a task ("touch nothing rank-local") because every rank holds the same values:
 * each parses the same file and options, and the calibration is broadcast before any object
 * runs. An offloaded object iteration (TIDE_LB) therefore computes what it would at home. */
#include "run.h"

#include "objects_json.h"
#include "tide_json.h"

#include "topology.h"

#include <inttypes.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tide.h>

/* The bookkeeping at the start of every object's state; tasksize bytes of payload follow, so
 * an object's migration cost is tasksize + sizeof(obj_header). */
typedef struct obj_header {
    int64_t t;
    int64_t iterations;    /* iterations this object ran */
    int64_t bad_iter;      /* first iteration whose inbox was wrong, 0 if none */
    int64_t got, expected; /* messages in that inbox and messages the neighbours sent */
    int64_t eval_error;    /* first iteration where an expression failed (cannot happen after
                              the up-front check; kept so a failure is reported, not hidden) */
    uint64_t sink;         /* folds the work kernel's results so the loop is not optimized out */
} obj_header;

static const cbench_config *g_cfg;
static cbench_kernel g_kernel;
static double g_iters_per_ms;
static int64_t g_extra_from; /* --test-extra-message: this object sends one message too many */

/* ---- message and state contents ------------------------------------------------------------ */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* The seed of the k-th message from `from` to `to` in iteration i (state payloads: to = -1). */
static uint64_t seed_of(int64_t from, int64_t to, int64_t i, int64_t k)
{
    return mix(mix(mix(mix((uint64_t)from) ^ (uint64_t)to) ^ (uint64_t)i) ^ (uint64_t)k);
}

/* A deterministic byte stream: fill writes it, matches compares a buffer with it. */
static void fill(unsigned char *p, size_t n, uint64_t seed)
{
    for (size_t off = 0; off < n; off += 8) {
        uint64_t w = mix(seed + off);
        memcpy(p + off, &w, n - off < 8 ? n - off : 8);
    }
}

static bool matches(const unsigned char *p, size_t n, uint64_t seed)
{
    for (size_t off = 0; off < n; off += 8) {
        uint64_t w = mix(seed + off);
        if (memcmp(p + off, &w, n - off < 8 ? n - off : 8)) return false;
    }
    return true;
}

/* ---- the object's iteration ---------------------------------------------------------------- */

static int64_t eval(cbench_param which, int64_t t, int64_t i, obj_header *h)
{
    char err[256];
    int64_t v;
    if (cbench_config_eval(g_cfg, which, t, i, &v, err, sizeof err)) {
        if (!h->eval_error) h->eval_error = i;
        return 0;
    }
    return v;
}

/* Compares the inbox of iteration i with what the neighbours sent in iteration i-1: from each
 * neighbour u (ascending, as the inbox is sorted by sender) msgnum(u, i-1) messages of
 * msgsize(u, i-1) bytes with u's contents, in order, and nothing else. */
static void check_inbox(obj_header *h, const int64_t *nb, int nnb, const tide_object_msg *inbox,
                        size_t ninbox, int64_t i)
{
    int64_t expected = 0;
    bool ok = true;
    size_t m = 0;
    for (int k = 0; k < nnb && i > 1; k++) {
        int64_t num = eval(CBENCH_MSGNUM, nb[k], i - 1, h);
        int64_t size = eval(CBENCH_MSGSIZE, nb[k], i - 1, h);
        expected += num;
        for (int64_t j = 0; j < num; j++, m++) {
            if (m >= ninbox || inbox[m].from != nb[k] || inbox[m].size != (size_t)size ||
                (size && !matches(inbox[m].data, (size_t)size, seed_of(nb[k], h->t, i - 1, j))))
                ok = false;
            if (m >= ninbox) break;
        }
    }
    if ((ok && m == ninbox) || h->bad_iter) return;
    h->bad_iter = i;
    h->got = (int64_t)ninbox;
    h->expected = expected;
}

static void object_iteration(void *state, size_t state_size, const tide_object_msg *inbox,
                             size_t ninbox, const tide_object_info *info)
{
    (void)state_size;
    obj_header h;
    memcpy(&h, state, sizeof h); /* the state buffer has no alignment guarantee */
    int64_t t = h.t, i = info->iteration + 1;
    int64_t nb[CBENCH_MAX_NEIGHBOURS];
    int nnb = cbench_neighbours(g_cfg->gcomm, g_cfg->n, t, nb);
    check_inbox(&h, nb, nnb, inbox, ninbox, i);

    int64_t us = eval(CBENCH_LOAD, t, i, &h) * g_cfg->load_unit;
    if (g_kernel == CBENCH_KERNEL_SLEEP)
        cbench_sleep_us(us);
    else
        h.sink += cbench_work(g_cfg->int_op, (int64_t)((double)us * g_iters_per_ms / 1e3));

    int64_t num = eval(CBENCH_MSGNUM, t, i, &h), size = eval(CBENCH_MSGSIZE, t, i, &h);
    unsigned char *buf = num && size ? malloc((size_t)size) : NULL;
    for (int k = 0; k < nnb && (buf || !size); k++)
        for (int64_t j = 0; j < num; j++) {
            if (size) fill(buf, (size_t)size, seed_of(t, nb[k], i, j));
            tide_object_send(t, nb[k], buf, (size_t)size);
        }
    if (num && size && !buf && !h.bad_iter) h.bad_iter = i; /* out of memory: say so */
    if (t == g_extra_from && i == 1 && nnb) tide_object_send(t, nb[0], NULL, 0);
    free(buf);
    h.iterations++;
    memcpy(state, &h, sizeof h);
}

/* ---- setup, run, report -------------------------------------------------------------------- */

typedef struct run_result {
    double total_s;
    double *iter_s, *load_max, *load_avg; /* per iteration, r entries */
    tide_objects_lb_record *resched;
    int64_t nresched;
    tide_objects_stats final;
    int64_t failures; /* objects whose checks failed, all ranks */
} run_result;

static int fail_tide(const char *what, int rc)
{
    fprintf(stderr, "cbench: %s failed: %s: %s\n", what, tide_strerror(rc),
            tide_last_error_message());
    return 2;
}

static int create_objects(const cbench_config *c, int rank, int ranks)
{
    char err[CBENCH_ERR_LEN];
    for (int64_t t = 0; t < c->n; t++) {
        int64_t unit, tasksize;
        if (cbench_config_eval(c, CBENCH_INITMAP, t, 0, &unit, err, sizeof err)) return -1;
        /* p processing units over the ranks in blocks: unit u lives on rank u * ranks / p. */
        if ((int)(unit * ranks / c->p) != rank) continue;
        if (cbench_config_eval(c, CBENCH_TASKSIZE, t, 0, &tasksize, err, sizeof err)) return -1;
        size_t size = sizeof(obj_header) + (size_t)tasksize;
        unsigned char *state = malloc(size);
        if (!state) {
            fprintf(stderr, "cbench: out of memory for object %" PRId64 " (%zu bytes)\n", t, size);
            return -1;
        }
        obj_header h = {.t = t};
        memcpy(state, &h, sizeof h);
        fill(state + sizeof h, (size_t)tasksize, seed_of(t, -1, 0, 0));
        int rc = tide_object_create(t, state, size, object_iteration);
        free(state);
        if (rc) return fail_tide("tide_object_create", rc), -1;
    }
    return 0;
}

/* Checks this rank's objects after the run; returns how many failed (each reported). */
static int64_t verify_local(const cbench_config *c)
{
    size_t n = 0;
    tide_objects_local(NULL, 0, &n);
    int64_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids) return (int64_t)n + 1;
    tide_objects_local(ids, n, &n);
    int64_t bad = 0;
    for (size_t k = 0; k < n; k++) {
        void *state;
        size_t size;
        obj_header h;
        if (tide_object_state(ids[k], &state, &size) || size < sizeof h) {
            bad++;
            continue;
        }
        memcpy(&h, state, sizeof h);
        const char *why = NULL;
        if (h.t != ids[k])
            why = "its state belongs to another object";
        else if (h.iterations != c->r)
            why = "it ran a wrong number of iterations";
        else if (h.eval_error)
            why = "an expression failed during the run";
        else if (h.bad_iter)
            why = "its inbox was wrong";
        else if (!matches((unsigned char *)state + sizeof h, size - sizeof h,
                          seed_of(h.t, -1, 0, 0)))
            why = "its state payload was damaged";
        if (!why) continue;
        if (bad++ < 5)
            fprintf(stderr,
                    "cbench: rank %d: object %" PRId64 " failed: %s (iterations %" PRId64
                    ", inbox of iteration %" PRId64 ": %" PRId64 " messages, expected %" PRId64
                    ")\n",
                    tide_rank(), ids[k], why, h.iterations, h.bad_iter, h.got, h.expected);
    }
    free(ids);
    return bad;
}

static int iterate_all(const cbench_config *c, run_result *res)
{
    int64_t r = c->r;
    res->iter_s = calloc((size_t)r, sizeof(double));
    res->load_max = calloc((size_t)r, sizeof(double));
    res->load_avg = calloc((size_t)r, sizeof(double));
    res->resched = calloc((size_t)r, sizeof *res->resched);
    if (!res->iter_s || !res->load_max || !res->load_avg || !res->resched) {
        fprintf(stderr, "cbench: out of memory for %" PRId64 " iterations\n", r);
        return 2;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double start = cbench_now();
    for (int64_t i = 0; i < r; i++) {
        double t0 = cbench_now();
        int rc = tide_objects_iterate();
        res->iter_s[i] = cbench_now() - t0;
        if (rc) return fail_tide("tide_objects_iterate", rc);
        tide_objects_stats s;
        tide_objects_stats_get(&s);
        res->load_max[i] = s.load_max;
        res->load_avg[i] = s.load_avg;
        if (s.reschedules > res->nresched) res->resched[res->nresched++] = s.last;
    }
    res->total_s = cbench_now() - start;
    tide_objects_stats_get(&res->final);
    int64_t bad = verify_local(c);
    MPI_Allreduce(&bad, &res->failures, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return 0;
}

typedef struct run_info {
    int ranks, workers;
    const char *strategy, *period;
    double iters_per_ms;
} run_info;

static const char *kernel_name(const cbench_config *c, const cbench_run_opts *o)
{
    return o->kernel == CBENCH_KERNEL_SLEEP ? "sleep"
           : c->int_op == CBENCH_WORK_INT   ? "int"
                                            : "float";
}

static int write_json(const cbench_config *c, const cbench_run_opts *o, const run_info *ri,
                      const run_result *res)
{
    FILE *f = fopen(o->json, "w");
    if (!f) {
        fprintf(stderr, "cbench: --json %s: cannot open for writing\n", o->json);
        return -1;
    }
    fprintf(f, "{\n  \"schema\": \"cbench-1\",\n  \"config\": {\"file\": ");
    tide_json_string(f, o->file);
    fprintf(f,
            ", \"n\": %" PRId64 ", \"p\": %" PRId64 ", \"r\": %" PRId64 ", \"lbfreq\": %" PRId64
            ", \"load_unit\": %" PRId64 ", \"ranks\": %d, \"workers\": %d, \"kernel\": \"%s\", "
            "\"strategy\": ",
            c->n, c->p, c->r, c->lbfreq, c->load_unit, ri->ranks, ri->workers, kernel_name(c, o));
    tide_json_string(f, ri->strategy);
    fprintf(f, ", \"period\": ");
    tide_json_string(f, ri->period);
    fprintf(f, ", \"iters_per_ms\": %.6g},\n", ri->iters_per_ms);
    fprintf(f, "  \"total_s\": %.9g,\n", res->total_s);
    objects_json_series(f, res->iter_s, res->load_max, res->load_avg, c->r);
    objects_json_tail(f, &res->final, res->failures, res->resched, res->nresched);
    return fclose(f) ? -1 : 0;
}

static void print_summary(const cbench_config *c, const cbench_run_opts *o, const run_info *ri,
                          const run_result *res)
{
    double mn = res->iter_s[0], mx = res->iter_s[0];
    for (int64_t k = 1; k < c->r; k++) {
        if (res->iter_s[k] < mn) mn = res->iter_s[k];
        if (res->iter_s[k] > mx) mx = res->iter_s[k];
    }
    const tide_objects_stats *s = &res->final;
    printf("cbench: %s: n=%" PRId64 " p=%" PRId64 " r=%" PRId64 " on %d ranks x %d workers, "
           "kernel %s, strategy %s every %s iterations\n",
           o->file ? o->file : "(options)", c->n, c->p, c->r, ri->ranks, ri->workers,
           kernel_name(c, o), ri->strategy, ri->period);
    printf("cbench: total %.4f s; per iteration mean %.4f s, min %.4f, max %.4f; last iteration "
           "load max %.4f s / avg %.4f s\n",
           res->total_s, res->total_s / (double)c->r, mn, mx, res->load_max[c->r - 1],
           res->load_avg[c->r - 1]);
    printf("cbench: %" PRId64 " reschedules: decision %.3f ms (gather %.3f, migrate %.3f), "
           "%" PRId64 " migrations, %" PRId64 " bytes\n",
           s->reschedules, 1e3 * s->decision_s_total, 1e3 * s->gather_s_total,
           1e3 * s->migrate_s_total, s->moved_total, s->bytes_moved_total);
    if (res->failures)
        printf("cbench: FAILED: %" PRId64 " objects failed their checks (see stderr)\n",
               res->failures);
    else
        printf("cbench: checks passed: %" PRId64 " objects, %" PRId64 " messages (%" PRId64
               " bytes) delivered and verified\n",
               s->objects, s->messages, s->message_bytes);
}

/* Applies lbfreq: given (file or option), it replaces TIDE_LB_PERIOD for the strategy chosen by
 * TIDE_GLOBAL_LB, and 0 means no balancing at all; left at its default, the runtime's
 * TIDE_LB_PERIOD (default 10, the same) stands. */
static int apply_lbfreq(const cbench_config *c, run_info *ri)
{
    const char *env = getenv("TIDE_GLOBAL_LB");
    ri->strategy = env && *env ? env : "none";
    const char *period = getenv("TIDE_LB_PERIOD");
    ri->period = period && *period ? period : "10";
    if (!strcmp(c->origin[CBENCH_LBFREQ], "default")) return 0;
    static char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, c->lbfreq);
    ri->period = buf;
    if (c->lbfreq == 0) ri->strategy = "none";
    int rc = tide_objects_set_lb(ri->strategy, c->lbfreq ? (int)c->lbfreq : 1);
    return rc ? fail_tide("tide_objects_set_lb", rc) : 0;
}

static int prepare(cbench_config *c, const cbench_run_opts *o, run_info *ri)
{
    static char err[CBENCH_ERR_LEN];
    int rank = tide_rank();
    ri->ranks = tide_size();
    ri->workers = tide_num_threads();
    if (!c->origin[CBENCH_P][0]) {
        char p[32];
        snprintf(p, sizeof p, "%lld", (long long)ri->ranks * ri->workers);
        if (cbench_config_set(c, "p", p, "ranks x workers", err, sizeof err)) {
            if (rank == 0) fprintf(stderr, "cbench: %s\n", err);
            return 2;
        }
    }
    /* Every rank evaluates everything up front (the same result everywhere, so all stop
     * together): an error is reported once, with its expression, t and i, before any work. */
    if (cbench_config_check(c, c->r, NULL, err, sizeof err) ||
        cbench_topology_check(c->gcomm, c->n, err, sizeof err)) {
        if (rank == 0) fprintf(stderr, "cbench: %s\n", err);
        return 2;
    }
    /* Rank 0 calibrates and broadcasts, so that a load unit is the same work everywhere. */
    ri->iters_per_ms = 0;
    if (o->kernel == CBENCH_KERNEL_WORK && rank == 0)
        ri->iters_per_ms = cbench_work_calibrate(c->int_op);
    MPI_Bcast(&ri->iters_per_ms, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    g_cfg = c;
    g_kernel = o->kernel;
    g_iters_per_ms = ri->iters_per_ms;
    g_extra_from = o->extra_message_from;
    return apply_lbfreq(c, ri);
}

int cbench_run(cbench_config *c, const cbench_run_opts *o, int *argc, char ***argv)
{
    int rc = tide_init(argc, argv);
    if (rc) return 2; /* tide_init said why, once for the job */
    run_info ri;
    run_result res = {0};
    int code = prepare(c, o, &ri);
    if (!code && create_objects(c, tide_rank(), ri.ranks)) code = 2;
    /* A failed creation is local: agree before the collective iterations start. */
    MPI_Allreduce(MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!code) code = iterate_all(c, &res);
    if (!code) {
        if (res.failures) code = 1;
        if (tide_rank() == 0) {
            print_summary(c, o, &ri, &res);
            if (o->json && write_json(c, o, &ri, &res)) code = 2;
        }
        MPI_Allreduce(MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
    free(res.iter_s);
    free(res.load_max);
    free(res.load_avg);
    free(res.resched);
    rc = tide_objects_finalize();
    if (rc && !code) code = fail_tide("tide_objects_finalize", rc);
    rc = tide_finalize();
    if (rc && !code) code = fail_tide("tide_finalize", rc);
    return code;
}

int cbench_run_refuse(const char *msg)
{
    int inited = 0, rank = 0;
    MPI_Initialized(&inited);
    if (!inited && MPI_Init(NULL, NULL) != MPI_SUCCESS) inited = -1; /* say it here, then */
    if (inited >= 0) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) fprintf(stderr, "cbench: %s\n", msg);
    if (inited == 0) MPI_Finalize();
    return 2;
}
