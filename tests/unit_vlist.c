/* unit_vlist.c — unit tests of harness/sweep/vlist.c (no MPI). Prints one line per failed check
 * and a summary; exits 0 only if every check passed. */
#include "vlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tally {
    int passed, failed;
} tally;

/* Counts one check; prints a failure line naming the source line and the list text. */
static void record(tally *t, int ok, int line, const char *text, const char *what)
{
    if (ok) {
        t->passed++;
        return;
    }
    t->failed++;
    printf("FAIL line %d: '%.60s%s': %s\n", line, text ? text : "(null)",
           text && strlen(text) > 60 ? "..." : "", what);
}

/* Formats values[0..n) as "a, b, c" (truncated) into buffer. */
static void format_values(char *buffer, size_t size, const long long *values, int n)
{
    size_t used = 0;
    buffer[0] = '\0';
    for (int i = 0; i < n && used + 32 < size; i++)
        used += (size_t)snprintf(buffer + used, size - used, "%s%lld", i ? ", " : "", values[i]);
}

/* Checks that `text` parses and evaluates under env to exactly expected[0..expected_n). */
static void check_values(tally *t, int line, const char *text, const vlist_env *env,
                         const long long *expected, int expected_n)
{
    char err[256] = "", what[1024];
    vlist *l = NULL;
    if (vlist_parse(text, &l, err, sizeof err) != 0) {
        snprintf(what, sizeof what, "parse failed: %s", err);
        record(t, 0, line, text, what);
        return;
    }
    long long *values = NULL;
    int n = -1;
    if (vlist_eval(l, env, &values, &n, err, sizeof err) != 0) {
        snprintf(what, sizeof what, "eval failed: %s", err);
        record(t, 0, line, text, what);
    } else {
        int same = n == expected_n && (n == 0 ? values == NULL
                                              : memcmp(values, expected, (size_t)n * sizeof *values) == 0);
        char got[400], want[400];
        format_values(got, sizeof got, values, n);
        format_values(want, sizeof want, expected, expected_n);
        snprintf(what, sizeof what, "got %d values [%s], expected %d [%s]", n, got, expected_n, want);
        record(t, same, line, text, what);
    }
    free(values);
    vlist_free(l);
}

/* Checks that parsing `text` fails with a message containing `needle`. */
static void check_parse_error(tally *t, int line, const char *text, const char *needle)
{
    char err[256] = "", what[512];
    vlist *l = (vlist *)&err; /* must be reset to NULL on failure */
    int rc = vlist_parse(text, &l, err, sizeof err);
    if (rc == 0) {
        record(t, 0, line, text, "parsed, expected a parse error");
        vlist_free(l);
        return;
    }
    snprintf(what, sizeof what, "rc %d, out %s, message '%s' lacks '%s'", rc,
             l ? "not NULL" : "NULL", err, needle);
    record(t, rc == -1 && l == NULL && strstr(err, needle) != NULL, line, text, what);
}

/* Checks that `text` parses but evaluating it under env fails with `needle` in the message. */
static void check_eval_error(tally *t, int line, const char *text, const vlist_env *env,
                             const char *needle)
{
    char err[256] = "", what[512];
    vlist *l = NULL;
    if (vlist_parse(text, &l, err, sizeof err) != 0) {
        snprintf(what, sizeof what, "parse failed: %s", err);
        record(t, 0, line, text, what);
        return;
    }
    long long dummy = 0, *values = &dummy;
    int n = -1;
    int rc = vlist_eval(l, env, &values, &n, err, sizeof err);
    if (rc == 0) {
        record(t, 0, line, text, "evaluated, expected an error");
        free(values);
    } else {
        snprintf(what, sizeof what, "rc %d, n %d, values %s, message '%s' lacks '%s'", rc, n,
                 values ? "not NULL" : "NULL", err, needle);
        record(t, rc == -1 && n == 0 && values == NULL && strstr(err, needle) != NULL, line,
               text, what);
    }
    vlist_free(l);
}

/* Checks vlist_uses(parse(text), ident) == expected. */
static void check_uses(tally *t, int line, const char *text, const char *ident, int expected)
{
    char err[256] = "", what[512];
    vlist *l = NULL;
    if (vlist_parse(text, &l, err, sizeof err) != 0) {
        snprintf(what, sizeof what, "parse failed: %s", err);
        record(t, 0, line, text, what);
        return;
    }
    int got = vlist_uses(l, ident);
    snprintf(what, sizeof what, "vlist_uses('%s') = %d, expected %d", ident, got, expected);
    record(t, got == expected, line, text, what);
    vlist_free(l);
}

/* Checks that vlist_split_words(text) gives exactly expected[0..expected_n). */
static void check_words(tally *t, int line, const char *text, const char *const *expected,
                        int expected_n)
{
    char err[256] = "", what[512];
    char **words = NULL;
    int n = -1;
    if (vlist_split_words(text, &words, &n, err, sizeof err) != 0) {
        snprintf(what, sizeof what, "split failed: %s", err);
        record(t, 0, line, text, what);
        return;
    }
    int same = n == expected_n;
    for (int i = 0; same && i < n; i++)
        same = strcmp(words[i], expected[i]) == 0;
    snprintf(what, sizeof what, "got %d words (first '%s'), expected %d", n, n > 0 ? words[0] : "",
             expected_n);
    record(t, same, line, text, what);
    vlist_free_words(words, n);
}

/* Checks that vlist_split_words(text) fails with `needle` in the message. */
static void check_words_error(tally *t, int line, const char *text, const char *needle)
{
    char err[256] = "", what[512];
    char **words = (char **)err; /* must be reset to NULL on failure */
    int n = -1;
    int rc = vlist_split_words(text, &words, &n, err, sizeof err);
    if (rc == 0) {
        record(t, 0, line, text, "split succeeded, expected an error");
        vlist_free_words(words, n);
        return;
    }
    snprintf(what, sizeof what, "rc %d, n %d, message '%s' lacks '%s'", rc, n, err, needle);
    record(t, rc == -1 && n == 0 && words == NULL && strstr(err, needle) != NULL, line, text,
           what);
}

#define VALUES(env, text, ...)                                                                 \
    check_values(&t, __LINE__, text, env, (const long long[]){__VA_ARGS__},                    \
                 (int)(sizeof((const long long[]){__VA_ARGS__}) / sizeof(long long)))
#define EMPTY(env, text) check_values(&t, __LINE__, text, env, NULL, 0)
#define PARSE_ERROR(text, needle) check_parse_error(&t, __LINE__, text, needle)
#define EVAL_ERROR(env, text, needle) check_eval_error(&t, __LINE__, text, env, needle)
#define USES(text, ident, expected) check_uses(&t, __LINE__, text, ident, expected)
#define WORDS(text, ...)                                                                       \
    check_words(&t, __LINE__, text, (const char *const[]){__VA_ARGS__},                        \
                (int)(sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *)))
#define WORDS_ERROR(text, needle) check_words_error(&t, __LINE__, text, needle)

/* Returns a malloc'ed string: prefix repeated `count` times, then suffix. */
static char *repeat(const char *prefix, int count, const char *suffix)
{
    size_t plen = strlen(prefix), slen = strlen(suffix);
    char *s = malloc(plen * (size_t)count + slen + 1);
    if (!s)
        exit(2);
    for (int i = 0; i < count; i++)
        memcpy(s + plen * (size_t)i, prefix, plen);
    memcpy(s + plen * (size_t)count, suffix, slen + 1);
    return s;
}

/* Checks the boundaries of the value limit and of expression size (built texts). */
static void test_limits(tally *t_ptr, const vlist_env *env)
{
    tally t = *t_ptr; /* local copy so the check macros (which use `t`) work here */
    char err[256] = "";
    vlist *l = NULL;
    long long *values = NULL;
    int n = 0;
    int ok = vlist_parse("1..1000000", &l, err, sizeof err) == 0 &&
             vlist_eval(l, env, &values, &n, err, sizeof err) == 0 && n == 1000000 &&
             values[0] == 1 && values[n - 1] == 1000000 && values[500000] == 500001;
    record(&t, ok, __LINE__, "1..1000000", err[0] ? err : "expected exactly 1000000 values");
    free(values);
    vlist_free(l);
    /* duplicates are removed after the limit is applied to the raw expansion */
    l = NULL, values = NULL, n = 0;
    ok = vlist_parse("1..500000, 500000..1", &l, err, sizeof err) == 0 &&
         vlist_eval(l, env, &values, &n, err, sizeof err) == 0 && n == 500000;
    record(&t, ok, __LINE__, "1..500000, 500000..1", "expected 500000 values");
    free(values);
    vlist_free(l);
    l = NULL, values = NULL, n = 0;
    ok = vlist_parse("1..300000, 300000..600000, 1..399999", &l, err, sizeof err) == 0 &&
         vlist_eval(l, env, &values, &n, err, sizeof err) == 0 && n == 600000 &&
         values[299999] == 300000 && values[300000] == 300001;
    record(&t, ok, __LINE__, "1..300000, 300000..600000, 1..399999", "dedup of large lists");
    free(values);
    vlist_free(l);

    char *deep_parens = repeat("(", 300, "1");
    PARSE_ERROR(deep_parens, "nested too deeply");
    free(deep_parens);
    char *ok_parens = repeat("(", 100, "");
    char *ok_parens_text = repeat(")", 100, "");
    char *balanced = malloc(strlen(ok_parens) + strlen(ok_parens_text) + 3);
    sprintf(balanced, "%s42%s", ok_parens, ok_parens_text);
    VALUES(env, balanced, 42);
    free(ok_parens);
    free(ok_parens_text);
    free(balanced);
    char *deep_minus = repeat("-", 300, "1");
    PARSE_ERROR(deep_minus, "nested too deeply");
    free(deep_minus);
    char *even_minus = repeat("- ", 100, "7");
    VALUES(env, even_minus, 7);
    free(even_minus);
    char *long_sum = repeat("1+", 1500, "1");
    PARSE_ERROR(long_sum, "expression too long");
    free(long_sum);
    char *sum = repeat("1+", 499, "1");
    VALUES(env, sum, 500);
    free(sum);
    char *many_items = repeat("7, ", 20000, "7");
    VALUES(env, many_items, 7);
    free(many_items);
    *t_ptr = t;
}

int main(void)
{
    tally t = {0, 0};
    const vlist_env env_value = {.P = 8, .Q = 4, .N = 64, .world = 16};
    const vlist_env *env = &env_value;

    /* the examples of the sweep-file format */
    VALUES(env, "1, 2, 3..8, 16", 1, 2, 3, 4, 5, 6, 7, 8, 16);
    VALUES(env, "0, 1, 17, 1K, 64Ki, 16..16KiB:*2", 0, 1, 17, 1024, 65536, 16, 32, 64, 128, 256,
           512, 2048, 4096, 8192, 16384);
    VALUES(env, "2..P", 2, 3, 4, 5, 6, 7, 8);
    VALUES(env, "1..P-1, P/2", 1, 2, 3, 4, 5, 6, 7);
    VALUES(env, "sqrt", 3);
    VALUES(env, "2..N:*2", 2, 4, 8, 16, 32, 64);
    VALUES(env, "1, 2, Q", 1, 2, 4);
    VALUES(env, "2..world:+2", 2, 4, 6, 8, 10, 12, 14, 16);

    /* numbers and every suffix */
    VALUES(env, "0", 0);
    VALUES(env, "007", 7);
    VALUES(env, "9223372036854775807", 9223372036854775807LL);
    VALUES(env, "1B", 1);
    VALUES(env, "3K", 3072);
    VALUES(env, "3Ki", 3072);
    VALUES(env, "3KiB", 3072);
    VALUES(env, "3KB", 3072);
    VALUES(env, "2M", 2097152);
    VALUES(env, "2Mi", 2097152);
    VALUES(env, "2MiB", 2097152);
    VALUES(env, "2MB", 2097152);
    VALUES(env, "2G", 2147483648LL);
    VALUES(env, "2Gi", 2147483648LL);
    VALUES(env, "2GiB", 2147483648LL);
    VALUES(env, "2GB", 2147483648LL);
    VALUES(env, "8589934591G", 9223372035781033984LL);
    VALUES(env, "1K+1", 1025);
    VALUES(env, "0K", 0);

    /* precedence, associativity, parentheses, unary minus, division */
    VALUES(env, "2+3*4", 14);
    VALUES(env, "2*3+4", 10);
    VALUES(env, "10-2-3", 5);
    VALUES(env, "100/10/5", 2);
    VALUES(env, "2*(3+4)", 14);
    VALUES(env, "(2+3)*(4-1)", 15);
    VALUES(env, "( ( 1 ) )", 1);
    VALUES(env, "-3+5", 2);
    VALUES(env, "--3", 3);
    VALUES(env, "-(2+3)", -5);
    VALUES(env, "2 - -3", 5);
    VALUES(env, "-2*-3", 6);
    VALUES(env, "7/2", 3);
    VALUES(env, "-7/2", -3);
    VALUES(env, "7/-2", -3);
    VALUES(env, "-7/-2", 3);
    VALUES(env, "1/3", 0);
    VALUES(env, "P*Q-N/world", 28);
    VALUES(env, "-9223372036854775807-1", (-9223372036854775807LL - 1));
    VALUES(env, "  1 .. 7 : + 3 ", 1, 4, 7);
    VALUES(env, "\t2\t,\n3 ", 2, 3);

    /* names and functions */
    VALUES(env, "P, Q, N, world", 8, 4, 64, 16);
    VALUES(env, "log2(1), log2(2), log2(3), log2(4), log2(5)", 0, 1, 2, 3);
    VALUES(env, "log2(1024), log2(1025), log2(P)", 10, 11, 3);
    VALUES(env, "log2(9223372036854775807)", 63);
    VALUES(env, "min(3, 5), max(3, 5), min(-1, 1), max(-1, -2)", 3, 5, -1);
    VALUES(env, "min(P, 4)+1, max(1, P/2)..P", 5, 4, 6, 7, 8);
    VALUES(env, "min(1, max(2, 3)), max(min(7, 9), 8)", 1, 8);
    VALUES(env, "min ( 2 , 3 )", 2);
    VALUES(env, "sqrt(0), sqrt(1), sqrt(2), sqrt(3), sqrt(4)", 0, 1, 2);
    VALUES(env, "sqrt(4), sqrt(6), sqrt(7), sqrt(16)", 2, 3, 4);
    VALUES(env, "sqrt(12), sqrt(13)", 3, 4); /* 3.46 -> 3, 3.61 -> 4 */
    VALUES(env, "sqrt (25), sqrt(P*P), sqrt(P*P+P), sqrt(P*P+P+1)", 5, 8, 9);
    VALUES(env, "sqrt(1000000000000000000)", 1000000000);
    VALUES(env, "sqrt(999999999999999999)", 1000000000);
    VALUES(env, "sqrt(1000000000*1000000000 + 1000000000)", 1000000000);
    VALUES(env, "sqrt(1000000000*1000000000 + 1000000001)", 1000000001);
    VALUES(env, "sqrt(1000000000*1000000000 - 1)", 1000000000);
    VALUES(env, "sqrt(3037000499*3037000499)", 3037000499LL);
    VALUES(env, "sqrt(9223372036854775807)", 3037000500LL);
    VALUES(env, "sqrt(log2(256)*2)", 4);
    {
        const vlist_env squares[] = {{.P = 1}, {.P = 4}, {.P = 9}, {.P = 64}, {.P = 1024}};
        const long long roots[] = {1, 2, 3, 8, 32};
        for (int i = 0; i < 5; i++)
            VALUES(&squares[i], "sqrt", roots[i]);
        const vlist_env twelve = {.P = 12}, thirteen = {.P = 13}, big = {.P = 4000000000000000000LL};
        VALUES(&twelve, "sqrt", 3);
        VALUES(&thirteen, "sqrt", 4);
        VALUES(&big, "sqrt", 2000000000);
    }

    /* ranges with each step kind, empty ranges */
    VALUES(env, "1..10:+3", 1, 4, 7, 10);
    VALUES(env, "1..9:+3", 1, 4, 7);
    VALUES(env, "1..10:*3", 1, 3, 9);
    VALUES(env, "1..9:*3", 1, 3, 9);
    VALUES(env, "3..3", 3);
    VALUES(env, "3..3:*2", 3);
    VALUES(env, "-2..2", -2, -1, 0, 1, 2);
    VALUES(env, "1..P:+P", 1);
    VALUES(env, "P/2..P*2:*Q/2", 4, 8, 16);
    VALUES(env, "9223372036854775800..9223372036854775807:+3", 9223372036854775800LL,
           9223372036854775803LL, 9223372036854775806LL);
    VALUES(env, "4611686018427387904..9223372036854775807:*2", 4611686018427387904LL);
    VALUES(env, "1..9223372036854775807:*1G", 1, 1073741824, 1152921504606846976LL);
    EMPTY(env, "5..1");
    EMPTY(env, "5..1:*2");
    EMPTY(env, "P+1..P:+2");
    EMPTY(env, "-4..-8:*2");
    EMPTY(env, "5..1, 9..2");
    VALUES(env, "5..1, 7", 7);

    /* duplicates: first occurrence kept, order preserved */
    VALUES(env, "3, 1, 3, 2, 1", 3, 1, 2);
    VALUES(env, "1..4, 2..6", 1, 2, 3, 4, 5, 6);
    VALUES(env, "P, 8, 2*Q, 16/2", 8);
    VALUES(env, "6..1, 4..1, 9, 1..4", 9, 1, 2, 3, 4);
    VALUES(env, "-1, 1, -1, 0", -1, 1, 0);

    /* what a list uses; its text */
    USES("2..P", "P", 1);
    USES("2..P", "Q", 0);
    USES("sqrt", "P", 1);
    USES("sqrt(16)", "P", 0);
    USES("1, 2, Q", "Q", 1);
    USES("1, 2, Q", "P", 0);
    USES("min(N, 4)", "N", 1);
    USES("2..world:+2", "world", 1);
    USES("16", "P", 0);
    USES("sqrt", "sqrt", 0);
    USES("P", "p", 0);
    USES("1..8:*log2(Q)", "Q", 1);
    {
        char err[128] = "";
        vlist *l = NULL;
        const char *text = " 1, 2..P ";
        int ok = vlist_parse(text, &l, err, sizeof err) == 0 && strcmp(vlist_text(l), text) == 0;
        record(&t, ok, __LINE__, text, "vlist_text differs from the text parsed");
        vlist_free(l);
        vlist_free(NULL);
        record(&t, vlist_uses(NULL, "P") == 0, __LINE__, "(null list)", "vlist_uses(NULL) != 0");
    }

    /* an environment is needed only when a name is used */
    VALUES(NULL, "1, 2..4, sqrt(9)", 1, 2, 3, 4);
    EVAL_ERROR(NULL, "1, P", "no value given for 'P'");
    EVAL_ERROR(NULL, "sqrt", "no value given for 'P'");

    /* parse errors */
    PARSE_ERROR("", "empty list");
    PARSE_ERROR("   \t ", "empty list");
    PARSE_ERROR(NULL, "empty list");
    PARSE_ERROR("1,,2", "empty item at column 3");
    PARSE_ERROR("1, ", "empty item at column 4");
    PARSE_ERROR(",1", "empty item at column 1");
    PARSE_ERROR("1.5", "'1.5' at column 1 is not an integer");
    PARSE_ERROR("2, 0.25", "not an integer");
    PARSE_ERROR("0x10", "invalid number '0x10' at column 1");
    PARSE_ERROR("1e3", "invalid number '1e3'");
    PARSE_ERROR("16kb", "invalid number '16kb'");
    PARSE_ERROR("1k", "invalid number '1k'");
    PARSE_ERROR("1Kib", "invalid number '1Kib'");
    PARSE_ERROR("1KiBB", "invalid number");
    PARSE_ERROR("16 KiB", "unexpected 'KiB' at column 4");
    PARSE_ERROR("99999999999999999999", "beyond the 64-bit range");
    PARSE_ERROR("9223372036854775808", "beyond the 64-bit range");
    PARSE_ERROR("8589934592G", "'8589934592G' at column 1 is beyond the 64-bit range");
    PARSE_ERROR("Pp", "unknown name 'Pp' at column 1");
    PARSE_ERROR("1, p", "unknown name 'p' at column 4");
    PARSE_ERROR("World", "unknown name 'World'");
    PARSE_ERROR("foo(3)", "unknown name 'foo'");
    PARSE_ERROR("SQRT(4)", "unknown name 'SQRT'");
    PARSE_ERROR("K", "unknown name 'K'");
    PARSE_ERROR("log2", "expected '(' at column 5, found end of list");
    PARSE_ERROR("min + 1", "expected '(' at column 5, found '+'");
    PARSE_ERROR("min(1)", "expected ',' at column 6");
    PARSE_ERROR("min(1,2,3)", "expected ')' at column 8");
    PARSE_ERROR("sqrt(4", "expected ')' at column 7, found end of list");
    PARSE_ERROR("(1+2", "expected ')'");
    PARSE_ERROR("()", "unexpected ')' at column 2");
    PARSE_ERROR("1+2)", "unexpected ')' at column 4");
    PARSE_ERROR("1 2", "unexpected '2' at column 3");
    PARSE_ERROR("1+", "unexpected end of list at column 3");
    PARSE_ERROR("1 *", "unexpected end of list");
    PARSE_ERROR("*2", "unexpected '*' at column 1");
    PARSE_ERROR("+2", "unexpected '+' at column 1");
    PARSE_ERROR("1..", "unexpected end of list");
    PARSE_ERROR("..4", "unexpected '..' at column 1");
    PARSE_ERROR("1..8:2", "expected '+' or '*' after ':' at column 6, found '2'");
    PARSE_ERROR("1..8:-2", "expected '+' or '*'");
    PARSE_ERROR("1..8:", "expected '+' or '*' after ':' at column 6, found end of list");
    PARSE_ERROR("1..8:+", "unexpected end of list");
    PARSE_ERROR("1..8:/2", "expected '+' or '*'");
    PARSE_ERROR("4:+2", "unexpected ':' at column 2");
    PARSE_ERROR("1...8", "unexpected '.' at column 4");
    PARSE_ERROR("1.", "unexpected '.' at column 2");
    PARSE_ERROR("1..2..3", "unexpected '..' at column 5");
    PARSE_ERROR("1..8:+2:+2", "unexpected ':' at column 8");
    PARSE_ERROR("1, 2$", "unexpected '$' at column 5");
    PARSE_ERROR("1 # comment", "unexpected '#' at column 3");
    PARSE_ERROR("P(3)", "unexpected '(' at column 2");
    PARSE_ERROR("\x01", "unexpected byte 0x01 at column 1");
    PARSE_ERROR("1; 2", "unexpected ';'");

    /* evaluation errors name the failing item */
    EVAL_ERROR(env, "1, 1/0", "division by zero in '1/0'");
    EVAL_ERROR(env, "P/(Q-4)", "division by zero in 'P/(Q-4)'");
    EVAL_ERROR(env, "1..8:+P/(Q-4)", "division by zero");
    EVAL_ERROR(env, "9223372036854775807+1", "integer overflow");
    EVAL_ERROR(env, "-9223372036854775807-2", "integer overflow");
    EVAL_ERROR(env, "(-9223372036854775807-1)/-1", "integer overflow");
    EVAL_ERROR(env, "-(-9223372036854775807-1)", "integer overflow");
    EVAL_ERROR(env, "4G*4G*4G", "integer overflow in '4G*4G*4G'");
    EVAL_ERROR(env, "1..8, 3037000500*3037000500", "integer overflow");
    EVAL_ERROR(env, "sqrt(-1)", "sqrt of negative value -1");
    EVAL_ERROR(env, "sqrt(P-9)", "sqrt of negative");
    EVAL_ERROR(env, "log2(0)", "log2 of 0");
    EVAL_ERROR(env, "log2(-P)", "log2 of -8");
    EVAL_ERROR(env, "1..10:+0", "additive step must be >= 1, got 0");
    EVAL_ERROR(env, "1..10:+-1", "additive step must be >= 1, got -1");
    EVAL_ERROR(env, "10..1:+0", "additive step must be >= 1");
    EVAL_ERROR(env, "1..10:*1", "geometric factor must be >= 2, got 1");
    EVAL_ERROR(env, "1..10:*0", "geometric factor must be >= 2");
    EVAL_ERROR(env, "0..8:*2", "geometric range must start at >= 1, got 0 in '0..8:*2'");
    EVAL_ERROR(env, "-4..8:*2", "geometric range must start at >= 1, got -4");
    EVAL_ERROR(env, "1, 2 .. 8 : * 1", "in '2 .. 8 : * 1'");
    EVAL_ERROR(env, "1..1000001", "more than 1000000 values");
    EVAL_ERROR(env, "1..2M", "more than 1000000 values");
    EVAL_ERROR(env, "1..600000, 600001..1200000", "more than 1000000 values in '600001..1200000'");
    EVAL_ERROR(env, "-9223372036854775807-1..9223372036854775807", "more than 1000000 values");
    EVAL_ERROR(env, "-9223372036854775807-1..9223372036854775807:+1G",
               "more than 1000000 values");

    test_limits(&t, env);

    /* word lists */
    WORDS("pairwise, bruck ,spread_out", "pairwise", "bruck", "spread_out");
    WORDS("a", "a");
    WORDS("  zipf-1.2  ", "zipf-1.2");
    WORDS("A_b.c-9,x", "A_b.c-9", "x");
    WORDS("a,a", "a", "a");
    WORDS_ERROR("", "empty list");
    WORDS_ERROR("  ", "empty list");
    WORDS_ERROR(NULL, "empty list");
    WORDS_ERROR("a,,b", "empty item 2");
    WORDS_ERROR(" , a", "empty item 1");
    WORDS_ERROR("a,", "empty item 2");
    WORDS_ERROR("a, b c", "invalid character ' ' in 'b c'");
    WORDS_ERROR("a/b", "invalid character '/' in 'a/b'");
    WORDS_ERROR("bruck(2)", "invalid character '('");

    printf("unit_vlist: %d passed, %d failed\n", t.passed, t.failed);
    return t.failed == 0 ? 0 : 1;
}
