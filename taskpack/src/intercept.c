/* PMPI wrappers of the C bindings: MPI_Init, MPI_Init_thread, MPI_Finalize, and the collectives
 * TASKPACK_SYNC may name. A collective that does not delimit iterations passes straight through. */
#include "internal.h"

int MPI_Init(int *argc, char ***argv)
{
    tp_before_init();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) tp_after_init();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    tp_before_init();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) tp_after_init();
    return rc;
}

int MPI_Finalize(void)
{
    tp_finalize();
    return PMPI_Finalize();
}

int MPI_Barrier(MPI_Comm comm)
{
    if (!tp_sync_counts(TP_SYNC_BARRIER, comm)) {
        double t0 = tp_wait_begin();
        int rc = PMPI_Barrier(comm);
        tp_wait_end(t0);
        return rc;
    }
    tp_sync_enter();
    int rc;
    if (tp.cfg.yield == TP_YIELD_OFF) {
        rc = PMPI_Barrier(comm);
    } else {
        MPI_Request req;
        rc = PMPI_Ibarrier(comm, &req);
        if (rc == MPI_SUCCESS) rc = tp_wait(&req);
    }
    tp_sync_exit();
    return rc;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    if (!tp_sync_counts(TP_SYNC_ALLREDUCE, comm)) {
        double t0 = tp_wait_begin();
        int rc = PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
        tp_wait_end(t0);
        return rc;
    }
    tp_sync_enter();
    int rc;
    if (tp.cfg.yield == TP_YIELD_OFF) {
        rc = PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    } else {
        MPI_Request req;
        rc = PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, &req);
        if (rc == MPI_SUCCESS) rc = tp_wait(&req);
    }
    tp_sync_exit();
    return rc;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!tp_sync_counts(TP_SYNC_ALLTOALL, comm)) {
        double t0 = tp_wait_begin();
        int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
        tp_wait_end(t0);
        return rc;
    }
    tp_sync_enter();
    int rc;
    if (tp.cfg.yield == TP_YIELD_OFF) {
        rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    } else {
        MPI_Request req;
        rc = PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &req);
        if (rc == MPI_SUCCESS) rc = tp_wait(&req);
    }
    tp_sync_exit();
    return rc;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!tp_sync_counts(TP_SYNC_ALLGATHER, comm)) {
        double t0 = tp_wait_begin();
        int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
        tp_wait_end(t0);
        return rc;
    }
    tp_sync_enter();
    int rc;
    if (tp.cfg.yield == TP_YIELD_OFF) {
        rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    } else {
        MPI_Request req;
        rc =
            PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &req);
        if (rc == MPI_SUCCESS) rc = tp_wait(&req);
    }
    tp_sync_exit();
    return rc;
}
