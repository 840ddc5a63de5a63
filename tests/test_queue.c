/* The task queue's priority order (queue.c) under every operation that unlinks: pop_front,
 * take_back (which skips pinned and replicated tasks), remove, remove_if, unlinking during a
 * visit and pop_front_n (a worker's batch). After each step the queue must hold exactly the tasks
 * a plain model says, in descending priority and submission order among equals. No MPI: queue.c
 * only links tasks. */
#include "internal.h"
#include "test_util.h"

#include <string.h>

enum { N = 600 };

static tide_task tasks[N];
static bool in_model[N];

static void check_levels(tide_queue *q, const char *step);

/* The queue, front to back, must be the model's tasks sorted by (priority desc, index asc). */
static void check_queue(tide_queue *q, const char *step)
{
    long n = 0;
    const tide_task *prev = NULL;
    for (const tide_task *t = q->head; t; prev = t, t = t->next, n++) {
        long i = t - tasks;
        CHECK(in_model[i], "%s: task %ld is queued but should not be", step, i);
        CHECK(t->prev == prev, "%s: broken back link at task %ld", step, i);
        if (prev)
            CHECK(prev->priority > t->priority ||
                      (prev->priority == t->priority && prev - tasks < i),
                  "%s: task %ld (priority %d) after task %ld (priority %d)", step, i, t->priority,
                  (long)(prev - tasks), prev->priority);
    }
    CHECK(q->tail == prev, "%s: tail is not the last task", step);
    long want = 0;
    for (int i = 0; i < N; i++)
        want += in_model[i];
    CHECK(n == want && atomic_load(&q->count) == want, "%s: %ld queued, count %ld, model %ld", step,
          n, (long)atomic_load(&q->count), want);
    check_levels(q, step);
}

/* The levels (queue.c): descending, one per priority queued, each naming its last task (pushes
 * and pops at either end find theirs without a search). */
static void check_levels(tide_queue *q, const char *step)
{
    for (int k = 1; k < q->nlevels; k++)
        CHECK(q->levels[k - 1].prio > q->levels[k].prio, "%s: levels out of order", step);
    /* Each level names the last task of its priority, and every priority queued has one. */
    int distinct = 0;
    for (const tide_task *t = q->head; t; t = t->next)
        distinct += !t->prev || t->prev->priority != t->priority;
    CHECK(q->nlevels == distinct, "%s: %d levels for %d priorities", step, q->nlevels, distinct);
    for (int k = 0; k < q->nlevels; k++) {
        const tide_task *last = q->levels[k].last;
        CHECK(last && last->queued && last->priority == q->levels[k].prio &&
                  (!last->next || last->next->priority != last->priority),
              "%s: level %d (priority %d) does not name its last task", step, k, q->levels[k].prio);
    }
}

static bool is_multiple_of_7(const tide_task *t, const void *arg)
{
    (void)arg;
    return (t - tasks) % 7 == 0;
}

static bool unlink_odd_priority(tide_queue *q, tide_task *t, void *arg)
{
    (void)arg;
    if (t->priority % 2 != 0) {
        tide_queue_unlink_locked(q, t);
        in_model[t - tasks] = false;
    }
    return true;
}

int main(void)
{
    tide_queue q;
    tide_queue_init(&q);
    uint64_t rng = 11;
    for (int i = 0; i < N; i++) {
        memset(&tasks[i], 0, sizeof tasks[i]);
        tasks[i].priority = (int)(test_rng(&rng) % 9) - 4;
        tasks[i].pinned = i % 5 == 0;
        tide_queue_push(&q, &tasks[i]);
        in_model[i] = true;
    }
    check_queue(&q, "push");

    /* take_back: the lowest priorities leave first, never a pinned task. */
    tide_task *out[64];
    int got = tide_queue_take_back(&q, out, 64);
    CHECK(got == 64, "take_back took %d", got);
    for (int k = 0; k < got; k++) {
        CHECK(!out[k]->pinned, "take_back took pinned task %ld", (long)(out[k] - tasks));
        in_model[out[k] - tasks] = false;
    }
    for (int i = 0; i < N; i++) /* nothing unpinned left behind with a lower priority */
        if (in_model[i] && !tasks[i].pinned)
            CHECK(tasks[i].priority >= out[got - 1]->priority, "task %d stayed", i);
    check_queue(&q, "take_back");

    for (int i = 1; i < N; i += 3)
        if (tide_queue_remove(&q, &tasks[i])) in_model[i] = false;
    check_queue(&q, "remove");
    for (tide_task *t; (t = tide_queue_remove_if(&q, is_multiple_of_7, NULL));)
        in_model[t - tasks] = false;
    check_queue(&q, "remove_if");
    tide_queue_visit(&q, true, unlink_odd_priority, NULL);
    check_queue(&q, "visit");

    /* pop_front_n: each batch is exactly the queue's first tasks, in order, and no more than
     * asked (the queue's order was checked against the model just above). */
    for (int n = 1; n <= 13; n += 4) {
        tide_task *want[13], *got_n[13];
        int k = 0;
        for (tide_task *t = q.head; t && k < n; t = t->next)
            want[k++] = t;
        int popped = tide_queue_pop_front_n(&q, got_n, n);
        CHECK(popped == k, "pop_front_n(%d) popped %d of %d", n, popped, k);
        for (int j = 0; j < popped; j++) {
            CHECK(got_n[j] == want[j], "pop_front_n(%d): task %ld at %d, want %ld", n,
                  (long)(got_n[j] - tasks), j, (long)(want[j] - tasks));
            CHECK(!got_n[j]->queued, "pop_front_n left task %ld marked queued",
                  (long)(got_n[j] - tasks));
            in_model[got_n[j] - tasks] = false;
        }
        check_queue(&q, "pop_front_n");
    }

    /* Pushed again: they rejoin their levels behind the tasks already there. */
    for (int i = 0; i < N; i += 2)
        if (!in_model[i]) {
            tide_queue_push(&q, &tasks[i]);
            in_model[i] = true;
        }
    /* FIFO among equals now follows the new push order, not the index: check priorities only. */
    check_levels(&q, "push again");
    int last = 1 << 30;
    for (tide_task *t; (t = tide_queue_pop_front(&q));) {
        CHECK(t->priority <= last, "pop: priority %d after %d", t->priority, last);
        last = t->priority;
        in_model[t - tasks] = false;
        check_levels(&q, "pop");
    }
    CHECK(q.nlevels == 0 && q.head == NULL && atomic_load(&q.count) == 0, "queue not empty");

    /* take_all (an inline phase's deal): every task, in queue order, none left marked queued. */
    for (int i = 0; i < N; i++)
        tide_queue_push(&q, &tasks[i]);
    const tide_task *order[N];
    int k = 0;
    for (const tide_task *t = q.head; t; t = t->next)
        order[k++] = t;
    k = 0;
    for (const tide_task *t = tide_queue_take_all(&q); t; t = t->next, k++) {
        CHECK(k < N && t == order[k], "take_all: task %ld at %d", (long)(t - tasks), k);
        CHECK(!t->queued, "take_all left task %ld marked queued", (long)(t - tasks));
    }
    CHECK(k == N, "take_all gave %d of %d tasks", k, N);
    CHECK(q.nlevels == 0 && q.head == NULL && q.tail == NULL && atomic_load(&q.count) == 0,
          "take_all left the queue not empty");
    tide_queue_destroy(&q);
    printf("queue: priority order holds under push, take_back, remove, remove_if, visit, pop, "
           "pop_front_n, take_all\n");
    return 0;
}
