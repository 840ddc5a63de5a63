#include "swe.h"

#include <math.h>

static double velocity(double h, double hq, double h_dry)
{
    return h > h_dry ? hq / h : 0.0;
}

double samoa_swe_speed(const double *s, double g, double h_dry)
{
    double u = velocity(s[0], s[1], h_dry), v = velocity(s[0], s[2], h_dry);
    return sqrt(u * u + v * v) + sqrt(g * s[0]);
}

int samoa_swe_classify(const samoa_cell_geom *geom, const double *state, int32_t c, double h_dry)
{
    int wet = state[SAMOA_NSTATE * c + SAMOA_H] > h_dry, wet_nb = 0, dry_nb = 0;
    for (int e = 0; e < 3; e++) {
        int32_t j = geom[c].nb[e];
        if (j < 0) continue;
        if (state[SAMOA_NSTATE * j + SAMOA_H] > h_dry)
            wet_nb = 1;
        else
            dry_nb = 1;
    }
    if (wet) return dry_nb ? SAMOA_COAST : SAMOA_WET;
    return wet_nb ? SAMOA_COAST : SAMOA_DRY;
}

/* Flux out of cell i (state si) into its neighbour (state sj) through an edge of outward normal
 * n, per unit edge length, plus the hydrostatic-reconstruction correction of cell i. Computed
 * from either side, the mass flux is exactly the negative of the other, so the sum of depths
 * changes only by rounding. No flux crosses an edge between two dry cells. */
static void edge_flux(const double *si, const double *sj, double nx, double ny, double g,
                      double h_dry, double *f)
{
    double hi = si[SAMOA_H], hj = sj[SAMOA_H];
    if (hi <= h_dry && hj <= h_dry) {
        f[0] = f[1] = f[2] = 0.0;
        return;
    }
    double ui = velocity(hi, si[SAMOA_HU], h_dry), vi = velocity(hi, si[SAMOA_HV], h_dry);
    double uj = velocity(hj, sj[SAMOA_HU], h_dry), vj = velocity(hj, sj[SAMOA_HV], h_dry);
    double bstar = fmax(si[SAMOA_B], sj[SAMOA_B]);
    double hl = fmax(0.0, hi + si[SAMOA_B] - bstar), hr = fmax(0.0, hj + sj[SAMOA_B] - bstar);
    double unl = ui * nx + vi * ny, unr = uj * nx + vj * ny;
    double s = fmax(fabs(unl) + sqrt(g * hl), fabs(unr) + sqrt(g * hr));
    double pl = 0.5 * g * hl * hl, pr = 0.5 * g * hr * hr;
    f[0] = 0.5 * (hl * unl + hr * unr) - 0.5 * s * (hr - hl);
    f[1] =
        0.5 * (hl * ui * unl + pl * nx + hr * uj * unr + pr * nx) - 0.5 * s * (hr * uj - hl * ui);
    f[2] =
        0.5 * (hl * vi * unl + pl * ny + hr * vj * unr + pr * ny) - 0.5 * s * (hr * vj - hl * vi);
    double corr = 0.5 * g * (hi * hi - hl * hl);
    f[1] += corr * nx;
    f[2] += corr * ny;
}

/* A wall: the mirror state, normal momentum reversed. */
static void wall_state(const double *si, double nx, double ny, double *ghost)
{
    double un = si[SAMOA_HU] * nx + si[SAMOA_HV] * ny;
    ghost[SAMOA_H] = si[SAMOA_H];
    ghost[SAMOA_HU] = si[SAMOA_HU] - 2.0 * un * nx;
    ghost[SAMOA_HV] = si[SAMOA_HV] - 2.0 * un * ny;
    ghost[SAMOA_B] = si[SAMOA_B];
}

/* The cell's fluxes summed over its edges in edge order, times the edge lengths. */
static void cell_residual(const samoa_cell_geom *gc, const double *state, int32_t c,
                          const samoa_swe_params *p, double *r)
{
    const double *si = state + SAMOA_NSTATE * c;
    r[0] = r[1] = r[2] = 0.0;
    for (int e = 0; e < 3; e++) {
        double ghost[SAMOA_NSTATE], f[3];
        const double *sj = ghost;
        if (gc->nb[e] >= 0)
            sj = state + SAMOA_NSTATE * gc->nb[e];
        else
            wall_state(si, gc->nx[e], gc->ny[e], ghost);
        edge_flux(si, sj, gc->nx[e], gc->ny[e], p->g, p->h_dry, f);
        for (int k = 0; k < 3; k++)
            r[k] += gc->len[e] * f[k];
    }
}

/* The coastline treatment of sam(oa)^2 (limiting, inundation) costs several regular updates; the
 * proxy spends that work by re-evaluating the cell's fluxes, whose result it must equal. */
static double coast_treatment(const samoa_cell_geom *gc, const double *state, int32_t c,
                              const samoa_swe_params *p)
{
    volatile double sink = 0.0; /* keeps the work from being optimized away */
    for (int k = 0; k < p->coast_work; k++) {
        double r[3];
        cell_residual(gc, state, c, p, r);
        sink += r[0];
    }
    return sink;
}

void samoa_swe_update(int32_t n, const samoa_cell_geom *geom, const double *state, double *out,
                      const samoa_swe_params *p, samoa_swe_result *res)
{
    double max_speed = 0.0;
    for (int k = 0; k < SAMOA_NCLASSES; k++)
        res->counts[k] = 0;
    for (int32_t c = 0; c < n; c++) {
        const double *si = state + SAMOA_NSTATE * c;
        double *o = out + 3 * c;
        int cls = samoa_swe_classify(geom, state, c, p->h_dry);
        res->counts[cls]++;
        if (cls == SAMOA_DRY) { /* every flux is zero: the state stays, at rest */
            o[0] = si[SAMOA_H];
            o[1] = o[2] = 0.0;
            max_speed = fmax(max_speed, sqrt(p->g * si[SAMOA_H]));
            continue;
        }
        if (cls == SAMOA_COAST) (void)coast_treatment(&geom[c], state, c, p);
        double r[3], scale = p->dt / geom[c].area;
        cell_residual(&geom[c], state, c, p, r);
        o[0] = si[SAMOA_H] - scale * r[0];
        o[1] = si[SAMOA_HU] - scale * r[1];
        o[2] = si[SAMOA_HV] - scale * r[2];
        if (o[0] <= p->h_dry) o[1] = o[2] = 0.0; /* a drying film keeps no momentum */
        max_speed = fmax(max_speed, samoa_swe_speed(o, p->g, p->h_dry));
    }
    res->max_speed = max_speed;
}

samoa_lake samoa_lake_default(void)
{
    return (samoa_lake){1.0, 0.1, 0.5, 9.81};
}

double samoa_lake_bed(const samoa_lake *l, double x, double y)
{
    return l->h0 * ((x * x + y * y) / (l->a * l->a) - 1.0);
}

double samoa_lake_bed_mean(const samoa_lake *l, const double x[3], const double y[3])
{
    double sum = 0;
    for (int e = 0; e < 3; e++)
        sum += samoa_lake_bed(l, 0.5 * (x[e] + x[(e + 1) % 3]), 0.5 * (y[e] + y[(e + 1) % 3]));
    return sum / 3.0;
}

double samoa_lake_surface(const samoa_lake *l, double x, double y, double t)
{
    double w = samoa_lake_omega(l);
    return l->h0 / (l->a * l->a) * l->eta * (2.0 * x * cos(w * t) + 2.0 * y * sin(w * t) - l->eta);
}

double samoa_lake_omega(const samoa_lake *l)
{
    return sqrt(2.0 * l->g * l->h0) / l->a;
}

void samoa_lake_exact(const samoa_lake *l, double x, double y, double t, double *h, double *u,
                      double *v)
{
    double w = samoa_lake_omega(l), s = sin(w * t), c = cos(w * t);
    double depth = samoa_lake_surface(l, x, y, t) - samoa_lake_bed(l, x, y);
    *h = depth > 0 ? depth : 0.0;
    *u = depth > 0 ? -l->eta * w * s : 0.0;
    *v = depth > 0 ? l->eta * w * c : 0.0;
}
