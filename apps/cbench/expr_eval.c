/* Evaluator of compiled cbench expressions: a switch over the bytecode with a fixed stack. Every
 * operation C leaves undefined on int64 (overflow, x / 0, INT64_MIN / -1) is checked and reported
 * as a result code instead. */
#include "expr_internal.h"

#include <stdio.h>

int cbench_expr_eval(const cbench_expr *e, const int64_t *vars, int64_t *value, int *err_pos)
{
    int64_t st[EXPR_STACK];
    int sp = 0; /* st[sp - 1] is the top */
    const expr_insn *code = e->code;
    const expr_insn *c;
    int status;
    for (int pc = 0;; pc++) {
        c = &code[pc];
        int64_t a, b;
        switch ((expr_op)c->op) {
        case OP_CONST:
            st[sp++] = c->arg;
            continue;
        case OP_VAR:
            st[sp++] = vars[c->arg];
            continue;
        case OP_NEG:
            if (st[sp - 1] == INT64_MIN) goto overflow;
            st[sp - 1] = -st[sp - 1];
            continue;
        case OP_NOT:
            st[sp - 1] = !st[sp - 1];
            continue;
        case OP_BOOL:
            st[sp - 1] = st[sp - 1] != 0;
            continue;
        case OP_JZ:
            if (st[--sp] == 0) pc = (int)c->arg - 1;
            continue;
        case OP_JMP:
            pc = (int)c->arg - 1;
            continue;
        case OP_AND:
            if (st[sp - 1] == 0)
                pc = (int)c->arg - 1;
            else
                sp--;
            continue;
        case OP_OR:
            if (st[sp - 1] != 0) {
                st[sp - 1] = 1;
                pc = (int)c->arg - 1;
            } else {
                sp--;
            }
            continue;
        case OP_END:
            *value = st[0];
            return CBENCH_EXPR_OK;
        default:
            break;
        }
        /* binary operators: pop b, replace a */
        b = st[--sp];
        a = st[sp - 1];
        int64_t r;
        switch ((expr_op)c->op) {
        case OP_ADD:
            if (__builtin_add_overflow(a, b, &r)) goto overflow;
            break;
        case OP_SUB:
            if (__builtin_sub_overflow(a, b, &r)) goto overflow;
            break;
        case OP_MUL:
            if (__builtin_mul_overflow(a, b, &r)) goto overflow;
            break;
        case OP_DIV:
            if (b == 0) {
                status = CBENCH_EXPR_DIV_ZERO;
                goto fail;
            }
            if (a == INT64_MIN && b == -1) goto overflow;
            r = a / b;
            break;
        case OP_MOD:
            if (b == 0) {
                status = CBENCH_EXPR_MOD_ZERO;
                goto fail;
            }
            /* x % -1 is 0 for every x; C leaves INT64_MIN % -1 undefined, so it is not computed */
            r = b == -1 ? 0 : a % b;
            break;
        case OP_LT:
            r = a < b;
            break;
        case OP_LE:
            r = a <= b;
            break;
        case OP_GT:
            r = a > b;
            break;
        case OP_GE:
            r = a >= b;
            break;
        case OP_EQ:
            r = a == b;
            break;
        case OP_NE:
            r = a != b;
            break;
        default:
            r = 0; /* unreachable: the compiler emits only the opcodes above */
            break;
        }
        st[sp - 1] = r;
    }
overflow:
    status = CBENCH_EXPR_OVERFLOW;
fail:
    if (err_pos) *err_pos = c->pos;
    return status;
}
