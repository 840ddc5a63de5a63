/* Compiler of the cbench expression language: a recursive-descent parser over C's precedence
 * levels that emits stack bytecode as it goes (no tree). The first error stops it; the error
 * carries the column so the caller can draw a caret under it. */
#include "expr_internal.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum tok_kind {
    TK_END,
    TK_NUM,
    TK_VAR,
    TK_LPAREN,
    TK_RPAREN,
    TK_PLUS,
    TK_MINUS,
    TK_STAR,
    TK_SLASH,
    TK_PERCENT,
    TK_LT,
    TK_LE,
    TK_GT,
    TK_GE,
    TK_EQ,
    TK_NE,
    TK_AND,
    TK_OR,
    TK_NOT,
    TK_QUEST,
    TK_COLON
} tok_kind;

typedef struct token {
    tok_kind kind;
    int pos;
    int len;
    int64_t value; /* TK_NUM: the literal; TK_VAR: the cbench_var */
} token;

typedef struct parser {
    const char *src;
    int len;
    int pos; /* where the lexer continues */
    token tok;
    unsigned allowed, used;
    int depth;
    expr_insn *code;
    int ncode, cap;
    int sp, maxsp; /* stack depth at the end of the code so far, and its maximum */
    bool failed;
    bool oom;
    cbench_expr_error *err;
} parser;

static const char *const var_names[CBENCH_NVARS] = {"t", "i", "n", "p", "r", "lbfreq"};

const char *cbench_var_name(cbench_var v)
{
    return (unsigned)v < CBENCH_NVARS ? var_names[v] : "?";
}

static void fail(parser *p, int pos, const char *fmt, ...)
{
    if (p->failed) return;
    p->failed = true;
    p->err->pos = pos;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err->msg, sizeof p->err->msg, fmt, ap);
    va_end(ap);
}

static bool is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* Describes the character at `pos` for a message: 'x', or the byte in hex when unprintable. */
static const char *describe_char(const parser *p, int pos, char *buf, size_t len)
{
    unsigned char c = (unsigned char)p->src[pos];
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, len, "'%c'", c);
    else
        snprintf(buf, len, "byte 0x%02x", c);
    return buf;
}

static void lex_number(parser *p, token *t)
{
    const char *s = p->src;
    int start = p->pos;
    if (s[start] == '0' && is_digit(s[start + 1])) {
        fail(p, start, "leading zeros are not allowed (C would read 0%c... as octal)",
             s[start + 1]);
        return;
    }
    int64_t v = 0;
    int i = start;
    for (; is_digit(s[i]); i++) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s[i] - '0', &v)) {
            fail(p, start, "integer literal too large (the largest is %lld)", (long long)INT64_MAX);
            return;
        }
    }
    if (s[i] == '.') {
        fail(p, i, "unexpected '.': numbers are integers");
        return;
    }
    if (is_alpha(s[i])) {
        char b[16];
        fail(p, i, "unexpected %s after a number", describe_char(p, i, b, sizeof b));
        return;
    }
    t->kind = TK_NUM;
    t->value = v;
    t->len = i - start;
}

static void allowed_names(unsigned mask, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = 0;
    for (int v = 0; v < CBENCH_NVARS && off < len; v++)
        if (mask & CBENCH_VAR_BIT(v))
            off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", var_names[v]);
}

static void lex_name(parser *p, token *t)
{
    int start = p->pos, i = start;
    while (is_alpha(p->src[i]) || is_digit(p->src[i]))
        i++;
    int n = i - start;
    char names[64];
    for (int v = 0; v < CBENCH_NVARS; v++) {
        if ((int)strlen(var_names[v]) != n || memcmp(var_names[v], p->src + start, (size_t)n))
            continue;
        if (!(p->allowed & CBENCH_VAR_BIT(v))) {
            allowed_names(p->allowed, names, sizeof names);
            fail(p, start, "'%s' is not available in this expression (allowed: %s)", var_names[v],
                 p->allowed ? names : "no variables");
            return;
        }
        t->kind = TK_VAR;
        t->value = v;
        t->len = n;
        return;
    }
    allowed_names(p->allowed, names, sizeof names);
    fail(p, start, "unknown name '%.*s' (variables: %s)", n > 32 ? 32 : n, p->src + start,
         p->allowed ? names : "none");
}

/* Two-character operators first, so that "<=" is not read as "<" "=". */
static const struct {
    const char *text;
    tok_kind kind;
} operators[] = {
    {"<=", TK_LE},  {">=", TK_GE},    {"==", TK_EQ},     {"!=", TK_NE},  {"&&", TK_AND},
    {"||", TK_OR},  {"(", TK_LPAREN}, {")", TK_RPAREN},  {"+", TK_PLUS}, {"-", TK_MINUS},
    {"*", TK_STAR}, {"/", TK_SLASH},  {"%", TK_PERCENT}, {"<", TK_LT},   {">", TK_GT},
    {"!", TK_NOT},  {"?", TK_QUEST},  {":", TK_COLON},
};

/* Reads the next token into p->tok; on a lexical error p->failed is set. */
static void next(parser *p)
{
    while (p->src[p->pos] == ' ' || p->src[p->pos] == '\t')
        p->pos++;
    token t = {.kind = TK_END, .pos = p->pos, .len = 0};
    const char *s = p->src + p->pos;
    if (p->pos >= p->len) {
        p->tok = t;
        return;
    }
    if (is_digit(*s)) {
        lex_number(p, &t);
    } else if (is_alpha(*s)) {
        lex_name(p, &t);
    } else {
        for (size_t k = 0; k < sizeof operators / sizeof operators[0]; k++) {
            size_t n = strlen(operators[k].text);
            if (!strncmp(s, operators[k].text, n)) {
                t.kind = operators[k].kind;
                t.len = (int)n;
                break;
            }
        }
        if (t.len == 0) {
            char b[16];
            if (*s == '=')
                fail(p, p->pos, "'=' is not an operator (equality is '==')");
            else if (*s == '&' || *s == '|')
                fail(p, p->pos,
                     "unexpected '%c' (there are no bitwise operators; logical is '%c%c')", *s, *s,
                     *s);
            else
                fail(p, p->pos, "unexpected %s", describe_char(p, p->pos, b, sizeof b));
        }
    }
    p->pos += t.len;
    p->tok = t;
}

/* Appends one instruction; `effect` is its change of the stack depth. Returns its index. */
static int emit(parser *p, expr_op op, int pos, int64_t arg, int effect)
{
    if (p->failed) return 0;
    if (p->ncode == p->cap) {
        int cap = p->cap ? 2 * p->cap : 32;
        expr_insn *c = realloc(p->code, (size_t)cap * sizeof *c);
        if (!c) {
            p->oom = true;
            fail(p, pos, "out of memory");
            return 0;
        }
        p->code = c;
        p->cap = cap;
    }
    p->sp += effect;
    if (p->sp > p->maxsp) p->maxsp = p->sp;
    if (p->maxsp > EXPR_STACK)
        fail(p, pos, "expression too complex (needs more than %d operands at once)", EXPR_STACK);
    p->code[p->ncode] = (expr_insn){.op = op, .pos = pos, .arg = arg};
    return p->ncode++;
}

static void patch(parser *p, int at)
{
    if (!p->failed) p->code[at].arg = p->ncode;
}

static const char *tok_text(const parser *p, char *buf, size_t len)
{
    if (p->tok.kind == TK_END) return "the end";
    snprintf(buf, len, "'%.*s'", p->tok.len > 20 ? 20 : p->tok.len, p->src + p->tok.pos);
    return buf;
}

static void parse_ternary(parser *p);

static bool enter(parser *p)
{
    if (++p->depth > CBENCH_EXPR_MAX_DEPTH) {
        fail(p, p->tok.pos, "expression nested too deeply (more than %d levels)",
             CBENCH_EXPR_MAX_DEPTH);
        return false;
    }
    return true;
}

static void parse_primary(parser *p)
{
    char b[32];
    token t = p->tok;
    switch (t.kind) {
    case TK_NUM:
        emit(p, OP_CONST, t.pos, t.value, 1);
        next(p);
        return;
    case TK_VAR:
        p->used |= CBENCH_VAR_BIT(t.value);
        emit(p, OP_VAR, t.pos, t.value, 1);
        next(p);
        return;
    case TK_LPAREN:
        next(p);
        parse_ternary(p);
        if (p->failed) return;
        if (p->tok.kind != TK_RPAREN) {
            fail(p, p->tok.pos, "expected ')' to close the '(' at column %d, found %s", t.pos + 1,
                 tok_text(p, b, sizeof b));
            return;
        }
        next(p);
        return;
    case TK_END:
        fail(p, t.pos, "expression ends too early: expected a number, a variable or '('");
        return;
    default:
        fail(p, t.pos, "expected a number, a variable or '(', found %s", tok_text(p, b, sizeof b));
    }
}

static void parse_unary(parser *p)
{
    token t = p->tok;
    if (t.kind != TK_MINUS && t.kind != TK_NOT && t.kind != TK_PLUS) {
        parse_primary(p);
        return;
    }
    if (!enter(p)) return;
    next(p);
    parse_unary(p);
    p->depth--;
    if (t.kind == TK_MINUS) emit(p, OP_NEG, t.pos, 0, 0);
    if (t.kind == TK_NOT) emit(p, OP_NOT, t.pos, 0, 0);
}

/* One left-associative binary level: operands come from `sub`, operators from `ops`. */
typedef struct binop {
    tok_kind tok;
    expr_op op;
} binop;

static void parse_left_assoc(parser *p, void (*sub)(parser *), const binop *ops, int nops)
{
    sub(p);
    while (!p->failed) {
        int k = 0;
        while (k < nops && ops[k].tok != p->tok.kind)
            k++;
        if (k == nops) return;
        int pos = p->tok.pos;
        next(p);
        sub(p);
        emit(p, ops[k].op, pos, 0, -1);
    }
}

static void parse_mul(parser *p)
{
    static const binop ops[] = {{TK_STAR, OP_MUL}, {TK_SLASH, OP_DIV}, {TK_PERCENT, OP_MOD}};
    parse_left_assoc(p, parse_unary, ops, 3);
}

static void parse_add(parser *p)
{
    static const binop ops[] = {{TK_PLUS, OP_ADD}, {TK_MINUS, OP_SUB}};
    parse_left_assoc(p, parse_mul, ops, 2);
}

static void parse_rel(parser *p)
{
    static const binop ops[] = {{TK_LT, OP_LT}, {TK_LE, OP_LE}, {TK_GT, OP_GT}, {TK_GE, OP_GE}};
    parse_left_assoc(p, parse_add, ops, 4);
}

static void parse_eq(parser *p)
{
    static const binop ops[] = {{TK_EQ, OP_EQ}, {TK_NE, OP_NE}};
    parse_left_assoc(p, parse_rel, ops, 2);
}

/* a && b && c: each left side jumps to the end with its 0 when false; the last right side is
 * normalised to 0/1 like C's result. */
static void parse_logic(parser *p, tok_kind tk, expr_op op, void (*sub)(parser *))
{
    sub(p);
    while (!p->failed && p->tok.kind == tk) {
        int pos = p->tok.pos;
        int jump = emit(p, op, pos, 0, -1);
        next(p);
        sub(p);
        emit(p, OP_BOOL, pos, 0, 0);
        patch(p, jump);
    }
}

static void parse_and(parser *p)
{
    parse_logic(p, TK_AND, OP_AND, parse_eq);
}

static void parse_or(parser *p)
{
    parse_logic(p, TK_OR, OP_OR, parse_and);
}

/* c ? a : b, right-associative like C: the else branch is itself a conditional. */
static void parse_ternary(parser *p)
{
    if (!enter(p)) return;
    parse_or(p);
    if (!p->failed && p->tok.kind == TK_QUEST) {
        token q = p->tok;
        int jz = emit(p, OP_JZ, q.pos, 0, -1);
        next(p);
        parse_ternary(p);
        int jmp = emit(p, OP_JMP, q.pos, 0, 0);
        if (!p->failed && p->tok.kind != TK_COLON) {
            char b[32];
            fail(p, p->tok.pos, "expected ':' of the '?' at column %d, found %s", q.pos + 1,
                 tok_text(p, b, sizeof b));
        }
        patch(p, jz);
        p->sp--; /* the else branch starts where the then branch did */
        next(p);
        parse_ternary(p);
        patch(p, jmp);
    }
    p->depth--;
}

cbench_expr *cbench_expr_compile(const char *src, unsigned allowed, cbench_expr_error *err)
{
    parser p = {.src = src, .allowed = allowed, .err = err};
    size_t len = strlen(src);
    if (len > CBENCH_EXPR_MAX_LEN) {
        err->pos = CBENCH_EXPR_MAX_LEN;
        snprintf(err->msg, sizeof err->msg, "expression longer than %d characters",
                 CBENCH_EXPR_MAX_LEN);
        return NULL;
    }
    p.len = (int)len;
    next(&p);
    if (!p.failed && p.tok.kind == TK_END) fail(&p, p.tok.pos, "empty expression");
    parse_ternary(&p);
    if (!p.failed && p.tok.kind != TK_END) {
        char b[32];
        fail(&p, p.tok.pos, "unexpected %s after a complete expression", tok_text(&p, b, sizeof b));
    }
    emit(&p, OP_END, p.len, 0, 0);
    cbench_expr *e = p.failed ? NULL : malloc(sizeof *e);
    char *copy = e ? malloc(len + 1) : NULL;
    if (!copy) {
        if (!p.failed) fail(&p, 0, "out of memory");
        free(e);
        free(p.code);
        return NULL;
    }
    memcpy(copy, src, len + 1);
    *e = (cbench_expr){.code = p.code, .ncode = p.ncode, .vars = p.used, .src = copy};
    return e;
}

void cbench_expr_free(cbench_expr *e)
{
    if (!e) return;
    free(e->code);
    free(e->src);
    free(e);
}

unsigned cbench_expr_vars(const cbench_expr *e)
{
    return e->vars;
}

const char *cbench_expr_source(const cbench_expr *e)
{
    return e->src;
}
