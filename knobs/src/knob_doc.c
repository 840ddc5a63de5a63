/* Listings of knob tables: the markdown of docs/config.md and the defaults as JSON. */
#include "tide_json.h"
#include "tide_knob.h"

/* A table cell: '|' would end the cell, a newline the row. */
static void cell(FILE *f, const char *s)
{
    fputc(' ', f);
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputs(" |", f);
}

static void markdown_row(FILE *f, const tide_knob_table *t, const tide_knob *k)
{
    char allowed[256];
    tide_knob_allowed(k, allowed, sizeof allowed);
    fprintf(f, "| `%s` |", k->name);
    if (k->def)
        fprintf(f, " `%s` |", k->def);
    else
        cell(f, k->unset ? k->unset : "unset");
    cell(f, allowed);
    cell(f, tide_knob_owner(t, k));
    cell(f, k->help);
    fputc('\n', f);
}

void tide_knob_markdown(FILE *f, const tide_knob_table *const *tables, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const tide_knob_table *t = tables[i];
        fprintf(f, "%s## %s\n\n", i ? "\n" : "", t->title);
        fprintf(f, "| variable | default | allowed | owner | meaning |\n");
        fprintf(f, "| --- | --- | --- | --- | --- |\n");
        for (size_t r = 0; r < t->n; r++)
            markdown_row(f, t, &t->rows[r]);
    }
}

void tide_knob_json_defaults(FILE *f, const tide_knob_table *const *tables, size_t n)
{
    const char *sep = "";
    fputs("{", f);
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; r < tables[i]->n; r++) {
            const tide_knob *k = &tables[i]->rows[r];
            fprintf(f, "%s\n  ", sep);
            tide_json_string(f, k->name);
            fputs(": ", f);
            if (k->def)
                tide_json_string(f, k->def);
            else
                fputs("null", f);
            sep = ",";
        }
    fputs("\n}\n", f);
}
