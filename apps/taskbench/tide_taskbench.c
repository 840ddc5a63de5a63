/* Task Bench (StanfordLegion/task-bench) implemented on Tide: the timesteps of the task graphs run
 * in Tide phases, each point of a timestep one Tide task whose inputs (the outputs of the points it
 * depends on, one timestep earlier) are IN arguments and whose output is an OUT argument. A
 * timestep whose points read nothing (trivial's) joins the phase of the timesteps before it, up
 * to -phase-steps of them (default 64; 1: one phase per timestep); any other starts a phase. Points
 * are owned in contiguous blocks, as Task Bench's MPI implementation owns them; outputs that a
 * point of another rank needs are exchanged with MPI between phases (the application's own
 * messages, docs/taskbench.md). Tide may then run any task on any rank.
 *
 *   mpiexec -n R tide_taskbench [Task Bench options: -steps S -width W -type T -kernel K ...]
 *
 * Task Bench's core checks every input of every task (task_graph_execute_point_scratch aborts on
 * a wrong value) and prints the timing line that its METG scripts parse. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tide.h>

#include "core_c.h"

/* The VALUE argument of every task: what task_graph_execute_point needs besides the buffers. The
 * graph is its index in `graphs`, which every rank builds alike from the same arguments (the
 * graph itself, 120 bytes, was copied into every task). */
struct point_task {
    long graph, timestep, point;
    int n_inputs;
};

static task_graph_t *graphs;

/* Scratch memory of one worker, reused by its tasks (Task Bench's memory-bound kernels). */
static _Thread_local char *scratch;
static _Thread_local size_t scratch_size;

static void run_point(void **args) /* args: VALUE point_task, OUT output, IN input... */
{
    const struct point_task *pt = args[0];
    const task_graph_t *g = &graphs[pt->graph];
    const char *in[TIDE_MAX_ARGS];
    size_t in_bytes[TIDE_MAX_ARGS];
    for (int i = 0; i < pt->n_inputs; i++) {
        in[i] = args[2 + i];
        in_bytes[i] = g->output_bytes_per_task;
    }
    if (scratch_size < g->scratch_bytes_per_task) {
        free(scratch);
        scratch = malloc(g->scratch_bytes_per_task);
        if (!scratch) abort(); /* no way to report from a task; Task Bench aborts likewise */
        scratch_size = g->scratch_bytes_per_task;
        task_graph_prepare_scratch(scratch, scratch_size);
    }
    task_graph_execute_point_scratch(*g, pt->timestep, pt->point, args[1], g->output_bytes_per_task,
                                     in, in_bytes, (size_t)pt->n_inputs, scratch,
                                     g->scratch_bytes_per_task);
}

/* One dependence set's intervals for each own point, flattened: point first + i has
 * iv[at[i] .. at[i + 1] - 1]. */
struct deps {
    long *at;
    interval_t *iv;
};

/* The points active at one timestep: [off, end). None outside the graph's timesteps. */
struct span {
    long off, end;
};

/* What Task Bench says of one timestep, asked once per graph before the timesteps (24 bytes a
 * timestep): each of its calls copies the graph's description, about 60 instructions a call, and
 * a timestep needed three. */
struct timestep {
    struct span points;
    long dset;
};

/* One message of a timestep's exchange: the output of `point` one timestep earlier, from or to
 * `peer`. */
struct message {
    long point;
    int peer, recv;
};

/* What decides a timestep's exchange: its dependence set, its points and the last timestep's
 * (the same from one timestep to the next in most patterns). */
struct exchange_key {
    long dset;
    struct span now, before;
};

/* One graph's state on this rank: every point's output of the last `slots` timesteps (only the own
 * block and the remote points it reads are written; two slots, or one more than the timesteps a
 * phase may hold where a timestep of this graph may join a phase), the block this rank owns, and
 * its points' dependencies and reverse dependencies in every dependence set, computed once before
 * the timesteps as Task Bench's MPI implementation caches them (each task_graph_dependencies call
 * allocates its list). */
struct graph_state {
    const task_graph_t *g; /* graphs[its index] */
    long first, last;      /* own points, inclusive */
    long n_dsets;
    struct deps *deps, *rdeps; /* [n_dsets] */
    long slots;
    char **out;              /* [timestep % slots][point * output_bytes] */
    char *reads;             /* [n_dsets]: 1 where some point of the dependence set reads */
    struct span now, before; /* the current timestep's points and the last one's (step_to) */
    long dset;               /* and its dependence set */
    struct timestep *at;     /* [timesteps]: each timestep's points and dependence set */
    char *wanted;            /* exchange's scratch: max_width flags, points already received */
    char *sent_to;           /* ... and ranks flags, the peers an output already went to */
    struct message *msgs;    /* the exchange's messages, receives first (plan_exchange) */
    long n_msgs, msgs_cap;
    struct exchange_key key; /* what they were planned for, where `planned` */
    int planned;
};

static int owner(const task_graph_t *g, long point, int ranks)
{
    /* the inverse of first = r * max_width / ranks */
    int r = (int)((point * ranks + ranks - 1) / g->max_width);
    while (r > 0 && (long)r * g->max_width / ranks > point)
        r--;
    while (r + 1 < ranks && (long)(r + 1) * g->max_width / ranks <= point)
        r++;
    return r;
}

static struct timestep *timesteps_of(const task_graph_t *g)
{
    struct timestep *at = malloc((size_t)g->timesteps * sizeof *at);
    for (long t = 0; at && t < g->timesteps; t++) {
        long off = task_graph_offset_at_timestep(*g, t);
        at[t] = (struct timestep){{off, off + task_graph_width_at_timestep(*g, t)},
                                  task_graph_dependence_set_at_timestep(*g, t)};
    }
    return at;
}

static int in_span(struct span s, long point)
{
    return point >= s.off && point < s.end;
}

/* Timestep t of the graph begins: its points, the last timestep's, and its dependence set. */
static void step_to(struct graph_state *s, long t)
{
    s->before = t > 0 ? s->at[t - 1].points : (struct span){0, 0};
    s->now = s->at[t].points;
    s->dset = s->at[t].dset;
}

/* One direction of the own points' dependencies in every dependence set (reverse: the points
 * that read each own point's output). 0, or -1 out of memory. */
static int cache_deps(struct graph_state *s, int reverse)
{
    const task_graph_t *g = s->g;
    long n = s->last - s->first + 1;
    struct deps *d = calloc((size_t)s->n_dsets, sizeof *d);
    if (!d) return -1;
    if (reverse)
        s->rdeps = d;
    else
        s->deps = d;
    for (long dset = 0; dset < s->n_dsets; dset++) {
        long cap = 0, used = 0;
        d[dset].at = malloc((size_t)(n + 1) * sizeof *d[dset].at);
        if (!d[dset].at) return -1;
        for (long i = 0; i < n; i++) {
            interval_list_t list = reverse ? task_graph_reverse_dependencies(*g, dset, s->first + i)
                                           : task_graph_dependencies(*g, dset, s->first + i);
            long k = interval_list_num_intervals(list);
            if (used + k > cap) {
                cap = 2 * (used + k);
                interval_t *grown = realloc(d[dset].iv, (size_t)cap * sizeof *grown);
                if (!grown) {
                    interval_list_destroy(list);
                    return -1;
                }
                d[dset].iv = grown;
            }
            d[dset].at[i] = used;
            for (long j = 0; j < k; j++)
                d[dset].iv[used++] = interval_list_interval(list, j);
            interval_list_destroy(list);
        }
        d[dset].at[n] = used;
    }
    return 0;
}

static void free_deps(struct deps *d, long n_dsets)
{
    for (long i = 0; d && i < n_dsets; i++) {
        free(d[i].at);
        free(d[i].iv);
    }
    free(d);
}

/* Largest number of dependencies of any point: each becomes a task argument. reads[dset]: whether
 * any point of the dependence set has one (the same on every rank). */
static long max_inputs(const task_graph_t *g, char *reads)
{
    long most = 0;
    for (long dset = 0; dset < task_graph_max_dependence_sets(*g); dset++) {
        reads[dset] = 0;
        for (long p = 0; p < g->max_width; p++) {
            interval_list_t deps = task_graph_dependencies(*g, dset, p);
            long n = 0;
            for (long i = 0; i < interval_list_num_intervals(deps); i++) {
                interval_t iv = interval_list_interval(deps, i);
                n += iv.end - iv.start + 1;
            }
            interval_list_destroy(deps);
            if (n > most) most = n;
            if (n > 0) reads[dset] = 1;
        }
    }
    return most;
}

static void out_of_memory(const char *what)
{ /* messages may be posted already: no clean way back */
    fprintf(stderr, "tide_taskbench: out of memory for %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* The messages of the current timestep's exchange into s->msgs: pass 0, what own points read from
 * other ranks' points (each remote output once, however many own points read it); pass 1, the own
 * outputs of the last timestep that other ranks' points read (once to each peer). */
static void plan_exchange(struct graph_state *s, int ranks)
{
    const task_graph_t *g = s->g;
    struct span now = s->now, before = s->before;
    char *wanted = s->wanted, *sent_to = s->sent_to;
    s->n_msgs = 0;
    memset(wanted, 0, (size_t)g->max_width);
    for (int pass = 0; pass < 2; pass++) {
        const struct deps *d = pass == 0 ? &s->deps[s->dset] : &s->rdeps[s->dset];
        for (long p = s->first; p <= s->last; p++) {
            if (!in_span(pass == 0 ? now : before, p)) continue;
            if (pass == 1) memset(sent_to, 0, (size_t)ranks);
            long i = p - s->first;
            for (long k = d->at[i]; k < d->at[i + 1]; k++) {
                for (long q = d->iv[k].start; q <= d->iv[k].end; q++) {
                    if (q >= s->first && q <= s->last) continue;
                    if (pass == 0 && (!in_span(before, q) || wanted[q])) continue;
                    if (pass == 1 && !in_span(now, q)) continue;
                    int peer = owner(g, q, ranks);
                    if (pass == 1 && sent_to[peer]) continue;
                    if (pass == 0)
                        wanted[q] = 1;
                    else
                        sent_to[peer] = 1;
                    if (s->n_msgs == s->msgs_cap) {
                        long cap = s->msgs_cap ? 2 * s->msgs_cap : 64;
                        struct message *grown = realloc(s->msgs, (size_t)cap * sizeof *grown);
                        if (!grown) out_of_memory("the exchange's messages");
                        s->msgs = grown;
                        s->msgs_cap = cap;
                    }
                    /* the point whose output travels: it names the message (its tag) */
                    s->msgs[s->n_msgs++] = (struct message){pass == 0 ? q : p, peer, pass == 0};
                }
            }
        }
    }
}

/* Before timestep t: the outputs of timestep t - 1 that points of other ranks read, each received
 * into its own place in out[(t - 1) % slots]. The messages are planned again only where the
 * timestep's key differs from the last one's (Task Bench's MPI implementation walks the
 * dependencies every timestep; the walk cost this backend some 300 instructions a timestep on
 * two ranks of `stencil_1d`). */
static void exchange(struct graph_state *s, long t, int ranks, MPI_Request **req, size_t *cap)
{
    if (ranks == 1) return; /* every point is local */
    struct exchange_key key = {s->dset, s->now, s->before};
    if (!s->planned || memcmp(&key, &s->key, sizeof key) != 0) {
        plan_exchange(s, ranks);
        s->key = key;
        s->planned = 1;
    }
    size_t bytes = s->g->output_bytes_per_task, n = (size_t)s->n_msgs;
    if (n > *cap) {
        MPI_Request *grown = realloc(*req, n * sizeof **req);
        if (!grown) out_of_memory("MPI requests");
        *req = grown;
        *cap = n;
    }
    char *prev = s->out[(t - 1) % s->slots];
    for (size_t i = 0; i < n; i++) {
        const struct message *m = &s->msgs[i];
        int tag = (int)(m->point % 32768);
        if (m->recv)
            MPI_Irecv(prev + m->point * bytes, (int)bytes, MPI_BYTE, m->peer, tag, MPI_COMM_WORLD,
                      &(*req)[i]);
        else
            MPI_Isend(prev + m->point * bytes, (int)bytes, MPI_BYTE, m->peer, tag, MPI_COMM_WORLD,
                      &(*req)[i]);
    }
    MPI_Waitall((int)n, *req, MPI_STATUSES_IGNORE);
}

/* Timestep t's tasks of one graph. */
static int submit(struct graph_state *s, long t)
{
    const task_graph_t *g = s->g;
    size_t bytes = g->output_bytes_per_task;
    const struct deps *d = &s->deps[s->dset];
    struct span now = s->now, before = s->before;
    for (long p = s->first; p <= s->last; p++) {
        if (!in_span(now, p)) continue;
        struct point_task pt = {.graph = s->g - graphs, .timestep = t, .point = p};
        tide_arg args[TIDE_MAX_ARGS]; /* only the 2 + n_inputs used: no 768-byte zeroing a task */
        args[0] = (tide_arg){&pt, sizeof pt, TIDE_VALUE};
        args[1] = (tide_arg){s->out[t % s->slots] + p * bytes, bytes, TIDE_OUT};
        long i = p - s->first;
        for (long k = d->at[i]; k < d->at[i + 1]; k++) {
            for (long q = d->iv[k].start; q <= d->iv[k].end; q++) {
                if (!in_span(before, q)) continue;
                args[2 + pt.n_inputs++] =
                    (tide_arg){s->out[(t - 1) % s->slots] + q * bytes, bytes, TIDE_IN};
            }
        }
        /* pt.n_inputs is final now; the VALUE argument is copied at creation */
        tide_task *task;
        int rc = tide_task_create(&task, run_point, 2 + pt.n_inputs, args);
        if (rc == TIDE_OK) rc = tide_task_submit(task);
        if (rc != TIDE_OK) return rc;
    }
    return TIDE_OK;
}

/* Whether timestep t may join the open phase: no point of any graph still running reads. */
static int joins(struct graph_state *gs, long n_graphs, long t, long steps)
{
    if (t >= steps) return 0;
    for (long i = 0; i < n_graphs; i++)
        if (t < gs[i].g->timesteps && gs[i].reads[gs[i].at[t].dset]) return 0;
    return 1;
}

/* Takes "-phase-steps K" out of argv (Task Bench's parser refuses flags it does not know).
 * Returns K (default 64), or 0 after a line on rank 0 for a bad value. */
static long phase_steps_arg(int *argc, char **argv, int rank)
{
    long k = 64;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "-phase-steps") != 0) continue;
        char *end = NULL;
        k = i + 1 < *argc ? strtol(argv[i + 1], &end, 10) : 0;
        if (!end || *end || k < 1 || k > 4096) {
            if (rank == 0)
                fprintf(stderr,
                        "tide_taskbench: -phase-steps takes an integer in [1, 4096], got "
                        "'%s'\n",
                        i + 1 < *argc ? argv[i + 1] : "");
            return 0;
        }
        int drop = 2;
        for (int j = i; j + drop <= *argc; j++)
            argv[j] = argv[j + drop];
        *argc -= drop;
        i--;
    }
    return k;
}

int main(int argc, char **argv)
{
    if (tide_init(&argc, &argv) != TIDE_OK) return 2; /* it printed why */
    int rank = tide_rank(), ranks = tide_size();
    long phase_steps = phase_steps_arg(&argc, argv, rank);
    if (!phase_steps) {
        tide_finalize();
        return 2;
    }
    app_t app = app_create(argc, argv);
    task_graph_list_t list = app_task_graphs(app);
    long n_graphs = task_graph_list_num_task_graphs(list), steps = 0;
    struct graph_state *gs = calloc((size_t)n_graphs, sizeof *gs);
    graphs = calloc((size_t)n_graphs, sizeof *graphs);
    int bad = 0; /* 1: a Tide call failed (tide_last_error_message says why), 2: said already */
    if (!gs || !graphs) {
        fprintf(stderr, "tide_taskbench: rank %d: out of memory for %ld graphs\n", rank, n_graphs);
        bad = 2;
    }
    /* At most 65,536 tasks in a phase of joined timesteps (their outputs need a slot each). */
    long width = 0;
    for (long i = 0; !bad && i < n_graphs; i++)
        width += task_graph_list_task_graph(list, i).max_width;
    if (width > 0 && phase_steps > 65536 / width)
        phase_steps = 65536 / width > 1 ? 65536 / width : 1;
    for (long i = 0; !bad && i < n_graphs; i++) {
        struct graph_state *s = &gs[i];
        graphs[i] = task_graph_list_task_graph(list, i);
        s->g = &graphs[i];
        s->first = rank * s->g->max_width / ranks;
        s->last = (rank + 1) * s->g->max_width / ranks - 1;
        s->n_dsets = task_graph_max_dependence_sets(*s->g);
        s->reads = malloc((size_t)s->n_dsets);
        if (!s->reads) {
            fprintf(stderr, "tide_taskbench: rank %d: out of memory for graph %ld\n", rank, i);
            bad = 2;
            break;
        }
        long inputs = max_inputs(s->g, s->reads);
        if (inputs > TIDE_MAX_ARGS - 2) {
            if (rank == 0)
                fprintf(stderr,
                        "tide_taskbench: graph %ld: a point has %ld dependencies, Tide tasks take "
                        "at most %d inputs (patterns such as all_to_all are not supported)\n",
                        i, inputs, TIDE_MAX_ARGS - 2);
            bad = 2;
            break;
        }
        s->slots = 2;
        for (long d = 0; d < s->n_dsets; d++)
            if (!s->reads[d] && phase_steps + 1 > s->slots) s->slots = phase_steps + 1;
        int oom = !(s->out = calloc((size_t)s->slots, sizeof *s->out));
        for (long k = 0; !oom && k < s->slots; k++) {
            s->out[k] = calloc((size_t)s->g->max_width, s->g->output_bytes_per_task);
            oom |= !s->out[k];
        }
        s->wanted = malloc((size_t)s->g->max_width);
        s->sent_to = malloc((size_t)ranks);
        oom |= !s->wanted || !s->sent_to;
        oom |= cache_deps(s, 0) != 0 || cache_deps(s, 1) != 0 || !(s->at = timesteps_of(s->g));
        if (oom) {
            fprintf(stderr, "tide_taskbench: rank %d: out of memory for graph %ld\n", rank, i);
            bad = 2;
        }
        if (s->g->timesteps > steps) steps = s->g->timesteps;
    }
    /* A rank that failed its setup (out of memory) stops every rank, which would else wait for
     * it in the first barrier. */
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Request *req = NULL;
    size_t cap = 0;
    double elapsed = 0;
    /* Two runs as Task Bench's MPI implementation does: the first warms up, the second is timed. */
    for (int run = 0; !bad && run < 2; run++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        long held = 0; /* timesteps in the open phase */
        for (long t = 0; !bad && t < steps; t++) {
            for (long i = 0; !bad && i < n_graphs; i++) {
                if (t >= gs[i].g->timesteps) continue;
                step_to(&gs[i], t);
                if (t > 0) exchange(&gs[i], t, ranks, &req, &cap);
                if (submit(&gs[i], t) != TIDE_OK) bad = 1;
            }
            if (++held < phase_steps && joins(gs, n_graphs, t + 1, steps)) continue;
            held = 0;
            if (!bad && tide_taskwait() != TIDE_OK) bad = 1;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        elapsed = MPI_Wtime() - start;
    }
    if (bad == 1) fprintf(stderr, "tide_taskbench: rank %d: %s\n", rank, tide_last_error_message());
    if (!bad && rank == 0) app_report_timing(app, elapsed);
    for (long i = 0; gs && i < n_graphs; i++) {
        for (long k = 0; gs[i].out && k < gs[i].slots; k++)
            free(gs[i].out[k]);
        free(gs[i].out);
        free(gs[i].reads);
        free(gs[i].at);
        free(gs[i].wanted);
        free(gs[i].sent_to);
        free(gs[i].msgs);
        free_deps(gs[i].deps, gs[i].n_dsets);
        free_deps(gs[i].rdeps, gs[i].n_dsets);
    }
    free(gs);
    free(graphs);
    free(req);
    task_graph_list_destroy(list);
    app_destroy(app);
    tide_finalize();
    return bad ? 2 : 0;
}
