/* tuner_prior.h — the platform's prior of `a2atune tune --prior FILE`: each configuration's
 * time as the model tier predicts it on a platform (`a2a prior` writes the file, before the
 * launch), which the search takes in place of the K/D model (tuner_set_prior).
 *
 * The file: one line per configuration, its key (as `a2atune tune --candidates` prints it),
 * a tab and its predicted seconds (a number above 0); lines starting with '#' are comments,
 * "# platform: TEXT" says which platform the times are of; blank lines are ignored. A
 * configuration without a line keeps the K/D model; a line whose key is not a configuration
 * of this sweep (another section, another launch size) is counted and ignored. */
#ifndef A2A_TUNER_PRIOR_H
#define A2A_TUNER_PRIOR_H

#include <stddef.h>
#include "configs.h"

typedef struct tuner_prior_file {
    char *text;          /* the file's bytes as read, NUL-terminated (the caller frees it) */
    char platform[512];  /* the "# platform:" line's text, "" without one */
    int lines, used;     /* lines with a time; those naming a configuration of the sweep */
} tuner_prior_file;

/* Reads the prior file at path: seconds[i] (i < n) gets configuration i's predicted time,
 * 0 where the file has none (and for skipped configurations), and info->text a copy of the
 * file (recorded with the run, so what the search started from is kept, not only named; the
 * caller frees it, NULL on failure). Returns 0, or -1 with one line
 * "PATH:LINE: what is wrong" in err (a line without a tab, a time that is not a number above
 * 0, a key given twice) or "PATH: ..." (cannot be read, names no configuration of the sweep). */
int tuner_prior_read(const char *path, const config *configs, int n, double *seconds,
                     tuner_prior_file *info, char *err, size_t errlen);

#endif
