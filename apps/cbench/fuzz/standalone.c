/* Runs the fuzz target over files and directories of inputs without a fuzzer, so the committed
 * corpus is a regular test: cbench_fuzz_corpus DIR|FILE... Fails when no input was found. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cbench_fuzz_corpus: cannot open %s\n", path);
        return -1;
    }
    static unsigned char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    return 0;
}

static int run_path(const char *path, int *count)
{
    struct stat st;
    if (stat(path, &st)) {
        fprintf(stderr, "cbench_fuzz_corpus: no such file or directory: %s\n", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        (*count)++;
        return run_file(path);
    }
    DIR *d = opendir(path);
    if (!d) return -1;
    int rc = 0;
    for (struct dirent *e; !rc && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", path, e->d_name);
        rc = run_path(full, count);
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    int count = 0;
    for (int k = 1; k < argc; k++)
        if (run_path(argv[k], &count)) return 1;
    if (count == 0) {
        fprintf(stderr, "cbench_fuzz_corpus: no inputs\n");
        return 1;
    }
    printf("cbench_fuzz_corpus: %d inputs ok\n", count);
    return 0;
}
