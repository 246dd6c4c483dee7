/* quantile.h — quantiles of sorted samples (the harness's summaries and the online tuner). */
#ifndef A2A_QUANTILE_H
#define A2A_QUANTILE_H

/* Quantile q in [0, 1] of sorted[0..n), n >= 1: linear interpolation between order
 * statistics (Hyndman-Fan type 7, as numpy and R default). */
double a2a_quantile_sorted(const double *sorted, int n, double q);

#endif
