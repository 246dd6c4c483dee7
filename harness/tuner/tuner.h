/* tuner.h — which configurations of a sweep `a2atune tune` measures, and what it concludes.
 *
 * The configurations that can run are grouped into cells (everything that shapes the
 * exchange: family, P, S, distribution, payload, datatype, gap, buffers) and, within a
 * cell, candidates (kernel and parameters). The tuner predicts the log of every
 * unmeasured candidate's median time from
 *   - the K/D cost model of the TRA paper, time = alpha * K + beta * D * S, with alpha
 *     (per round) and beta (per byte) fitted per kernel by least squares on the relative
 *     error of the measurements so far (K, D from kernels/common/radix_model.h; direct
 *     exchanges have K = D = P - 1, Bruck's radix-2 schedules K and D of radix 2);
 *   - what the model got wrong nearby, in two parts: a cell effect shared by every kernel
 *     (residuals at the same and neighbouring (P, S)) and a candidate effect (residuals of
 *     the same kernel at neighbouring S, P and radix, less their cells' effects), both with
 *     Gaussian weights in log2 distance;
 *   - the neighbours' evidence: where a neighbouring cell (in the same context, S and P
 *     each at most one step of the sweep away; a choice being the same kernel and
 *     parameters, a radix of sqrt(P) or P matched as such) measured both the candidate and
 *     a candidate measured in this cell, the candidate is expected as much faster or slower
 *     than it here as there; this estimate (a drift of PAIR_SD from cell to cell) and the
 *     model's are combined by their precisions;
 * with an uncertainty that shrinks as measurements come close, plus the standard error of
 * a median (median_se, from the interquartile ranges measured), and the chance that the
 * model misses outright (a protocol switch, a regime one kernel alone has): every observed
 * candidate is predicted again without itself, and the share of those off by more than 3
 * sds (and their RMS error) makes each prediction a mixture, as the model says or that
 * far off (tuner_model_error); a screened candidate (a
 * screen: its configuration with a ninth of its timed calls, TUNER_SCREEN_SHARE, where it
 * has at least TUNER_SCREEN_SHARE x TUNER_SCREEN_MIN_CALLS) is predicted by its screen,
 * as uncertain as screens have been off the measurements of the same candidates. It
 * measures:
 *   1. design points to fit alpha and beta, per kernel (each algorithm the library is
 *      forced to, vendor_algorithm, counting as a kernel of its own): with a choice in a
 *      cell (a radix, a block count), many rounds at a small S on the largest P and many
 *      bytes at a large S on the smallest P, spread over the sizes (each a screen where it
 *      can be); without one, the second
 *      of these (so that no kernel is judged by the pooled fit of the others alone). First
 *      points first; at most a fifth of the budget, or every kernel's first point where the
 *      budget still leaves one measurement a cell after them; under a budget in time, none
 *      once a fifth of it is spent;
 *   2. the MPI library's own choice in every cell whose winner is another candidate and
 *      whose neighbours do not already make the winner faster than it (a2a tune replaces the
 *      default only where it was measured, or with that confidence from the neighbours),
 *      the cell where the winner most probably beats it by the margin first;
 *   3. in the unmeasured cell farthest from what is measured, its predicted fastest
 *      candidate (a cell without a measurement keeps the library's choice); with step 2
 *      before it, cells are measured in pairs, a candidate and the default its rule needs;
 *   4. then the one criterion (tuner_criterion, averaged over the model's misses where the
 *      model predicts): over every unmeasured candidate of the cells not final, the
 *      probability that it changes what the tuning file says there
 *      (that it beats the cell's incumbent by more than `margin`) times the gain expected
 *      then (the cell's stake), over its predicted cost (1 under a budget in
 *      configurations, seconds under a budget in time); the largest first. A candidate that
 *      can be screened and has not been costs its screen plus its measurement times that
 *      probability (tuner_expected_cost) and is screened first when that is cheaper;
 *      where the cell's default is not measured (nor settled by its neighbours), the
 *      default's predicted cost is added: a rule needs it measured too.
 * A cell is final when every candidate is measured, or when the library's own choice is
 * measured and the probability that no unmeasured candidate beats its winner by more than
 * the margin reaches `confidence`. The tuner stops when every cell is final, or the budget
 * is spent. Every decision is a function of the measured set alone, so an interrupted run
 * that reloads its measurements continues exactly as it would have. */
#ifndef A2A_TUNER_H
#define A2A_TUNER_H

#include <stdio.h>
#include "configs.h"

#define TUNER_SCREEN_SHARE 9     /* a screen takes a ninth of the timed calls... */
#define TUNER_SCREEN_MIN_CALLS 5 /* ...and at least this many */

typedef struct tuner tuner;

/* The parts of the search beyond its core (cover, default, the criterion over the K/D
 * model's prediction), each of which an evaluation can switch off
 * (a2atune tune --without, used by `a2a tuner-report --suite`). The names are in
 * tuner_rule_name; the numbering is the bit in tuner_options.without. */
typedef enum tuner_rule {
    TUNER_RULE_DESIGN,        /* step 1: design points to fit alpha and beta */
    TUNER_RULE_NEIGHBOURS,    /* the neighbours' evidence in the prediction */
    TUNER_RULE_CELL_EFFECT,   /* the prediction's cell effect (residuals at nearby (P, S)) */
    TUNER_RULE_SCREEN,        /* screens: a candidate measured with a ninth of its timed calls */
    TUNER_RULE_COUNT
} tuner_rule;

/* "design", "neighbours", ...: the name of a rule; NULL outside 0..TUNER_RULE_COUNT-1. */
const char *tuner_rule_name(int rule);
/* The rule of that name, -1 when there is none. */
int tuner_rule_by_name(const char *name);

typedef struct tuner_options {
    int budget;        /* configurations allowed in all (recorded ones included; a screen
                        * counts its share of the configuration's timed calls) */
    double budget_seconds; /* > 0: also stop once the measurements recorded cost this much
                            * (the seconds tuner_spend added) */
    unsigned without;  /* bit r set: rule r switched off */
    double confidence; /* a cell is final at this probability (0.95) */
    double margin;     /* relative gain below which a measurement is not worth it (0.02) */
} tuner_options;

/* What the tuner concludes about one cell. */
typedef struct tuner_cell_state {
    int winner;        /* configuration index of the fastest ok measurement, -1: none */
    int runner_up;     /* the next fastest ok measurement, -1: none */
    double winner_s, runner_up_s; /* their medians */
    double noise;      /* the results contract's noise over the winner's median: the smaller
                        * interquartile range of the two / the winner's median */
    double confidence; /* P(no unmeasured candidate beats the winner by more than margin) */
    int measured, candidates;
    int library_default; /* configuration index of the MPI library's own choice (the family's
                          * baseline, vendor_algorithm 0), -1: the cell has none */
    double library_default_s; /* its median, 0 while not measured (or not ok) */
    double default_confidence; /* while the library's default is not measured and the winner
                                * is another candidate: P(the winner is faster than the
                                * default) from the neighbouring cells (a2a tune's
                                * settle_defaults, which writes the winner's rule at 0.95);
                                * -1 otherwise */
    int final;         /* decided: every candidate measured, or confidence reached and the
                        * library's default measured */
} tuner_cell_state;

/* Groups configs[0..n) (those with skip == 0) into cells and candidates. NULL only when
 * out of memory. The tuner keeps pointers into configs. */
tuner *tuner_create(const config *configs, int n, const tuner_options *opt);
void tuner_free(tuner *t);

int tuner_candidates(const tuner *t);     /* configurations that can run */
int tuner_cells(const tuner *t);
int tuner_tunable_cells(const tuner *t);  /* cells with two candidates or more */
int tuner_measured(const tuner *t);       /* configurations recorded so far (screens not) */
double tuner_used(const tuner *t);        /* the budget in configurations used so far: one
                                           * per measurement, a screen its share */

/* Records configuration `index` as measured: ok with its median and quartiles (seconds)
 * and number of samples, or not ok (wrong, error, timeout: never chosen). Recording an
 * index twice, or one that cannot run, is ignored (returns -1). */
int tuner_record(tuner *t, int index, int ok, double median, double q1, double q3, int samples);
/* Records a screen of configuration `index` (tuner_screen_calls timed calls, as
 * tuner_next asked): an observation of its median for the model and the search, never a
 * result of its cell (a2a tune writes no rule on a screen; the winner is among the
 * measured). A screen that is not ok settles the candidate (never chosen). Returns -1
 * (ignored) for an index that cannot run or cannot be screened, or one already measured
 * or screened. */
int tuner_record_screen(tuner *t, int index, int ok, double median, double q1, double q3,
                        int samples);
/* The timed calls of a screen of configuration `index` (a ninth of its iterations, at
 * least TUNER_SCREEN_MIN_CALLS), 0 when it cannot be screened (fewer iterations than
 * that allows, an automatic count, the screen rule off). */
int tuner_screen_calls(const tuner *t, int index);
/* The platform's prior for configuration `index` (tuner_prior.h): its predicted seconds,
 * which replace alpha K + beta D S as its model time, times a factor per kernel that the
 * measurements fit (the log of measured over prior, averaged over the kernel's measured
 * configurations and shrunk towards its context's); once the kernel's own K/D fit stands on
 * three points, the logs of the two are weighed by their precisions on its measurements.
 * The spread of the kernel's model is then that of the measurements about it. Before
 * tuner_next; -1 (ignored) for an index that cannot run or a time that is not above 0. */
int tuner_set_prior(tuner *t, int index, double seconds);
/* Adds `seconds` to what the measurements cost (the time budget's account). */
void tuner_spend(tuner *t, double seconds);
double tuner_spent(const tuner *t);
/* 1 when the budget is spent: less than one configuration left of a budget in
 * configurations, or the seconds of a budget in time reached; tuner_next then stops. */
int tuner_budget_spent(const tuner *t);

/* The configuration to measure next, or -1 when every cell is final or the budget is
 * spent (under a budget in configurations: less than one configuration left). *phase (may
 * be NULL) gets the step (tuner.h, top): "design", "default", "cover" (steps 1-3, or the
 * criterion's pick of a library default), or "improve" (step 4); *screen (may be NULL)
 * gets 1 when the configuration is to be screened (tuner_screen_calls timed calls,
 * recorded with tuner_record_screen), 0 when it is to be measured. */
int tuner_next(tuner *t, const char **phase, int *screen);

/* The criterion of step 4 (tuner.h, top) for a candidate whose log time is predicted
 * normal with mean mu and variance var, that changes the cell's decision when it lies
 * below threshold (the incumbent's log time less the margin): E[max(0, threshold - X)] /
 * cost, and in *probability (may be NULL) P(X < threshold). */
double tuner_criterion(double mu, double var, double threshold, double cost, double *probability);
/* The expected cost of taking a candidate further (tuner.h, top): measured at full_cost, or
 * screened first at screen_cost and then measured with `probability` (that it changes its
 * cell's decision: the screen showing it winning), screen_cost + probability x full_cost.
 * The smaller of the two, *screen (may be NULL) = 1 when it is the screen's; screen_cost <= 0
 * means it cannot be screened. */
double tuner_expected_cost(double probability, double screen_cost, double full_cost, int *screen);
/* The criterion's value of measuring configuration `index` now (as of the last tuner_next),
 * and in *probability (may be NULL) the probability that it changes what the tuning file
 * says in its cell; -1 (probability 0) when it is measured, cannot run or its cell is
 * final. */
double tuner_value(const tuner *t, int index, double *probability);

/* The state of cell c (0 <= c < tuner_cells). */
void tuner_cell(const tuner *t, int c, tuner_cell_state *out);
/* A configuration of cell c (for describing it), the cell's index of a configuration. */
const config *tuner_cell_config(const tuner *t, int c);

/* Prints the fitted model: per kernel alpha (per round), beta (per byte), the number of
 * measurements and the RMS relative error of the fit. */
void tuner_print_model(const tuner *t, FILE *out);

/* How the model has missed, as of the last tuner_next: *checked observed candidates (measured
 * or screened), each predicted without itself; *missed of them off by more than 3 of their
 * predicted sds; *miss_p the probability that an unmeasured candidate is such a miss, and
 * *miss_sd the sd (log) of a miss, as the search takes them (0.5 / 20 and 0.5 before any
 * candidate is observed). */
void tuner_model_error(const tuner *t, int *checked, int *missed, double *miss_p, double *miss_sd);

#endif
