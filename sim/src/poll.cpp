/* The comm thread's polling, with the engine core's back-off (tide_core_backoff.h, which
 * runtime/engine/commthread.c steps turn by turn): after a loop turn that did something it spins
 * TIDE_POLL_SPIN empty turns, then sleeps 1 us, 2 us, 4 us ... up to TIDE_POLL_SLEEP_MAX_US, until
 * a turn finds work again or a local wake (a result to send, the last own task done, a taskwait)
 * cuts a sleep short. Arrived messages and completed collectives do not wake it: it finds them at
 * its next turn. The simulator hands them to the rank at that turn, which is where a real rank's
 * reactions lose their time when its comm thread is idle.
 *
 * Here too, under the rest of the rank model: the wakes of the comm and sender actors and the
 * comm actor's wait for one, which the engine's bookkeeping, the collectives and the actors
 * all use. */
#include "sim.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

/* A platform property of the first host (or its zone), as a number; def when absent. */
static double property(const sg::Host *h, const char *name, double def)
{
    const char *v = h->get_property(name);
    if (!v && h->get_englobing_zone()) v = h->get_englobing_zone()->get_property(name);
    return v ? atof(v) : def;
}

void sim_poll_init(sim *S, const sg::Host *h)
{
    S->poll_turn = 1e-6 * property(h, "tide_poll_turn_us", 0.5);
    tide_backoff_init(&S->poll, S->cfg->tide.poll_spin, S->cfg->tide.poll_sleep_max_us);
    S->coll_overhead = 1e-6 * property(h, "tide_coll_overhead_us", 0.0);
}

double sim_next_poll(const sim_rank *R, double t)
{
    return tide_backoff_next_poll(&R->S->poll, R->S->poll_turn, R->active_at, t);
}

void sim_view_changed(sim_rank *R)
{
    if (!R->quiet_wait) return;
    R->view_changed = true;
    R->comm_cv->notify_all();
}

void sim_mark_active(sim_rank *R)
{
    R->active_at = sg::Engine::get_clock();
    sim_view_changed(R);
    if (R->rx_waiting) R->poll_cv->notify_all();
    if (R->coll_waiting) sim_wake_comm(R);
}

void sim_wake_comm(sim_rank *R)
{
    R->comm_event = true;
    R->comm_cv->notify_all();
}

void sim_wake_sender(sim_rank *R)
{
    R->send_kick = true;
    R->send_cv->notify_all();
}

bool sim_wait_event(sim_rank *R, double deadline)
{
    std::unique_lock<sg::Mutex> lk(*R->mu);
    while (!R->comm_event && sg::Engine::get_clock() < deadline) {
        if (std::isfinite(deadline))
            R->comm_cv->wait_until(lk, deadline);
        else
            R->comm_cv->wait(lk);
    }
    bool ev = R->comm_event;
    R->comm_event = false;
    return ev;
}
