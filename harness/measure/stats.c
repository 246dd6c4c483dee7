/* stats.c — summary statistics of timing samples. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "quantile.h"
#include "stats.h"

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Guarantees: see stats.h. */
sample_summary summarize_samples(const double *x, int n)
{
    sample_summary s = { 0 };
    if (n <= 0)
        return s;
    double *sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted)
        abort();
    memcpy(sorted, x, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, compare_doubles);
    s.n = n;
    s.min = sorted[0];
    s.max = sorted[n - 1];
    s.median = a2a_quantile_sorted(sorted, n, 0.5);
    s.q1 = a2a_quantile_sorted(sorted, n, 0.25);
    s.q3 = a2a_quantile_sorted(sorted, n, 0.75);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += sorted[i];
    s.mean = sum / n;
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (sorted[i] - s.mean) * (sorted[i] - s.mean);
    s.stddev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    free(sorted);
    return s;
}

/* Guarantees: text holds s as "12.34 us", "1.234 ms" or "1.234 s" (by its size),
 * truncated to len bytes with its terminating NUL. */
void stats_format_seconds(double s, char *text, size_t len)
{
    if (s < 1e-3)
        snprintf(text, len, "%.2f us", s * 1e6);
    else if (s < 1)
        snprintf(text, len, "%.3f ms", s * 1e3);
    else
        snprintf(text, len, "%.3f s", s);
}
