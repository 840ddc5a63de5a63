/* Imbalance presets of the MxM demo: how many tasks each rank creates per iteration.
 * Pure functions over plain arrays; no MPI. The formula is documented in docs/mxm.md. */
#ifndef MXM_PRESET_H
#define MXM_PRESET_H

#define MXM_IMB_CASES 4

/* The baseline R_imb that preset `imb` (0..3) aims at: 0, 0.5, 1.5, 3.0. */
double mxm_preset_nominal(int imb);

/* Fills counts[0..nranks-1] for preset `imb` with `base` tasks per rank on average, so the
 * total is always nranks * base. *target receives the R_imb aimed at: the nominal value, or
 * the largest one nranks allow when the nominal is out of reach (then the function returns 1;
 * otherwise 0). Returns -1 on bad arguments (imb out of range, nranks < 1, base < 1). */
int mxm_preset_counts(int imb, int nranks, int base, int *counts, double *target);

/* max/avg - 1 of the counts: the baseline R_imb when every task costs the same. */
double mxm_counts_imbalance(const int *counts, int nranks);

#endif
