/* radix_model.c — K and D of tunable-radix all-to-all as functions of P and r. */
#include "radix_model.h"

/* Guarantees: the smallest w >= 0 with r^w >= P (w = 0 for P <= 1), or -1 if r < 2 and
 * P > 1. Never forms r^w itself: it stops at r^(w-1) < P, so nothing overflows. */
int a2a_model_digits(long long P, long long r)
{
    if (P <= 1)
        return 0;
    if (r < 2)
        return -1;
    int w = 1;
    for (long long unit = 1; unit <= (P - 1) / r; unit *= r)
        w++; /* unit * r < P: one more digit is needed */
    return w;
}

/* r^x for x < a2a_model_digits(P, r); the result is below P, so it cannot overflow. */
static long long digit_unit(long long r, int x)
{
    long long unit = 1;
    for (int i = 0; i < x; i++)
        unit *= r;
    return unit;
}

/* Guarantees: Proposition 4's h for round (x, z). With unit = r^x the indices form
 * g = floor(P / r^(x+1)) full groups, each holding one run of `unit` indices whose digit
 * x is z (lc = g * unit), plus a last group of lgc = P mod r^(x+1) indices that holds
 * min(unit, max(0, lgc - z * unit)) of them (the cases t <= 0, t >= r^x, else). */
long long a2a_model_round_blocks(long long P, long long r, int x, long long z)
{
    if (P <= 1)
        return 0;
    if (r < 2)
        return -1;
    if (x < 0 || x >= a2a_model_digits(P, r) || z < 1 || z >= r)
        return 0;
    long long unit = digit_unit(r, x);
    long long groups = P / unit / r;
    long long lc = groups * unit;
    long long lgc = P - groups * r * unit;
    if (lgc == 0 || z > (lgc - 1) / unit) /* t = lgc - z * r^x <= 0 */
        return lc;
    long long t = lgc - z * unit;
    return t >= unit ? lc + unit : lc + t;
}

/* Guarantees: Proposition 3's K = w(r-1) - floor((r^w - P) / r^(w-1)), which is also
 * Proposition 1's w(r-1) when P = r^w. Computed in the equivalent form
 * (w-1)(r-1) + ceil(P / r^(w-1)) - 1: all r-1 values of the lower w-1 digits occur, and
 * the top digit takes the values 1 .. ceil(P / r^(w-1)) - 1. */
long long a2a_model_rounds(long long P, long long r)
{
    if (P <= 1)
        return 0;
    if (r < 2)
        return -1;
    int w = a2a_model_digits(P, r);
    long long top_unit = digit_unit(r, w - 1);
    long long top_values = (P + top_unit - 1) / top_unit - 1;
    return (long long)(w - 1) * (r - 1) + top_values;
}

/* Guarantees: D = sum over x < w, 1 <= z < r of Proposition 4's h (equal to Proposition
 * 2's w(r-1) r^(w-1) when P = r^w). Summed per digit in closed form: the full groups give
 * (r-1) * lc, the last group every index whose digit x is non-zero, lgc - min(lgc, r^x);
 * so the cost is O(w), not O(w r). */
long long a2a_model_blocks(long long P, long long r)
{
    if (P <= 1)
        return 0;
    if (r < 2)
        return -1;
    int w = a2a_model_digits(P, r);
    long long total = 0;
    long long unit = 1;
    for (int x = 0; x < w; x++) {
        long long groups = P / unit / r;
        long long lc = groups * unit;
        long long lgc = P - groups * r * unit;
        total += (r - 1) * lc + lgc - (lgc < unit ? lgc : unit);
        if (x + 1 < w)
            unit *= r;
    }
    return total;
}
