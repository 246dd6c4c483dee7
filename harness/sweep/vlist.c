/* vlist.c — parser and evaluator of sweep value lists (see vlist.h for the grammar). */
#include "vlist.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    VLIST_MAX_VALUES = 1000000, /* values one evaluation may produce before dedup */
    VLIST_MAX_NESTING = 200,    /* parentheses / unary minus / function nesting */
    VLIST_MAX_HEIGHT = 1000     /* height of one expression tree (bounds eval recursion) */
};

typedef enum {
    NODE_NUMBER, NODE_VAR, NODE_NEG, NODE_ADD, NODE_SUB, NODE_MUL, NODE_DIV,
    NODE_SQRT, NODE_LOG2, NODE_MIN, NODE_MAX
} node_kind;

enum { VAR_P, VAR_Q, VAR_N, VAR_WORLD, VAR_RADIX, VAR_COUNT };
static const char *const var_names[VAR_COUNT] = {"P", "Q", "N", "world", "radix"};

/* One expression node; children are indices into vlist.nodes (-1 when absent). */
typedef struct node {
    node_kind kind;
    long long value; /* NODE_NUMBER: the number; NODE_VAR: the VAR_* index */
    int left, right;
    int height;
} node;

/* One item of the list: a single expression or a range lo..hi[:op step]. */
typedef struct item {
    int lo, hi, step;  /* node indices; hi and step are -1 when absent */
    char step_op;      /* '+' or '*' */
    size_t text_begin; /* byte span of the item in the text, for messages */
    size_t text_end;
} item;

struct vlist {
    char *text;
    node *nodes;
    int node_count, node_capacity;
    item *items;
    int item_count, item_capacity;
    unsigned vars_used; /* bit i set when var_names[i] is mentioned */
};

/* Writes a formatted message into err (if there is room); never overflows. */
static void write_error(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(err, errlen, fmt, args);
    va_end(args);
}

/* Returns a malloc'ed NUL-terminated copy of text[0..length), or NULL if out of memory. */
static char *copy_span(const char *text, size_t length)
{
    char *copy = malloc(length + 1);
    if (copy) {
        memcpy(copy, text, length);
        copy[length] = '\0';
    }
    return copy;
}

/* Ensures room for one more element in *array; returns 0, or -1 if out of memory. */
static int reserve_one(void **array, int *capacity, int count, size_t element_size)
{
    if (count < *capacity)
        return 0;
    int new_capacity = *capacity ? *capacity * 2 : 16;
    void *grown = realloc(*array, (size_t)new_capacity * element_size);
    if (!grown)
        return -1;
    *array = grown;
    *capacity = new_capacity;
    return 0;
}

/* ---- lexer ------------------------------------------------------------------------ */

typedef enum {
    TOK_END, TOK_NUMBER, TOK_IDENT, TOK_COMMA, TOK_LPAREN, TOK_RPAREN, TOK_PLUS,
    TOK_MINUS, TOK_STAR, TOK_SLASH, TOK_DOTDOT, TOK_COLON
} token_kind;

typedef struct token {
    token_kind kind;
    size_t begin, length;
    long long value; /* TOK_NUMBER only, suffix applied */
} token;

typedef struct parser {
    const char *text;
    size_t pos;        /* next byte to lex */
    size_t prev_end;   /* end of the token before `tok` */
    token tok;         /* current token */
    vlist *list;
    int nesting;
    int failed;
    char *err;
    size_t errlen;
} parser;

/* Records the first error of the parse (later ones are consequences and are dropped). */
static void parse_error(parser *p, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = 1;
    if (!p->err || p->errlen == 0)
        return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(p->err, p->errlen, fmt, args);
    va_end(args);
}

/* Character classes of names: a letter or '_' first, then letters, digits, '_'. */
static int is_ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static int is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Returns the multiplier of a number suffix of `length` bytes, or 0 if it is not one. */
static long long suffix_multiplier(const char *suffix, size_t length)
{
    static const struct { const char *name; long long multiplier; } suffixes[] = {
        {"B", 1},
        {"K", 1LL << 10}, {"Ki", 1LL << 10}, {"KiB", 1LL << 10}, {"KB", 1LL << 10},
        {"M", 1LL << 20}, {"Mi", 1LL << 20}, {"MiB", 1LL << 20}, {"MB", 1LL << 20},
        {"G", 1LL << 30}, {"Gi", 1LL << 30}, {"GiB", 1LL << 30}, {"GB", 1LL << 30},
    };
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
        if (strlen(suffixes[i].name) == length && memcmp(suffixes[i].name, suffix, length) == 0)
            return suffixes[i].multiplier;
    return 0;
}

/* Lexes a number starting at p->pos into p->tok: digits, then an optional suffix that
 * must be a known one; decimals, hex, exponents and values beyond int64 are errors. */
static void lex_number(parser *p)
{
    const char *text = p->text;
    size_t begin = p->pos, end = begin;
    unsigned long long value = 0;
    int too_large = 0;
    while (isdigit((unsigned char)text[end])) {
        unsigned digit = (unsigned)(text[end] - '0');
        if (value > ((unsigned long long)LLONG_MAX - digit) / 10)
            too_large = 1;
        else
            value = value * 10 + digit;
        end++;
    }
    if (text[end] == '.' && isdigit((unsigned char)text[end + 1])) {
        size_t stop = end + 1;
        while (is_ident_char(text[stop]) || text[stop] == '.')
            stop++;
        parse_error(p, "'%.*s' at column %zu is not an integer", (int)(stop - begin),
                    text + begin, begin + 1);
        return;
    }
    size_t suffix_begin = end;
    while (is_ident_char(text[end]))
        end++;
    long long multiplier = 1;
    if (end > suffix_begin) {
        multiplier = suffix_multiplier(text + suffix_begin, end - suffix_begin);
        if (multiplier == 0) {
            parse_error(p, "invalid number '%.*s' at column %zu (decimal integer with optional "
                        "suffix K, Ki, KiB, KB, M.., G.., B)",
                        (int)(end - begin), text + begin, begin + 1);
            return;
        }
    }
    long long scaled;
    if (too_large || __builtin_mul_overflow((long long)value, multiplier, &scaled)) {
        parse_error(p, "number '%.*s' at column %zu is beyond the 64-bit range",
                    (int)(end - begin), text + begin, begin + 1);
        return;
    }
    p->tok = (token){TOK_NUMBER, begin, end - begin, scaled};
    p->pos = end;
}

/* Advances to the next token; on a lexical error sets p->failed and leaves TOK_END. */
static void next_token(parser *p)
{
    const char *text = p->text;
    p->prev_end = p->tok.begin + p->tok.length;
    while (isspace((unsigned char)text[p->pos]))
        p->pos++;
    size_t begin = p->pos;
    p->tok = (token){TOK_END, begin, 0, 0};
    char c = text[begin];
    if (c == '\0' || p->failed)
        return;
    if (isdigit((unsigned char)c)) {
        lex_number(p);
        return;
    }
    if (is_ident_start(c)) {
        size_t end = begin;
        while (is_ident_char(text[end]))
            end++;
        p->tok = (token){TOK_IDENT, begin, end - begin, 0};
        p->pos = end;
        return;
    }
    static const char single_chars[] = ",()+-*/:";
    static const token_kind single_kinds[] = {TOK_COMMA, TOK_LPAREN, TOK_RPAREN, TOK_PLUS,
                                              TOK_MINUS, TOK_STAR, TOK_SLASH, TOK_COLON};
    const char *found = strchr(single_chars, c);
    if (found) {
        p->tok = (token){single_kinds[found - single_chars], begin, 1, 0};
        p->pos = begin + 1;
        return;
    }
    if (c == '.' && text[begin + 1] == '.') {
        p->tok = (token){TOK_DOTDOT, begin, 2, 0};
        p->pos = begin + 2;
        return;
    }
    if (isprint((unsigned char)c))
        parse_error(p, "unexpected '%c' at column %zu", c, begin + 1);
    else
        parse_error(p, "unexpected byte 0x%02x at column %zu", (unsigned)(unsigned char)c,
                    begin + 1);
}

/* Reports the current token as unexpected, naming what was expected if `expected` given. */
static void unexpected_token(parser *p, const char *expected)
{
    size_t column = p->tok.begin + 1;
    char found[64];
    if (p->tok.kind == TOK_END)
        snprintf(found, sizeof found, "end of list");
    else
        snprintf(found, sizeof found, "'%.*s'", (int)(p->tok.length > 40 ? 40 : p->tok.length),
                 p->text + p->tok.begin);
    if (expected)
        parse_error(p, "expected %s at column %zu, found %s", expected, column, found);
    else
        parse_error(p, "unexpected %s at column %zu", found, column);
}

/* ---- parser ----------------------------------------------------------------------- */

/* Appends a node and returns its index, or -1 (error recorded) on failure. */
static int add_node(parser *p, node_kind kind, long long value, int left, int right)
{
    int needs_left = kind != NODE_NUMBER && kind != NODE_VAR;
    int needs_right = (kind >= NODE_ADD && kind <= NODE_DIV) || kind == NODE_MIN || kind == NODE_MAX;
    if (p->failed || (needs_left && left < 0) || (needs_right && right < 0))
        return -1; /* an operand failed to parse; its error is already recorded */
    vlist *l = p->list;
    if (reserve_one((void **)&l->nodes, &l->node_capacity, l->node_count, sizeof(node))) {
        parse_error(p, "out of memory");
        return -1;
    }
    int height = 1;
    if (left >= 0 && l->nodes[left].height + 1 > height)
        height = l->nodes[left].height + 1;
    if (right >= 0 && l->nodes[right].height + 1 > height)
        height = l->nodes[right].height + 1;
    if (height > VLIST_MAX_HEIGHT) {
        parse_error(p, "expression too long at column %zu", p->tok.begin + 1);
        return -1;
    }
    l->nodes[l->node_count] = (node){kind, value, left, right, height};
    return l->node_count++;
}

/* Parses an expression (defined below; atoms recurse into it for parentheses). */
static int parse_expr(parser *p);

/* Enters one level of nesting; returns 0, or -1 (error recorded) when too deep. */
static int enter_nesting(parser *p)
{
    if (++p->nesting > VLIST_MAX_NESTING) {
        parse_error(p, "expression nested too deeply at column %zu", p->tok.begin + 1);
        return -1;
    }
    return 0;
}

/* Consumes a token of `kind` or records "expected <what>"; returns 0 on success. */
static int expect_token(parser *p, token_kind kind, const char *what)
{
    if (p->failed)
        return -1;
    if (p->tok.kind != kind) {
        unexpected_token(p, what);
        return -1;
    }
    next_token(p);
    return 0;
}

/* Parses the call of a function whose name was just consumed: '(' args ')'. */
static int parse_call(parser *p, node_kind kind, int arg_count)
{
    if (expect_token(p, TOK_LPAREN, "'('") || enter_nesting(p))
        return -1;
    int first = parse_expr(p), second = -1;
    if (arg_count == 2 && expect_token(p, TOK_COMMA, "','") == 0)
        second = parse_expr(p);
    if (expect_token(p, TOK_RPAREN, "')'"))
        return -1;
    p->nesting--;
    return add_node(p, kind, 0, first, second);
}

/* atom := number | ident | func '(' args ')' | '(' expr ')' */
static int parse_atom(parser *p)
{
    token tok = p->tok;
    if (tok.kind == TOK_NUMBER) {
        next_token(p);
        return add_node(p, NODE_NUMBER, tok.value, -1, -1);
    }
    if (tok.kind == TOK_LPAREN) {
        if (enter_nesting(p))
            return -1;
        next_token(p);
        int inner = parse_expr(p);
        if (expect_token(p, TOK_RPAREN, "')'"))
            return -1;
        p->nesting--;
        return inner;
    }
    if (tok.kind != TOK_IDENT) {
        unexpected_token(p, NULL);
        return -1;
    }
    const char *name = p->text + tok.begin;
    for (int var = 0; var < VAR_COUNT; var++) {
        if (strlen(var_names[var]) == tok.length && memcmp(name, var_names[var], tok.length) == 0) {
            next_token(p);
            p->list->vars_used |= 1u << var;
            return add_node(p, NODE_VAR, var, -1, -1);
        }
    }
    static const struct { const char *name; node_kind kind; int arg_count; } functions[] = {
        {"sqrt", NODE_SQRT, 1}, {"log2", NODE_LOG2, 1}, {"min", NODE_MIN, 2}, {"max", NODE_MAX, 2},
    };
    for (size_t f = 0; f < sizeof functions / sizeof functions[0]; f++) {
        if (strlen(functions[f].name) != tok.length || memcmp(name, functions[f].name, tok.length))
            continue;
        next_token(p);
        if (functions[f].kind == NODE_SQRT && p->tok.kind != TOK_LPAREN) {
            p->list->vars_used |= 1u << VAR_P; /* bare `sqrt` means sqrt(P) */
            return add_node(p, NODE_SQRT, 0, add_node(p, NODE_VAR, VAR_P, -1, -1), -1);
        }
        return parse_call(p, functions[f].kind, functions[f].arg_count);
    }
    parse_error(p, "unknown name '%.*s' at column %zu (known: P, Q, N, world, radix, sqrt, log2, min, max)",
                (int)(tok.length > 40 ? 40 : tok.length), name, tok.begin + 1);
    return -1;
}

/* unary := '-' unary | atom */
static int parse_unary(parser *p)
{
    if (p->tok.kind != TOK_MINUS)
        return parse_atom(p);
    if (enter_nesting(p))
        return -1;
    next_token(p);
    int operand = parse_unary(p);
    p->nesting--;
    return add_node(p, NODE_NEG, 0, operand, -1);
}

/* term := unary (('*'|'/') unary)* */
static int parse_term(parser *p)
{
    int left = parse_unary(p);
    while (!p->failed && (p->tok.kind == TOK_STAR || p->tok.kind == TOK_SLASH)) {
        node_kind kind = p->tok.kind == TOK_STAR ? NODE_MUL : NODE_DIV;
        next_token(p);
        left = add_node(p, kind, 0, left, parse_unary(p));
    }
    return left;
}

/* expr := term (('+'|'-') term)* */
static int parse_expr(parser *p)
{
    int left = parse_term(p);
    while (!p->failed && (p->tok.kind == TOK_PLUS || p->tok.kind == TOK_MINUS)) {
        node_kind kind = p->tok.kind == TOK_PLUS ? NODE_ADD : NODE_SUB;
        next_token(p);
        left = add_node(p, kind, 0, left, parse_term(p));
    }
    return left;
}

/* item := expr | expr '..' expr [':' ('+'|'*') expr] — appended to p->list->items. */
static void parse_item(parser *p)
{
    if (p->tok.kind == TOK_COMMA || p->tok.kind == TOK_END) {
        parse_error(p, "empty item at column %zu", p->tok.begin + 1);
        return;
    }
    item it = {-1, -1, -1, '+', p->tok.begin, 0};
    it.lo = parse_expr(p);
    if (!p->failed && p->tok.kind == TOK_DOTDOT) {
        next_token(p);
        it.hi = parse_expr(p);
        if (!p->failed && p->tok.kind == TOK_COLON) {
            next_token(p);
            if (p->tok.kind != TOK_PLUS && p->tok.kind != TOK_STAR) {
                unexpected_token(p, "'+' or '*' after ':'");
                return;
            }
            it.step_op = p->tok.kind == TOK_PLUS ? '+' : '*';
            next_token(p);
            it.step = parse_expr(p);
        }
    }
    if (p->failed)
        return;
    it.text_end = p->prev_end;
    vlist *l = p->list;
    if (reserve_one((void **)&l->items, &l->item_capacity, l->item_count, sizeof(item))) {
        parse_error(p, "out of memory");
        return;
    }
    l->items[l->item_count++] = it;
}

/* Public entry points below are documented in vlist.h. */
int vlist_parse(const char *text, vlist **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!text) {
        write_error(err, errlen, "empty list");
        return -1;
    }
    vlist *l = calloc(1, sizeof *l);
    char *copy = copy_span(text, strlen(text));
    if (!l || !copy) {
        free(l);
        free(copy);
        write_error(err, errlen, "out of memory");
        return -1;
    }
    l->text = copy;
    parser p = {.text = copy, .list = l, .err = err, .errlen = errlen};
    next_token(&p);
    if (!p.failed && p.tok.kind == TOK_END)
        parse_error(&p, "empty list");
    while (!p.failed) {
        parse_item(&p);
        if (p.failed || p.tok.kind == TOK_END)
            break;
        if (p.tok.kind != TOK_COMMA) {
            unexpected_token(&p, NULL);
            break;
        }
        next_token(&p);
    }
    if (p.failed) {
        vlist_free(l);
        return -1;
    }
    *out = l;
    return 0;
}

int vlist_uses(const vlist *l, const char *ident)
{
    if (!l || !ident)
        return 0;
    for (int var = 0; var < VAR_COUNT; var++)
        if (strcmp(ident, var_names[var]) == 0)
            return (l->vars_used >> var) & 1u;
    return 0;
}

void vlist_free(vlist *l)
{
    if (!l)
        return;
    free(l->text);
    free(l->nodes);
    free(l->items);
    free(l);
}

const char *vlist_text(const vlist *l)
{
    return l ? l->text : NULL;
}

/* ---- evaluation ------------------------------------------------------------------- */

typedef struct evaluator {
    const vlist *list;
    const vlist_env *env;
    const item *current; /* item being expanded, named in messages */
    char *err;
    size_t errlen;
    long long *values; /* expansion before duplicate removal */
    size_t count, capacity;
} evaluator;

/* Records "<what> in '<item text>'"; always returns -1 for use in return statements. */
static int eval_error(evaluator *ev, const char *fmt, ...)
{
    char what[160];
    va_list args;
    va_start(args, fmt);
    vsnprintf(what, sizeof what, fmt, args);
    va_end(args);
    const item *it = ev->current;
    write_error(ev->err, ev->errlen, "%s in '%.*s'", what, (int)(it->text_end - it->text_begin),
                ev->list->text + it->text_begin);
    return -1;
}

/* Returns floor(sqrt(x)) for x >= 0, exactly (integer binary search, no floating point). */
static long long floor_sqrt(long long x)
{
    unsigned long long lo = 0, hi = 3037000500ULL; /* hi^2 > LLONG_MAX >= x */
    while (hi - lo > 1) {
        unsigned long long mid = lo + (hi - lo) / 2;
        if (mid * mid <= (unsigned long long)x)
            lo = mid;
        else
            hi = mid;
    }
    return (long long)lo;
}

/* Returns the integer nearest to sqrt(x), x >= 0. With r = floor(sqrt x), sqrt x rounds up
 * iff x >= (r + 1/2)^2 = r^2 + r + 1/4, i.e. x - r^2 > r (a tie cannot occur). */
static long long nearest_sqrt(long long x)
{
    long long r = floor_sqrt(x);
    return r + (x - r * r > r);
}

/* Returns ceil(log2(x)) for x >= 1. */
static long long ceil_log2(long long x)
{
    long long bits = 0;
    while ((1ULL << bits) < (unsigned long long)x)
        bits++;
    return bits;
}

/* Evaluates node `index` into *out; returns 0, or -1 with the error recorded. */
static int eval_node(evaluator *ev, int index, long long *out)
{
    const node *n = &ev->list->nodes[index];
    long long a = 0, b = 0;
    if (n->kind == NODE_NUMBER) {
        *out = n->value;
        return 0;
    }
    if (n->kind == NODE_VAR) {
        const vlist_env *env = ev->env;
        if (!env)
            return eval_error(ev, "no value given for '%s'", var_names[n->value]);
        const long long by_var[VAR_COUNT] = {env->P, env->Q, env->N, env->world, env->radix};
        *out = by_var[n->value];
        return 0;
    }
    if (eval_node(ev, n->left, &a) || (n->right >= 0 && eval_node(ev, n->right, &b)))
        return -1;
    switch (n->kind) {
    case NODE_NEG:
        if (a == LLONG_MIN)
            return eval_error(ev, "integer overflow");
        *out = -a;
        return 0;
    case NODE_ADD:
        return __builtin_add_overflow(a, b, out) ? eval_error(ev, "integer overflow") : 0;
    case NODE_SUB:
        return __builtin_sub_overflow(a, b, out) ? eval_error(ev, "integer overflow") : 0;
    case NODE_MUL:
        return __builtin_mul_overflow(a, b, out) ? eval_error(ev, "integer overflow") : 0;
    case NODE_DIV:
        if (b == 0)
            return eval_error(ev, "division by zero");
        if (a == LLONG_MIN && b == -1)
            return eval_error(ev, "integer overflow");
        *out = a / b;
        return 0;
    case NODE_SQRT:
        if (a < 0)
            return eval_error(ev, "sqrt of negative value %lld", a);
        *out = nearest_sqrt(a);
        return 0;
    case NODE_LOG2:
        if (a < 1)
            return eval_error(ev, "log2 of %lld (needs a value >= 1)", a);
        *out = ceil_log2(a);
        return 0;
    case NODE_MIN:
        *out = a < b ? a : b;
        return 0;
    case NODE_MAX:
        *out = a > b ? a : b;
        return 0;
    default:
        return eval_error(ev, "corrupt expression");
    }
}

/* Appends one value to the expansion; -1 (error recorded) past the value limit. */
static int push_value(evaluator *ev, long long value)
{
    if (ev->count >= VLIST_MAX_VALUES)
        return eval_error(ev, "list expands to more than %d values", VLIST_MAX_VALUES);
    if (ev->count == ev->capacity) {
        size_t new_capacity = ev->capacity ? ev->capacity * 2 : 64;
        long long *grown = realloc(ev->values, new_capacity * sizeof *grown);
        if (!grown)
            return eval_error(ev, "out of memory");
        ev->values = grown;
        ev->capacity = new_capacity;
    }
    ev->values[ev->count++] = value;
    return 0;
}

/* Appends the values of one item (a single value or a range) to the expansion. */
static int expand_item(evaluator *ev, const item *it)
{
    ev->current = it;
    long long lo, hi, step = 1;
    if (eval_node(ev, it->lo, &lo))
        return -1;
    if (it->hi < 0)
        return push_value(ev, lo);
    if (eval_node(ev, it->hi, &hi))
        return -1;
    if (it->step >= 0 && eval_node(ev, it->step, &step))
        return -1;
    if (it->step_op == '+') {
        if (step < 1)
            return eval_error(ev, "additive step must be >= 1, got %lld", step);
        for (long long v = lo; v <= hi;) {
            if (push_value(ev, v))
                return -1;
            if (__builtin_add_overflow(v, step, &v))
                break; /* the next value would exceed hi anyway */
        }
        return 0;
    }
    if (step < 2)
        return eval_error(ev, "geometric factor must be >= 2, got %lld", step);
    if (lo > hi)
        return 0;
    if (lo <= 0)
        return eval_error(ev, "geometric range must start at >= 1, got %lld", lo);
    for (long long v = lo;; v *= step) {
        if (push_value(ev, v))
            return -1;
        if (v > hi / step) /* v * step > hi, tested without overflow */
            return 0;
    }
}

/* qsort/bsearch order of long long values: ascending. */
static int compare_long_long(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Removes duplicates from values[0..count) in place, keeping first occurrences in order;
 * returns the new count, or -1 if out of memory. O(count log count). */
static long long remove_duplicates(long long *values, size_t count)
{
    if (count < 2)
        return (long long)count;
    long long *distinct = malloc(count * sizeof *distinct);
    unsigned char *seen = calloc(count, 1);
    if (!distinct || !seen) {
        free(distinct);
        free(seen);
        return -1;
    }
    memcpy(distinct, values, count * sizeof *distinct);
    qsort(distinct, count, sizeof *distinct, compare_long_long);
    size_t distinct_count = 1;
    for (size_t i = 1; i < count; i++)
        if (distinct[i] != distinct[distinct_count - 1])
            distinct[distinct_count++] = distinct[i];
    size_t kept = 0;
    for (size_t i = 0; i < count; i++) {
        const long long *slot = bsearch(&values[i], distinct, distinct_count, sizeof *distinct,
                                        compare_long_long);
        size_t position = (size_t)(slot - distinct);
        if (!seen[position]) {
            seen[position] = 1;
            values[kept++] = values[i];
        }
    }
    free(distinct);
    free(seen);
    return (long long)kept;
}

int vlist_eval(const vlist *l, const vlist_env *env, long long **values, int *n, char *err,
               size_t errlen)
{
    *values = NULL;
    *n = 0;
    if (!l) {
        write_error(err, errlen, "no list");
        return -1;
    }
    evaluator ev = {.list = l, .env = env, .err = err, .errlen = errlen};
    for (int i = 0; i < l->item_count; i++) {
        if (expand_item(&ev, &l->items[i])) {
            free(ev.values);
            return -1;
        }
    }
    long long kept = remove_duplicates(ev.values, ev.count);
    if (kept < 0) {
        free(ev.values);
        write_error(err, errlen, "out of memory");
        return -1;
    }
    if (kept == 0) {
        free(ev.values);
        return 0;
    }
    long long *shrunk = realloc(ev.values, (size_t)kept * sizeof *shrunk);
    *values = shrunk ? shrunk : ev.values;
    *n = (int)kept;
    return 0;
}

/* ---- word lists ------------------------------------------------------------------- */

void vlist_free_words(char **words, int n)
{
    if (!words)
        return;
    for (int i = 0; i < n; i++)
        free(words[i]);
    free(words);
}

int vlist_split_words(const char *text, char ***words, int *n, char *err, size_t errlen)
{
    *words = NULL;
    *n = 0;
    if (!text)
        text = "";
    const char *cursor = text;
    while (isspace((unsigned char)*cursor))
        cursor++;
    if (*cursor == '\0') {
        write_error(err, errlen, "empty list");
        return -1;
    }
    int capacity = 1;
    for (const char *c = text; *c; c++)
        capacity += *c == ',';
    char **result = calloc((size_t)capacity, sizeof *result);
    if (!result) {
        write_error(err, errlen, "out of memory");
        return -1;
    }
    int count = 0;
    for (const char *start = text;; count++) {
        const char *end = strchr(start, ',');
        if (!end)
            end = start + strlen(start);
        const char *word = start, *word_end = end;
        while (word < word_end && isspace((unsigned char)*word))
            word++;
        while (word_end > word && isspace((unsigned char)word_end[-1]))
            word_end--;
        if (word == word_end) {
            write_error(err, errlen, "empty item %d at column %zu", count + 1,
                        (size_t)(word - text) + 1);
            vlist_free_words(result, count);
            return -1;
        }
        for (const char *c = word; c < word_end; c++) {
            if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.' && *c != '-') {
                write_error(err, errlen, "invalid character '%c' in '%.*s' (allowed: A-Z a-z 0-9 _ . -)",
                            isprint((unsigned char)*c) ? *c : '?', (int)(word_end - word), word);
                vlist_free_words(result, count);
                return -1;
            }
        }
        result[count] = copy_span(word, (size_t)(word_end - word));
        if (!result[count]) {
            write_error(err, errlen, "out of memory");
            vlist_free_words(result, count);
            return -1;
        }
        if (*end == '\0')
            break;
        start = end + 1;
    }
    *words = result;
    *n = count + 1;
    return 0;
}
