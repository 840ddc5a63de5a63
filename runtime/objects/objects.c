/* Persistent migratable objects: the public API and one iteration (docs/objects.md).
 *
 * An iteration runs every local object as an ordinary Tide task (state INOUT, sorted inbox IN,
 * a small header VALUE, its measured time and the rank that ran it OUT), so worker threads,
 * offloading and exactly-once execution come from the task layer. Afterwards the comm thread,
 * on a communicator of the layer's own, keeps only the messages of the copies whose results
 * were kept (once.c), folds them into the communication graph, reschedules when due,
 * and routes the messages by the mapping that is current then: a message therefore follows an
 * object that just migrated without ever being forwarded. */
#include "layer.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

static tide_objects_layer *layer;
static pthread_mutex_t layer_lock = PTHREAD_MUTEX_INITIALIZER;

/* The object whose iteration function runs on this thread (tide_object_send's context). */
static _Thread_local struct {
    bool active;
    int64_t id;
    uint32_t seq;
} current;

/* The VALUE argument of an object's task. */
typedef struct task_hdr {
    int64_t id, iteration;
    uint64_t state_size, nmsgs, inbox_len;
    tide_fnid fnid;
    tide_object_fn fn; /* valid on the origin rank only */
    int32_t origin, pad;
} task_hdr;

static void object_task(void **args)
{
    unsigned char *state = args[0];
    const unsigned char *inbox = args[1];
    const task_hdr *h = args[2];
    tide_obj_ran *ran = args[3];
    tide_object_fn fn = h->fn;
    int me = tide_rank();
    if (h->origin != me) {
        tide_task_fn f = tide_fnid_resolve(h->fnid);
        if (!f)
            tide_fatal("objects: object %lld's function is not in this process", (long long)h->id);
        fn = (tide_object_fn)(void (*)(void))f;
    }
    tide_object_msg *msgs = malloc((size_t)(h->nmsgs + 1) * sizeof *msgs);
    TIDE_OBJ_NEED(msgs);
    size_t off = 0;
    for (uint64_t i = 0; i < h->nmsgs; i++) {
        tide_obj_msghdr m;
        if (h->inbox_len - off < sizeof m) tide_fatal("objects: truncated inbox");
        memcpy(&m, inbox + off, sizeof m);
        if (m.size > h->inbox_len - off - sizeof m) tide_fatal("objects: inbox record overruns");
        msgs[i] = (tide_object_msg){m.from, m.size ? inbox + off + sizeof m : NULL, m.size};
        off += TIDE_OBJ_REC(m.size);
    }
    tide_object_info info = {h->id, h->iteration, me};
    current.active = true;
    current.id = h->id;
    current.seq = 0;
    double t0 = tide_now();
    fn(state, h->state_size, msgs, h->nmsgs, &info);
    *ran = (tide_obj_ran){.time = tide_now() - t0, .rank = me};
    current.active = false;
    free(msgs);
    if (h->origin != me) tide_objonce_ran_here(layer, h->id);
}

static tide_objects_layer *layer_get(void)
{
    pthread_mutex_lock(&layer_lock);
    if (!layer) {
        layer = calloc(1, sizeof *layer);
        if (layer) {
            /* The engine finalizes the layer if the program did not: it calls up through this
             * hook rather than knowing the layer above it. */
            tide_rt_global->finalize_layer = tide_objects_finalize;
            pthread_mutex_init(&layer->pending_lock, NULL);
            pthread_mutex_init(&layer->out_lock, NULL);
            layer->comm = MPI_COMM_NULL;
        }
    }
    pthread_mutex_unlock(&layer_lock);
    return layer;
}

static int check_usable(const char *fn)
{
    if (!tide_rt_global) return tide_fail(TIDE_ERR_STATE, "%s before tide_init", fn);
    if (current.active)
        return tide_fail(TIDE_ERR_STATE, "%s inside an object's iteration function", fn);
    if (layer && layer->broken)
        return tide_fail(TIDE_ERR_STATE, "%s: the objects layer failed earlier: %s", fn,
                         layer->broken_msg);
    return TIDE_OK;
}

int tide_object_create(int64_t id, const void *state, size_t state_size, tide_object_fn fn)
{
    int rc = check_usable("tide_object_create");
    if (rc != TIDE_OK) return rc;
    if (!fn)
        return tide_fail(TIDE_ERR_INVALID, "tide_object_create: object %lld has no function",
                         (long long)id);
    if (state_size && !state)
        return tide_fail(TIDE_ERR_INVALID,
                         "tide_object_create: object %lld: state is NULL with size %zu",
                         (long long)id, state_size);
    if (atomic_load(&tide_rt_global->in_taskwait))
        return tide_fail(TIDE_ERR_STATE, "tide_object_create during an iteration");
    tide_fnid fnid;
    rc = tide_fnid_of((tide_task_fn)(void (*)(void))fn, &fnid);
    if (rc != TIDE_OK) return rc;
    tide_objects_layer *L = layer_get();
    if (!L) return tide_fail(TIDE_ERR_NOMEM, "tide_object_create: out of memory");
    int64_t k = tide_objdir_find(L, id);
    if (k >= 0)
        return tide_fail(TIDE_ERR_INVALID,
                         "tide_object_create: object id %lld already exists (on rank %d)",
                         (long long)id, L->dir_owner[k]);
    tide_obj *o = calloc(1, sizeof *o);
    if (o) o->state = malloc(state_size + 1);
    if (!o || !o->state) {
        tide_obj_free(o);
        return tide_fail(TIDE_ERR_NOMEM, "tide_object_create: out of memory");
    }
    if (state_size) memcpy(o->state, state, state_size);
    o->id = id;
    o->size = state_size;
    o->fn = fn;
    o->fnid = fnid;
    pthread_mutex_lock(&L->pending_lock);
    bool ok =
        tide_obj_grow((void **)&L->pending, &L->pending_cap, L->npending + 1, sizeof *L->pending);
    if (ok) L->pending[L->npending++] = o;
    pthread_mutex_unlock(&L->pending_lock);
    if (!ok) {
        tide_obj_free(o);
        return tide_fail(TIDE_ERR_NOMEM, "tide_object_create: out of memory");
    }
    return TIDE_OK;
}

int tide_object_send(int64_t from_id, int64_t to_id, const void *data, size_t size)
{
    if (!current.active)
        return tide_fail(TIDE_ERR_STATE, "tide_object_send outside an object's iteration function "
                                         "(messages are sent by objects while they iterate)");
    if (from_id != current.id)
        return tide_fail(TIDE_ERR_INVALID,
                         "tide_object_send: from_id %lld is not the iterating object %lld",
                         (long long)from_id, (long long)current.id);
    if (size && !data)
        return tide_fail(TIDE_ERR_INVALID, "tide_object_send: data is NULL with size %zu", size);
    tide_objects_layer *L = layer;
    if (tide_objdir_find(L, to_id) < 0)
        return tide_fail(TIDE_ERR_INVALID,
                         "tide_object_send: unknown target object id %lld (from %lld)",
                         (long long)to_id, (long long)from_id);
    tide_obj_msghdr h = {from_id, to_id, current.seq, 0, size};
    size_t rec = TIDE_OBJ_REC(size);
    pthread_mutex_lock(&L->out_lock);
    bool ok = tide_obj_buf_reserve(&L->out, rec);
    if (ok) {
        unsigned char *p = L->out.data + L->out.len;
        memcpy(p, &h, sizeof h);
        if (size) memcpy(p + sizeof h, data, size);
        memset(p + sizeof h + size, 0, rec - sizeof h - size);
        L->out.len += rec;
        L->nout++;
    }
    pthread_mutex_unlock(&L->out_lock);
    if (!ok) return tide_fail(TIDE_ERR_NOMEM, "tide_object_send: out of memory");
    current.seq++;
    return TIDE_OK;
}

static void layer_start(tide_objects_layer *L)
{
    tide_rt *rt = tide_rt_global;
    MPI_Comm_dup(rt->mpi_comm, &L->comm);
    L->rank = rt->rank;
    L->size = rt->size;
    if (!L->lb) {
        L->lb = tide_global_find(rt->cfg.global_lb);
        L->period = rt->cfg.lb_period;
    }
    L->started = true;
}

/* The layer's collective steps. They call MPI, so they run on the comm thread (tide_comm_call),
 * between phases, while the application thread waits. */
typedef struct layer_step {
    tide_objects_layer *L;
    int rc;
    double load_self;
} layer_step;

static void register_step(void *arg)
{
    layer_step *s = arg;
    if (!s->L->started) layer_start(s->L);
    s->rc = tide_objdir_register(s->L);
}

/* The registry index of the layer's strategy (the same on every rank: one binary). */
static long long lb_index(const tide_objects_layer *L)
{
    size_t n;
    const tide_global_strategy *const *all = tide_global_strategies(&n);
    for (size_t i = 0; i < n; i++)
        if (all[i] == L->lb) return (long long)i;
    return -1;
}

/* Whether every rank reschedules alike: the same strategy and period (tide_objects_set_lb), and
 * as many iterations since the last rescheduling. A rank that called tide_objects_set_lb
 * differently, or between other iterations, would otherwise enter the rescheduling's collectives
 * alone and hang every rank. On a difference every rank breaks the layer with the same line,
 * naming the first rank that differs from rank 0; no rank reschedules. */
static bool lb_agreed(tide_objects_layer *L)
{
    long long mine[3] = {lb_index(L), L->period, (long long)L->window};
    if (tide_agree_values(L->comm, mine, 3, NULL, NULL) < 0) return true;
    long long *all = malloc((size_t)L->size * sizeof mine);
    TIDE_OBJ_NEED(all);
    MPI_Allgather(mine, 3, MPI_LONG_LONG, all, 3, MPI_LONG_LONG, L->comm);
    int r = 1;
    while (r < L->size - 1 && memcmp(all + 3 * r, all, sizeof mine) == 0)
        r++;
    size_t n;
    const tide_global_strategy *const *reg = tide_global_strategies(&n);
    const char *name[2];
    for (int k = 0; k < 2; k++) {
        long long i = all[3 * (k ? r : 0)];
        name[k] = i >= 0 && (size_t)i < n ? reg[i]->name : "?";
    }
    snprintf(L->broken_msg, sizeof L->broken_msg,
             "the ranks reschedule objects differently at iteration %lld: rank 0 '%s' every %lld "
             "iterations, %lld since the last rescheduling; rank %d '%s' every %lld, %lld since "
             "(tide_objects_set_lb must be called alike on every rank, between the same "
             "iterations)",
             (long long)L->iteration, name[0], all[1], all[2], r, name[1], all[3 * r + 1],
             all[3 * r + 2]);
    L->broken = true;
    free(all);
    return false;
}

static void reschedule_and_route_step(void *arg)
{
    layer_step *s = arg;
    tide_objects_layer *L = s->L;
    tide_objonce_settle(L);
    tide_objmsg_count(L);
    L->window++;
    if (!lb_agreed(L))
        s->rc = TIDE_ERR_INVALID;
    else if (L->lb->plan != tide_global_none && L->window >= L->period)
        tide_objlb_run(L,
                       tide_rt_global->cfg.seed * 0x9e3779b97f4a7c15ull + (uint64_t)L->iteration);
    int64_t delivered, bytes;
    tide_objmsg_route(L, &delivered, &bytes);
    tide_objstats_iteration(L, s->load_self, delivered, bytes);
}

static void close_step(void *arg)
{
    layer_step *s = arg;
    tide_objstats_gather_last(s->L);
    MPI_Comm_free(&s->L->comm);
}

static void submit_objects(tide_objects_layer *L)
{
    for (int64_t i = 0; i < L->nloc; i++) {
        tide_obj *o = L->loc[i];
        tide_objmsg_take_inbox(o);
        o->ran = (tide_obj_ran){.time = 0, .rank = -1};
        task_hdr h = {.id = o->id,
                      .iteration = L->iteration,
                      .state_size = o->size,
                      .nmsgs = o->nrunning,
                      .inbox_len = o->running.len,
                      .fnid = o->fnid,
                      .fn = o->fn,
                      .origin = L->rank};
        tide_arg args[4] = {{o->state, o->size, TIDE_INOUT},
                            {o->running.data, o->running.len, TIDE_IN},
                            {&h, sizeof h, TIDE_VALUE},
                            {&o->ran, sizeof o->ran, TIDE_OUT}};
        tide_task *t;
        if (tide_task_create(&t, object_task, 4, args) != TIDE_OK || tide_task_submit(t) != TIDE_OK)
            tide_fatal("objects: cannot submit object %lld: %s", (long long)o->id,
                       tide_last_error_message());
    }
}

int tide_objects_iterate(void)
{
    int rc = check_usable("tide_objects_iterate");
    if (rc != TIDE_OK) return rc;
    if (omp_in_parallel() || atomic_load(&tide_rt_global->in_taskwait))
        return tide_fail(TIDE_ERR_STATE, "tide_objects_iterate inside a parallel region or a "
                                         "taskwait; call it from one thread per rank");
    tide_objects_layer *L = layer_get();
    if (!L) return tide_fail(TIDE_ERR_NOMEM, "tide_objects_iterate: out of memory");
    layer_step step = {.L = L};
    tide_comm_call(tide_rt_global, register_step, &step);
    if (step.rc != TIDE_OK) /* the detail was recorded on the comm thread */
        return tide_fail(step.rc, "tide_objects_iterate: %s", L->broken_msg);

    submit_objects(L);
    rc = tide_taskwait();
    if (rc != TIDE_OK) tide_fatal("objects: tide_taskwait failed: %s", tide_last_error_message());
    for (int64_t i = 0; i < L->nloc; i++) {
        tide_obj *o = L->loc[i];
        o->load_sum += o->ran.time;
        o->load_n++;
        step.load_self += o->ran.time;
        o->running.len = 0;
        o->nrunning = 0;
    }
    tide_comm_call(tide_rt_global, reschedule_and_route_step, &step);
    L->iteration++;
    if (step.rc != TIDE_OK) return tide_fail(step.rc, "tide_objects_iterate: %s", L->broken_msg);
    return TIDE_OK;
}

int tide_object_state(int64_t id, void **state, size_t *state_size)
{
    int rc = check_usable("tide_object_state");
    if (rc != TIDE_OK) return rc;
    if (!state || !state_size) return tide_fail(TIDE_ERR_INVALID, "tide_object_state: NULL output");
    tide_obj *o = layer ? tide_objloc_find(layer, id) : NULL;
    if (!o) {
        int64_t k = layer ? tide_objdir_find(layer, id) : -1;
        if (k >= 0)
            return tide_fail(TIDE_ERR_INVALID, "tide_object_state: object %lld lives on rank %d",
                             (long long)id, layer->dir_owner[k]);
        return tide_fail(TIDE_ERR_INVALID,
                         "tide_object_state: no registered object %lld here "
                         "(objects are registered by tide_objects_iterate)",
                         (long long)id);
    }
    *state = o->state;
    *state_size = o->size;
    return TIDE_OK;
}

int tide_objects_local(int64_t *ids, size_t cap, size_t *n)
{
    int rc = check_usable("tide_objects_local");
    if (rc != TIDE_OK) return rc;
    if (!n || (cap && !ids)) return tide_fail(TIDE_ERR_INVALID, "tide_objects_local: NULL output");
    size_t have = layer ? (size_t)layer->nloc : 0;
    for (size_t i = 0; i < have && i < cap; i++)
        ids[i] = layer->loc[i]->id;
    *n = have;
    return TIDE_OK;
}

int tide_objects_set_lb(const char *strategy, int period)
{
    int rc = check_usable("tide_objects_set_lb");
    if (rc != TIDE_OK) return rc;
    const tide_global_strategy *s = strategy ? tide_global_find(strategy) : NULL;
    if (!s || period < 1) {
        char names[192];
        tide_global_names(names, sizeof names);
        return tide_fail(TIDE_ERR_INVALID,
                         "tide_objects_set_lb('%s', %d): expected a strategy among %s and a "
                         "period >= 1",
                         strategy ? strategy : "(null)", period, names);
    }
    tide_objects_layer *L = layer_get();
    if (!L) return tide_fail(TIDE_ERR_NOMEM, "tide_objects_set_lb: out of memory");
    L->lb = s;
    L->period = period;
    L->window = 0;
    return TIDE_OK;
}

int tide_objects_stats_get(tide_objects_stats *out)
{
    if (!out) return tide_fail(TIDE_ERR_INVALID, "tide_objects_stats_get: out is NULL");
    if (!tide_rt_global)
        return tide_fail(TIDE_ERR_STATE, "tide_objects_stats_get before tide_init");
    memset(out, 0, sizeof *out);
    if (!layer) return TIDE_OK;
    *out = layer->st;
    out->objects = layer->ndir;
    out->objects_self = layer->nloc;
    return TIDE_OK;
}

static void layer_free(tide_objects_layer *L)
{
    for (int64_t i = 0; i < L->nloc; i++)
        tide_obj_free(L->loc[i]);
    for (int64_t i = 0; i < L->npending; i++)
        tide_obj_free(L->pending[i]);
    free(L->loc);
    free(L->pending);
    free(L->dir_id);
    free(L->dir_size);
    free(L->dir_owner);
    free(L->out.data);
    free(L->edges);
    free(L->ran_here);
    free(L->hist);
    free(L->iter_load);
    tide_objstats_free_last(L);
    pthread_mutex_destroy(&L->pending_lock);
    pthread_mutex_destroy(&L->out_lock);
    free(L);
}

/* Rank 0: the TIDE_OBJECTS_STATS document, into the file tide_init opened. */
static int write_report(const tide_objects_layer *L)
{
    tide_outfile *out = &tide_rt_global->objects_stats_file;
    FILE *f = tide_outfile_begin(out);
    if (!f) return TIDE_ERR_INVALID;
    tide_objstats_write_json(L, f);
    return tide_outfile_end(out, f);
}

int tide_objects_finalize(void)
{
    if (!tide_rt_global) return tide_fail(TIDE_ERR_STATE, "tide_objects_finalize before tide_init");
    if (current.active)
        return tide_fail(TIDE_ERR_STATE,
                         "tide_objects_finalize inside an object's iteration function");
    pthread_mutex_lock(&layer_lock);
    tide_objects_layer *L = layer;
    layer = NULL;
    pthread_mutex_unlock(&layer_lock);
    if (!L) return TIDE_OK;
    int rc = TIDE_OK;
    if (L->started) {
        const tide_config *cfg = &tide_rt_global->cfg;
        layer_step step = {.L = L};
        tide_comm_call(tide_rt_global, close_step, &step);
        if (L->rank == 0 && cfg->objects_stats_path[0]) rc = write_report(L);
        if (L->rank == 0 && !cfg->quiet) tide_objstats_print(L, stdout);
    }
    layer_free(L);
    return rc;
}
