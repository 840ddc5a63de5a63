// A C++ program on an installed Tide: initializes MPI itself, runs Tide on a duplicate of
// MPI_COMM_WORLD, and checks every task's result (TIDE_LB=random moves some).
#include <tide_mpi.h>

#include <cstdio>
#include <vector>

namespace
{

constexpr int n = 1024;

void scale(void **args) // IN x[n], OUT y[n]
{
    const double *x = static_cast<const double *>(args[0]);
    double *y = static_cast<double *>(args[1]);
    for (int i = 0; i < n; i++)
        y[i] = 2 * x[i];
}

} // namespace

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (tide_init_comm(comm, &argc, &argv) != TIDE_OK) return 1;
    std::vector<std::vector<double>> x(32, std::vector<double>(n)), y(32, std::vector<double>(n));
    int bad = 0;
    for (int it = 0; it < 3; it++) {
        for (std::size_t b = 0; b < x.size(); b++) {
            for (int i = 0; i < n; i++)
                x[b][i] = it + b + i;
            tide_arg args[] = {{x[b].data(), n * sizeof(double), TIDE_IN},
                               {y[b].data(), n * sizeof(double), TIDE_OUT}};
            tide_task *t = nullptr;
            if (tide_task_create(&t, scale, 2, args) != TIDE_OK || tide_task_submit(t) != TIDE_OK)
                return 1;
        }
        if (tide_taskwait() != TIDE_OK) return 1;
        for (std::size_t b = 0; b < x.size(); b++)
            for (int i = 0; i < n; i++)
                bad += y[b][i] != 2 * x[b][i];
    }
    int rank = tide_rank();
    if (tide_finalize() != TIDE_OK) return 1;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, comm);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    if (rank == 0) std::printf("C++ consumer: %d wrong results\n", bad);
    return bad != 0;
}
