! test_init_comm: Tide on a sub-communicator from Fortran. The ranks split into two halves (even
! and odd world ranks); each half runs its own Tide through tide_init_comm with every task
! offloaded (TIDE_LB=random, TIDE_RANDOM_FRACTION=1), a different number of phases per half, and
! checks that tide_rank/tide_size are those of its half and that every result came home.
module init_comm_bodies
    use, intrinsic :: iso_c_binding
    implicit none
contains
    ! args: INOUT x (real64), VALUE add (real64)
    subroutine add_task(args) bind(C)
        type(c_ptr), intent(in) :: args(*)
        real(c_double), pointer :: x, add
        call c_f_pointer(args(1), x)
        call c_f_pointer(args(2), add)
        x = x + add
    end subroutine
end module

program test_init_comm
    use, intrinsic :: iso_c_binding
    use mpi
    use tide
    use init_comm_bodies
    implicit none
    integer, parameter :: ntasks = 8
    integer :: provided, ierr, wrank, wsize, half, hrank, hsize, phases, p, i
    integer(c_int) :: rc, trank, tsize
    real(c_double), target :: x(ntasks), add
    type(c_ptr) :: t
    logical :: ok

    call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, wrank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, wsize, ierr)
    call MPI_Comm_split(MPI_COMM_WORLD, mod(wrank, 2), wrank, half, ierr)
    call MPI_Comm_rank(half, hrank, ierr)
    call MPI_Comm_size(half, hsize, ierr)
    ok = .true.
    rc = tide_init_comm(half)
    if (rc /= TIDE_OK) then
        print '(a,i0)', 'init_comm FAILED: tide_init_comm returned ', rc
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
    trank = tide_rank()
    tsize = tide_size()
    if (trank /= hrank .or. tsize /= hsize) then
        print '(a,4i4)', 'init_comm FAILED: rank/size ', trank, hrank, tsize, hsize
        ok = .false.
    end if
    phases = 3 + 2 * mod(wrank, 2)
    x = 0
    do p = 1, phases
        do i = 1, ntasks
            add = real(i + 100 * hrank, c_double)
            rc = tide_task_create(t, add_task, 2, [tide_arg_inout(x(i)), tide_arg_value(add)])
            if (rc == TIDE_OK) rc = tide_task_submit(t)
            if (rc /= TIDE_OK) ok = .false.
        end do
        if (tide_taskwait() /= TIDE_OK) ok = .false.
    end do
    do i = 1, ntasks
        if (x(i) /= phases * real(i + 100 * hrank, c_double)) ok = .false.
    end do
    if (tide_finalize() /= TIDE_OK) ok = .false.
    if (.not. ok) then
        print '(a,i0)', 'init_comm FAILED on world rank ', wrank
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    if (wrank == 0) print '(a)', 'fortran init_comm: all checks passed'
    call MPI_Comm_free(half, ierr)
    call MPI_Finalize(ierr)
end program
