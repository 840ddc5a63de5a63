/* The C half of the Fortran binding (docs/fortran.md): what standard Fortran cannot do for itself.
 * gfortran refuses storage_size and c_sizeof on an assumed-type array, so the size in bytes of
 * an arbitrary Fortran array, and whether it is contiguous, are read here from the array's
 * descriptor (ISO_Fortran_binding.h, Fortran 2018). */
#include <ISO_Fortran_binding.h>
#include <tide.h>

__attribute__((visibility("default"))) int tide_f_arg(const CFI_cdesc_t *x, int mode,
                                                      tide_arg *out);

/* Describes the Fortran array or scalar x as a task argument of the given mode. A task reads
 * and writes its arguments as flat memory, so a non-contiguous array section (u(i,:)) is refused
 * rather than silently copied into a temporary that would be gone when the task runs, and so
 * is an assumed-size array (x(*)), whose size is unknown. */
int tide_f_arg(const CFI_cdesc_t *x, int mode, tide_arg *out)
{
    if (x->rank > 0 && !CFI_is_contiguous(x)) return TIDE_ERR_INVALID;
    size_t n = 1;
    for (int d = 0; d < x->rank; d++) {
        if (x->dim[d].extent < 0) return TIDE_ERR_INVALID; /* assumed-size: no known end */
        n *= (size_t)x->dim[d].extent;
    }
    out->ptr = n > 0 ? x->base_addr : NULL;
    out->size = n * x->elem_len;
    out->mode = (tide_arg_mode)mode;
    return TIDE_OK;
}
