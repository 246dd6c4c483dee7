/* hsa_schedule.c — the exchange order of the hierarchical sets algorithm (HSA).
 *
 * The set [low, high) of ranks is halved at mid = floor((low + high) / 2). A rank x of the
 * lower half (a = mid - low ranks) meets the upper half (b = high - mid >= a ranks) in the
 * order mid + (i + min(x - low, b - 1)) mod b, i = 0..b-1; a rank y of the upper half meets
 * the lower half in the order low + (min(y - mid, a - 1) - i) mod a, i = 0..a-1. With
 * a == b both sides name the same iteration for every pair; with b == a + 1 each upper
 * rank skips one iteration of the lower half. Either way the pairs between the halves take
 * exactly b lock steps, after which each half continues alone with its own set. */
#include "hsa_schedule.h"

/* Guarantees: it starts at the full set [0, p) with no level opened yet. */
void a2a_hsa_begin(a2a_hsa_iter *it, int p, int rank)
{
    it->rank = rank;
    it->low = 0;
    it->high = p;
    it->mid = 0;
    it->n = 0;
    it->i = 0;
}

/* Guarantees: the next HSA partner of it->rank, or -1 when the rank's set is a single rank. */
int a2a_hsa_next(a2a_hsa_iter *it)
{
    while (it->i == it->n) {
        if (it->n > 0) { /* the level is done: keep the half that holds the rank */
            if (it->rank < it->mid)
                it->high = it->mid;
            else
                it->low = it->mid;
            it->n = it->i = 0;
        }
        if (it->low + 1 >= it->high)
            return -1;
        it->mid = it->low + (it->high - it->low) / 2;
        it->n = it->rank < it->mid ? it->high - it->mid : it->mid - it->low;
    }
    int i = it->i++, n = it->n;
    if (it->rank < it->mid) {
        int shift = it->rank - it->low < n - 1 ? it->rank - it->low : n - 1;
        return it->mid + (i + shift) % n;
    }
    int shift = it->rank - it->mid < n - 1 ? it->rank - it->mid : n - 1;
    return it->low + (shift - i + n) % n;
}

/* Guarantees: T(p) as documented in hsa_schedule.h; the larger half (ceil) bounds the
 * recursion because the halves proceed independently and T is non-decreasing. */
long long a2a_hsa_steps(int p)
{
    long long steps = 0;
    for (long long m = p; m > 1; m = (m + 1) / 2)
        steps += (m + 1) / 2;
    return steps;
}
