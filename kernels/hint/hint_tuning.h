/* hint_tuning.h — the offline tuning file of the hint kernel (internal to liba2a).
 *
 * The file (written by `scripts/a2a hint-tune` from a sweep's database, or by hand) is
 * JSON:
 *   { "format": "a2atune-hint-tuning", "version": 1,
 *     "rules": [ { "P": 4, "S_min": 0, "S_max": 4095, "order": "column", "threshold": 0 },
 *                { "P": 4, "S_min": 4096, "S_max": null, "order": "hilbert",
 *                  "threshold": 65536 }, ... ],
 *     ... any other members (provenance) are ignored }
 * P is the communicator size, S_min..S_max (bytes per block, inclusive; null = no upper
 * bound) the block sizes a rule covers, order row | column | hilbert, threshold the bytes
 * from which copies go non-temporal (0: the kernel's runtime search).
 * Choosing a rule for (P, S): the rules of the P nearest to P (the smaller on a tie); of
 * those the one whose range holds S, else the one whose range is nearest to S. */
#ifndef A2A_HINT_TUNING_H
#define A2A_HINT_TUNING_H

#include <stddef.h>

/* The environment variable that names the file. */
#define A2A_HINT_TUNING_ENV "A2A_HINT_TUNING_FILE"

/* Reads `path` and picks the rule for (P, S). Returns 0 with *order in 1..3 and
 * *threshold >= 0, or -1 with one line "path: reason" in err (unreadable file, not
 * JSON, wrong format or version, a malformed rule, no rules). */
int a2a_hint_tuning_lookup(const char *path, int P, long long S, int *order,
                           long long *threshold, char *err, size_t errlen);

#endif
