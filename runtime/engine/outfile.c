/* Output files named by knobs (TIDE_STATS, TIDE_OBJECTS_STATS): the rank that writes one opens
 * it at tide_init, so that a path it cannot write stops the run before it starts instead of
 * after it ended, and keeps it open until it writes the document at finalize. */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int unusable(int code, const tide_outfile *o, const char *what, int err)
{
    return tide_fail(code, "%s='%s' is unusable: %s: %s", o->var, o->path, what, strerror(err));
}

int tide_outfile_open(tide_outfile *o, const char *var, const char *path)
{
    *o = (tide_outfile){.var = var, .path = path, .fd = -1};
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) return unusable(TIDE_ERR_CONFIG, o, "cannot create it", errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        return unusable(TIDE_ERR_CONFIG, o, "cannot inspect it", err);
    }
    o->regular = S_ISREG(st.st_mode);
    /* A regular file must take a byte and be emptied again: some accept the open but no write
     * (/proc/version), and the document replaces what was there. Others (a pipe, /dev/stdout)
     * are written as they are. */
    errno = 0;
    if (o->regular &&
        (write(fd, "{", 1) != 1 || ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0)) {
        int err = errno ? errno : EIO;
        close(fd);
        return unusable(TIDE_ERR_CONFIG, o, "a test write failed", err);
    }
    o->fd = fd;
    return TIDE_OK;
}

FILE *tide_outfile_begin(tide_outfile *o)
{
    /* A second document (the objects layer started again) replaces the first. */
    if (o->regular && (ftruncate(o->fd, 0) != 0 || lseek(o->fd, 0, SEEK_SET) != 0)) {
        unusable(TIDE_ERR_INVALID, o, "cannot empty it", errno);
        return NULL;
    }
    int fd = dup(o->fd);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int err = errno;
        if (fd >= 0) close(fd);
        unusable(TIDE_ERR_INVALID, o, "cannot write it", err);
    }
    return f;
}

int tide_outfile_end(tide_outfile *o, FILE *f)
{
    errno = 0;
    int bad = fflush(f) != 0 || ferror(f);
    int err = errno ? errno : EIO;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    return bad ? unusable(TIDE_ERR_INVALID, o, "writing it failed", err) : TIDE_OK;
}

int tide_outfile_close(tide_outfile *o)
{
    if (!o->path || o->fd < 0) return TIDE_OK;
    int rc = close(o->fd);
    o->fd = -1;
    return rc != 0 ? unusable(TIDE_ERR_INVALID, o, "closing it failed", errno) : TIDE_OK;
}
