/* quantile.c — quantiles of sorted samples (see quantile.h). */
#include <math.h>
#include "quantile.h"

/* Guarantees: see quantile.h; reads only sorted[0..n). */
double a2a_quantile_sorted(const double *sorted, int n, double q)
{
    double h = (n - 1) * q;
    int lo = (int)floor(h);
    int hi = lo + 1 < n ? lo + 1 : lo;
    return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}
