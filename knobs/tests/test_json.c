/* tide_json_string: quotes and backslashes escaped, control characters as \u00xx, non-ASCII
 * bytes (UTF-8 and stray ones) and DEL unchanged, NULL as "". */
#include "tide_json.h"

#include <stdlib.h>
#include <string.h>

static int failures;

/* What tide_json_string writes for s. */
static void expect(const char *s, const char *want)
{
    FILE *f = tmpfile();
    if (!f) {
        perror("tmpfile");
        exit(1);
    }
    tide_json_string(f, s);
    char got[256] = "";
    rewind(f);
    size_t n = fread(got, 1, sizeof got - 1, f);
    got[n] = '\0';
    fclose(f);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "%s:%d: got [%s], want [%s]\n", __FILE__, __LINE__, got, want);
        failures++;
    }
}

int main(void)
{
    expect("", "\"\"");
    expect(NULL, "\"\"");
    expect("proact_react", "\"proact_react\"");
    expect("a \"quoted\" name", "\"a \\\"quoted\\\" name\"");
    expect("C:\\runs\\x.json", "\"C:\\\\runs\\\\x.json\"");
    expect("\\\"", "\"\\\\\\\"\"");
    expect("line\nnext\ttab\rcr", "\"line\\u000anext\\u0009tab\\u000dcr\"");
    expect("\x01\x1f", "\"\\u0001\\u001f\"");
    expect(" ~\x7f", "\" ~\x7f\"");
    expect("caf\xc3\xa9 \xe2\x82\xac", "\"caf\xc3\xa9 \xe2\x82\xac\"");
    expect("\xff\x80", "\"\xff\x80\"");
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    else
        printf("json string: all checks passed\n");
    return failures != 0;
}
