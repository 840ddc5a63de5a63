! heat: a 1D heat equation on Tide from Fortran (docs/fortran.md).
!
! The domain is ranks x blocks blocks of cells. Each time step the program exchanges the halo
! cells between neighbouring ranks with its own MPI calls, makes one Tide task per block and ends
! the step with tide_taskwait. Blocks in a hot zone take local time steps: they advance in `hot`
! substeps where the others take one, so the ranks holding the zone carry several times more
! work (the zone drifts to the right by one block every other step). Tide may run any block's
! task on another rank. The same step is also computed without Tide, by calling the kernel
! directly, and the two results must be equal bit for bit on every step.
!
! heat [--steps N] [--blocks B] [--cells M] [--hot H] [--sleep-us U]
!   --sleep-us U: a block task also sleeps U microseconds per substep, so that its cost is that
!                 of the input even on a loaded machine (the tests use it); the result is the same.
module heat_kernel
    use, intrinsic :: iso_c_binding
    implicit none

    interface
        integer(c_int) function usleep(us) bind(C, name="usleep")
            import :: c_int
            integer(c_int), value :: us
        end function
    end interface

contains

    ! nsub explicit substeps of size 1/nsub on one block, its halo cells held fixed.
    pure subroutine advance(uin, uout, m, nsub)
        integer, intent(in) :: m, nsub
        real(c_double), intent(in) :: uin(0:m + 1)
        real(c_double), intent(out) :: uout(m)
        real(c_double) :: w(0:m + 1), k
        integer :: s
        w = uin
        k = 0.4_c_double / nsub
        do s = 1, nsub
            w(1:m) = w(1:m) + k * (w(0:m - 1) - 2 * w(1:m) + w(2:m + 1))
        end do
        uout = w(1:m)
    end subroutine

    ! The task body: args are IN u(0:m+1), OUT unew(1:m), VALUE m, nsub, sleep_us.
    subroutine block_task(args) bind(C)
        type(c_ptr), intent(in) :: args(*)
        real(c_double), pointer :: u(:), unew(:)
        integer(c_int), pointer :: m, nsub, sleep_us
        integer(c_int) :: rc
        call c_f_pointer(args(3), m)
        call c_f_pointer(args(4), nsub)
        call c_f_pointer(args(5), sleep_us)
        call c_f_pointer(args(1), u, [m + 2])
        call c_f_pointer(args(2), unew, [m])
        call advance(u, unew, m, nsub)
        if (sleep_us > 0) rc = usleep(sleep_us * nsub)
    end subroutine
end module heat_kernel

program heat
    use, intrinsic :: iso_c_binding
    use mpi_f08
    use tide
    use heat_kernel
    implicit none
    integer(c_int) :: steps = 12, nb = 8, hot = 8
    integer(c_int), target :: m = 512, sleep_us = 0
    real(c_double), allocatable, target :: u(:, :), unew(:, :), r(:, :), rnew(:, :)
    integer(c_int), allocatable, target :: nsub(:)
    integer :: rank, nranks, step, b, mismatches, total_mismatches, nargs
    real(c_double) :: heat_sum, ref_sum
    type(c_ptr) :: task
    type(tide_arg) :: args(5)

    call check(tide_init(), "tide_init")
    rank = tide_rank()
    nranks = tide_size()
    call read_options()
    allocate (u(0:m + 1, nb), unew(m, nb), r(0:m + 1, nb), rnew(m, nb), nsub(nb))
    call initial(u)
    r = u
    mismatches = 0

    do step = 0, steps - 1
        call exchange_halos(u)
        call exchange_halos(r)
        do b = 1, nb
            nsub(b) = substeps(rank * nb + b - 1, step)
            args = [tide_arg_in(u(:, b)), tide_arg_out(unew(:, b)), tide_arg_value(m), tide_arg_value(nsub(b)), &
                    tide_arg_value(sleep_us)]
            nargs = size(args)
            call check(tide_task_create(task, block_task, nargs, args), "tide_task_create")
            call check(tide_task_set_feature(task, 0, real(nsub(b), c_double)), "set_feature")
            call check(tide_task_submit(task), "tide_task_submit")
        end do
        call check(tide_taskwait(), "tide_taskwait")
        do b = 1, nb
            call advance(r(:, b), rnew(:, b), m, nsub(b))
        end do
        if (any(unew /= rnew)) mismatches = mismatches + 1
        u(1:m, :) = unew
        r(1:m, :) = rnew
    end do

    call MPI_Allreduce(mismatches, total_mismatches, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    call MPI_Allreduce(sum(u(1:m, :)), heat_sum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
    call MPI_Allreduce(sum(r(1:m, :)), ref_sum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0) then
        if (total_mismatches == 0) then
            print '(a,i0,a,i0,a,es24.16)', "heat: verified: ", steps, " steps on ", nranks, &
                " ranks equal the computation without Tide bit for bit; total heat", heat_sum
        else
            print '(a,i0,a,es24.16,a,es24.16)', "heat: VERIFY FAILED: ", total_mismatches, &
                " rank-steps differ; total heat", heat_sum, " against", ref_sum
        end if
    end if
    deallocate (u, unew, r, rnew, nsub)
    call check(tide_finalize(), "tide_finalize")
    if (total_mismatches /= 0) error stop 1

contains

    ! Local time stepping: blocks in the hot zone (nb blocks wide, one block further right every
    ! other step) take `hot` substeps.
    integer(c_int) function substeps(global_block, step)
        integer, intent(in) :: global_block, step
        substeps = 1
        if (global_block >= step / 2 .and. global_block < step / 2 + nb) substeps = hot
    end function

    subroutine initial(v)
        real(c_double), intent(out) :: v(0:, :)
        integer :: i, b
        v = 0
        do b = 1, nb
            do i = 1, m
                v(i, b) = sin(0.001_c_double * ((rank * nb + b - 1) * m + i))**2
            end do
        end do
    end subroutine

    ! Halo cells: from the neighbouring block on this rank, or from the neighbouring rank (the
    ! application's own MPI between phases); 0 at the domain's two ends.
    subroutine exchange_halos(v)
        real(c_double), intent(inout) :: v(0:, :)
        integer :: left, right, b
        left = merge(rank - 1, MPI_PROC_NULL, rank > 0)
        right = merge(rank + 1, MPI_PROC_NULL, rank < nranks - 1)
        do b = 2, nb
            v(0, b) = v(m, b - 1)
            v(m + 1, b - 1) = v(1, b)
        end do
        v(0, 1) = 0
        v(m + 1, nb) = 0
        call MPI_Sendrecv(v(1, 1), 1, MPI_DOUBLE_PRECISION, left, 0, v(m + 1, nb), 1, &
                          MPI_DOUBLE_PRECISION, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        call MPI_Sendrecv(v(m, nb), 1, MPI_DOUBLE_PRECISION, right, 1, v(0, 1), 1, &
                          MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    end subroutine

    subroutine check(rc, what)
        integer(c_int), intent(in) :: rc
        character(len=*), intent(in) :: what
        if (rc == TIDE_OK) return
        print '(a,a,a,a,a,a)', "heat: ", what, " failed: ", tide_strerror(rc), ": ", &
            tide_last_error_message()
        if (what == "tide_init") error stop 1
        call MPI_Abort(MPI_COMM_WORLD, 1)
    end subroutine

    subroutine read_options()
        character(len=32) :: opt, val
        integer :: i, ios
        integer(c_int) :: x
        i = 1
        do while (i <= command_argument_count())
            call get_command_argument(i, opt)
            call get_command_argument(i + 1, val)
            read (val, *, iostat=ios) x
            if (ios /= 0 .or. x < 0) call usage("bad value '"//trim(val)//"' for "//trim(opt))
            select case (opt)
            case ("--steps"); steps = x
            case ("--blocks"); nb = x
            case ("--cells"); m = x
            case ("--hot"); hot = x
            case ("--sleep-us"); sleep_us = x
            case default; call usage("unknown option "//trim(opt))
            end select
            i = i + 2
        end do
        if (nb < 1 .or. m < 1 .or. hot < 1) call usage("--blocks, --cells and --hot must be >= 1")
    end subroutine

    subroutine usage(why)
        character(len=*), intent(in) :: why
        if (rank == 0) print '(a,a)', "heat: ", why
        if (rank == 0) print '(a)', "usage: heat [--steps N] [--blocks B] [--cells M] [--hot H] "// &
            "[--sleep-us U]"
        call MPI_Abort(MPI_COMM_WORLD, 2)
    end subroutine
end program heat
