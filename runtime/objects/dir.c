/* The objects' directory (every object's owner and size, replicated on every rank) and the
 * table of this rank's objects. Both are sorted by id and change only between iterations. */
#include "layer.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

bool tide_obj_grow(void **arr, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap) return true;
    int64_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *p = realloc(*arr, (size_t)c * elem);
    if (!p) return false;
    *arr = p;
    *cap = c;
    return true;
}

bool tide_obj_buf_reserve(tide_obj_buf *b, size_t extra)
{
    if (b->len + extra <= b->cap) return true;
    size_t c = b->cap ? b->cap : 256;
    while (c < b->len + extra)
        c *= 2;
    unsigned char *p = realloc(b->data, c);
    if (!p) return false;
    b->data = p;
    b->cap = c;
    return true;
}

void tide_obj_free(tide_obj *o)
{
    if (!o) return;
    free(o->state);
    free(o->inbox.data);
    free(o->running.data);
    free(o);
}

int64_t tide_objdir_find(const tide_objects_layer *L, int64_t id)
{
    int64_t lo = 0, hi = L->ndir;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (L->dir_id[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < L->ndir && L->dir_id[lo] == id ? lo : -1;
}

tide_obj *tide_objloc_find(const tide_objects_layer *L, int64_t id)
{
    int64_t lo = 0, hi = L->nloc;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (L->loc[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < L->nloc && L->loc[lo]->id == id ? L->loc[lo] : NULL;
}

static int cmp_obj(const void *a, const void *b)
{
    int64_t x = (*(tide_obj *const *)a)->id, y = (*(tide_obj *const *)b)->id;
    return (x > y) - (x < y);
}

void tide_objloc_sort(tide_objects_layer *L)
{
    if (L->nloc > 1) qsort(L->loc, (size_t)L->nloc, sizeof *L->loc, cmp_obj);
    for (int64_t i = 1; i < L->nloc; i++)
        if (L->loc[i - 1]->id == L->loc[i]->id)
            tide_fatal("objects: object %lld is held twice on rank %d", (long long)L->loc[i]->id,
                       L->rank);
}

typedef struct entry {
    int64_t id, size;
    int32_t owner, fresh;
} entry;

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->id != y->id) return (x->id > y->id) - (x->id < y->id);
    return (x->owner > y->owner) - (x->owner < y->owner);
}

/* Collective: every rank's new (id, size) pairs, rank after rank; rank r's start at displs[r]. */
static int64_t *gather_new_objects(tide_objects_layer *L, const int64_t *counts, int64_t mine,
                                   int64_t total, int *displs)
{
    int *rcounts = malloc((size_t)L->size * sizeof *rcounts);
    int64_t *send = malloc((size_t)(2 * mine + 1) * sizeof *send);
    int64_t *all = malloc((size_t)(2 * total) * sizeof *all);
    TIDE_OBJ_NEED(rcounts && send && all);
    for (int r = 0, d = 0; r < L->size; r++) {
        rcounts[r] = (int)(2 * counts[r]);
        displs[r] = d;
        d += rcounts[r];
    }
    for (int64_t i = 0; i < mine; i++) {
        send[2 * i] = L->pending[i]->id;
        send[2 * i + 1] = (int64_t)L->pending[i]->size;
    }
    MPI_Allgatherv(send, (int)(2 * mine), MPI_INT64_T, all, rcounts, displs, MPI_INT64_T, L->comm);
    free(rcounts);
    free(send);
    return all;
}

/* The directory's entries and the new ones, sorted by id, then owner; *n of them. */
static entry *merge_entries(const tide_objects_layer *L, const int64_t *counts, const int64_t *all,
                            const int *displs, int64_t total, int64_t *n)
{
    entry *e = malloc((size_t)(L->ndir + total) * sizeof *e);
    TIDE_OBJ_NEED(e);
    *n = 0;
    for (int64_t i = 0; i < L->ndir; i++)
        e[(*n)++] = (entry){L->dir_id[i], L->dir_size[i], L->dir_owner[i], 0};
    for (int r = 0; r < L->size; r++)
        for (int64_t k = 0; k < counts[r]; k++)
            e[(*n)++] = (entry){all[displs[r] + 2 * k], all[displs[r] + 2 * k + 1], r, 1};
    qsort(e, (size_t)*n, sizeof *e, cmp_entry);
    return e;
}

/* The index of the first entry whose id the one before it has too, or -1. */
static int64_t find_duplicate(const entry *e, int64_t n)
{
    for (int64_t i = 1; i < n; i++)
        if (e[i].id == e[i - 1].id) return i;
    return -1;
}

/* A duplicate id breaks the layer; this rank's new objects are dropped. Returns the error. */
static int reject_duplicate(tide_objects_layer *L, const entry *e, int64_t dup, int64_t mine)
{
    snprintf(L->broken_msg, sizeof L->broken_msg,
             "object id %lld exists twice: %s on rank %d and created on rank %d (object ids "
             "must be unique over all ranks)",
             (long long)e[dup].id, e[dup - 1].fresh ? "created" : "living", e[dup - 1].owner,
             e[dup].owner);
    L->broken = true;
    for (int64_t i = 0; i < mine; i++)
        tide_obj_free(L->pending[i]);
    return tide_fail(TIDE_ERR_INVALID, "tide_objects_iterate: %s", L->broken_msg);
}

/* The merged entries become the directory, and this rank's new objects join its table. */
static void install_entries(tide_objects_layer *L, const entry *e, int64_t n, int64_t mine)
{
    TIDE_OBJ_NEED(tide_obj_grow((void **)&L->dir_id, &L->dir_cap, n, sizeof *L->dir_id));
    int64_t cap = L->dir_cap;
    L->dir_size = realloc(L->dir_size, (size_t)cap * sizeof *L->dir_size);
    L->dir_owner = realloc(L->dir_owner, (size_t)cap * sizeof *L->dir_owner);
    TIDE_OBJ_NEED(L->dir_size && L->dir_owner);
    for (int64_t i = 0; i < n; i++) {
        L->dir_id[i] = e[i].id;
        L->dir_size[i] = e[i].size;
        L->dir_owner[i] = e[i].owner;
    }
    L->ndir = n;
    TIDE_OBJ_NEED(tide_obj_grow((void **)&L->loc, &L->loc_cap, L->nloc + mine, sizeof *L->loc));
    for (int64_t i = 0; i < mine; i++)
        L->loc[L->nloc++] = L->pending[i];
    tide_objloc_sort(L);
}

/* Every rank contributes (id, size) of its new objects; all ranks merge the same bytes into the
 * same directory, so a duplicate is seen, and reported, identically everywhere. */
int tide_objdir_register(tide_objects_layer *L)
{
    pthread_mutex_lock(&L->pending_lock);
    int64_t mine = L->npending;
    int64_t *counts = malloc((size_t)L->size * sizeof *counts);
    TIDE_OBJ_NEED(counts);
    MPI_Allgather(&mine, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, L->comm);
    int64_t total = 0;
    for (int r = 0; r < L->size; r++)
        total += counts[r];
    if (total == 0) {
        free(counts);
        pthread_mutex_unlock(&L->pending_lock);
        return TIDE_OK;
    }
    if (2 * total > INT_MAX)
        tide_fatal("objects: more than %d objects created at once", INT_MAX / 2);
    int *displs = malloc((size_t)L->size * sizeof *displs);
    TIDE_OBJ_NEED(displs);
    int64_t *all = gather_new_objects(L, counts, mine, total, displs);
    int64_t n;
    entry *e = merge_entries(L, counts, all, displs, total, &n);
    int64_t dup = find_duplicate(e, n);
    int rc = TIDE_OK;
    if (dup >= 0)
        rc = reject_duplicate(L, e, dup, mine);
    else
        install_entries(L, e, n, mine);
    L->npending = 0;
    pthread_mutex_unlock(&L->pending_lock);
    free(counts);
    free(displs);
    free(all);
    free(e);
    return rc;
}
