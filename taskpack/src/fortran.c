/* Wrappers of the Fortran bindings (mpif.h and `use mpi`, which Open MPI routes to the same
 * symbols). Open MPI's Fortran layer calls the C PMPI_ functions directly, so the C wrappers never
 * see Fortran calls; these wrappers hook the same points and call the real Fortran binding,
 * found at run time so that C programs need no Fortran MPI library. mpi_f08 is not covered. */
#include "internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*f_init_t)(MPI_Fint *);
typedef void (*f_init_thread_t)(MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void (*f_finalize_t)(MPI_Fint *);
typedef void (*f_barrier_t)(MPI_Fint *, MPI_Fint *);
typedef void (*f_allreduce_t)(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                              MPI_Fint *);
typedef void (*f_all2_t)(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                         MPI_Fint *);

/* The real binding `name`, or abort: a program calling a Fortran binding has it loaded. */
static void *real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "taskpack: cannot find the Fortran MPI binding %s\n", name);
        abort();
    }
    return f;
}

/* Fortran compilers mangle names differently; export the usual spellings of each binding. */
#define TP_F_NAMES(lower, upper, args, call)                                                       \
    void lower##_ args                                                                             \
    {                                                                                              \
        call(#lower "_");                                                                          \
    }                                                                                              \
    void lower##__ args                                                                            \
    {                                                                                              \
        call(#lower "__");                                                                         \
    }                                                                                              \
    void lower args                                                                                \
    {                                                                                              \
        call(#lower);                                                                              \
    }                                                                                              \
    void upper args                                                                                \
    {                                                                                              \
        call(#lower);                                                                              \
    }

/* The real symbol for a spelling: pmpi_ + the same suffix as ours. */
static void *real_p(const char *mine)
{
    char name[64];
    snprintf(name, sizeof name, "p%s", mine);
    return real(name);
}

static void do_init(const char *n, MPI_Fint *ierr)
{
    tp_before_init();
    ((f_init_t)real_p(n))(ierr);
    if (*ierr == MPI_SUCCESS) tp_after_init();
}
#define CALL_INIT(n) do_init(n, ierr)
TP_F_NAMES(mpi_init, MPI_INIT, (MPI_Fint * ierr), CALL_INIT)

static void do_init_thread(const char *n, MPI_Fint *req, MPI_Fint *prov, MPI_Fint *ierr)
{
    tp_before_init();
    ((f_init_thread_t)real_p(n))(req, prov, ierr);
    if (*ierr == MPI_SUCCESS) tp_after_init();
}
#define CALL_INIT_THREAD(n) do_init_thread(n, req, prov, ierr)
TP_F_NAMES(mpi_init_thread, MPI_INIT_THREAD, (MPI_Fint * req, MPI_Fint *prov, MPI_Fint *ierr),
           CALL_INIT_THREAD)

static void do_finalize(const char *n, MPI_Fint *ierr)
{
    tp_finalize();
    ((f_finalize_t)real_p(n))(ierr);
}
#define CALL_FINALIZE(n) do_finalize(n, ierr)
TP_F_NAMES(mpi_finalize, MPI_FINALIZE, (MPI_Fint * ierr), CALL_FINALIZE)

/* Count the call when it delimits iterations; in_fortran keeps a C wrapper reached from the
 * Fortran layer from counting it twice. */
static int f_begin(enum tp_sync kind, MPI_Fint *comm, double *t0)
{
    int counts = tp_sync_counts(kind, PMPI_Comm_f2c(*comm));
    *t0 = -1;
    if (counts)
        tp_sync_enter();
    else
        *t0 = tp_wait_begin();
    tp.in_fortran++;
    return counts;
}

static void f_end(int counts, double t0)
{
    tp.in_fortran--;
    if (counts)
        tp_sync_exit();
    else
        tp_wait_end(t0);
}

static void do_barrier(const char *n, MPI_Fint *comm, MPI_Fint *ierr)
{
    double t0;
    int counts = f_begin(TP_SYNC_BARRIER, comm, &t0);
    ((f_barrier_t)real_p(n))(comm, ierr);
    f_end(counts, t0);
}
#define CALL_BARRIER(n) do_barrier(n, comm, ierr)
TP_F_NAMES(mpi_barrier, MPI_BARRIER, (MPI_Fint * comm, MPI_Fint *ierr), CALL_BARRIER)

static void do_allreduce(const char *n, void *s, void *r, MPI_Fint *count, MPI_Fint *type,
                         MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
    double t0;
    int counts = f_begin(TP_SYNC_ALLREDUCE, comm, &t0);
    ((f_allreduce_t)real_p(n))(s, r, count, type, op, comm, ierr);
    f_end(counts, t0);
}
#define CALL_ALLREDUCE(n) do_allreduce(n, s, r, count, type, op, comm, ierr)
TP_F_NAMES(mpi_allreduce, MPI_ALLREDUCE,
           (void *s, void *r, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
            MPI_Fint *ierr),
           CALL_ALLREDUCE)

static void do_all2(enum tp_sync kind, const char *n, void *s, MPI_Fint *sc, MPI_Fint *st, void *r,
                    MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
    double t0;
    int counts = f_begin(kind, comm, &t0);
    ((f_all2_t)real_p(n))(s, sc, st, r, rc, rt, comm, ierr);
    f_end(counts, t0);
}
#define CALL_ALLTOALL(n) do_all2(TP_SYNC_ALLTOALL, n, s, sc, st, r, rc, rt, comm, ierr)
TP_F_NAMES(mpi_alltoall, MPI_ALLTOALL,
           (void *s, MPI_Fint *sc, MPI_Fint *st, void *r, MPI_Fint *rc, MPI_Fint *rt,
            MPI_Fint *comm, MPI_Fint *ierr),
           CALL_ALLTOALL)
#define CALL_ALLGATHER(n) do_all2(TP_SYNC_ALLGATHER, n, s, sc, st, r, rc, rt, comm, ierr)
TP_F_NAMES(mpi_allgather, MPI_ALLGATHER,
           (void *s, MPI_Fint *sc, MPI_Fint *st, void *r, MPI_Fint *rc, MPI_Fint *rt,
            MPI_Fint *comm, MPI_Fint *ierr),
           CALL_ALLGATHER)
