/* fft_size.c — FFT sizes as text and their distribution over P ranks (see fft.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fft.h"

/* Guarantees: FFTW's block distribution: ranks below n / block hold `block` items, the
 * next one the remainder, the others none; *start is min(n, rank * block). */
long long fft_local(long long n, long long block, int P, int rank, long long *start)
{
    long long b = block > 0 ? block : (n + P - 1) / P;
    long long first = (long long)rank * b < n ? (long long)rank * b : n;
    if (start)
        *start = first;
    return n - first < b ? n - first : b;
}

/* Guarantees: see fft.h. */
long long fft_block_bytes(const fft_size *size, int P, int src, int dst)
{
    return fft_local(size->n[0], size->block[0], P, src, NULL) *
           fft_local(size->n[1], size->block[1], P, dst, NULL) * size->n[2] *
           (long long)sizeof(fft_complex);
}

/* The matrices handed out by fft_size_matrix: configurations point into them. */
typedef struct fft_matrix {
    fft_size size;
    int P;
    long long *bytes;
} fft_matrix;
static fft_matrix *matrices;
static int nmatrices;

/* Guarantees: see fft.h. */
const long long *fft_size_matrix(const fft_size *size, int P)
{
    for (int i = 0; i < nmatrices; i++)
        if (matrices[i].P == P && matrices[i].size.dims == size->dims &&
            matrices[i].size.n[0] == size->n[0] && matrices[i].size.n[1] == size->n[1] &&
            matrices[i].size.n[2] == size->n[2] && matrices[i].size.block[0] == size->block[0] &&
            matrices[i].size.block[1] == size->block[1])
            return matrices[i].bytes;
    long long *bytes = malloc((size_t)P * (size_t)P * sizeof *bytes);
    fft_matrix *grown = realloc(matrices, (size_t)(nmatrices + 1) * sizeof *grown);
    if (!bytes || !grown) {
        free(bytes);
        if (grown)
            matrices = grown;
        return NULL;
    }
    matrices = grown;
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++)
            bytes[(size_t)i * (size_t)P + (size_t)j] = fft_block_bytes(size, P, i, j);
    matrices[nmatrices++] = (fft_matrix){ *size, P, bytes };
    return bytes;
}

/* Guarantees: reads "AxB[xC...]" (at most `max` positive integers, each <= INT_MAX) at
 * *s, moving *s past it; returns how many, or -1. */
static int read_dims(const char **s, long long *out, int max)
{
    int n = 0;
    for (;;) {
        const char *p = *s;
        if (!isdigit((unsigned char)*p))
            return -1;
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno || v < 1 || v > INT_MAX || n == max)
            return -1;
        out[n++] = v;
        *s = end;
        if (**s != 'x' && **s != 'X')
            return n;
        (*s)++;
    }
}

/* Guarantees: see fft.h. */
int fft_size_parse(const char *text, fft_size *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const char *s = text;
    while (*s == ' ')
        s++;
    long long dims[3], blocks[2];
    int nd = read_dims(&s, dims, 3), nb = 0;
    if (nd >= 2 && *s == '/') {
        s++;
        nb = read_dims(&s, blocks, 2);
    }
    while (*s == ' ')
        s++;
    if (nd < 2 || (nb != 0 && nb != 2) || *s) {
        snprintf(err, errlen, "FFT size '%.100s': expected N0xN1 or N0xN1xN2, optionally "
                 "/B0xB1 (rows per rank before and after the transpose), positive integers",
                 text);
        return -1;
    }
    out->dims = nd;
    out->n[0] = dims[0];
    out->n[1] = dims[1];
    out->n[2] = nd == 3 ? dims[2] : 1;
    if (nb) {
        out->block[0] = blocks[0];
        out->block[1] = blocks[1];
    }
    if ((double)out->n[0] * (double)out->n[1] * (double)out->n[2] > 4e10) {
        snprintf(err, errlen, "FFT size '%.100s': more than 4e10 elements", text);
        return -1;
    }
    return 0;
}

/* Guarantees: see fft.h. */
void fft_size_text(const fft_size *size, char *text, size_t len)
{
    int n = snprintf(text, len, "%lldx%lld", size->n[0], size->n[1]);
    if (size->dims == 3 && n > 0 && (size_t)n < len)
        n += snprintf(text + n, len - (size_t)n, "x%lld", size->n[2]);
    if ((size->block[0] || size->block[1]) && n > 0 && (size_t)n < len)
        snprintf(text + n, len - (size_t)n, "/%lldx%lld", size->block[0], size->block[1]);
}

/* Guarantees: see fft.h. */
int fft_size_check(const fft_size *size, int P, char *why, size_t len)
{
    for (int d = 0; d < 2; d++) {
        long long b = size->block[d] > 0 ? size->block[d] : (size->n[d] + P - 1) / P;
        if (b * (long long)P < size->n[d]) {
            snprintf(why, len, "blocks of %lld cover only %lld of the %lld %s at P = %d", b,
                     b * (long long)P, size->n[d], d ? "columns" : "rows", P);
            return 0;
        }
    }
    long long rows = fft_local(size->n[0], size->block[0], P, 0, NULL);
    long long cols = fft_local(size->n[1], size->block[1], P, 0, NULL);
    if ((double)rows * (double)size->n[1] * (double)size->n[2] > INT_MAX ||
        (double)cols * (double)size->n[0] * (double)size->n[2] > INT_MAX) {
        snprintf(why, len, "a rank would hold more than 2^31 elements (MPI int counts) at P = %d",
                 P);
        return 0;
    }
    return 1;
}

/* Guarantees: see fft.h. */
int fft_size_uniform(const fft_size *size, int P)
{
    for (int d = 0; d < 2; d++) {
        long long b = size->block[d] > 0 ? size->block[d] : (size->n[d] + P - 1) / P;
        if (b * (long long)P != size->n[d])
            return 0;
    }
    return 1;
}

/* Guarantees: see fft.h. */
fft_size fft_size_swapped(const fft_size *size)
{
    fft_size s = *size;
    s.n[0] = size->n[1];
    s.n[1] = size->n[0];
    s.block[0] = size->block[1];
    s.block[1] = size->block[0];
    return s;
}
