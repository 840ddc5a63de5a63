/* cbench's persistent objects in tide-sim (docs/sim.md, "Workloads"): a parameter file read and
 * evaluated up front by cbench's own code (apps/cbench: params.c, check.c, expr_*.c,
 * topology.c, compiled in), and what the objects loop (objloop.cpp) needs of it. */
#ifndef TIDE_SIM_CBENCH_H
#define TIDE_SIM_CBENCH_H

#include "sim.h"

extern "C" {
#include "params.h"
#include "topology.h"
}

/* Bytes of an object's state beyond tasksize: cbench's obj_header (apps/cbench/run.c), which
 * travels with the payload when the object migrates. */
#define SIM_CBENCH_STATE_HEADER 56
/* Bytes of a message of `size` bytes in the objects layer's routing buffers: its record header
 * (tide_obj_msghdr) and the payload padded to 8 (TIDE_OBJ_REC in runtime/objects/layer.h). */
static inline double sim_cbench_msg_bytes(double size)
{
    return 32.0 + 8.0 * (double)(((uint64_t)size + 7) / 8);
}

struct sim_cbench {
    cbench_config cfg; /* resolved: the file, the --cbench-set overrides, p */
    const char *strategy;
    int period;                  /* iterations between reschedulings (lbfreq, TIDE_LB_PERIOD) */
    bool balance;                /* a strategy other than none, and lbfreq != 0 */
    std::vector<int32_t> owner0; /* rank of each object at creation (initmap) */
    std::vector<double> bytes;   /* each object's state: tasksize + the header */
    std::vector<double> load;    /* [(i-1) n + t]: seconds of work of object t in iteration i */
    /* messages, [(i-1) n + t] (empty when no object sends): to each neighbour, msgnum
     * messages of msgsize bytes */
    std::vector<int32_t> msgnum;
    std::vector<double> msgsize;
    std::vector<int64_t> nb_off, nb; /* each object's distinct neighbours (topology.c) */
};

/* The summary of a loop run, as cbench's `cbench-1` document has it. */
typedef struct sim_cbench_resched {
    int64_t iteration;
    double decision_s, gather_s, migrate_s;
    long moved;
    double bytes, max_before, avg, max_after;
    long messages, gossip_rounds, handshake_rounds;
} sim_cbench_resched;

typedef struct sim_cbench_result {
    int ranks, workers;
    double total_s;
    std::vector<double> iter_s, load_max, load_avg;
    std::vector<sim_cbench_resched> resched;
    long messages;
    double message_bytes;
    long failures; /* objects that did not run exactly once in some iteration */
} sim_cbench_result;

/* Writes the tide-sim-cbench/1 document (TIDE_STATS) and the summary lines (unless quiet). */
int sim_cbench_report(const sim_config *c, const sim_cbench *cb, const sim_cbench_result *res,
                      char *err, size_t len);

#endif
