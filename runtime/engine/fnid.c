/* Portable identity of task functions. A function pointer differs between ranks (ASLR, PIE,
 * shared libraries loaded at other addresses) but its offset inside the object file that holds
 * it does not. A function travels as (module key, offset); each rank maps that back through its
 * own table of loaded objects. A shared library's key is a hash of its file name. The main
 * program's key is its role, MAIN_PROGRAM_KEY: a process has exactly one, and its file name may
 * differ between ranks (a staged copy, srun --bcast) while its code does not; that the code is
 * the same on every rank is what tide_init checks, by the file's contents (tide_exe_hash). */
#define _GNU_SOURCE
#include "internal.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct module {
    uint64_t key;
    uintptr_t base, end; /* [base, end): the object's mapped address range */
    bool ambiguous;      /* two loaded objects share the file name: no portable identity */
} module;

static module *modules;
static int nmodules;
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t tide_hash_bytes(uint64_t h, const void *data, size_t len)
{
    /* FNV-1a, 64 bit. */
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* No file name hashes to it (FNV-1a of a non-empty name is 0 with probability 2^-64). */
#define MAIN_PROGRAM_KEY 0

static uint64_t name_key(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    return tide_hash_bytes(TIDE_HASH_INIT, base, strlen(base));
}

static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    bool *first = data;
    bool main_program = *first; /* dl_iterate_phdr lists the main program first */
    *first = false;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < lo) lo = a;
        if (a + ph->p_memsz > hi) hi = a + ph->p_memsz;
    }
    if (lo >= hi) return 0;
    module *grown = realloc(modules, (size_t)(nmodules + 1) * sizeof *modules);
    if (!grown) return 1;
    modules = grown;
    uint64_t key = main_program ? MAIN_PROGRAM_KEY : name_key(info->dlpi_name);
    module m = {key, lo & ~(uintptr_t)0xfff, hi, false};
    for (int i = 0; i < nmodules; i++)
        if (modules[i].key == m.key) modules[i].ambiguous = m.ambiguous = true;
    modules[nmodules++] = m;
    return 0;
}

static void rebuild_locked(void)
{
    free(modules);
    modules = NULL;
    nmodules = 0;
    bool first = true;
    dl_iterate_phdr(collect, &first);
}

int tide_fnid_init(void)
{
    pthread_mutex_lock(&modules_lock);
    rebuild_locked();
    int ok = nmodules > 0;
    pthread_mutex_unlock(&modules_lock);
    return ok ? TIDE_OK : tide_fail(TIDE_ERR_NOMEM, "cannot list the loaded objects");
}

void tide_fnid_finalize(void)
{
    pthread_mutex_lock(&modules_lock);
    free(modules);
    modules = NULL;
    nmodules = 0;
    pthread_mutex_unlock(&modules_lock);
}

static const module *find_by_addr(uintptr_t a)
{
    for (int i = 0; i < nmodules; i++)
        if (a >= modules[i].base && a < modules[i].end) return &modules[i];
    return NULL;
}

static const module *find_by_key(uint64_t key)
{
    for (int i = 0; i < nmodules; i++)
        if (modules[i].key == key) return &modules[i];
    return NULL;
}

int tide_fnid_of(tide_task_fn fn, tide_fnid *out)
{
    uintptr_t a = (uintptr_t)fn;
    pthread_mutex_lock(&modules_lock);
    const module *m = find_by_addr(a);
    if (!m) { /* loaded by dlopen after init */
        rebuild_locked();
        m = find_by_addr(a);
    }
    int rc = TIDE_OK;
    if (!m)
        rc =
            tide_fail(TIDE_ERR_UNSUPPORTED, "task function %p lies in no loaded object", (void *)a);
    else if (m->ambiguous)
        rc = tide_fail(TIDE_ERR_UNSUPPORTED,
                       "task function %p lies in an object whose file name is not unique",
                       (void *)a);
    else
        *out = (tide_fnid){m->key, a - m->base};
    pthread_mutex_unlock(&modules_lock);
    return rc;
}

tide_task_fn tide_fnid_resolve(tide_fnid id)
{
    pthread_mutex_lock(&modules_lock);
    const module *m = find_by_key(id.module);
    if (!m) {
        rebuild_locked();
        m = find_by_key(id.module);
    }
    tide_task_fn fn = NULL;
    if (m && !m->ambiguous && id.offset < m->end - m->base) {
        uintptr_t a = m->base + id.offset;
        memcpy(&fn, &a, sizeof fn);
    }
    pthread_mutex_unlock(&modules_lock);
    return fn;
}

int tide_exe_hash(uint64_t *out, char *path, size_t pathlen)
{
    ssize_t n = readlink("/proc/self/exe", path, pathlen - 1);
    if (n <= 0) return tide_fail(TIDE_ERR_UNSUPPORTED, "cannot read /proc/self/exe");
    path[n] = 0;
    int fd = open("/proc/self/exe", O_RDONLY);
    if (fd < 0) return tide_fail(TIDE_ERR_UNSUPPORTED, "cannot open /proc/self/exe");
    uint64_t h = TIDE_HASH_INIT;
    unsigned char buf[1 << 16];
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0)
        h = tide_hash_bytes(h, buf, (size_t)r);
    close(fd);
    if (r < 0) return tide_fail(TIDE_ERR_UNSUPPORTED, "cannot read /proc/self/exe");
    *out = h;
    return TIDE_OK;
}
