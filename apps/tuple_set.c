/* tuple_set.c — open-addressing set of 64-bit tuples (see tuple_set.h). */
#include <stdlib.h>
#include <string.h>
#include "tuple_set.h"

#define EMPTY UINT64_MAX

/* Guarantees: a well-mixed slot index for t in a table of capacity (power of two). */
static size_t slot_of(uint64_t t, size_t capacity)
{
    t ^= t >> 33;
    t *= 0xff51afd7ed558ccdULL;
    t ^= t >> 33;
    t *= 0xc4ceb9fe1a85ec53ULL;
    t ^= t >> 33;
    return (size_t)t & (capacity - 1);
}

/* Guarantees: see tuple_set.h. */
void tuple_set_init(tuple_set *s)
{
    memset(s, 0, sizeof *s);
}

/* Guarantees: a table of `capacity` slots holding the same tuples; -1 (set unchanged)
 * when out of memory. */
static int grow(tuple_set *s, size_t capacity)
{
    uint64_t *slots = malloc(capacity * sizeof *slots);
    if (!slots)
        return -1;
    memset(slots, 0xff, capacity * sizeof *slots);
    for (size_t i = 0; i < s->capacity; i++) {
        uint64_t t = s->slots[i];
        if (t == EMPTY)
            continue;
        size_t j = slot_of(t, capacity);
        while (slots[j] != EMPTY)
            j = (j + 1) & (capacity - 1);
        slots[j] = t;
    }
    free(s->slots);
    s->slots = slots;
    s->capacity = capacity;
    return 0;
}

/* Guarantees: see tuple_set.h; the load factor stays at most 1/2. */
int tuple_set_insert(tuple_set *s, uint64_t t)
{
    if (2 * (s->count + 1) > s->capacity && grow(s, s->capacity ? 2 * s->capacity : 64))
        return -1;
    size_t j = slot_of(t, s->capacity);
    while (s->slots[j] != EMPTY) {
        if (s->slots[j] == t)
            return 0;
        j = (j + 1) & (s->capacity - 1);
    }
    s->slots[j] = t;
    s->count++;
    return 1;
}

/* Guarantees: see tuple_set.h. */
int tuple_set_contains(const tuple_set *s, uint64_t t)
{
    if (!s->capacity)
        return 0;
    size_t j = slot_of(t, s->capacity);
    while (s->slots[j] != EMPTY) {
        if (s->slots[j] == t)
            return 1;
        j = (j + 1) & (s->capacity - 1);
    }
    return 0;
}

/* Guarantees: see tuple_set.h; a table far larger than its last contents is released,
 * so that clearing a set after a large round does not cost every later round. */
void tuple_set_clear(tuple_set *s)
{
    if (s->capacity > 4096 && 8 * s->count < s->capacity) {
        tuple_set_free(s);
        return;
    }
    if (s->capacity)
        memset(s->slots, 0xff, s->capacity * sizeof *s->slots);
    s->count = 0;
}

/* Guarantees: see tuple_set.h. */
void tuple_set_free(tuple_set *s)
{
    free(s->slots);
    tuple_set_init(s);
}
