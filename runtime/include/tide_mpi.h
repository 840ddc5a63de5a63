/* Tide on a communicator of the application's: the part of Tide's public API whose types come
 * from MPI. It is a header of its own so that tide.h, which the other functions need, stays
 * free of mpi.h (a C++ file including Open MPI's mpi.h must also link its C++ library).
 *
 *   MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
 *   MPI_Comm_split(MPI_COMM_WORLD, color, key, &half);   // e.g. one component of a coupled code
 *   tide_init_comm(half, &argc, &argv);                   // Tide balances within `half` only
 *   ... tasks, tide_taskwait(), objects: as with tide_init ...
 *   tide_finalize();                                      // MPI stays initialized
 *   MPI_Comm_free(&half); MPI_Finalize();
 */
#ifndef TIDE_MPI_H
#define TIDE_MPI_H

#include <mpi.h>

#include "tide.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tide_init over the ranks of `comm` (an intracommunicator) instead of MPI_COMM_WORLD; tide_init
 * is tide_init_comm(MPI_COMM_WORLD, argc, argv). Collective over comm.
 *
 * - Tide duplicates comm at once (MPI_Comm_dup): its own messages and collectives never match the
 *   application's, and the application may use comm, or free it, while Tide runs.
 * - tide_rank() and tide_size() are the rank in comm and comm's size; tasks and objects move only
 *   between the ranks of comm, statistics count only them, and comm's rank 0 writes TIDE_STATS
 *   and prints the summary. Each rank checks that the ranks of its comm run the same executable
 *   (two components of a coupled code may be different programs).
 * - One Tide per process: the processes of disjoint communicators each run their own Tide,
 *   independently (different phase counts, strategies set through tide_config_set, ...); a
 *   process may also run no Tide at all.
 * - MPI must already be initialized with MPI_THREAD_MULTIPLE unless comm is MPI_COMM_WORLD or
 *   MPI_COMM_SELF, which tide_init_comm initializes as tide_init does. tide_finalize finalizes
 *   MPI only when Tide initialized it.
 * - A fatal error (a corrupted message, ranks calling tide_taskwait unequally often) still ends
 *   the whole job with MPI_Abort(MPI_COMM_WORLD, ...).
 * TIDE_ERR_INVALID for MPI_COMM_NULL or an intercommunicator, TIDE_ERR_STATE when MPI is not
 * initialized (and comm is not predefined), otherwise as tide_init. */
TIDE_API int tide_init_comm(MPI_Comm comm, int *argc, char ***argv);

#ifdef __cplusplus
}
#endif

#endif
