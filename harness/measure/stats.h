/* stats.h — summary statistics of timing samples. */
#ifndef A2A_STATS_H
#define A2A_STATS_H
#include <stddef.h>

typedef struct sample_summary {
    int n;
    double median, q1, q3, min, max, mean, stddev;
} sample_summary;

/* Summarises x[0..n) (x is not modified). Quantiles interpolate linearly between
 * order statistics (Hyndman-Fan type 7, as numpy and R default); stddev is the sample
 * standard deviation (n-1), 0 for n < 2. With n == 0 every field is 0. */
sample_summary summarize_samples(const double *x, int n);

/* text = s as "12.34 us", "1.234 ms" or "1.234 s", by its size (at most len bytes). */
void stats_format_seconds(double s, char *text, size_t len);

#endif
