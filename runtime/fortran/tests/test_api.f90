! test_api: every function of module tide, called from Fortran the way an application would.
! Run on 2 ranks with TIDE_LB=random TIDE_RANDOM_FRACTION=1, so that every task runs on the other
! rank and its IN/OUT/INOUT/VALUE arguments travel both ways. With the argument "noncontig" it
! passes a non-contiguous section to tide_arg_in, which must stop with the reason.
module api_bodies
    use, intrinsic :: iso_c_binding
    use tide
    implicit none
    integer, parameter :: n = 100

    ! An object's state: how often it ran and how many messages arrived as expected.
    type, bind(C) :: obj_state
        integer(c_int64_t) :: iterations, good, bad
        real(c_double) :: payload(4)
    end type

    integer(c_int64_t) :: nobjects = 0 ! all ranks; set before the first iteration

    interface
        ! layout.c: tide.h's layout of the struct `which` as the C compiler sees it.
        integer(c_int) function tide_ftest_layout(which, size, offset) bind(C)
            import :: c_int, c_size_t
            integer(c_int), value :: which
            integer(c_size_t), intent(out) :: size, offset
        end function
    end interface

contains

    ! args: IN x(n) real64, OUT y(n) real64, INOUT z(n) int64, VALUE factor real64, VALUE n.
    subroutine scale_task(args) bind(C)
        type(c_ptr), intent(in) :: args(*)
        real(c_double), pointer :: x(:), y(:), factor
        integer(c_int64_t), pointer :: z(:)
        integer(c_int), pointer :: m
        call c_f_pointer(args(5), m)
        call c_f_pointer(args(4), factor)
        call c_f_pointer(args(1), x, [m])
        call c_f_pointer(args(2), y, [m])
        call c_f_pointer(args(3), z, [m])
        y = factor * x
        z = z + 1
    end subroutine

    ! Each object sends its id to the next object (a ring) and checks that the one message in its
    ! inbox came from the previous object and carries that object's id.
    subroutine ring_object(state, state_size, inbox, ninbox, info) bind(C)
        type(c_ptr), value :: state
        integer(c_size_t), value :: state_size
        type(tide_object_msg), intent(in) :: inbox(*)
        integer(c_size_t), value :: ninbox
        type(tide_object_info), intent(in) :: info
        type(obj_state), pointer :: s
        character(kind=c_char), pointer :: bytes(:)
        integer(c_int64_t), target :: me
        integer(c_int64_t) :: prev, got
        call c_f_pointer(state, s)
        if (state_size /= c_sizeof(s)) s%bad = s%bad + 1
        prev = modulo(info%id - 1, nobjects)
        if (info%iteration > 0) then
            got = -1
            if (ninbox == 1 .and. inbox(1)%size == 8) then
                ! Message data has no alignment guarantee: copy the bytes out.
                call c_f_pointer(inbox(1)%data, bytes, [8])
                got = transfer(bytes, got)
            end if
            if (ninbox == 1 .and. inbox(1)%from == prev .and. got == prev) then
                s%good = s%good + 1
            else
                s%bad = s%bad + 1
            end if
        end if
        s%iterations = s%iterations + 1
        me = info%id
        if (tide_object_send(info%id, modulo(info%id + 1, nobjects), c_loc(me), c_sizeof(me)) &
            /= TIDE_OK) s%bad = s%bad + 1
    end subroutine
end module api_bodies

program test_api
    use, intrinsic :: iso_c_binding
    use mpi_f08
    use tide
    use api_bodies
    implicit none
    integer :: failures = 0, me, nranks
    character(len=16) :: mode

    call get_command_argument(1, mode)
    if (mode == "noncontig") call noncontiguous()
    call before_init()
    call expect(tide_init() == TIDE_OK, "tide_init")
    me = tide_rank()
    nranks = tide_size()
    call expect(me >= 0 .and. me < nranks, "tide_rank in 0..size-1")
    call expect(nranks == 2, "tide_size is 2")
    call expect(tide_num_threads() >= 1, "tide_num_threads >= 1")
    call layouts()
    call tasks()
    call errors()
    call objects()
    call expect(tide_finalize() == TIDE_OK, "tide_finalize")
    if (failures > 0) error stop 1
    print '(a)', "fortran api: all checks passed"

contains

    subroutine expect(ok, what)
        logical, intent(in) :: ok
        character(len=*), intent(in) :: what
        if (ok) return
        failures = failures + 1
        print '(a,a,a,a)', "FAILED: ", what, "; last error: ", tide_last_error_message()
    end subroutine

    subroutine noncontiguous()
        real(c_double), target :: a(4, 4)
        type(tide_arg) :: arg
        a = 0
        arg = tide_arg_in(a(1, :)) ! stops: "tide_arg_in: the array is not contiguous ..."
        print '(a,i0)', "tide_arg_in accepted a non-contiguous section of size ", arg%size
        error stop 1
    end subroutine

    subroutine before_init()
        integer(c_int) :: rc
        call expect(tide_rank() == TIDE_ERR_STATE, "tide_rank before init is TIDE_ERR_STATE")
        rc = tide_config_set("TIDE_LB", "no-such-mode")
        call expect(rc == TIDE_ERR_CONFIG, "a bad TIDE_LB is TIDE_ERR_CONFIG")
        call expect(index(tide_last_error_message(), "TIDE_LB") > 0, "the message names TIDE_LB")
        call expect(tide_config_set("TIDE_SEED", "7") == TIDE_OK, "tide_config_set TIDE_SEED")
        call expect(tide_strerror(TIDE_ERR_CONFIG) /= "", "tide_strerror names an error")
    end subroutine

    ! Each struct has the size and member offsets of tide.h's.
    subroutine layouts()
        type(tide_arg), target :: a
        type(tide_phase_stats), target :: p
        type(tide_object_msg), target :: msg
        type(tide_object_info), target :: info
        type(tide_objects_lb_record), target :: rec
        type(tide_objects_stats), target :: st
        call same(0, c_sizeof(a), offset(c_loc(a), c_loc(a%mode)), "tide_arg")
        call same(1, c_sizeof(p), offset(c_loc(p), c_loc(p%received_self)), "tide_phase_stats")
        call same(2, c_sizeof(msg), offset(c_loc(msg), c_loc(msg%size)), "tide_object_msg")
        call same(3, c_sizeof(info), offset(c_loc(info), c_loc(info%rank)), "tide_object_info")
        call same(4, c_sizeof(rec), offset(c_loc(rec), c_loc(rec%unplaced)), &
                  "tide_objects_lb_record")
        call same(5, c_sizeof(st), offset(c_loc(st), c_loc(st%load_self)), "tide_objects_stats")
    end subroutine

    subroutine same(which, fsize, foffset, name)
        integer(c_int), intent(in) :: which
        integer(c_size_t), intent(in) :: fsize, foffset
        character(len=*), intent(in) :: name
        integer(c_size_t) :: csize, coffset
        call expect(tide_ftest_layout(which, csize, coffset) == 0, "layout "//name)
        call expect(fsize == csize .and. foffset == coffset, "Fortran and C agree on "//name)
    end subroutine

    integer(c_size_t) function offset(base, member)
        type(c_ptr), intent(in) :: base, member
        offset = int(transfer(member, 0_c_intptr_t) - transfer(base, 0_c_intptr_t), c_size_t)
    end function

    subroutine tasks()
        integer, parameter :: ntasks = 6
        real(c_double), target :: x(n, ntasks), y(n, ntasks), factor(ntasks)
        integer(c_int64_t), target :: z(n, ntasks)
        integer(c_int), target :: m = n
        type(c_ptr) :: task
        type(tide_phase_stats) :: st
        integer :: t, i
        do t = 1, ntasks
            x(:, t) = [(real(i + 1000 * t + 100000 * me, c_double), i = 1, n)]
            z(:, t) = 10 * t
            y(:, t) = -1
            factor(t) = 0.5_c_double * t
            call expect(tide_task_create(task, scale_task, 5, [tide_arg_in(x(:, t)), &
                        tide_arg_out(y(:, t)), tide_arg_inout(z(:, t)), tide_arg_value(factor(t)), &
                        tide_arg_value(m)]) == TIDE_OK, "tide_task_create")
            call expect(tide_task_set_feature(task, 0, real(t, c_double)) == TIDE_OK, &
                        "tide_task_set_feature")
            call expect(tide_task_submit(task) == TIDE_OK, "tide_task_submit")
        end do
        call expect(tide_task_create(task, scale_task, 0, [tide_arg ::]) == TIDE_OK, &
                    "tide_task_create without arguments")
        call expect(tide_task_discard(task) == TIDE_OK, "tide_task_discard")
        call expect(tide_taskwait() == TIDE_OK, "tide_taskwait")
        do t = 1, ntasks
            call expect(all(y(:, t) == factor(t) * x(:, t)), "OUT argument came home")
            call expect(all(z(:, t) == 10 * t + 1), "INOUT argument came home")
        end do
        call expect(tide_stats_last_phase(st) == TIDE_OK, "tide_stats_last_phase")
        call expect(st%phase == 0 .and. st%tasks == ntasks * nranks, "phase 0 has all tasks")
        call expect(st%tasks_self == ntasks, "tasks_self")
        call expect(st%offloaded == st%tasks, "TIDE_RANDOM_FRACTION=1 offloads every task")
        call expect(st%bytes_moved > 2 * n * 8 * st%tasks, "arguments and results travelled")
    end subroutine

    subroutine errors()
        type(tide_arg) :: args(TIDE_MAX_ARGS + 1)
        real(c_double), target :: v
        type(c_ptr) :: task
        v = 1
        args = tide_arg_value(v)
        call expect(tide_task_create(task, scale_task, TIDE_MAX_ARGS + 1, args) == &
                    TIDE_ERR_INVALID, "too many arguments is TIDE_ERR_INVALID")
        call expect(tide_last_error_message() /= "", "the failure has a message")
        call expect(tide_task_create(task, scale_task, 1, args) == TIDE_OK, "tide_task_create")
        call expect(tide_task_set_feature(task, TIDE_MAX_FEATURES, 1.0_c_double) == &
                    TIDE_ERR_INVALID, "feature index TIDE_MAX_FEATURES is TIDE_ERR_INVALID")
        call expect(tide_task_set_cost(task, -1.0_c_double) == TIDE_ERR_INVALID, &
                    "a negative cost is TIDE_ERR_INVALID")
        call expect(tide_task_set_cost(task, 0.5_c_double) == TIDE_OK, "tide_task_set_cost")
        call expect(tide_task_set_priority(task, 3) == TIDE_OK, "tide_task_set_priority")
        call expect(tide_task_set_pinned(task) == TIDE_OK, "tide_task_set_pinned")
        call expect(tide_task_discard(task) == TIDE_OK, "tide_task_discard")
        call expect(tide_objects_set_lb("no-such-lb", 1) == TIDE_ERR_INVALID, &
                    "a bad global strategy is TIDE_ERR_INVALID")
    end subroutine

    subroutine objects()
        integer(c_int64_t) :: id, ids(8)
        integer(c_size_t) :: nlocal, size_here
        integer(c_int64_t) :: local_total
        type(obj_state), target :: init
        type(obj_state), pointer :: s
        type(c_ptr) :: p
        type(tide_objects_stats) :: st
        integer :: k, it
        nobjects = 2 * nranks
        init = obj_state(0, 0, 0, [1, 2, 3, 4])
        do k = 0, 1
            id = 2 * me + k
            call expect(tide_object_create(id, c_loc(init), c_sizeof(init), ring_object) == &
                        TIDE_OK, "tide_object_create")
        end do
        call expect(tide_objects_set_lb("greedy", 1) == TIDE_OK, "tide_objects_set_lb")
        do it = 1, 3
            call expect(tide_objects_iterate() == TIDE_OK, "tide_objects_iterate")
        end do
        call expect(tide_objects_local(ids, size(ids, kind=c_size_t), nlocal) == TIDE_OK, &
                    "tide_objects_local")
        do k = 1, int(nlocal)
            call expect(tide_object_state(ids(k), p, size_here) == TIDE_OK, "tide_object_state")
            call c_f_pointer(p, s)
            call expect(size_here == c_sizeof(init), "the state keeps its size")
            call expect(s%iterations == 3 .and. s%good == 2 .and. s%bad == 0, &
                        "an object ran 3 times and got each message once")
            call expect(all(s%payload == [1, 2, 3, 4]), "the state travelled intact")
        end do
        call MPI_Allreduce(int(nlocal, c_int64_t), local_total, 1, MPI_INTEGER8, MPI_SUM, &
                           MPI_COMM_WORLD)
        call expect(local_total == nobjects, "every object lives on exactly one rank")
        call expect(tide_objects_stats_get(st) == TIDE_OK, "tide_objects_stats_get")
        call expect(st%iterations == 3 .and. st%objects == nobjects, "objects stats")
        call expect(st%objects_self == int(nlocal, c_int64_t), "objects_self")
        call expect(st%reschedules == 3, "greedy ran after each of the 3 iterations")
        call expect(tide_objects_finalize() == TIDE_OK, "tide_objects_finalize")
    end subroutine
end program test_api
