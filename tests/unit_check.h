/* unit_check.h — counting checks in `passed` and `failed`: the CHECK macro of the unit
 * tests and count_check_v for a test's own printf-style check function. */
#ifndef A2A_UNIT_CHECK_H
#define A2A_UNIT_CHECK_H

#include <stdarg.h>
#include <stdio.h>

/* Counts one check in the including file's `passed` or `failed`; a failed one prints
 * "FAIL file:line: " and the printf-style message after cond. */
#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (cond) {                                                                        \
            passed++;                                                                      \
        } else {                                                                           \
            failed++;                                                                      \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                    \
            printf(__VA_ARGS__);                                                           \
            printf("\n");                                                                  \
        }                                                                                  \
    } while (0)

/* Guarantees: one check counted in *passed when ok, else in *failed; a failed one prints
 * "FAIL " and fmt formatted with ap as one flushed line while *failed <= print_limit. */
static inline void count_check_v(long long *passed, long long *failed, long long print_limit,
                                 int ok, const char *fmt, va_list ap)
{
    if (ok) {
        ++*passed;
        return;
    }
    if (++*failed > print_limit)
        return;
    printf("FAIL ");
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
}

#endif
