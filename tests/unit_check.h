/* unit_check.h — the check macro of the unit tests that count in `passed` and `failed`. */
#ifndef A2A_UNIT_CHECK_H
#define A2A_UNIT_CHECK_H

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

#endif
