/* unit_harness.c — unit tests of statistics, workloads, sweep loading and expansion.
 * A plain program (no MPI_Init): prints failures and "unit_harness: N passed, M failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "configs.h"
#include "family.h"
#include "stats.h"
#include "sweep.h"
#include "workload.h"
#include "unit_check.h"

static int passed, failed;

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * (fabs(a) + fabs(b) + 1);
}

static void test_stats(void)
{
    const double x[] = { 5, 1, 4, 2, 3 }; /* sorted 1..5 */
    sample_summary s = summarize_samples(x, 5);
    CHECK(s.n == 5 && near(s.median, 3) && near(s.q1, 2) && near(s.q3, 4), "quartiles of 1..5");
    CHECK(near(s.min, 1) && near(s.max, 5) && near(s.mean, 3), "min/max/mean of 1..5");
    CHECK(near(s.stddev, sqrt(2.5)), "sample stddev of 1..5: %g", s.stddev);
    CHECK(x[0] == 5 && x[4] == 3, "input left unsorted");
    const double y[] = { 10, 20, 30, 40 };
    s = summarize_samples(y, 4); /* type 7: q1 at h = 0.75, median at 1.5, q3 at 2.25 */
    CHECK(near(s.median, 25) && near(s.q1, 17.5) && near(s.q3, 32.5),
          "interpolated quartiles: %g %g %g", s.q1, s.median, s.q3);
    const double one[] = { 7 };
    s = summarize_samples(one, 1);
    CHECK(s.n == 1 && near(s.median, 7) && near(s.q1, 7) && s.stddev == 0, "single sample");
    s = summarize_samples(NULL, 0);
    CHECK(s.n == 0 && s.median == 0, "no samples");
}

static void test_workload(void)
{
    wl_spec a = { WL_DIST_UNIFORM, WL_PAYLOAD_PATTERN, 1000, 8, 42, { NAN, NAN, NAN, NULL } };
    wl_spec b = a;
    b.seed = 43;
    int same = 1, differs = 0, in_range = 1, varied = 0;
    long long first = wl_block_bytes(&a, 0, 0);
    for (int s = 0; s < 8; s++)
        for (int d = 0; d < 8; d++) {
            long long v = wl_block_bytes(&a, s, d);
            same &= v == wl_block_bytes(&a, s, d);
            differs |= v != wl_block_bytes(&b, s, d);
            in_range &= v >= 0 && v <= 1000;
            varied |= v != first;
        }
    CHECK(same, "block sizes are a pure function of the spec");
    CHECK(differs, "another seed gives other sizes");
    CHECK(in_range && varied, "uniform sizes vary within [0, S]");
    wl_spec c = { WL_DIST_CONSTANT, WL_PAYLOAD_PATTERN, 17, 5, 1, { NAN, NAN, NAN, NULL } };
    CHECK(wl_block_bytes(&c, 3, 4) == 17, "constant blocks have size S");

    unsigned char whole[100], part[40];
    wl_fill_payload(&a, 2, 3, 0, whole, 100);
    wl_fill_payload(&a, 2, 3, 37, part, 40);
    CHECK(memcmp(whole + 37, part, 40) == 0, "payload at an offset matches the whole block");
    unsigned char other[100];
    wl_fill_payload(&a, 3, 2, 0, other, 100);
    CHECK(memcmp(whole, other, 100) != 0, "different blocks have different payloads");
    wl_spec z = a;
    z.payload = WL_PAYLOAD_ZERO;
    wl_fill_payload(&z, 2, 3, 0, other, 100);
    int zeros = 1;
    for (int i = 0; i < 100; i++)
        zeros &= other[i] == 0;
    CHECK(zeros, "zero payload is all zero");
    CHECK(wl_dist_by_name("uniform") == WL_DIST_UNIFORM && wl_dist_by_name("gauss") == -1,
          "distribution names");
}

static void test_distributions(void)
{
    /* normal: mean and sd near the asked values, clipped to [0, S] */
    wl_spec n = { WL_DIST_NORMAL, WL_PAYLOAD_PATTERN, 1024, 64, 5, { NAN, NAN, NAN, NULL } };
    double sum = 0, sq = 0;
    int count = 0, in_range = 1;
    for (int s = 0; s < 64; s++)
        for (int d = 0; d < 64; d++) {
            long long v = wl_block_bytes(&n, s, d);
            in_range &= v >= 0 && v <= 1024;
            sum += (double)v;
            sq += (double)v * (double)v;
            count++;
        }
    double mean = sum / count, sd = sqrt(sq / count - mean * mean);
    /* default mean 1000, sd 240, clipped at 1024: the clipped mean is ~ 900 */
    CHECK(in_range && mean > 850 && mean < 960 && sd > 100 && sd < 240,
          "normal(1000, 240) clipped to 1024: mean %.1f sd %.1f", mean, sd);
    n.params.mean = 300;
    n.params.sd = 50;
    sum = sq = 0;
    for (int s = 0; s < 64; s++)
        for (int d = 0; d < 64; d++) {
            double v = (double)wl_block_bytes(&n, s, d);
            sum += v;
            sq += v * v;
        }
    mean = sum / count;
    sd = sqrt(sq / count - mean * mean);
    CHECK(fabs(mean - 300) < 5 && fabs(sd - 50) < 5, "normal(300, 50): mean %.1f sd %.1f", mean, sd);

    /* power law: most blocks small, a few large, all within [0, S] */
    wl_spec pl = { WL_DIST_POWERLAW, WL_PAYLOAD_PATTERN, 1024, 64, 5, { NAN, NAN, NAN, NULL } };
    int small = 0, large = 0;
    in_range = 1;
    for (int s = 0; s < 64; s++)
        for (int d = 0; d < 64; d++) {
            long long v = wl_block_bytes(&pl, s, d);
            in_range &= v >= 0 && v <= 1024;
            small += v < 64;
            large += v > 512;
        }
    CHECK(in_range && small > large && large > 0, "powerlaw: %d small, %d large", small, large);

    /* FFT patterns, exactly as the TuNA paper describes them (P = 10: 7 workers, 8 targets) */
    wl_spec f1 = { WL_DIST_FFT_N1, WL_PAYLOAD_PATTERN, 64, 10, 5, { NAN, NAN, NAN, NULL } };
    int ok = 1;
    for (int s = 0; s < 10; s++)
        for (int d = 0; d < 10; d++)
            ok &= wl_block_bytes(&f1, s, d) == (s < 7 && d < 8 ? 64 : 0);
    CHECK(ok, "fft_n1: ranks < ceil(0.625 P) send S to ranks < ceil(0.78125 P)");
    wl_spec f2 = { WL_DIST_FFT_N2, WL_PAYLOAD_PATTERN, 512, 6, 5, { NAN, NAN, NAN, NULL } };
    CHECK(wl_block_bytes(&f2, 0, 5) == 512 && wl_block_bytes(&f2, 5, 0) == 128,
          "fft_n2: S per block, S/4 from the last rank");

    /* matrix files: sizes as written; errors name file and line */
    char err[300];
    long long *m = NULL;
    FILE *f = fopen("/tmp/a2a_unit_matrix.txt", "w");
    fprintf(f, "# 3 x 3\n0 1 2\n\n3 4 5 # row 1\n6 7 8\n");
    fclose(f);
    CHECK(wl_load_matrix("/tmp/a2a_unit_matrix.txt", 3, &m, err, sizeof err) == 0 && m[5] == 5,
          "matrix file loads: %s", err);
    wl_spec mx = { WL_DIST_MATRIX, WL_PAYLOAD_PATTERN, 0, 3, 5, { NAN, NAN, NAN, m } };
    CHECK(m && wl_block_bytes(&mx, 2, 1) == 7, "matrix sizes by (src, dst)");
    free(m);
    m = NULL;
    CHECK(wl_load_matrix("/tmp/a2a_unit_matrix.txt", 4, &m, err, sizeof err) == -2 &&
              strstr(err, "P = 4"), "wrong P is a size mismatch: %s", err);
    f = fopen("/tmp/a2a_unit_matrix.txt", "w");
    fprintf(f, "0 1\n2 x\n");
    fclose(f);
    CHECK(wl_load_matrix("/tmp/a2a_unit_matrix.txt", 2, &m, err, sizeof err) == -1 &&
              strstr(err, "a2a_unit_matrix.txt:2:"), "malformed matrix names the line: %s", err);
    remove("/tmp/a2a_unit_matrix.txt");
}

static sweep *load(const char *text, char *err, size_t len)
{
    sweep *sw = NULL;
    if (sweep_load("t.ini", text, &sw, err, len))
        return NULL;
    return sw;
}

static void expect_load_error(const char *text, const char *needle)
{
    char err[512] = "";
    sweep *sw = load(text, err, sizeof err);
    CHECK(!sw && strstr(err, needle), "load error containing '%s', got '%s'", needle, err);
    sweep_free(sw);
}

static int expand(sweep *sw, int world, const char *only, config **out, int *n, char *err,
                  size_t len)
{
    launch_info launch = { world, world < 2 ? world : 2, 0 };
    return expand_sweep(sw, &launch, only, out, n, err, len);
}

static void test_sweeps(void)
{
    char err[512] = "";
    sweep *sw = load("iterations = 5\n"
                     "[u]\nfamily = uniform\nkernels = vendor, scattered\nP = 1..4\n"
                     "S = 16, 1K\nblock_count = 1..P-1\n"
                     "[v]\nfamily = nonuniform\nkernels = linear\nP = 3\nS = 0\n"
                     "dist = constant, uniform\niterations = 2\n",
                     err, sizeof err);
    CHECK(sw && sw->nsections == 2, "two sections load: %s", err);
    if (!sw)
        return;
    CHECK(sw->sections[0].iterations == 5 && sw->sections[1].iterations == 2,
          "global keys are defaults, sections override");
    config *c = NULL;
    int n = 0;
    CHECK(expand(sw, 4, NULL, &c, &n, err, sizeof err) == 0, "expands: %s", err);
    /* u: vendor 4 P x 2 S = 8; scattered: P=1 -> range 1..0 empty (0), P=2: 1 value,
     * P=3: 2, P=4: 3 -> 6 x 2 S = 12; v: 1 P x 1 S x 2 dists = 2 */
    CHECK(n == 22, "22 configurations, got %d", n);
    int skipped = 0, keys_unique = 1;
    for (int i = 0; i < n; i++) {
        skipped += c[i].skip;
        for (int j = 0; j < i; j++)
            keys_unique &= strcmp(c[i].key, c[j].key) != 0;
    }
    CHECK(skipped == 0, "nothing skipped, got %d", skipped);
    CHECK(keys_unique, "configuration keys are unique");
    CHECK(c[0].kernel->family == A2A_FAMILY_UNIFORM && c[0].P == 1 && c[0].S == 16,
          "order: section, P, kernel, S");
    free(c);

    CHECK(expand(sw, 2, NULL, &c, &n, err, sizeof err) == 0, "expands at world 2: %s", err);
    int over = 0;
    for (int i = 0; i < n; i++)
        if (c[i].skip && strstr(c[i].reason, "exceeds the launch size"))
            over++;
    CHECK(over > 0, "P above the launch size is skipped with a reason");
    free(c);
    CHECK(expand(sw, 4, "v", &c, &n, err, sizeof err) == 0 && n == 2, "--section v: %d", n);
    free(c);
    CHECK(expand(sw, 4, "u,v", &c, &n, err, sizeof err) == 0 && n == 22, "--section u,v");
    free(c);
    CHECK(expand(sw, 4, "w", &c, &n, err, sizeof err) != 0 && strstr(err, "no section [w]"),
          "unknown --section: %s", err);
    sweep_free(sw);

    /* values outside a kernel's range at some P are skipped with the reason */
    sw = load("[s]\nfamily = uniform\nkernels = scattered\nP = 2, 4\nS = 8\nblock_count = 3\n",
              err, sizeof err);
    CHECK(sw && expand(sw, 4, NULL, &c, &n, err, sizeof err) == 0 && n == 2 && c[0].skip &&
              strstr(c[0].reason, "block_count = 3") && !c[1].skip,
          "block_count 3 skipped at P = 2, run at P = 4");
    if (sw)
        free(c);
    sweep_free(sw);

    /* but a value valid for no P is bad input, with the line */
    sw = load("[s]\nfamily = uniform\nkernels = scattered\nP = 2, 4\nS = 8\nblock_count = 0\n",
              err, sizeof err);
    CHECK(sw && expand(sw, 4, NULL, &c, &n, err, sizeof err) != 0 && strstr(err, "t.ini:6:") &&
              strstr(err, "out of range"),
          "block_count = 0 is an error at line 6: %s", err);
    sweep_free(sw);

    /* a virtual ppn fixes Q and N for the other lists: P = 8, ppn = 2 -> N = 4 */
    sw = load("[t]\nfamily = uniform\nkernels = tra2, vendor\nP = 8\nS = 8\nppn = 2, 3\n"
              "radix = 2..Q\nradix2 = 2..N\n", err, sizeof err);
    CHECK(sw && expand(sw, 8, NULL, &c, &n, err, sizeof err) == 0, "tra2 expands: %s", err);
    if (sw) {
        int q2 = 0, q3_skipped = 0, vendors = 0;
        for (int i = 0; i < n; i++) {
            if (c[i].kernel->name[0] == 'v') {
                vendors++;
                continue;
            }
            if (c[i].params[A2A_PARAM_PPN] == 2 && c[i].Q == 2 && !c[i].skip)
                q2++;
            if (c[i].params[A2A_PARAM_PPN] == 3 && c[i].skip && strstr(c[i].reason, "multiple"))
                q3_skipped++;
        }
        /* ppn 2: radix 2..2 x radix2 2..4 = 3; ppn 3: radix 2..3 x radix2 2..3 = 4, skipped */
        CHECK(q2 == 3 && q3_skipped == 4 && vendors == 1 && n == 8,
              "ppn grid: %d run at Q=2, %d skipped at Q=3, %d vendor, %d total", q2, q3_skipped,
              vendors, n);
        free(c);
    }
    sweep_free(sw);

    expect_load_error("[s]\nfamily = uniform\nkernels = vendor\nS = 8\ncolour = red\n",
                      "t.ini:5: unknown key 'colour'");
    expect_load_error("[s]\nfamily = uniform\nkernels = vendor\nS = 8\niterations = ten\n",
                      "t.ini:5: 'ten' is not an integer");
    expect_load_error("[s]\nfamily = uniform\nkernels = vendor\nS =\n", "t.ini:4:");
    expect_load_error("[s]\nfamily = uniform\nkernels = vendor, bruk\nS = 8\n",
                      "t.ini:3: unknown uniform kernel 'bruk'");
    expect_load_error("[s]\nfamily = nonuniform\nkernels = vendor\nS = 8\ndist = gauss\n",
                      "t.ini:5: unknown distribution 'gauss'");
    expect_load_error("[s]\nfamily = uniform\nkernels = vendor\nS = 8\ndist = uniform\n",
                      "t.ini:5:");
    expect_load_error("[s]\nfamily = sideways\nkernels = vendor\nS = 8\n",
                      "t.ini:2: unknown family");
    expect_load_error("[s]\nfamily = uniform\nkernels = scattered\nS = 8\n",
                      "takes block_count but section [s] does not set it");
    expect_load_error("[s]\nfamily = uniform\nkernels = vendor\nS = 8\nthis line is not ini\n",
                      "t.ini:5:");
    expect_load_error("[s]\nfamily = uniform\nkernels = vendor\nS = 8\nS = 9\n",
                      "t.ini:5: key 'S' given twice");
    expect_load_error("[s]\nfamily = uniform\nkernels = vendor\n", "does not set 'S'");
    expect_load_error("; nothing\n", "no section");
    expect_load_error("[s]\nfamily = uniform\nkernels = vendor\nS = 1..\n", "t.ini:4:");
}

/* The INI reader: comments, ':' pairs, continuation lines, a byte order mark, CRLF,
 * lines of any length, UTF-8 only. */
static void test_ini_reader(void)
{
    char err[512] = "";
    size_t pad = 100000;
    char *text = malloc(pad + 512);
    snprintf(text, pad + 512, "\xEF\xBB\xBF; comment\r\n# another\r\niterations: 7 ; inline\r\n"
             "[s] ; header comment\r\nfamily = uniform\r\nkernels = vendor,\r\n    scattered"
             " ; continued\r\nS = 8\r\nblock_count = 1\r\n; ");
    size_t used = strlen(text);
    memset(text + used, 'x', pad); /* a comment line of 100 000 characters */
    snprintf(text + used + pad, 512, "\nwarmup = 2\n");
    sweep *sw = load(text, err, sizeof err);
    CHECK(sw && sw->nsections == 1 && sw->sections[0].nkernels == 2 &&
              sw->sections[0].iterations == 7 && sw->sections[0].warmup == 2,
          "BOM, CRLF, ':' pairs, inline comments, continuation, a 100 000-character line: %s",
          err);
    CHECK(sw && sw->sections[0].setting[KEY_WARMUP].line == 11, "line numbers count every line");
    sweep_free(sw);
    free(text);
    expect_load_error("[s]\nfamily = uniform\nkernels = vendor\nS = 8\n; caf\xE9\n",
                      "t.ini:5: not UTF-8 text (byte 0xE9 at column 6)");
    expect_load_error("[s]\nfamily = uniform\nkernels = vendor\nS = 8\n; \xC0\xAF overlong\n",
                      "t.ini:5: not UTF-8");
    expect_load_error("[s\nfamily = uniform\n", "t.ini:1: not a 'key = value' line");
    expect_load_error("[s]\nfamily = uniform\nkernels = vendor\nS = 8\ntimeout = 0\n",
                      "t.ini:5: timeout = '0' is not a number of seconds");
    sw = load("[s]\nfamily = uniform\nkernels = vendor\nS = 8\ntimeout = 0.25\n", err, sizeof err);
    CHECK(sw && sw->sections[0].timeout == 0.25, "fractional timeout: %s", err);
    sweep_free(sw);
}

/* Guarantees: every declared parameter (A2A_PARAMS) is found by its name, is a sweep key of
 * that name, loads with a value (by name where it has named values) and takes its declared
 * default when a section leaves it unset. */
static void test_param_declaration(void)
{
    char err[512] = "", text[512];
    for (int p = 0; p < A2A_PARAM_COUNT; p++) {
        const a2a_param_info *info = a2a_param_decl((a2a_param)p);
        CHECK(info && a2a_param_by_name(info->name) == p, "parameter %d found by its name", p);
        CHECK(strcmp(sweep_key_name(SWEEP_PARAM_KEY(p)), info->name) == 0,
              "sweep key of parameter %s", info->name);
        int n;
        const char *const *names = a2a_param_value_names((a2a_param)p, &n);
        snprintf(text, sizeof text, "[s]\nfamily = uniform\nkernels = vendor\nS = 8\n%s = %s\n",
                 info->name, names ? names[n - 1] : "3");
        sweep *sw = load(text, err, sizeof err);
        CHECK(sw && sw->sections[0].param[p], "%s loads as a sweep key: %s", info->name, err);
        sweep_free(sw);
        sw = load("[s]\nfamily = uniform\nkernels = vendor\nS = 8\n", err, sizeof err);
        CHECK(sw && (sw->sections[0].param[p] != NULL) == (info->sweep_default != NULL),
              "%s has a value unset exactly when it has a default: %s", info->name, err);
        sweep_free(sw);
    }
    CHECK(a2a_param_decl(A2A_PARAM_COUNT) == NULL && a2a_param_by_name("nonsense") == -1,
          "no declaration beyond the list");
}

/* The check of unvalidated calls: fewer bytes counted than owed is wrong, not counting is not. */
static void test_sent_check(void)
{
    char msg[300] = "";
    CHECK(family_sent_check(60654, 60654, 3, msg, sizeof msg) == CHECK_OK, "exactly what is owed");
    CHECK(family_sent_check(251350, 60654, 3, msg, sizeof msg) == CHECK_OK, "forwarded blocks counted again");
    CHECK(family_sent_check(0, 60654, 3, msg, sizeof msg) == CHECK_OK, "a kernel that counts nothing (vendor)");
    CHECK(family_sent_check(0, 0, 0, msg, sizeof msg) == CHECK_OK, "nothing owed");
    CHECK(family_sent_check(19183, 60654, 3, msg, sizeof msg) == CHECK_WRONG &&
              strstr(msg, "rank 3 sent 19183 payload bytes") && strstr(msg, "the 60654 it owes"),
          "fewer bytes than owed is wrong, with the numbers: %s", msg);
}

int main(void)
{
    test_stats();
    test_workload();
    test_distributions();
    test_sweeps();
    test_param_declaration();
    test_ini_reader();
    test_sent_check();
    printf("unit_harness: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
