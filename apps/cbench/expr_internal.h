/* The bytecode shared by the compiler (expr_compile.c) and the evaluator (expr_eval.c). */
#ifndef CBENCH_EXPR_INTERNAL_H
#define CBENCH_EXPR_INTERNAL_H

#include "expr.h"

/* A stack machine: operands are pushed, operators pop theirs and push the result. Jumps make
 * && || ?: evaluate only what C evaluates, so 0 && 1/0 is 0 and not an error. */
typedef enum expr_op {
    OP_CONST, /* push arg */
    OP_VAR,   /* push vars[arg] */
    OP_NEG,
    OP_NOT,
    OP_BOOL, /* top = top != 0 */
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_MOD,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_EQ,
    OP_NE,
    OP_JZ,  /* pop; jump to arg if it was 0 (the condition of ?:) */
    OP_JMP, /* jump to arg */
    OP_AND, /* left side of &&: if top == 0 keep the 0 and jump to arg, else pop */
    OP_OR,  /* left side of ||: if top != 0 make it 1 and jump to arg, else pop */
    OP_END  /* the value is the only entry left */
} expr_op;

typedef struct expr_insn {
    int32_t op;
    int32_t pos; /* column of the operator in the source, for evaluation errors */
    int64_t arg;
} expr_insn;

/* With nesting limited to CBENCH_EXPR_MAX_DEPTH, at most a few operands wait per level; the
 * compiler still checks the exact need against this bound. */
#define EXPR_STACK 512

struct cbench_expr {
    expr_insn *code;
    int ncode;
    unsigned vars;
    char *src;
};

#endif
