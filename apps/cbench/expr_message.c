/* Messages of the expression language: result codes in words and the caret drawing that both
 * syntax and evaluation errors use. */
#include "expr.h"

#include <stdio.h>

const char *cbench_expr_strerror(int status)
{
    switch (status) {
    case CBENCH_EXPR_OK:
        return "ok";
    case CBENCH_EXPR_DIV_ZERO:
        return "division by zero";
    case CBENCH_EXPR_MOD_ZERO:
        return "modulo by zero";
    case CBENCH_EXPR_OVERFLOW:
        return "integer overflow (result outside the 64-bit range)";
    default:
        return "unknown error";
    }
}

int cbench_expr_format_caret(char *buf, size_t len, const char *src, int pos, int indent)
{
    size_t off = 0;
    int n = snprintf(buf, len, "%*s", indent, "");
    if (n < 0) return n;
    off = (size_t)n;
    int col = 0;
    for (const char *s = src; *s; s++, col++) {
        unsigned char c = (unsigned char)*s;
        char shown = c == '\t' ? ' ' : (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
        if (off + 1 < len) buf[off] = shown;
        off++;
    }
    if (pos > col) pos = col;
    if (pos < 0) pos = 0;
    n = snprintf(off < len ? buf + off : NULL, off < len ? len - off : 0, "\n%*s^\n", indent + pos,
                 "");
    if (n < 0) return n;
    if (len && off >= len) buf[len - 1] = 0;
    return (int)off + n;
}
