/* The simulated rescheduling round's ranks and protocol messages, shared by global.cpp (the
 * round, the centralized strategies, the migration, the API), global_dlb.cpp (PackDrop's and
 * DistributedLB's decentralized protocols) and global_comm.cpp (their collectives and exchanges).
 * Internal to tide-sim. */
#ifndef TIDE_SIM_GLOBAL_INTERNAL_H
#define TIDE_SIM_GLOBAL_INTERNAL_H

#include "sim.h"

#include "tide_global.h"
#include "tide_global_rank.h"

namespace tide_gsim
{

enum { T_GOSSIP, T_PROPOSE, T_REPLY, T_MIGRATE, NTAGS };

struct gossip_entry {
    int64_t rank;
    double load;
};
struct proposal {
    int64_t handle;
    double load;
};

/* A protocol message: entries of one of the kinds above, or a count of migrating objects. */
struct gmsg {
    int src;
    std::vector<gossip_entry> gossip;
    std::vector<proposal> props;
    std::vector<unsigned char> answers;
    int64_t objects;
    double object_bytes; /* the migrating objects' states */
};

struct gsim;

struct grank {
    gsim *G;
    int id;
    sg::Host *host;
    sg::Mailbox *mb[NTAGS];
    std::vector<double> w;     /* this rank's objects' loads */
    std::vector<double> wb;    /* their states' bytes (empty: the workload's task bytes) */
    std::vector<int32_t> dest; /* their new owners */
    double load;
    uint64_t rng;
    std::vector<double> heard; /* gossip: announced load per rank, NAN if not heard of */
    std::vector<int32_t> known;
    bool learned;
    std::map<int, gmsg *> out;  /* the current exchange's messages, by destination */
    long reductions;            /* reductions this rank entered */
    tide_packdrop_rank pd;      /* packdrop: this rank's side of the protocol */
    tide_distributed_rank dist; /* distributed: this rank's side of the protocol */
};

struct gsim {
    const sim_config *cfg;
    const tide_global_strategy *st;
    tide_global_params prm;
    int P;
    std::vector<grank> r;
    sg::BarrierPtr barrier;
    std::vector<double> sums; /* a reduction's inputs, one slot per rank */
    long reduced;             /* the reduction whose result is in `result` (-1: none) */
    double result;
    double lat, bw;
    std::vector<int32_t> central; /* the centralized mapping, all objects in rank order */
    std::vector<long> off;        /* rank r's objects in it: [off[r], off[r+1]) */
    double t_cpu;                 /* its measured compute time */
    double t_gather;              /* the centralized allgather's time */
    double bytes_moved;
    long gossip_rounds, handshake_rounds, messages, proposals, refused, unplaced, moved;
    double t_decided, t_done;
    double t_batch; /* --net fast|fair: the migration's time (migrate_batch) */
};

double now(); /* global_comm.cpp */
/* A collective of `bytes` per rank: every rank waits for all, then for an allgather's time. */
void collective(grank *R, double bytes);
/* The sum (or the maximum) over all ranks of x. */
double reduce(grank *R, double x, bool max);
double allreduce(grank *R, double x);
/* The sparse exchange of R->out (NBX): what reached this rank on `tag`, in arrival order. */
std::vector<gmsg *> exchange(grank *R, int tag, double bytes_each);
gmsg *out_to(grank *R, int dest); /* R's message to dest in the current exchange */
void packdrop(grank *R);          /* global_dlb.cpp */
void distributed(grank *R);

} // namespace tide_gsim

#endif
