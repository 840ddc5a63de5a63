/* Evaluator of compiled cbench expressions: a switch over the bytecode with a fixed stack. Every
 * operation C leaves undefined on int64 (overflow, x / 0, INT64_MIN / -1) is checked and reported
 * as a result code instead. The operator families are small static functions that the compiler
 * inlines into the one dispatch loop (apps/cbench/bench_expr.c measures it). */
#include "expr_internal.h"

#include <stdio.h>

/* - ! and the 0/1 of a truth value: CBENCH_EXPR_OK with *r, or the error. */
static inline int eval_unary(expr_op op, int64_t x, int64_t *r)
{
    switch (op) {
    case OP_NEG:
        if (x == INT64_MIN) return CBENCH_EXPR_OVERFLOW;
        *r = -x;
        return CBENCH_EXPR_OK;
    case OP_NOT:
        *r = !x;
        return CBENCH_EXPR_OK;
    default: /* OP_BOOL */
        *r = x != 0;
        return CBENCH_EXPR_OK;
    }
}

/* + - * / %: CBENCH_EXPR_OK with *r = a op b, or the error. */
static inline int eval_arith(expr_op op, int64_t a, int64_t b, int64_t *r)
{
    switch (op) {
    case OP_ADD:
        return __builtin_add_overflow(a, b, r) ? CBENCH_EXPR_OVERFLOW : CBENCH_EXPR_OK;
    case OP_SUB:
        return __builtin_sub_overflow(a, b, r) ? CBENCH_EXPR_OVERFLOW : CBENCH_EXPR_OK;
    case OP_MUL:
        return __builtin_mul_overflow(a, b, r) ? CBENCH_EXPR_OVERFLOW : CBENCH_EXPR_OK;
    case OP_DIV:
        if (b == 0) return CBENCH_EXPR_DIV_ZERO;
        if (a == INT64_MIN && b == -1) return CBENCH_EXPR_OVERFLOW;
        *r = a / b;
        return CBENCH_EXPR_OK;
    default: /* OP_MOD */
        if (b == 0) return CBENCH_EXPR_MOD_ZERO;
        /* x % -1 is 0 for every x; C leaves INT64_MIN % -1 undefined, so it is not computed */
        *r = b == -1 ? 0 : a % b;
        return CBENCH_EXPR_OK;
    }
}

static inline int64_t eval_compare(expr_op op, int64_t a, int64_t b)
{
    switch (op) {
    case OP_LT:
        return a < b;
    case OP_LE:
        return a <= b;
    case OP_GT:
        return a > b;
    case OP_GE:
        return a >= b;
    case OP_EQ:
        return a == b;
    case OP_NE:
        return a != b;
    default:
        return 0; /* unreachable: the compiler emits only the opcodes of expr_op */
    }
}

int cbench_expr_eval(const cbench_expr *e, const int64_t *vars, int64_t *value, int *err_pos)
{
    int64_t st[EXPR_STACK];
    int sp = 0; /* st[sp - 1] is the top */
    const expr_insn *code = e->code;
    const expr_insn *c;
    int status;
    for (int pc = 0;; pc++) {
        c = &code[pc];
        switch ((expr_op)c->op) {
        case OP_CONST:
            st[sp++] = c->arg;
            continue;
        case OP_VAR:
            st[sp++] = vars[c->arg];
            continue;
        case OP_NEG:
        case OP_NOT:
        case OP_BOOL:
            status = eval_unary((expr_op)c->op, st[sp - 1], &st[sp - 1]);
            if (status != CBENCH_EXPR_OK) goto fail;
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
        case OP_ADD:
        case OP_SUB:
        case OP_MUL:
        case OP_DIV:
        case OP_MOD:
            sp--; /* pop b, replace a */
            status = eval_arith((expr_op)c->op, st[sp - 1], st[sp], &st[sp - 1]);
            if (status != CBENCH_EXPR_OK) goto fail;
            continue;
        default: /* the comparisons */
            sp--;
            st[sp - 1] = eval_compare((expr_op)c->op, st[sp - 1], st[sp]);
            continue;
        }
    }
fail:
    if (err_pos) *err_pos = c->pos;
    return status;
}
