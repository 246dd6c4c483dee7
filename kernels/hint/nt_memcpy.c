/* nt_memcpy.c — non-temporal and hybrid copies with run-time CPU dispatch (nt_memcpy.h). */
#if A2A_HAVE_HWLOC
#include <hwloc.h>
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nt_memcpy.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define A2A_X86 1
#else
#define A2A_X86 0
#endif

#define LINE 64            /* bytes per cache line: one prefetch per line */
#define PREFETCH_AHEAD 512 /* prefetch distance in bytes (8 lines) */

static const char *const isa_names[A2A_NT_ISA_COUNT] = { "portable", "sse2", "avx2", "avx512" };
static const size_t isa_width[A2A_NT_ISA_COUNT] = { 1, 16, 32, 64 };

/* Guarantees: a static name for every level, "?" otherwise. */
const char *a2a_nt_isa_name(a2a_nt_isa isa)
{
    return isa >= 0 && isa < A2A_NT_ISA_COUNT ? isa_names[isa] : "?";
}

/* Guarantees: 1 only for levels whose instructions this CPU (and its OS) executes. */
int a2a_nt_isa_supported(a2a_nt_isa isa)
{
    if (isa == A2A_NT_PORTABLE)
        return 1;
#if A2A_X86
    __builtin_cpu_init();
    switch (isa) {
    case A2A_NT_SSE2: return __builtin_cpu_supports("sse2") != 0;
    case A2A_NT_AVX2: return __builtin_cpu_supports("avx2") != 0;
    case A2A_NT_AVX512: return __builtin_cpu_supports("avx512f") != 0;
    default: return 0;
    }
#else
    return 0;
#endif
}

static pthread_once_t isa_once = PTHREAD_ONCE_INIT;
static a2a_nt_isa isa_chosen = A2A_NT_PORTABLE;

/* The best supported level, lowered to A2A_NT_ISA when that names a supported level. */
static void choose_isa(void)
{
    a2a_nt_isa best = A2A_NT_PORTABLE;
    for (int i = A2A_NT_ISA_COUNT - 1; i > A2A_NT_PORTABLE; i--)
        if (a2a_nt_isa_supported((a2a_nt_isa)i)) {
            best = (a2a_nt_isa)i;
            break;
        }
    const char *forced = getenv("A2A_NT_ISA");
    if (forced)
        for (int i = 0; i < A2A_NT_ISA_COUNT; i++)
            if (strcmp(forced, isa_names[i]) == 0 && a2a_nt_isa_supported((a2a_nt_isa)i))
                best = (a2a_nt_isa)i;
    isa_chosen = best;
}

/* Guarantees: the same level on every call of one process. */
a2a_nt_isa a2a_nt_isa_selected(void)
{
    pthread_once(&isa_once, choose_isa);
    return isa_chosen;
}

#if A2A_X86
/* The aligned bodies: d is aligned to the vector width, n is a multiple of it. Each
 * loads (unaligned, prefetched PREFETCH_AHEAD bytes ahead once per line) and streams the
 * data out, then fences the streaming stores. */

/* Guarantees: d[0..n) = s[0..n) written with 16-byte streaming stores, then sfence. */
__attribute__((target("sse2"))) static void body_sse2(char *d, const char *s, size_t n)
{
    size_t i = 0;
    for (; i + LINE <= n; i += LINE) {
        if (i + PREFETCH_AHEAD < n)
            _mm_prefetch(s + i + PREFETCH_AHEAD, _MM_HINT_NTA);
        __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));
        _mm_stream_si128((__m128i *)(d + i), a);
        _mm_stream_si128((__m128i *)(d + i + 16), b);
        _mm_stream_si128((__m128i *)(d + i + 32), c);
        _mm_stream_si128((__m128i *)(d + i + 48), e);
    }
    for (; i < n; i += 16)
        _mm_stream_si128((__m128i *)(d + i), _mm_loadu_si128((const __m128i *)(s + i)));
    _mm_sfence();
}

/* Guarantees: d[0..n) = s[0..n) written with 32-byte streaming stores, then sfence. */
__attribute__((target("avx2"))) static void body_avx2(char *d, const char *s, size_t n)
{
    size_t i = 0;
    for (; i + LINE <= n; i += LINE) {
        if (i + PREFETCH_AHEAD < n)
            _mm_prefetch(s + i + PREFETCH_AHEAD, _MM_HINT_NTA);
        __m256i a = _mm256_loadu_si256((const __m256i *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + i + 32));
        _mm256_stream_si256((__m256i *)(d + i), a);
        _mm256_stream_si256((__m256i *)(d + i + 32), b);
    }
    for (; i < n; i += 32)
        _mm256_stream_si256((__m256i *)(d + i), _mm256_loadu_si256((const __m256i *)(s + i)));
    _mm_sfence();
}

/* Guarantees: d[0..n) = s[0..n) written with 64-byte streaming stores, then sfence. */
__attribute__((target("avx512f"))) static void body_avx512(char *d, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i += LINE) {
        if (i + PREFETCH_AHEAD < n)
            _mm_prefetch(s + i + PREFETCH_AHEAD, _MM_HINT_NTA);
        _mm512_stream_si512((void *)(d + i), _mm512_loadu_si512((const void *)(s + i)));
    }
    _mm_sfence();
}
#endif

/* Guarantees: dst[0..n) = src[0..n); with a supported SIMD level the destination's
 * aligned body is written with streaming stores, the head and tail with memcpy. */
void a2a_nt_memcpy_isa(a2a_nt_isa isa, void *dst, const void *src, size_t n)
{
    size_t w = isa >= 0 && isa < A2A_NT_ISA_COUNT ? isa_width[isa] : 1;
    if (isa == A2A_NT_PORTABLE || w == 1 || n < 4 * w || !A2A_X86) {
        if (n)
            memcpy(dst, src, n);
        return;
    }
    char *d = dst;
    const char *s = src;
    size_t head = (w - ((uintptr_t)d & (w - 1))) & (w - 1);
    memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    size_t body = n & ~(w - 1);
#if A2A_X86
    if (isa == A2A_NT_AVX512)
        body_avx512(d, s, body);
    else if (isa == A2A_NT_AVX2)
        body_avx2(d, s, body);
    else
        body_sse2(d, s, body);
#endif
    if (n > body)
        memcpy(d + body, s + body, n - body);
}

/* Guarantees: as a2a_nt_memcpy_isa with the selected level. */
void a2a_nt_memcpy(void *dst, const void *src, size_t n)
{
    a2a_nt_memcpy_isa(a2a_nt_isa_selected(), dst, src, n);
}

/* Guarantees: dst[0..n) = src[0..n); bytes [0, min(n, T)) with regular stores when n >= T,
 * all of them when n < T; the rest with streaming stores. */
void a2a_hybrid_memcpy(void *dst, const void *src, size_t n, size_t threshold)
{
    if (n < threshold) {
        if (n)
            memcpy(dst, src, n);
        return;
    }
    if (threshold)
        memcpy(dst, src, threshold);
    a2a_nt_memcpy((char *)dst + threshold, (const char *)src + threshold, n - threshold);
}

static pthread_once_t l2_once = PTHREAD_ONCE_INIT;
static size_t l2_bytes;

/* Reads the L2 size: hwloc's first L2 cache (when built with hwloc), else sysconf, else
 * 1 MiB. */
static void find_l2(void)
{
#if A2A_HAVE_HWLOC
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0) {
        if (hwloc_topology_load(topo) == 0) {
            hwloc_obj_t obj = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_L2CACHE, NULL);
            if (obj && obj->attr)
                l2_bytes = (size_t)obj->attr->cache.size;
        }
        hwloc_topology_destroy(topo);
    }
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
    if (l2_bytes == 0) {
        long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
        if (v > 0)
            l2_bytes = (size_t)v;
    }
#endif
    if (l2_bytes == 0)
        l2_bytes = 1 << 20;
}

/* Guarantees: a positive size, the same on every call of one process. */
size_t a2a_l2_cache_bytes(void)
{
    pthread_once(&l2_once, find_l2);
    return l2_bytes;
}
