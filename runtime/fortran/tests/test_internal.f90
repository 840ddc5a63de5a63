! test_internal: an internal procedure as a task body (docs/fortran.md, "The rules"). gfortran
! passes it through a trampoline built on the stack, an address in no loaded object, so its tasks
! have no portable identity: tide_task_create, tide_task_submit and tide_taskwait still return
! TIDE_OK, every task runs on its own rank with its host's variables, and none moves, even with
! TIDE_LB=random TIDE_RANDOM_FRACTION=1 (each rank says once "a task stays local").
! Built with -Wl,-z,execstack: the trampoline needs an executable stack, which the linker would
! otherwise grant with a warning.
program test_internal
    use, intrinsic :: iso_c_binding
    use tide
    implicit none
    integer, parameter :: n = 64, ntasks = 8
    integer(c_int), target :: m = n
    real(c_double), target :: x(n, ntasks), y(n, ntasks)
    real(c_double) :: factor
    type(c_ptr) :: task
    type(tide_phase_stats) :: st
    integer :: b, it, failures
    failures = 0
    call expect(tide_init() == TIDE_OK, "tide_init")
    do it = 1, 3
        factor = it ! a host variable the body reads: only this rank's frame has it
        x = it
        y = 0
        do b = 1, ntasks
            call expect(tide_task_create(task, scale, 3, [tide_arg_in(x(:, b)), &
                        tide_arg_out(y(:, b)), tide_arg_value(m)]) == TIDE_OK, "tide_task_create")
            call expect(tide_task_submit(task) == TIDE_OK, "tide_task_submit")
        end do
        call expect(tide_taskwait() == TIDE_OK, "tide_taskwait")
        call expect(all(y == factor * x), "results of the internal procedure")
        call expect(tide_stats_last_phase(st) == TIDE_OK, "tide_stats_last_phase")
        call expect(st%offloaded == 0, "no task of an internal procedure moved")
    end do
    call expect(tide_finalize() == TIDE_OK, "tide_finalize")
    if (failures == 0) print '(a)', "fortran internal: all checks passed"
contains
    subroutine scale(args) bind(C)
        type(c_ptr), intent(in) :: args(*)
        real(c_double), pointer :: a(:), c(:)
        integer(c_int), pointer :: k
        call c_f_pointer(args(3), k)
        call c_f_pointer(args(1), a, [k])
        call c_f_pointer(args(2), c, [k])
        c = factor * a
    end subroutine

    subroutine expect(ok, what)
        logical, intent(in) :: ok
        character(*), intent(in) :: what
        if (.not. ok) then
            print '(2a)', "FAILED: ", what
            failures = failures + 1
        end if
    end subroutine
end program
