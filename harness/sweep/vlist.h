/*
 * vlist.h — value lists of sweep files, e.g. "1, 2, 3..8, 16", "16..16KiB:*2", "2..P".
 *
 * Grammar (whitespace allowed between tokens):
 *   list  := item (',' item)*
 *   item  := expr | expr '..' expr [ ':' ('+'|'*') expr ]      (default step +1)
 *   expr  := term (('+'|'-') term)*     term := unary (('*'|'/') unary)*
 *   unary := '-' unary | atom
 *   atom  := number[suffix] | ident | func '(' args ')' | '(' expr ')'
 * Numbers are decimal integers; suffixes K Ki KiB KB (2^10), M Mi MiB MB (2^20),
 * G Gi GiB GB (2^30), B (1) follow the digits directly. Names: P, Q, N, world, radix
 * (the configuration's radix, for parameters evaluated after it such as block_count);
 * `sqrt` alone means sqrt(P). Functions: sqrt(x) (nearest integer), log2(x) (ceiling),
 * min(a,b), max(a,b). '/' truncates toward zero. All arithmetic is checked int64.
 */
#ifndef VLIST_H
#define VLIST_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An opaque parsed list; it keeps a copy of its text and does not depend on the caller's. */
typedef struct vlist vlist;

/* Values of the names a list may use; only the names the list mentions are read. */
typedef struct vlist_env {
    long long P, Q, N, world;
    long long radix; /* the radix already chosen (block_count = 1..radix-1) */
} vlist_env;

/* Parses `text`. Returns 0 and a new list in *out, or -1 with *out = NULL and a one-line
 * message in err (syntax errors, unknown names, malformed numbers and literals beyond
 * int64 are all reported here, with a 1-based column). err may be NULL. */
int vlist_parse(const char *text, vlist **out, char *err, size_t errlen);

/* Returns 1 if the list mentions `ident` (one of "P", "Q", "N", "world", "radix"; a bare `sqrt`
 * counts as mentioning P), else 0. */
int vlist_uses(const vlist *l, const char *ident);

/* Expands all items in order and removes duplicates, keeping the first occurrence.
 * Returns 0 with a malloc'ed array in *values (NULL when *n == 0; the caller frees).
 * Returns -1 with *values = NULL, *n = 0 and a message in err on division by zero,
 * int64 overflow, sqrt of a negative value, log2 of a value < 1, an additive step < 1,
 * a geometric factor < 2, a non-empty geometric range starting at <= 0, or more than
 * 1,000,000 values before duplicate removal. A range with lo > hi expands to nothing.
 * env may be NULL only if the list uses no names. */
int vlist_eval(const vlist *l, const vlist_env *env, long long **values, int *n, char *err,
               size_t errlen);

/* Frees a list from vlist_parse; NULL is accepted. */
void vlist_free(vlist *l);

/* Returns the text the list was parsed from (owned by the list). */
const char *vlist_text(const vlist *l);

/* Splits a comma-separated list of words (e.g. kernel names), trimming whitespace around
 * each. Returns 0 with *n >= 1 malloc'ed strings in *words (free with vlist_free_words),
 * or -1 with *words = NULL, *n = 0 and a message in err for an empty list, an empty item
 * or a word with a character outside [A-Za-z0-9_.-]. */
int vlist_split_words(const char *text, char ***words, int *n, char *err, size_t errlen);

/* Frees the result of vlist_split_words; NULL is accepted. */
void vlist_free_words(char **words, int n);

#ifdef __cplusplus
}
#endif

#endif
