/* The send scheduler's decisions (tide_core_send.h): admission, package sizes, the round-robin
 * passes and their cursor, the throttle, and which queued tasks are taken back first. */
#include "check.h"
#include "tide_core_send.h"

#include <stdlib.h>

#define MB (1ull << 20)

static void admission(void)
{
    CHECK(tide_send_fits(0, 100 * MB, 16 * MB)); /* nothing in flight: even a huge message */
    CHECK(tide_send_fits(15 * MB, MB, 16 * MB)); /* exactly at the bound */
    CHECK(!tide_send_fits(15 * MB, MB + 1, 16 * MB));
    CHECK(!tide_send_fits(1, 16 * MB, 16 * MB));
}

/* Tasks taken from a queue of n tasks of sz bytes. */
static int pack(bool packed, uint64_t pack_max, uint64_t max_inflight, double inflight, double sz,
                int n, double *len)
{
    tide_send_pack p = tide_send_pack_begin(packed, pack_max, max_inflight, 32, inflight);
    for (int i = 0; i < n; i++)
        if (!tide_send_pack_add(&p, sz)) break;
    *len = p.len;
    return p.n;
}

static void package_sizes(void)
{
    double len;
    /* rr: one task a message, whatever fits. */
    CHECK_EQ_I64(pack(false, MB, 16 * MB, 0, 1000, 10, &len), 1);
    CHECK(len == 32 + 1000);
    /* packed: up to TIDE_PACK_MAX (1 MB < 16 MB / 8): 3 tasks of 300 kB and the header. */
    CHECK_EQ_I64(pack(true, MB, 16 * MB, 0, 300000, 10, &len), 3);
    CHECK(len == 32 + 900000);
    /* packed: an eighth of the bound when that is smaller (4 MB / 8 = 512 kB): 1 task. */
    CHECK_EQ_I64(pack(true, MB, 4 * MB, 0, 300000, 10, &len), 1);
    /* packed: at most TIDE_SEND_PACK_TASKS, however small. */
    CHECK_EQ_I64(pack(true, MB, 16 * MB, 0, 10, 1000, &len), TIDE_SEND_PACK_TASKS);
    /* packed: the bytes in flight leave room for 2 of them. */
    CHECK_EQ_I64(pack(true, MB, 16 * MB, 16 * MB - 700000, 300000, 10, &len), 2);
    /* a task larger than the bound leaves alone when nothing else is in flight... */
    CHECK_EQ_I64(pack(true, MB, 16 * MB, 0, 20.0 * MB, 10, &len), 1);
    CHECK_EQ_I64(pack(false, MB, 16 * MB, 0, 20.0 * MB, 10, &len), 1);
    /* ... and waits when something is. */
    CHECK_EQ_I64(pack(true, MB, 16 * MB, 1, 20.0 * MB, 10, &len), 0);
    CHECK_EQ_I64(pack(false, MB, 16 * MB, 16 * MB - 100, 1000, 10, &len), 0);
    /* a task larger than a package leaves alone, and closes it. */
    CHECK_EQ_I64(pack(true, MB, 16 * MB, 0, 2.0 * MB, 10, &len), 1);
    /* fractional sizes (tide-sim's averaged ones) go through the same arithmetic */
    CHECK_EQ_I64(pack(true, 1000, 16 * MB, 0, 322.5, 10, &len), 3);
    CHECK(len == 32 + 3 * 322.5);
}

/* Rank 0 of 4 offloads rr, 3 tasks to each of 1, 2, 3; the in-flight bound admits two messages
 * per turn, and all of a turn's sends complete before the next. Every turn a dense driver (it
 * tries every destination, as libtide) runs its passes from the cursor; the sends must go
 * round-robin across the turns, 1 2 | 3 1 | 2 3 | ..., not restart at rank 1 each turn. */
static void cursor_resumes_where_the_bound_cut_the_pass(void)
{
    int queued[4] = {0, 3, 3, 3};
    int cursor = 0, order[9], nsent = 0;
    for (int turn = 0; turn < 10 && nsent < 9; turn++) {
        int admitted = 2;
        tide_send_pass pass = tide_send_pass_begin(cursor, 4);
        for (int d = pass.next; tide_send_pass_try(&pass, d); d = pass.next)
            if (queued[d] > 0 && admitted > 0) {
                queued[d]--;
                admitted--;
                order[nsent++] = d;
                tide_send_pass_sent(&pass);
            }
        cursor = tide_send_pass_cursor(&pass);
    }
    const int want[9] = {1, 2, 3, 1, 2, 3, 1, 2, 3};
    CHECK_EQ_I64(nsent, 9);
    for (int i = 0; i < 9; i++)
        CHECK_EQ_I64(order[i], want[i]);
    /* within one turn with room for all, the passes go on: 1 2 3 1 2 3 1 2 3 */
    int q[4] = {0, 3, 3, 3};
    tide_send_pass pass = tide_send_pass_begin(2, 4);
    nsent = 0;
    for (int d = pass.next; tide_send_pass_try(&pass, d); d = pass.next)
        if (q[d] > 0) {
            q[d]--;
            order[nsent++] = d;
            tide_send_pass_sent(&pass);
        }
    const int want2[9] = {2, 3, 1, 2, 3, 1, 2, 3, 1};
    CHECK_EQ_I64(nsent, 9);
    for (int i = 0; i < 9 && i < nsent; i++)
        CHECK_EQ_I64(order[i], want2[i]);
    CHECK_EQ_I64(tide_send_pass_cursor(&pass), 2); /* after 1, the last served */
}

/* A pass that sends nothing leaves the cursor where it was. */
static void idle_pass_keeps_the_cursor(void)
{
    for (int c = 0; c < 5; c++) {
        tide_send_pass pass = tide_send_pass_begin(c, 5);
        int tries = 0;
        for (int d = pass.next; tide_send_pass_try(&pass, d); d = pass.next)
            tries++;
        CHECK_EQ_I64(tries, 5);
        CHECK_EQ_I64(tide_send_pass_cursor(&pass), c);
    }
}

/* A sparse driver (tide-sim: it tries only the destinations with tasks queued) makes the same
 * sends in the same order, and leaves the same cursor, as a dense one (libtide), on random
 * queues and random refusals (a refusal depends on the destination and its try only). */
static void sparse_tries_equal_dense_ones(void)
{
    uint64_t seed = 28;
    for (int round = 0; round < 500; round++) {
        int size = 1 + (int)(test_rand(&seed) % 9), cursor = (int)(test_rand(&seed) % size);
        int q0[9], qd[9], qs[9], refuse[9];
        for (int d = 0; d < size; d++) {
            q0[d] = test_rand(&seed) % 3 == 0 ? 0 : (int)(test_rand(&seed) % 4);
            refuse[d] = (int)(test_rand(&seed) % 4); /* refuses every refuse-th try, 0: never */
            qd[d] = qs[d] = q0[d];
        }
        int od[64], os[64], nd = 0, ns = 0, td[9] = {0}, ts[9] = {0};
        tide_send_pass p = tide_send_pass_begin(cursor, size);
        for (int d = p.next; tide_send_pass_try(&p, d); d = p.next) {
            if (qd[d] == 0) continue;
            if (refuse[d] && ++td[d] % refuse[d] == 0) continue;
            qd[d]--;
            od[nd++] = d;
            tide_send_pass_sent(&p);
        }
        int cd = tide_send_pass_cursor(&p);
        tide_send_pass s = tide_send_pass_begin(cursor, size);
        for (;;) {
            int d = -1;
            for (int k = 0; k < size && d < 0; k++)
                if (qs[(s.next + k) % size] > 0) d = (s.next + k) % size;
            if (d < 0 || !tide_send_pass_try(&s, d)) break;
            if (refuse[d] && ++ts[d] % refuse[d] == 0) continue;
            qs[d]--;
            os[ns++] = d;
            tide_send_pass_sent(&s);
        }
        CHECK_EQ_I64(ns, nd);
        for (int i = 0; i < nd && i < ns; i++)
            CHECK_EQ_I64(os[i], od[i]);
        CHECK_EQ_I64(tide_send_pass_cursor(&s), cd);
    }
}

static void throttle(void)
{
    CHECK(tide_send_throttled(1.0, 1.5));
    CHECK(!tide_send_throttled(1.5, 1.5));
    CHECK(tide_send_throttle_next(2.0, 1.5, 1e6, 2e6) == 2.5); /* idle link: from now */
    CHECK(tide_send_throttle_next(1.0, 1.5, 1e6, 2e6) == 2.0); /* behind: from its slot */
}

/* The back of the destination with the most queued; ties: the highest rank. */
static void reclaim_from_the_fullest(void)
{
    const long queued[5] = {0, 3, 5, 5, 2};
    int from = -1;
    long most = 0;
    for (int d = 0; d < 5; d++)
        if (tide_send_reclaim_prefers(queued[d], most)) most = queued[d], from = d;
    CHECK_EQ_I64(from, 3);
    CHECK(!tide_send_reclaim_prefers(0, 0)); /* an empty destination is never chosen */
}

int main(void)
{
    admission();
    package_sizes();
    cursor_resumes_where_the_bound_cut_the_pass();
    idle_pass_keeps_the_cursor();
    sparse_tries_equal_dense_ones();
    throttle();
    reclaim_from_the_fullest();
    return CHECK_REPORT("test_send_sched");
}
