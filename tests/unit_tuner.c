/* unit_tuner.c — unit tests of the tuner's search (harness/tuner/tuner.h): the criterion
 * on a hand-computed example, and the order of its steps on a small sweep.
 * A plain program (no MPI_Init): prints failures and "unit_tuner: N passed, M failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "configs.h"
#include "radix_model.h"
#include "sweep.h"
#include "tuner.h"
#include "unit_check.h"

static int passed, failed;

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-6 * (fabs(a) + fabs(b)) + 1e-12;
}

/* Three candidates against an incumbent of 10 us with a 2 % margin (threshold log(10 us) -
 * log(1.02)), their log times predicted normal: A 10 us, sd 0.1; B 8 us, sd 0.5; C 12 us,
 * sd 1.0. By hand (z = (threshold - mu) / sd; value = sd (z Phi(z) + phi(z))):
 *   A: z = -0.19803, P = 0.421512, value = 0.0307726
 *   B: z =  0.40668, P = 0.657879, value = 0.317413
 *   C: z = -0.20212, P = 0.419910, value = 0.306002
 * B first, then C (its wide spread is a larger stake than A's near miss, though A is more
 * probably faster), then A; with the cost of each (its predicted time of 2 calls) B, C, A. */
static void test_criterion(void)
{
    double threshold = log(10e-6) - log(1.02), pa, pb, pc;
    double a = tuner_criterion(log(10e-6), 0.01, threshold, 1, &pa);
    double b = tuner_criterion(log(8e-6), 0.25, threshold, 1, &pb);
    double c = tuner_criterion(log(12e-6), 1.0, threshold, 1, &pc);
    CHECK(fabs(pa - 0.421512) < 1e-6 && fabs(a - 0.0307726) < 1e-7, "A: P %.6f value %.7f", pa, a);
    CHECK(fabs(pb - 0.657879) < 1e-6 && fabs(b - 0.317413) < 1e-6, "B: P %.6f value %.6f", pb, b);
    CHECK(fabs(pc - 0.419910) < 1e-6 && fabs(c - 0.306002) < 1e-6, "C: P %.6f value %.6f", pc, c);
    CHECK(b > c && c > a, "ranking B, C, A: %g %g %g", b, c, a);
    CHECK(pa > pc, "A is more probably faster than C (%g, %g), C still ranks first", pa, pc);
    double ca = tuner_criterion(log(10e-6), 0.01, threshold, 20e-6, NULL);
    double cb = tuner_criterion(log(8e-6), 0.25, threshold, 16e-6, NULL);
    double cc = tuner_criterion(log(12e-6), 1.0, threshold, 24e-6, NULL);
    CHECK(close_to(cb, b / 16e-6) && cb > cc && cc > ca, "per predicted cost: %g %g %g", cb, cc, ca);
    double p;
    CHECK(tuner_criterion(log(5e-6), 1e-20, threshold, 1, &p) > 0.6 && p == 1,
          "a sure win: probability 1, value the gain (%g)", p);
}

/* A sweep loaded from `text`, expanded at P = 8, and a tuner over it with a budget of
 * `budget` configurations (all of them when 0) and `seconds` (none when 0). NULL, after a
 * failed check, when the sweep does not load. */
typedef struct fixture {
    sweep *sw;
    config *configs;
    int n;
    tuner *t;
} fixture;

static tuner *fixture_open(fixture *f, const char *text, int budget, double seconds)
{
    char err[512] = "";
    launch_info launch = { 8, 8, 0 };
    *f = (fixture){ 0 };
    if (sweep_load("t.ini", text, &f->sw, err, sizeof err) ||
        expand_sweep(f->sw, &launch, NULL, &f->configs, &f->n, err, sizeof err)) {
        CHECK(0, "the sweep loads: %s", err);
        sweep_free(f->sw);
        return NULL;
    }
    tuner_options opt = { .budget = budget ? budget : f->n, .budget_seconds = seconds,
                          .confidence = 0.95, .margin = 0.02 };
    return f->t = tuner_create(f->configs, f->n, &opt);
}

/* Frees what fixture_open made. */
static void fixture_close(fixture *f)
{
    tuner_free(f->t);
    free(f->configs);
    sweep_free(f->sw);
}

/* A made-up exhaustive sweep: P = 8, S = 16 B to 4 KiB; the library's default, Bruck and
 * tra at radix 2 and 4. Its "true" median, in us: the default is the fastest up to 64 B. */
static double truth(const config *c)
{
    int small = c->S < 100;
    if (c->kernel->is_baseline)
        return small ? 3.0 : 40.0;
    if (strcmp(c->kernel->name, "bruck") == 0)
        return small ? 4.0 : 60.0;
    return c->params[A2A_PARAM_RADIX] == 2 ? (small ? 3.5 : 30.0) : (small ? 5.0 : 20.0);
}

/* The search on that sweep with every configuration in its budget: the design points
 * (a fifth of it: every kernel, one for those without a choice), the cover and the default
 * steps, then every pick the one of the largest tuner_value; no cell final before its
 * default is measured; up to 64 B the default stays the winner. */
static void test_search_order(void)
{
    const char *text = "iterations = 1\nwarmup = 1\n[uniform]\nfamily = uniform\n"
                       "kernels = vendor, bruck, tra\nP = 8\nS = 16, 64, 256, 1K, 4K\nradix = 2, 4\n";
    fixture f;
    tuner *t = fixture_open(&f, text, 0, 0);
    if (!t)
        return;
    const config *configs = f.configs;
    int n = f.n;
    CHECK(tuner_candidates(t) == 20 && tuner_cells(t) == 5, "20 candidates in 5 cells: %d, %d",
          tuner_candidates(t), tuner_cells(t));
    const char *phase = "";
    char phases[24][12];
    int steps = 0, next, criterion_ok = 1, final_ok = 1;
    while ((next = tuner_next(t, &phase, NULL)) >= 0 && steps < 24) {
        if (strcmp(phase, "improve") == 0)
            for (int i = 0; i < n; i++)
                criterion_ok &= tuner_value(t, i, NULL) <= tuner_value(t, next, NULL);
        snprintf(phases[steps++], sizeof phases[0], "%s", phase);
        double m = truth(&configs[next]) * 1e-6;
        tuner_record(t, next, 1, m, m, m, 1);
        for (int c = 0; c < tuner_cells(t); c++) {
            tuner_cell_state s;
            tuner_cell(t, c, &s);
            final_ok &= !s.final || s.library_default_s > 0 || s.measured == s.candidates;
        }
    }
    CHECK(steps >= 5 && strcmp(phases[0], "design") == 0 && strcmp(phases[1], "design") == 0 &&
              strcmp(phases[2], "design") == 0 && strcmp(phases[3], "design") == 0,
          "four design points first (tra two, vendor and Bruck one each): %s %s %s %s",
          phases[0], phases[1], phases[2], phases[3]);
    CHECK(criterion_ok, "every improve step takes the largest tuner_value");
    CHECK(final_ok, "no cell final before its default is measured");
    for (int c = 0; c < tuner_cells(t); c++) {
        tuner_cell_state s;
        tuner_cell(t, c, &s);
        if (tuner_cell_config(t, c)->S < 100)
            CHECK(s.winner == s.library_default && s.library_default >= 0,
                  "up to 64 B the library's default stays the winner");
    }
    fixture_close(&f);
}

/* The design points of a sweep with three forced library algorithms (vendor_algorithm 1..3)
 * besides the library's own choice, Bruck and tra: up to `limit` steps of a search whose
 * budget is `budget` configurations (and `seconds`, when > 0, every measurement costing one
 * second); the forced algorithm (or -1) of each design step in *algorithms, the count in
 * *designs. */
static void forced_design(int budget, double seconds, int *algorithms, int *designs)
{
    const char *text = "iterations = 1\nwarmup = 1\n[uniform]\nfamily = uniform\n"
                       "kernels = vendor, bruck, tra\nP = 8\nS = 16, 64, 256, 1K, 4K\nradix = 2, 4\n"
                       "vendor_algorithm = 0..3\n";
    fixture f;
    *designs = 0;
    tuner *t = fixture_open(&f, text, budget, seconds);
    if (!t)
        return;
    const config *configs = f.configs;
    const char *phase = "";
    int next;
    while ((next = tuner_next(t, &phase, NULL)) >= 0 && strcmp(phase, "design") == 0) {
        const config *c = &configs[next];
        algorithms[(*designs)++] = strcmp(c->kernel->name, "vendor") == 0
                                       ? (int)c->params[A2A_PARAM_VENDOR_ALGORITHM] : -1;
        double m = truth(c) * 1e-6;
        tuner_record(t, next, 1, m, m, m, 1);
        tuner_spend(t, 1.0);
    }
    fixture_close(&f);
}

/* Each forced library algorithm is an implementation of its own: a design point of its own
 * (not one point for the library's kernel); every kernel gets its first point when the
 * budget still leaves one measurement a cell for the cover, else a fifth of the budget;
 * under a time budget, design stops once it has spent a fifth of the time. */
static void test_forced_algorithms(void)
{
    int algorithms[64], designs = 0;
    forced_design(20, 0, algorithms, &designs); /* a fifth: 4; 5 cells */
    int seen[4] = { 0 };
    for (int d = 0; d < designs; d++)
        if (algorithms[d] >= 0)
            seen[algorithms[d]]++;
    CHECK(designs == 6, "every kernel (6: 4 library algorithms, bruck, tra) its first point, "
          "more than a fifth of the budget: %d design points", designs);
    CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1 && seen[3] == 1,
          "one design point for each library algorithm: %d %d %d %d", seen[0], seen[1], seen[2],
          seen[3]);
    forced_design(8, 0, algorithms, &designs); /* 8 - 5 cells: 3 to spare */
    CHECK(designs == 3, "as many first points as leave the cover one measurement a cell (%d)",
          designs);
    forced_design(1000, 3.0, algorithms, &designs);
    CHECK(designs == 1, "a fifth of 3 s of time, a second a measurement: one design point (%d)",
          designs);
}

/* A normal distribution whose mean and sd default to scaling with S is one context over its
 * sizes: one cost model per kernel (not one per S), so that a kernel's fit, the smoothing
 * and the neighbours reach across S. */
static void test_normal_one_context(void)
{
    const char *text = "iterations = 1\nwarmup = 1\n[nonuniform]\nfamily = nonuniform\n"
                       "kernels = vendor, linear\nP = 8\nS = 16, 256, 4K\ndist = normal\n";
    fixture f;
    tuner *t = fixture_open(&f, text, 0, 0);
    if (!t)
        return;
    char *text_out = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text_out, &size);
    tuner_print_model(t, out);
    fclose(out);
    int models = 0;
    for (const char *p = text_out; (p = strstr(p, "  model ")) != NULL; p++)
        models++;
    CHECK(tuner_cells(t) == 3 && models == 2, "3 cells, one model per kernel over the sizes: %d "
          "cells, %d models", tuner_cells(t), models);
    free(text_out);
    fixture_close(&f);
}

/* Screening first or measuring: a candidate that changes its cell's decision with
 * probability 0.2, a screen costing 23/200 of a configuration: 0.115 + 0.2 = 0.315 expected,
 * below 1: screened first; with probability 0.9, 0.115 + 0.9 = 1.015: measured at once; a
 * candidate that cannot be screened (cost 0) is measured. */
static void test_expected_cost(void)
{
    int screen = -1;
    double cost = tuner_expected_cost(0.2, 23.0 / 200, 1, &screen);
    CHECK(screen == 1 && close_to(cost, 0.315), "p 0.2: screen first, 0.315 expected (%d, %g)",
          screen, cost);
    cost = tuner_expected_cost(0.9, 23.0 / 200, 1, &screen);
    CHECK(screen == 0 && close_to(cost, 1), "p 0.9: measure at once, cost 1 (%d, %g)", screen, cost);
    cost = tuner_expected_cost(0.01, 0, 2.5, &screen);
    CHECK(screen == 0 && close_to(cost, 2.5), "no screen possible: the measurement (%d, %g)",
          screen, cost);
}

/* Screens on a sweep of 200 timed calls (a screen takes 23): the design points are
 * screens; the budget counts a screen as 23/200 of a configuration and is never exceeded; a
 * screened candidate is never a cell's winner (a2a tune writes no rule on a screen); a
 * screen recorded twice is refused; with the screen rule off, or one timed call, nothing
 * is screened. */
static void test_screens(void)
{
    const char *text = "iterations = 200\nwarmup = 20\n[uniform]\nfamily = uniform\n"
                       "kernels = vendor, bruck, tra\nP = 8\nS = 16, 64, 256, 1K, 4K\nradix = 2, 4\n";
    fixture f;
    tuner *t = fixture_open(&f, text, 8, 0);
    if (!t)
        return;
    CHECK(tuner_screen_calls(t, 0) == 23, "a ninth of 200 timed calls, rounded up: %d",
          tuner_screen_calls(t, 0));
    int *screened = calloc((size_t)f.n, sizeof *screened), next, screen, screens = 0, measured = 0;
    int design_screens = 1, twice_refused = 1;
    const char *phase = "";
    while ((next = tuner_next(t, &phase, &screen)) >= 0) {
        double m = truth(&f.configs[next]) * 1e-6;
        if (strcmp(phase, "design") == 0)
            design_screens &= screen;
        if (screen) {
            tuner_record_screen(t, next, 1, m, m, m, 23);
            twice_refused &= tuner_record_screen(t, next, 1, m, m, m, 23) == -1;
            screened[next] = 1;
            screens++;
        } else {
            tuner_record(t, next, 1, m, m, m, 200);
            screened[next] = 0;
            measured++;
        }
    }
    CHECK(design_screens && screens > 0, "the design points are screens (%d screens)", screens);
    CHECK(twice_refused, "a screen recorded twice is refused");
    CHECK(close_to(tuner_used(t), measured + screens * 23.0 / 200) && tuner_used(t) <= 8 &&
              tuner_measured(t) == measured,
          "budget used %g = %d measured + %d screens x 23/200, at most 8", tuner_used(t),
          measured, screens);
    int winners_measured = 1;
    for (int c = 0; c < tuner_cells(t); c++) {
        tuner_cell_state s;
        tuner_cell(t, c, &s);
        winners_measured &= s.winner < 0 || !screened[s.winner];
    }
    CHECK(winners_measured, "no cell's winner is a candidate only screened");
    free(screened);
    fixture_close(&f);

    tuner_options opt = { .budget = 8, .confidence = 0.95, .margin = 0.02,
                          .without = 1u << tuner_rule_by_name("screen") };
    if (!fixture_open(&f, text, 8, 0))
        return;
    tuner *off = tuner_create(f.configs, f.n, &opt);
    CHECK(tuner_screen_calls(off, 0) == 0 && tuner_record_screen(off, 0, 1, 1e-6, 1e-6, 1e-6, 23) == -1,
          "--without screen: nothing can be screened");
    tuner_next(off, &phase, &screen);
    CHECK(screen == 0, "--without screen: the first design point is measured");
    tuner_free(off);
    fixture_close(&f);
    if (!fixture_open(&f, "iterations = 1\nwarmup = 1\n[uniform]\nfamily = uniform\n"
                          "kernels = vendor, tra\nP = 8\nS = 16, 64\nradix = 2, 4\n", 0, 0))
        return;
    CHECK(tuner_screen_calls(f.t, 0) == 0, "one timed call: no screen");
    fixture_close(&f);
}

/* A time of configuration c that the K/D model fits exactly (alpha K + beta D S, per
 * kernel); with `regime`, tra at radix 4 five times faster from 1 KiB on (a regime the
 * model does not have, which no other kernel shares). */
static double model_truth(const config *c, int regime)
{
    int tra = strcmp(c->kernel->name, "tra") == 0, bruck = strcmp(c->kernel->name, "bruck") == 0;
    long long r = tra ? c->params[A2A_PARAM_RADIX] : bruck ? 2 : c->P;
    double alpha = tra ? 1.2e-6 : bruck ? 2e-6 : 1e-6, beta = tra ? 0.8e-9 : 1e-9;
    double t = alpha * (double)a2a_model_rounds(c->P, r) +
               beta * (double)a2a_model_blocks(c->P, r) * (double)c->S;
    return regime && tra && r == 4 && c->S >= 1024 ? t / 5 : t;
}

/* The model's misses (tuner_model_error): every configuration measured but Bruck at 256 B,
 * the same in both cases, and 1.5 times as slow as tra at radix 2 there. On times
 * the model fits exactly, no candidate predicted without itself misses, the chance of a miss
 * falls below the prior's (0.5 in 20), and the 256 B cell is all but sure that Bruck does not
 * win; with a regime the model does not have (model_truth), the regime's candidates predicted
 * without themselves miss, the chance of a miss rises above the prior's, and Bruck, though
 * measured nowhere else differently, keeps a chance of winning. */
static void test_model_misses(void)
{
    const char *text = "iterations = 1\nwarmup = 1\n[uniform]\nfamily = uniform\n"
                       "kernels = vendor, bruck, tra\nP = 8\nS = 16, 64, 256, 1K, 4K, 16K\n"
                       "radix = 2, 4\n";
    int checked[2], missed[2];
    double miss_p[2], miss_sd[2], doubt[2] = { 0, 0 };
    for (int regime = 0; regime < 2; regime++) {
        fixture f;
        tuner *t = fixture_open(&f, text, 0, 0);
        if (!t)
            return;
        int target = -1;
        for (int i = 0; i < f.n; i++) {
            const config *c = &f.configs[i];
            if (strcmp(c->kernel->name, "bruck") == 0 && c->S == 256)
                target = i;
            else
                tuner_record(t, i, 1, model_truth(c, regime), model_truth(c, regime),
                             model_truth(c, regime), 1);
        }
        const char *phase;
        tuner_next(t, &phase, NULL);
        tuner_model_error(t, &checked[regime], &missed[regime], &miss_p[regime], &miss_sd[regime]);
        for (int c = 0; c < tuner_cells(t); c++) {
            tuner_cell_state s;
            tuner_cell(t, c, &s);
            if (tuner_cell_config(t, c)->S == 256)
                doubt[regime] = 1 - s.confidence;
        }
        CHECK(target >= 0 && checked[regime] == f.n - 1, "every observed candidate checked (%d of %d)",
              checked[regime], f.n - 1);
        fixture_close(&f);
    }
    CHECK(missed[0] == 0 && miss_p[0] < 0.5 / 20, "exact times: no miss, chance %g below 0.025",
          miss_p[0]);
    CHECK(missed[1] >= 3 && miss_p[1] > 0.5 / 20 && close_to(miss_p[1], (missed[1] + 0.5) / 43.0),
          "a regime: its 3 points missed or more (%d), chance (misses + 0.5) / (23 + 20) = %g",
          missed[1], miss_p[1]);
    CHECK(doubt[1] > 4 * doubt[0] && doubt[1] > 0.01,
          "Bruck at 256 B, predicted as before, keeps a chance of winning: %g, was %g", doubt[1],
          doubt[0]);
}

int main(void)
{
    test_expected_cost();
    test_screens();
    test_criterion();
    test_search_order();
    test_forced_algorithms();
    test_normal_one_context();
    test_model_misses();
    printf("unit_tuner: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
