/* Collectives: the comm thread's allgathers (status rounds, the records at phase end, a
 * strategy's allgatherv), non-blocking as in libtide (MPI_Iallgather + MPI_Test): a rank posts
 * its part and goes on with its loop; the collective completes when the last rank has posted
 * plus the time of a recursive-doubling allgather, ceil(log2 P) latencies plus the gathered
 * bytes over the bandwidth of the path between the first and the last rank's hosts. Its
 * messages are not simulated one by one: at 1024 ranks and a round every 500 us they would
 * outnumber everything else by far (docs/sim.md, "What is modelled"). */
#include "sim.h"

#include <cmath>
#include <cstring>

/* In turn: a rank's result of collective k stays valid until it posts k+SLOTS-1 (collective
 * k+SLOTS reuses the slot, and cannot start before every rank posted k+SLOTS-1). The strategy
 * reads the status collective's result in place while it takes its own collectives (a plan's
 * allgathervs), so it may take up to SLOTS - 1 of them per status round (checked). */
#define SLOTS 8

typedef struct coll_op {
    long seq = -1;
    int arrived = 0;
    double done_at = INFINITY;
    std::vector<double> data;
    std::vector<long> displ;
    tide_lb_orders orders = {}; /* of a status collective's result: one sort for every rank */
} coll_op;

static coll_op slots[SLOTS];

static void slots_clear(void)
{
    for (coll_op &op : slots) {
        tide_lb_orders_free(&op.orders);
        op = coll_op{};
    }
}

void sim_coll_init(sim *S)
{
    slots_clear();
    sg::Host *a = S->ranks.front().host, *b = S->ranks.back().host;
    std::vector<sg::Link *> links;
    double lat = 0;
    a->route_to(b, links, &lat);
    double bw = INFINITY;
    for (sg::Link *l : links)
        if (l->get_bandwidth() < bw) bw = l->get_bandwidth();
    S->coll_lat = lat;
    S->coll_bw = std::isfinite(bw) && bw > 0 ? bw : 1e12;
}

void sim_coll_free(void)
{
    slots_clear();
}

/* Recursive doubling's steps among P ranks: ceil(log2 P). */
static int doubling_steps(int P)
{
    int steps = 0;
    while ((1L << steps) < P)
        steps++;
    return steps;
}

double sim_allgather_time(int P, double lat, double bw, double bytes)
{
    if (P < 2) return 0;
    return doubling_steps(P) * lat + bytes * (P - 1) / P / bw;
}

double sim_allreduce_time(int P, double lat, double bw, double bytes)
{
    if (P < 2) return 0;
    return doubling_steps(P) * (lat + bytes / bw);
}

/* An allgather of `bytes` in all, or (reduce > 0) an allreduce of reduce bytes. */
static double coll_cost(const sim *S, double bytes, double reduce)
{
    if (S->P < 2) return 0;
    return S->coll_overhead + (reduce > 0
                                   ? sim_allreduce_time(S->P, S->coll_lat, S->coll_bw, reduce)
                                   : sim_allgather_time(S->P, S->coll_lat, S->coll_bw, bytes));
}

static void post(sim_rank *R, const double *mine, int n, const int *counts, int reduce)
{
    sim *S = R->S;
    coll_op *op = &slots[R->coll_seq % SLOTS];
    if (op->seq != R->coll_seq) { /* the first rank here sets it up */
        op->seq = R->coll_seq;
        op->arrived = 0;
        op->done_at = INFINITY;
        op->displ.assign((size_t)S->P + 1, 0);
        for (int i = 0; i < S->P; i++)
            op->displ[(size_t)i + 1] = op->displ[(size_t)i] + (counts ? counts[i] : n);
        op->data.assign((size_t)op->displ[(size_t)S->P], 0.0);
        tide_lb_orders_forget(&op->orders);
    }
    if (n > 0) memcpy(&op->data[(size_t)op->displ[(size_t)R->id]], mine, (size_t)n * sizeof *mine);
    if (++op->arrived < S->P) return;
    op->done_at =
        sg::Engine::get_clock() + coll_cost(S, 8.0 * (double)op->data.size(), 8.0 * reduce);
    for (sim_rank &r : S->ranks)
        sim_wake_comm(&r);
}

void sim_coll_post(sim_rank *R, const double *mine, int n, const int *counts)
{
    post(R, mine, n, counts, 0);
}

void sim_coll_post_reduce(sim_rank *R, const double *mine, int k, int n)
{
    post(R, mine, k, nullptr, n);
}

static coll_op *current(const sim_rank *R)
{
    coll_op *op = &slots[R->coll_seq % SLOTS];
    return op->seq == R->coll_seq ? op : nullptr;
}

/* A rank sees the collective complete at its comm thread's first turn after it did. */
double sim_coll_deadline(const sim_rank *R)
{
    const coll_op *op = current(R);
    return op && op->arrived == R->S->P ? sim_next_poll(R, op->done_at) : INFINITY;
}

bool sim_coll_done(const sim_rank *R)
{
    return sg::Engine::get_clock() >= sim_coll_deadline(R);
}

const double *sim_coll_take(sim_rank *R)
{
    const coll_op *op = current(R);
    R->coll_seq++;
    sim_mark_active(R);
    return op->data.data();
}

tide_lb_orders *sim_coll_orders(const double *result)
{
    for (coll_op &op : slots)
        if (!op.data.empty() && op.data.data() == result) return &op.orders;
    return nullptr;
}

const double *sim_coll_wait(sim_rank *R)
{
    R->coll_waiting = true;
    while (!sim_coll_done(R))
        sim_wait_event(R, sim_coll_deadline(R));
    R->coll_waiting = false;
    return sim_coll_take(R);
}

/* A blocking collective (MPI_Allgather on the application thread, libtide's inline phases):
 * it returns when the collective completes, not at a comm thread's turn. */
const double *sim_coll_block(sim_rank *R)
{
    auto done_at = [R]() {
        const coll_op *op = current(R);
        return op && op->arrived == R->S->P ? op->done_at : INFINITY;
    };
    R->coll_waiting = true;
    while (sg::Engine::get_clock() < done_at())
        sim_wait_event(R, done_at());
    R->coll_waiting = false;
    return sim_coll_take(R);
}

void sim_coll_allgatherv(sim_rank *R, const double *mine, int n, const int *counts, double *out)
{
    if (R->coll_seq - R->status_seq >= SLOTS) {
        fprintf(stderr,
                "tide-sim: rank %d: strategy %s takes more than %d collectives after a status "
                "round, whose result it still reads: raise SLOTS in coll.cpp\n",
                R->id, R->S->ops->name, SLOTS - 1);
        exit(70);
    }
    sim_coll_post(R, mine, n, counts);
    const double *all = sim_coll_wait(R);
    long total = 0;
    for (int i = 0; i < R->S->P; i++)
        total += counts[i];
    memcpy(out, all, (size_t)total * sizeof *out);
}
