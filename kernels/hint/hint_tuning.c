/* hint_tuning.c — reading the hint kernel's offline tuning file (see hint_tuning.h). */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "a2a_hint.h"
#include "hint_tuning.h"

#define FORMAT_NAME "a2atune-hint-tuning"
#define FORMAT_VERSION 1

/* Reads an integer member; returns 0 (missing/null allowed when nullable: *value = -1),
 * or -1 when it is not a non-negative integer. */
static int member_int(json_t *rule, const char *name, int nullable, long long *value)
{
    json_t *v = json_object_get(rule, name);
    if ((!v || json_is_null(v)) && nullable) {
        *value = -1;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return -1;
    *value = json_integer_value(v);
    return 0;
}

/* Order value of a rule's "order": a name or its number; 0 if neither. */
static int member_order(json_t *rule)
{
    json_t *v = json_object_get(rule, "order");
    if (json_is_integer(v) && json_integer_value(v) >= A2A_ORDER_ROW &&
        json_integer_value(v) <= A2A_ORDER_HILBERT)
        return (int)json_integer_value(v);
    if (!json_is_string(v))
        return 0;
    const char *const *names = A2A_Hint_order_names();
    for (int o = A2A_ORDER_ROW; o <= A2A_ORDER_HILBERT; o++)
        if (strcmp(json_string_value(v), names[o - 1]) == 0)
            return o;
    return 0;
}

/* Guarantees: see hint_tuning.h; the file is only read. */
int a2a_hint_tuning_lookup(const char *path, int P, long long S, int *order,
                           long long *threshold, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root) {
        snprintf(err, errlen, "%s: %s%s (line %d)", path,
                 jerr.line <= 0 ? "cannot read it: " : "not JSON: ", jerr.text, jerr.line);
        return -1;
    }
    int rc = -1;
    json_t *format = json_object_get(root, "format"), *version = json_object_get(root, "version");
    json_t *rules = json_object_get(root, "rules");
    if (!json_is_string(format) || strcmp(json_string_value(format), FORMAT_NAME) != 0) {
        snprintf(err, errlen, "%s: \"format\" is not \"%s\"", path, FORMAT_NAME);
        goto out;
    }
    if (!json_is_integer(version) || json_integer_value(version) != FORMAT_VERSION) {
        snprintf(err, errlen, "%s: \"version\" is not %d", path, FORMAT_VERSION);
        goto out;
    }
    if (!json_is_array(rules) || json_array_size(rules) == 0) {
        snprintf(err, errlen, "%s: \"rules\" is not a non-empty array", path);
        goto out;
    }
    /* first pass: check every rule and find the P nearest to ours */
    long long best_p = -1;
    size_t i;
    json_t *rule;
    json_array_foreach(rules, i, rule) {
        long long p, lo, hi, t;
        if (!json_is_object(rule) || member_int(rule, "P", 0, &p) || p < 1 ||
            member_int(rule, "S_min", 0, &lo) || member_int(rule, "S_max", 1, &hi) ||
            member_int(rule, "threshold", 0, &t) || t > INT_MAX || (hi >= 0 && hi < lo)) {
            snprintf(err, errlen, "%s: rule %zu: needs P >= 1, S_min >= 0, S_max >= S_min (or "
                     "null) and 0 <= threshold <= %d", path, i, INT_MAX);
            goto out;
        }
        if (!member_order(rule)) {
            snprintf(err, errlen, "%s: rule %zu: order is not row, column or hilbert", path, i);
            goto out;
        }
        long long d = p > P ? p - P : P - p, best_d = best_p > P ? best_p - P : P - best_p;
        if (best_p < 0 || d < best_d || (d == best_d && p < best_p))
            best_p = p;
    }
    /* second pass: among the rules of best_p, the range holding S or the nearest one */
    long long best_dist = -1;
    json_array_foreach(rules, i, rule) {
        long long p, lo, hi, t;
        member_int(rule, "P", 0, &p);
        member_int(rule, "S_min", 0, &lo);
        member_int(rule, "S_max", 1, &hi);
        member_int(rule, "threshold", 0, &t);
        if (p != best_p)
            continue;
        long long dist = S < lo ? lo - S : (hi >= 0 && S > hi) ? S - hi : 0;
        if (best_dist < 0 || dist < best_dist) {
            best_dist = dist;
            *order = member_order(rule);
            *threshold = t;
        }
    }
    rc = 0;
out:
    json_decref(root);
    return rc;
}
