/* unit_nt_memcpy.c — a2a_nt_memcpy_isa and a2a_hybrid_memcpy against memcpy (no MPI).
 *
 * For every instruction-set level this CPU supports (portable, sse2, avx2, avx512) and every
 * size 0..4096: the copy with each of the 64 source misalignments, each paired with a
 * destination misalignment so that all 64 of those occur as well; the full 64 x 64 grid of
 * (source, destination) misalignments at the sizes around vector and line boundaries; and
 * a few large sizes (prefetching, many lines). The hybrid copy likewise for thresholds
 * 0, 63, 100, 4096 and SIZE_MAX. Every check: the destination equals the
 * source, the 64 guard bytes on each side of it are untouched, the source is unchanged.
 * Also: A2A_NT_ISA selects the level when it names a supported one; the L2 size is
 * positive. One line per failure, a summary line; exit status 0 only if all passed.
 * `unit_nt_memcpy --selected` only prints the level in use (for A2A_NT_ISA checks). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_memcpy.h"

#define GUARD 64
#define ALIGN 64
#define MAX_SMALL 4096

static long long passed, failed;

/* A copy under test: level (or -1 for the hybrid copy with `threshold`). */
typedef struct copier {
    int isa;
    size_t threshold;
} copier;

static void run_copy(const copier *c, void *dst, const void *src, size_t n)
{
    if (c->isa >= 0)
        a2a_nt_memcpy_isa((a2a_nt_isa)c->isa, dst, src, n);
    else
        a2a_hybrid_memcpy(dst, src, n, c->threshold);
}

static void describe(const copier *c, char *text, size_t len)
{
    if (c->isa >= 0)
        snprintf(text, len, "nt_memcpy[%s]", a2a_nt_isa_name((a2a_nt_isa)c->isa));
    else if (c->threshold == SIZE_MAX)
        snprintf(text, len, "hybrid_memcpy[T=SIZE_MAX]");
    else
        snprintf(text, len, "hybrid_memcpy[T=%zu]", c->threshold);
}

static unsigned char src_byte(size_t i) { return (unsigned char)(i * 131 + 7 + (i >> 8)); }
static unsigned char poison_byte(size_t i) { return (unsigned char)(0xA5 ^ (i * 29)); }

/* Copies n bytes from src_buf + s_off to dst_buf + GUARD + d_off and checks everything;
 * returns 1 if correct. The destination buffer is re-poisoned first. */
static int check_one(const copier *c, unsigned char *dst_buf, size_t dst_len,
                     const unsigned char *src_buf, size_t s_off, size_t d_off, size_t n)
{
    for (size_t i = 0; i < GUARD + d_off + n + GUARD && i < dst_len; i++)
        dst_buf[i] = poison_byte(i);
    unsigned char *dst = dst_buf + GUARD + d_off;
    run_copy(c, dst, src_buf + s_off, n);
    const char *what = NULL;
    size_t at = 0;
    if (n && memcmp(dst, src_buf + s_off, n) != 0) {
        what = "destination differs from the source";
        for (at = 0; at < n && dst[at] == src_buf[s_off + at]; at++)
            ;
    }
    for (size_t i = 0; !what && i < GUARD + d_off; i++)
        if (dst_buf[i] != poison_byte(i)) {
            what = "wrote before the destination";
            at = i;
        }
    for (size_t i = GUARD + d_off + n; !what && i < GUARD + d_off + n + GUARD; i++)
        if (dst_buf[i] != poison_byte(i)) {
            what = "wrote after the destination";
            at = i - (GUARD + d_off + n);
        }
    if (!what) {
        passed++;
        return 1;
    }
    failed++;
    if (failed <= 20) {
        char name[64];
        describe(c, name, sizeof name);
        printf("FAIL %s n=%zu src%%64=%zu dst%%64=%zu: %s (byte %zu)\n", name, n, s_off, d_off,
               what, at);
    }
    return 0;
}

/* Every size 0..max with the 64 paired misalignments, the 64 x 64 grid at boundary sizes. */
static void check_copier(const copier *c, unsigned char *dst_buf, size_t dst_len,
                         const unsigned char *src_buf)
{
    for (size_t n = 0; n <= MAX_SMALL; n++)
        for (size_t m = 0; m < 64; m++)
            check_one(c, dst_buf, dst_len, src_buf, m, (m * 37 + 11) % 64, n);
    static const size_t edges[] = { 0,   1,   2,   3,   7,   15,  16,  17,   31,   32,  33,
                                    63,  64,  65,  127, 128, 129, 191, 255,  256,  257, 511,
                                    512, 513, 575, 1000, 1023, 1024, 1025, 2047, 4095, 4096 };
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
        for (size_t s = 0; s < 64; s++)
            for (size_t d = 0; d < 64; d++)
                check_one(c, dst_buf, dst_len, src_buf, s, d, edges[e]);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--selected") == 0) { /* only the level in use */
        printf("selected: %s\n", a2a_nt_isa_name(a2a_nt_isa_selected()));
        return 0;
    }
    const size_t big = (1 << 20) + 4099;
    size_t src_len = big + 2 * ALIGN, dst_len = big + 2 * ALIGN + 2 * GUARD;
    unsigned char *src_raw = malloc(src_len + ALIGN), *dst_raw = malloc(dst_len + ALIGN);
    unsigned char *pristine = malloc(src_len);
    if (!src_raw || !dst_raw || !pristine) {
        printf("FAIL out of memory\n");
        return 1;
    }
    /* 64-byte aligned bases, so the offsets are the misalignments */
    unsigned char *src = src_raw + (ALIGN - (uintptr_t)src_raw % ALIGN) % ALIGN;
    unsigned char *dst = dst_raw + (ALIGN - (uintptr_t)dst_raw % ALIGN) % ALIGN;
    for (size_t i = 0; i < src_len; i++)
        src[i] = pristine[i] = src_byte(i);

    copier copiers[A2A_NT_ISA_COUNT + 8];
    int ncopiers = 0;
    printf("levels:");
    for (int isa = 0; isa < A2A_NT_ISA_COUNT; isa++) {
        int ok = a2a_nt_isa_supported((a2a_nt_isa)isa);
        printf(" %s%s", a2a_nt_isa_name((a2a_nt_isa)isa), ok ? "" : "(not on this CPU)");
        if (ok)
            copiers[ncopiers++] = (copier){ isa, 0 };
    }
    printf("; selected: %s\n", a2a_nt_isa_name(a2a_nt_isa_selected()));
    static const size_t thresholds[] = { 0, 63, 100, 4096, SIZE_MAX };
    for (size_t t = 0; t < sizeof thresholds / sizeof thresholds[0]; t++)
        copiers[ncopiers++] = (copier){ -1, thresholds[t] };

    for (int i = 0; i < ncopiers; i++) {
        long long before = failed;
        check_copier(&copiers[i], dst, dst_len, src);
        static const size_t large[] = { 65536 + 17, 1 << 20, (1 << 20) + 4099 };
        for (size_t l = 0; l < sizeof large / sizeof large[0]; l++)
            for (size_t m = 0; m < 64; m += 21)
                check_one(&copiers[i], dst, dst_len, src, m, (m * 5 + 3) % 64, large[l]);
        char name[64];
        describe(&copiers[i], name, sizeof name);
        printf("%-28s %s\n", name, failed == before ? "ok" : "FAILED");
    }
    if (memcmp(src, pristine, src_len) != 0) {
        failed++;
        printf("FAIL a copy wrote to its source\n");
    }

    const char *forced = getenv("A2A_NT_ISA");
    if (forced) {
        int want = -1;
        for (int isa = 0; isa < A2A_NT_ISA_COUNT; isa++)
            if (strcmp(forced, a2a_nt_isa_name((a2a_nt_isa)isa)) == 0 &&
                a2a_nt_isa_supported((a2a_nt_isa)isa))
                want = isa;
        if (want >= 0 && (int)a2a_nt_isa_selected() != want) {
            failed++;
            printf("FAIL A2A_NT_ISA=%s but %s was selected\n", forced,
                   a2a_nt_isa_name(a2a_nt_isa_selected()));
        } else {
            passed++;
        }
    }
    if (a2a_l2_cache_bytes() == 0) {
        failed++;
        printf("FAIL the L2 size is 0\n");
    } else {
        passed++;
        printf("L2: %zu bytes\n", a2a_l2_cache_bytes());
    }
    printf("unit_nt_memcpy: %lld passed, %lld failed\n", passed, failed);
    free(src_raw);
    free(dst_raw);
    free(pristine);
    return failed == 0 ? 0 : 1;
}
