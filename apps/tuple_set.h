/* tuple_set.h — a set of 64-bit tuples (open addressing, linear probing).
 *
 * Used for the relations of the transitive closure: insertion reports whether the tuple
 * was new, so deduplication is one call. The value UINT64_MAX cannot be stored (it marks
 * empty slots; graph tuples never take it since vertex ids stay below 2^32 - 1). */
#ifndef A2A_TUPLE_SET_H
#define A2A_TUPLE_SET_H

#include <stddef.h>
#include <stdint.h>

typedef struct tuple_set {
    uint64_t *slots;
    size_t capacity; /* a power of two, or 0 */
    size_t count;
} tuple_set;

/* An empty set (no memory until the first insertion). */
void tuple_set_init(tuple_set *s);

/* 1 if t was not in the set (and is now), 0 if it was, -1 when out of memory. */
int tuple_set_insert(tuple_set *s, uint64_t t);

/* 1 if t is in the set. */
int tuple_set_contains(const tuple_set *s, uint64_t t);

/* Removes every tuple (keeping the memory unless it is far more than was used). */
void tuple_set_clear(tuple_set *s);

/* Releases the memory; the set is empty again. */
void tuple_set_free(tuple_set *s);

#endif
