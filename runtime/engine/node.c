/* The node a rank shares with others: how many workers its ranks run and how many cores they
 * may use, so that finalize can say when ranks x workers exceed the cores (oversubscription:
 * tasks then wait for a core, and every time they measure includes that wait). Measured once at
 * init, collectively: the ranks of a node are those of MPI_COMM_TYPE_SHARED, its cores the union
 * of their affinity masks (a rank bound to one core shares it with its own workers). */
#define _GNU_SOURCE
#include "internal.h"

#include <sched.h>
#include <string.h>
#include <unistd.h>

/* The CPUs this process may run on, or every online CPU when the mask is unknown. */
static void own_cpus(cpu_set_t *set)
{
    CPU_ZERO(set);
    if (sched_getaffinity(0, sizeof *set, set) == 0 && CPU_COUNT(set) > 0) return;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < (n > 0 ? n : 1) && c < CPU_SETSIZE; c++)
        CPU_SET((int)c, set);
}

void tide_node_probe(tide_rt *rt)
{
    MPI_Comm node;
    MPI_Comm_split_type(rt->mpi_comm, MPI_COMM_TYPE_SHARED, rt->rank, MPI_INFO_NULL, &node);
    int ranks;
    MPI_Comm_size(node, &ranks);
    cpu_set_t mine, all;
    own_cpus(&mine);
    MPI_Allreduce(&mine, &all, (int)sizeof all, MPI_BYTE, MPI_BOR, node);
    int workers;
    MPI_Allreduce(&rt->threads, &workers, 1, MPI_INT, MPI_SUM, node);
    MPI_Comm_free(&node);
    /* The node whose workers exceed its cores by the largest factor speaks for the run: found
     * with MAXLOC, then its figures come from one of its ranks (no allocation, so no rank can
     * drop out of the collectives). */
    int here[3] = {workers, CPU_COUNT(&all), ranks};
    struct {
        double ratio;
        int rank;
    } mine_ratio = {(double)here[0] / (here[1] > 0 ? here[1] : 1), rt->rank}, worst;
    MPI_Allreduce(&mine_ratio, &worst, 1, MPI_DOUBLE_INT, MPI_MAXLOC, rt->mpi_comm);
    MPI_Bcast(here, 3, MPI_INT, worst.rank, rt->mpi_comm);
    rt->node = (tide_node_load){here[0], here[1], here[2]};
}
