/*
 * tide_core_send.h - the send scheduler's decisions, written once for libtide and tide-sim.
 *
 * The comm thread's send loop: controls (and tide-sim's replica copies) leave at once; results
 * next, in order, each when the in-flight bound admits it; then offloaded tasks, one message per
 * destination per pass from a round-robin cursor, one task each (TIDE_OFFLOAD=rr) or packed up
 * to TIDE_PACK_MAX and an eighth of TIDE_MAX_INFLIGHT (packed). What a driver keeps is the I/O:
 * libtide (runtime/engine/transport.c) its MPI_Isend requests, buffers and queues, tide-sim
 * (sim/src/sender.cpp) its simulated communications and per-pair channels. What it asks here:
 * whether the bound admits a message (tide_send_fits), how many of a destination's tasks the
 * next message takes (tide_send_pack), which destination is next and where the next pass starts
 * (tide_send_pass), whether TIDE_THROTTLE_* holds a message back, and which destination's
 * queued tasks are taken back first (tide_send_reclaim_prefers).
 *
 * Bytes are doubles: libtide's are whole numbers (exact below 2^53), tide-sim's modelled sizes
 * may be fractional, and both go through the same arithmetic. Pure code: no clock, no threads,
 * no globals, no allocation; the steps a driver takes per task or per destination are inline.
 */
#ifndef TIDE_CORE_SEND_H
#define TIDE_CORE_SEND_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most tasks one packed message holds. */
#define TIDE_SEND_PACK_TASKS 256

/* The in-flight bound admits a message of len bytes when it fits beside the inflight bytes
 * already on their way, or when nothing else is in flight (a single task larger than the bound
 * must still be able to move). */
static inline bool tide_send_fits(double inflight, double len, uint64_t max_inflight)
{
    return inflight == 0 || inflight + len <= (double)max_inflight;
}

/* ---- packing: how many of a destination's queued tasks the next message takes ------------- */

typedef struct tide_send_pack {
    int max;         /* tasks it may hold: 1 (rr) or TIDE_SEND_PACK_TASKS (packed) */
    int n;           /* tasks taken */
    double cap;      /* bytes it may reach with more than one task */
    double len;      /* its bytes so far, header included */
    double inflight; /* bytes in flight before it */
    uint64_t max_inflight;
} tide_send_pack;

/* An empty message of header bytes. A package holds at most TIDE_PACK_MAX bytes (and at least
 * one task), and at most an eighth of the in-flight bound, so that several messages are in
 * flight at once and packing the next overlaps sending the previous. */
tide_send_pack tide_send_pack_begin(bool packed, uint64_t pack_max, uint64_t max_inflight,
                                    double header, double inflight);

/* The destination's next queued task, of task_bytes on the wire: true when the message takes
 * it, false when the message is complete (full, at its cap, or at the in-flight bound). A
 * message of no task (n == 0 at the end) is not sent. */
static inline bool tide_send_pack_add(tide_send_pack *p, double task_bytes)
{
    if (p->n >= p->max || (p->n > 0 && p->len + task_bytes > p->cap)) return false;
    bool first_alone = p->n == 0 && p->inflight == 0;
    if (!first_alone && p->inflight + p->len + task_bytes > (double)p->max_inflight) return false;
    p->len += task_bytes;
    p->n++;
    return true;
}

/* ---- the round-robin pass over the destinations ------------------------------------------- */

/* One message per destination per pass, so that with rr the tasks leave round-robin across the
 * destinations (proact_off1) rather than one destination after another. The passes go on until
 * every destination has been tried once since the last message left. A pass that the in-flight
 * bound (or the throttle) cuts short resumes at the destination after the last one served:
 * restarting at rank 0 would hand every slot the bound frees to the lowest ranks, and the others
 * would get their first task only when those had all of theirs. */
typedef struct tide_send_pass {
    int size;  /* destinations 0 .. size-1 */
    int next;  /* the first destination not tried yet */
    int tried; /* destinations tried (or skipped as empty) since the last message left */
} tide_send_pass;

/* Passes starting at the cursor (0 <= cursor < size). */
static inline tide_send_pass tide_send_pass_begin(int cursor, int size)
{
    tide_send_pass p = {size, cursor, 0};
    return p;
}

/* Try dest next: the first destination at or after p->next (wrapping) that the driver may send
 * to; a driver that tries every destination passes p->next, one that knows which have tasks
 * queued passes the first of those, and the ones between count as tried. False when the
 * passes are over (dest would be tried a second time since the last message left). */
static inline bool tide_send_pass_try(tide_send_pass *p, int dest)
{
    int skipped = ((dest - p->next) % p->size + p->size) % p->size;
    if (p->tried + skipped >= p->size) return false;
    p->tried += skipped + 1;
    p->next = (dest + 1) % p->size;
    return true;
}

/* A message left for the destination just tried. */
static inline void tide_send_pass_sent(tide_send_pass *p)
{
    p->tried = 0;
}

/* Where the next passes start: after the last destination served (the cursor they began at if
 * none was). */
static inline int tide_send_pass_cursor(const tide_send_pass *p)
{
    return ((p->next - p->tried) % p->size + p->size) % p->size;
}

/* ---- TIDE_THROTTLE_*: one rank's task messages held to a rate, as if its link were slow ---- */

/* A task message may leave at now when the throttle's next slot has come. */
static inline bool tide_send_throttled(double now, double next_slot)
{
    return now < next_slot;
}

/* The next slot after a task message of len bytes left at now, at bw bytes/s. */
static inline double tide_send_throttle_next(double now, double next_slot, double len, double bw)
{
    return (now > next_slot ? now : next_slot) + len / bw;
}

/* ---- taking back tasks that have not left ------------------------------------------------- */

/* The tasks the transport would send last are the back of the destination that holds the most
 * (sends go round-robin over the destinations); ties go to the highest rank. Scanning the
 * destinations upwards, one with count queued tasks replaces the choice so far (most queued,
 * 0 before any) when this is true. */
static inline bool tide_send_reclaim_prefers(long count, long most)
{
    return count > 0 && count >= most;
}

#ifdef __cplusplus
}
#endif

#endif
