! module tide: the Fortran binding of runtime/include/tide.h (docs/fortran.md).
!
! Every C function of tide.h is bound here under its own name, with the same arguments and
! return codes (TIDE_OK or a negative TIDE_ERR_*). Most are one interface block with BIND(C);
! where C takes or returns a string, a Fortran wrapper converts it (the raw binding is private
! and named c_<function>). To bind a new function of tide.h, add one interface block below
! under the heading of its section, and its name to the public list in front of the block.
!
! A task body is a BIND(C) subroutine over its argument pointers (abstract interface
! tide_task_fn), a module procedure or an external subroutine, never an internal one:
!     subroutine scale(args) bind(C)
!         type(c_ptr), intent(in) :: args(*)
!         real(c_double), pointer :: x(:)
!         integer(c_int), pointer :: n
!         call c_f_pointer(args(2), n)
!         call c_f_pointer(args(1), x, [n])
!         x = 2 * x
!     end subroutine
!     ierr = tide_task_create(task, scale, 2, [tide_arg_inout(x), tide_arg_value(n)])
module tide
    use, intrinsic :: iso_c_binding, only: c_char, c_double, c_int, c_int64_t, c_null_char, &
                                           c_ptr, c_size_t, c_associated, c_f_pointer
    implicit none
    private

    ! ---- constants ------------------------------------------------------------------------
    integer(c_int), parameter, public :: TIDE_VERSION_MAJOR = 0, TIDE_VERSION_MINOR = 1
    integer(c_int), parameter, public :: TIDE_MAX_ARGS = 32, TIDE_MAX_FEATURES = 8

    integer(c_int), parameter, public :: TIDE_OK = 0, TIDE_ERR_INVALID = -1, &
                                         TIDE_ERR_STATE = -2, TIDE_ERR_CONFIG = -3, &
                                         TIDE_ERR_NOMEM = -4, TIDE_ERR_MPI = -5, &
                                         TIDE_ERR_MISMATCH = -6, TIDE_ERR_UNSUPPORTED = -7, &
                                         TIDE_ERR_TOOL = -8

    integer(c_int), parameter, public :: TIDE_IN = 1, TIDE_OUT = 2, TIDE_INOUT = 3, &
                                         TIDE_VALUE = 4

    ! ---- types (the same layout as tide.h's structs) ----------------------------------------
    ! One task argument. tide_arg_in/_out/_inout/_value build one from a Fortran array
    ! or scalar; tide_arg(c_loc(x), c_sizeof(x), TIDE_IN) is the same by hand.
    type, bind(C), public :: tide_arg
        type(c_ptr) :: ptr
        integer(c_size_t) :: size
        integer(c_int) :: mode
    end type

    type, bind(C), public :: tide_phase_stats
        integer(c_int) :: phase
        real(c_double) :: W_max, W_avg, R_imb, L_total, ideal, time
        integer(c_int64_t) :: tasks, offloaded, bytes_moved
        real(c_double) :: W_self, L_self, L_pred_self, L_unc_self
        integer(c_int64_t) :: tasks_self, offloaded_self, received_self
    end type

    type, bind(C), public :: tide_object_msg
        integer(c_int64_t) :: from
        type(c_ptr) :: data
        integer(c_size_t) :: size
    end type

    type, bind(C), public :: tide_object_info
        integer(c_int64_t) :: id, iteration
        integer(c_int) :: rank
    end type

    type, bind(C), public :: tide_objects_lb_record
        integer(c_int64_t) :: iteration
        real(c_double) :: decision_s, gather_s, migrate_s
        integer(c_int64_t) :: moved, bytes_moved
        real(c_double) :: max_before, avg, max_after, comm_before, comm_after
        integer(c_int64_t) :: gossip_rounds, gossip_messages, handshake_rounds, proposals, &
                              refused, unplaced
    end type

    type, bind(C), public :: tide_objects_stats
        integer(c_int64_t) :: iterations, objects, objects_self, reschedules
        type(tide_objects_lb_record) :: last
        real(c_double) :: decision_s_total, gather_s_total, migrate_s_total
        integer(c_int64_t) :: moved_total, bytes_moved_total, messages, message_bytes
        real(c_double) :: load_max, load_avg, load_self
    end type

    ! ---- what a task body and an object's iteration function look like ----------------------
    public :: tide_task_fn, tide_object_fn
    abstract interface
        subroutine tide_task_fn(args) bind(C)
            import :: c_ptr
            type(c_ptr), intent(in) :: args(*)
        end subroutine

        subroutine tide_object_fn(state, state_size, inbox, ninbox, info) bind(C)
            import :: c_ptr, c_size_t, tide_object_msg, tide_object_info
            type(c_ptr), value :: state
            integer(c_size_t), value :: state_size
            type(tide_object_msg), intent(in) :: inbox(*)
            integer(c_size_t), value :: ninbox
            type(tide_object_info), intent(in) :: info
        end subroutine
    end interface

    ! ---- life cycle ---------------------------------------------------------------------------
    ! A Fortran program passes no arguments: ierr = tide_init().
    public :: tide_init
    interface
        integer(c_int) function tide_init(argc, argv) bind(C, name="tide_init")
            import :: c_int, c_ptr
            integer(c_int), optional, intent(inout) :: argc
            type(c_ptr), optional, intent(inout) :: argv
        end function
    end interface

    public :: tide_finalize
    interface
        integer(c_int) function tide_finalize() bind(C, name="tide_finalize")
            import :: c_int
        end function
    end interface

    public :: tide_config_set ! module procedure below (strings)
    interface
        integer(c_int) function c_tide_config_set(name, val) bind(C, name="tide_config_set")
            import :: c_int, c_char
            character(kind=c_char), intent(in) :: name(*), val(*)
        end function
    end interface

    public :: tide_rank
    interface
        integer(c_int) function tide_rank() bind(C, name="tide_rank")
            import :: c_int
        end function
    end interface

    public :: tide_size
    interface
        integer(c_int) function tide_size() bind(C, name="tide_size")
            import :: c_int
        end function
    end interface

    public :: tide_num_threads
    interface
        integer(c_int) function tide_num_threads() bind(C, name="tide_num_threads")
            import :: c_int
        end function
    end interface

    ! ---- tasks --------------------------------------------------------------------------------
    public :: tide_task_create
    interface
        integer(c_int) function tide_task_create(task, fn, nargs, args) &
            bind(C, name="tide_task_create")
            import :: c_int, c_ptr, tide_arg, tide_task_fn
            type(c_ptr), intent(out) :: task
            procedure(tide_task_fn) :: fn
            integer(c_int), value :: nargs
            type(tide_arg), intent(in) :: args(*)
        end function
    end interface

    ! index is 0-based, as in C (0 .. TIDE_MAX_FEATURES-1).
    public :: tide_task_set_feature
    interface
        integer(c_int) function tide_task_set_feature(task, index, val) &
            bind(C, name="tide_task_set_feature")
            import :: c_int, c_ptr, c_double
            type(c_ptr), value :: task
            integer(c_int), value :: index
            real(c_double), value :: val
        end function
    end interface

    ! Hints, before submission (tide.h): pinned, cost in seconds, priority (higher first).
    public :: tide_task_set_pinned, tide_task_set_cost, tide_task_set_priority
    interface
        integer(c_int) function tide_task_set_pinned(task) bind(C, name="tide_task_set_pinned")
            import :: c_int, c_ptr
            type(c_ptr), value :: task
        end function
        integer(c_int) function tide_task_set_cost(task, seconds) &
            bind(C, name="tide_task_set_cost")
            import :: c_int, c_ptr, c_double
            type(c_ptr), value :: task
            real(c_double), value :: seconds
        end function
        integer(c_int) function tide_task_set_priority(task, priority) &
            bind(C, name="tide_task_set_priority")
            import :: c_int, c_ptr
            type(c_ptr), value :: task
            integer(c_int), value :: priority
        end function
    end interface

    public :: tide_task_submit
    interface
        integer(c_int) function tide_task_submit(task) bind(C, name="tide_task_submit")
            import :: c_int, c_ptr
            type(c_ptr), value :: task
        end function
    end interface

    public :: tide_task_discard
    interface
        integer(c_int) function tide_task_discard(task) bind(C, name="tide_task_discard")
            import :: c_int, c_ptr
            type(c_ptr), value :: task
        end function
    end interface

    public :: tide_taskwait
    interface
        integer(c_int) function tide_taskwait() bind(C, name="tide_taskwait")
            import :: c_int
        end function
    end interface

    ! ---- errors and statistics ----------------------------------------------------------------
    public :: tide_strerror ! module procedure below (strings)
    interface
        type(c_ptr) function c_tide_strerror(code) bind(C, name="tide_strerror")
            import :: c_int, c_ptr
            integer(c_int), value :: code
        end function
    end interface

    public :: tide_last_error_message ! module procedure below (strings)
    interface
        type(c_ptr) function c_tide_last_error_message() bind(C, name="tide_last_error_message")
            import :: c_ptr
        end function
    end interface

    public :: tide_stats_last_phase
    interface
        integer(c_int) function tide_stats_last_phase(out) bind(C, name="tide_stats_last_phase")
            import :: c_int, tide_phase_stats
            type(tide_phase_stats), intent(out) :: out
        end function
    end interface

    ! ---- persistent migratable objects --------------------------------------------------------
    ! state and data are addresses: c_loc(x), with their sizes in bytes, c_sizeof(x).
    public :: tide_object_create
    interface
        integer(c_int) function tide_object_create(id, state, state_size, fn) &
            bind(C, name="tide_object_create")
            import :: c_int, c_int64_t, c_ptr, c_size_t, tide_object_fn
            integer(c_int64_t), value :: id
            type(c_ptr), value :: state
            integer(c_size_t), value :: state_size
            procedure(tide_object_fn) :: fn
        end function
    end interface

    public :: tide_object_send
    interface
        integer(c_int) function tide_object_send(from_id, to_id, data, nbytes) &
            bind(C, name="tide_object_send")
            import :: c_int, c_int64_t, c_ptr, c_size_t
            integer(c_int64_t), value :: from_id, to_id
            type(c_ptr), value :: data
            integer(c_size_t), value :: nbytes
        end function
    end interface

    public :: tide_objects_iterate
    interface
        integer(c_int) function tide_objects_iterate() bind(C, name="tide_objects_iterate")
            import :: c_int
        end function
    end interface

    public :: tide_object_state
    interface
        integer(c_int) function tide_object_state(id, state, state_size) &
            bind(C, name="tide_object_state")
            import :: c_int, c_int64_t, c_ptr, c_size_t
            integer(c_int64_t), value :: id
            type(c_ptr), intent(out) :: state
            integer(c_size_t), intent(out) :: state_size
        end function
    end interface

    public :: tide_objects_local
    interface
        integer(c_int) function tide_objects_local(ids, cap, n) bind(C, name="tide_objects_local")
            import :: c_int, c_int64_t, c_size_t
            integer(c_int64_t), intent(out) :: ids(*)
            integer(c_size_t), value :: cap
            integer(c_size_t), intent(out) :: n
        end function
    end interface

    public :: tide_objects_set_lb ! module procedure below (strings)
    interface
        integer(c_int) function c_tide_objects_set_lb(strategy, period) &
            bind(C, name="tide_objects_set_lb")
            import :: c_int, c_char
            character(kind=c_char), intent(in) :: strategy(*)
            integer(c_int), value :: period
        end function
    end interface

    public :: tide_objects_stats_get
    interface
        integer(c_int) function tide_objects_stats_get(out) bind(C, name="tide_objects_stats_get")
            import :: c_int, tide_objects_stats
            type(tide_objects_stats), intent(out) :: out
        end function
    end interface

    public :: tide_objects_finalize
    interface
        integer(c_int) function tide_objects_finalize() bind(C, name="tide_objects_finalize")
            import :: c_int
        end function
    end interface

    ! ---- Fortran helpers ----------------------------------------------------------------------
    public :: tide_arg_in, tide_arg_out, tide_arg_inout, tide_arg_value

    interface
        ! runtime/fortran/tide_f.c: the address and size in bytes of any contiguous array.
        integer(c_int) function tide_f_arg(x, mode, arg) bind(C, name="tide_f_arg")
            import :: c_int, tide_arg
            type(*), dimension(..), intent(in) :: x
            integer(c_int), value :: mode
            type(tide_arg), intent(out) :: arg
        end function

        integer(c_size_t) function c_strlen(s) bind(C, name="strlen")
            import :: c_size_t, c_ptr
            type(c_ptr), value :: s
        end function
    end interface

contains

    integer(c_int) function tide_config_set(name, val)
        character(len=*), intent(in) :: name, val
        tide_config_set = c_tide_config_set(c_string(name), c_string(val))
    end function

    integer(c_int) function tide_objects_set_lb(strategy, period)
        character(len=*), intent(in) :: strategy
        integer(c_int), intent(in) :: period
        tide_objects_set_lb = c_tide_objects_set_lb(c_string(strategy), period)
    end function

    function tide_strerror(code) result(s)
        integer(c_int), intent(in) :: code
        character(len=:), allocatable :: s
        s = f_string(c_tide_strerror(code))
    end function

    function tide_last_error_message() result(s)
        character(len=:), allocatable :: s
        s = f_string(c_tide_last_error_message())
    end function

    ! The argument constructors. x must be a variable that outlives the task (an IN/OUT/INOUT
    ! buffer until the taskwait returns; a VALUE one until tide_task_create returns), declared
    ! TARGET, and contiguous: an array, a contiguous section such as u(:, b), or a scalar.
    type(tide_arg) function tide_arg_in(x)
        type(*), dimension(..), target, intent(in) :: x
        tide_arg_in = make_arg(x, TIDE_IN, "tide_arg_in")
    end function

    type(tide_arg) function tide_arg_out(x)
        type(*), dimension(..), target, intent(in) :: x
        tide_arg_out = make_arg(x, TIDE_OUT, "tide_arg_out")
    end function

    type(tide_arg) function tide_arg_inout(x)
        type(*), dimension(..), target, intent(in) :: x
        tide_arg_inout = make_arg(x, TIDE_INOUT, "tide_arg_inout")
    end function

    type(tide_arg) function tide_arg_value(x)
        type(*), dimension(..), target, intent(in) :: x
        tide_arg_value = make_arg(x, TIDE_VALUE, "tide_arg_value")
    end function

    type(tide_arg) function make_arg(x, mode, who)
        type(*), dimension(..), target, intent(in) :: x
        integer(c_int), intent(in) :: mode
        character(len=*), intent(in) :: who
        ! A non-contiguous section would have to be copied into a temporary that is gone by
        ! the time the task runs: stop here, with the reason, rather than lose the data.
        if (tide_f_arg(x, mode, make_arg) /= TIDE_OK) &
            error stop "tide: "//who//": the array is not contiguous or of unknown size "// &
            "(pass a contiguous array or section, e.g. u(:, j) rather than u(i, :))"
    end function

    pure function c_string(s) result(c)
        character(len=*), intent(in) :: s
        character(kind=c_char, len=len(s) + 1) :: c
        c = s//c_null_char
    end function

    function f_string(p) result(s)
        type(c_ptr), intent(in) :: p
        character(len=:), allocatable :: s
        character(kind=c_char), pointer :: chars(:)
        integer :: i, n
        if (.not. c_associated(p)) then
            s = ""
            return
        end if
        n = int(c_strlen(p))
        call c_f_pointer(p, chars, [n])
        allocate (character(len=n) :: s)
        do i = 1, n
            s(i:i) = chars(i)
        end do
    end function
end module tide
