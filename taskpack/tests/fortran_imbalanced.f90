! A Fortran MPI program with imbalanced ranks: rank 0 works, the others barely do. Checks that
! Task Packing intercepts the Fortran bindings (mpi_init_, mpi_barrier_, mpi_finalize_).
program fortran_imbalanced
  use mpi
  implicit none
  integer :: ierr, rank, it, k
  double precision :: x, t0, acc, total
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  acc = rank + 1
  x = 1.0d0
  do it = 1, 30
    t0 = MPI_Wtime()
    do while (MPI_Wtime() - t0 < merge(0.02d0, 0.0005d0, rank == 0))
      do k = 1, 1000
        x = x * 1.0000001d0 + 1.0d-9
      end do
    end do
    acc = acc * 0.5d0 + dble(rank + it) * 0.25d0
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  call MPI_Reduce(acc, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (x < 0) print *, x
  call print_affinity(rank)
  if (rank == 0) print '(A,ES24.17)', 'checksum ', total
  call MPI_Finalize(ierr)
end program fortran_imbalanced
