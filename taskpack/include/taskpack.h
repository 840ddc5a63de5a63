/* Task Packing: frees the CPUs of an imbalanced MPI program by packing its ranks onto fewer
 * CPUs. Preload libtaskpack.so to use it on an unmodified program (the iteration is delimited by
 * the collective named in TASKPACK_SYNC); link it and call these two functions when one
 * iteration holds several syncs. See docs/taskpack.md. */
#ifndef TASKPACK_H
#define TASKPACK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Mark the start of one iteration's computation on this rank. From the first call on, the
 * collective named in TASKPACK_SYNC no longer delimits iterations. Call between MPI_Init and
 * MPI_Finalize. Returns 0, or -1 when Task Packing is not active (MPI not initialized). */
int taskpack_begin(void);

/* Mark the end of the iteration begun by taskpack_begin. Collective over MPI_COMM_WORLD: every
 * rank must call it the same number of times (it may agree on stability and pack the ranks).
 * Returns 0, or -1 when no iteration was begun or Task Packing is not active. */
int taskpack_end(void);

#ifdef __cplusplus
}
#endif

#endif
