#include "noise.h"

#include <errno.h>
#include <stdlib.h>

/* The draws of jitter and disturbance come from separate streams, so that a rank's disturbance
 * is independent of the jitter of its task 0. */
enum { STREAM_JITTER = 1, STREAM_DISTURB = 2 };

noise_spec noise_spec_default(void)
{
    return (noise_spec){{0.0, 1.0}, {0.0, 1.0}, 1};
}

int noise_event_parse(const char *s, noise_event *e)
{
    if (!s) return -1;
    char *colon, *end;
    errno = 0;
    double p = strtod(s, &colon);
    if (errno || colon == s || *colon != ':') return -1;
    double f = strtod(colon + 1, &end);
    if (errno || end == colon + 1 || *end) return -1;
    /* NaN fails every comparison, so !(in range) also rejects it */
    if (!(p >= 0.0 && p <= 1.0) || !(f >= 1.0 && f <= 1000.0)) return -1;
    *e = (noise_event){p, f};
    return 0;
}

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

double noise_uniform(uint64_t seed, uint64_t stream, uint64_t iter, uint64_t rank, uint64_t index)
{
    uint64_t h = splitmix64(seed);
    h = splitmix64(h ^ stream);
    h = splitmix64(h ^ iter);
    h = splitmix64(h ^ rank);
    h = splitmix64(h ^ index);
    return (double)(h >> 11) * 0x1.0p-53;
}

/* u < p: never for p = 0, always for p = 1, since u < 1 */
int noise_jittered(const noise_spec *s, int64_t iter, int rank, int64_t task)
{
    return noise_uniform(s->seed, STREAM_JITTER, (uint64_t)iter, (uint64_t)rank, (uint64_t)task) <
           s->jitter.p;
}

int noise_disturbed(const noise_spec *s, int64_t iter, int rank)
{
    return noise_uniform(s->seed, STREAM_DISTURB, (uint64_t)iter, (uint64_t)rank, 0) < s->disturb.p;
}

double noise_factor(const noise_spec *s, int64_t iter, int rank, int64_t task)
{
    double f = 1.0;
    if (noise_jittered(s, iter, rank, task)) f *= s->jitter.f;
    if (noise_disturbed(s, iter, rank)) f *= s->disturb.f;
    return f;
}
