/* tuner_prior.c — reading the platform's prior of `a2atune tune --prior` (see tuner_prior.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tuner_prior.h"

#define PLATFORM_TAG "# platform:"

/* The whole file at path, NUL-terminated, in *text (its length in *len); 0, or -1. */
static int read_whole(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *grown = realloc(buf, 2 * cap + 1);
            if (!grown) {
                free(buf);
                buf = NULL;
            }
            buf = grown;
            cap *= 2;
        }
    }
    int failed = ferror(f) || !buf;
    fclose(f);
    if (failed) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

static const config *sort_configs; /* the configurations compare_by_key orders */

static int compare_by_key(const void *a, const void *b)
{
    return strcmp(sort_configs[*(const int *)a].key, sort_configs[*(const int *)b].key);
}

/* The index of the runnable configuration whose key is `key`, -1: none. order: the
 * runnable configurations' indices sorted by key (nsorted of them). */
static int find_key(const config *configs, const int *order, int nsorted, const char *key)
{
    int lo = 0, hi = nsorted - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2, c = strcmp(configs[order[mid]].key, key);
        if (c == 0)
            return order[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Guarantees: see tuner_prior.h. */
int tuner_prior_read(const char *path, const config *configs, int n, double *seconds,
                     tuner_prior_file *info, char *err, size_t errlen)
{
    memset(info, 0, sizeof *info);
    for (int i = 0; i < n; i++)
        seconds[i] = 0;
    char *text;
    size_t len;
    if (read_whole(path, &text, &len)) {
        snprintf(err, errlen, "%s: cannot read the prior file: %s", path, strerror(errno));
        return -1;
    }
    info->text = malloc(len + 1);
    if (!info->text) {
        snprintf(err, errlen, "%s: no memory for a copy of the prior file", path);
        free(text);
        return -1;
    }
    memcpy(info->text, text, len + 1);
    int *order = malloc((size_t)(n ? n : 1) * sizeof *order), nsorted = 0;
    for (int i = 0; i < n; i++)
        if (!configs[i].skip)
            order[nsorted++] = i;
    sort_configs = configs;
    qsort(order, (size_t)nsorted, sizeof *order, compare_by_key);
    int rc = 0, lineno = 0;
    for (char *line = text, *next; line && *line && rc == 0; line = next) {
        lineno++;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        size_t l = strlen(line);
        if (l && line[l - 1] == '\r')
            line[--l] = '\0';
        if (strncmp(line, PLATFORM_TAG, strlen(PLATFORM_TAG)) == 0) {
            const char *p = line + strlen(PLATFORM_TAG);
            snprintf(info->platform, sizeof info->platform, "%s", p + strspn(p, " \t"));
            continue;
        }
        if (line[0] == '#' || line[strspn(line, " \t")] == '\0')
            continue;
        char *tab = strchr(line, '\t');
        if (!tab || tab == line) {
            snprintf(err, errlen, "%s:%d: expected a configuration key, a tab and its predicted "
                     "seconds", path, lineno);
            rc = -1;
            break;
        }
        *tab = '\0';
        char *end;
        errno = 0;
        double v = strtod(tab + 1, &end);
        end += strspn(end, " \t");
        if (end == tab + 1 || *end || errno || !isfinite(v) || !(v > 0)) {
            snprintf(err, errlen, "%s:%d: '%.40s' is not a time in seconds above 0", path, lineno,
                     tab + 1);
            rc = -1;
            break;
        }
        info->lines++;
        int i = find_key(configs, order, nsorted, line);
        if (i < 0)
            continue;
        if (seconds[i] > 0) {
            snprintf(err, errlen, "%s:%d: the configuration %.200s is given a second time", path,
                     lineno, line);
            rc = -1;
            break;
        }
        seconds[i] = v;
        info->used++;
    }
    if (rc == 0 && info->used == 0) {
        snprintf(err, errlen, "%s: none of its %d lines names a configuration of this sweep "
                 "(a2atune tune --candidates lists them)", path, info->lines);
        rc = -1;
    }
    free(order);
    free(text);
    if (rc) {
        free(info->text);
        info->text = NULL;
    }
    return rc;
}
