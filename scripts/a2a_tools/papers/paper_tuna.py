"""The TuNA paper's rows of docs/results/papers.md (`a2a paper-table`): its Fig. 7 radix
regimes at P = 2048 and its Fig. 8 comparisons with MPI_Alltoallv at P = 8192 (and 16,384),
on Polaris and Fugaku, beside the model tier's figures for the same machine, P, S and radix.

The data: tests/data/papers-tuna-model.sql, the rows of sweeps/paper/papers_tuna.ini modelled
(`a2a model-run`, backend = model: TuNA and mpich_selection as traced worlds of every rank)
once on platforms/polaris.xml and once on platforms/fugaku.xml, with what each
configuration's trace cost (trace_s, trace_peak_mb: the tracer's wall time on the shared
machine and its peak resident memory). `a2a paper-night` writes it; nothing here re-runs
the model. MPI_Alltoallv is the machine's own MPI family's (BASELINES): on Polaris (Cray MPICH)
`mpich_selection` (MPICH's MPI_Alltoallv rebuilt on liba2a: the scattered exchange in batches
of 32, empty blocks skipped), on Fugaku (Fujitsu's Open MPI-based MPI) `ompi_tuned_selection`
(Open MPI 4.1 coll/tuned's choice: basic linear at P >= 1024, every request at once).

The verdict rules every row of the table follows (paper_table imports them): a time or a
speedup is *within 2x* or *missed* by ours / published; a trend is *trend reproduced* or
*missed* by facts that must all hold (a best radix in a range, at each S); either is
*indeterminate* when the model's error against SimGrid (err) could flip it: a ratio within
err of a 2x line, a fact whose two candidates' times are within err of each other; a claim
outside the sizes or P the model was run at is *not testable*."""
import math
import re
import sqlite3

from ..core.common import A2AError, fmt_size

DATA = "tests/data/papers-tuna-model.sql"
SWEEP = "sweeps/paper/papers_tuna.ini"
SOURCE = "TuNA paper (tuna-nonuniform-alltoall.txt), Sec. V-A"
# machine -> the platform file its rows were modelled on
MACHINES = (("Polaris", "polaris.xml"), ("Fugaku", "fugaku.xml"))
# the sweep's sections each platform runs (P = 16,384 is Fig. 8's Fugaku point only)
SECTIONS = {"polaris.xml": "tuna_fig7,mpich_2048,tuna_fig8,mpich_fig8",
            "fugaku.xml": "tuna_fig7,mpich_2048,tuna_fig8,mpich_fig8,ompi_2048,ompi_fig8"}
# MPI_Alltoallv as the machine's MPI family selects it (the TuNA paper, Sec. V: "Polaris uses
# Cray MPICH, while Fujitsu provides an OpenMPI-based version for Fugaku"), and the other
# family's, shown beside it
BASELINES = {"Polaris": "mpich_selection", "Fugaku": "ompi_tuned_selection"}
FAMILY = {"mpich_selection": "MPICH's selection (scattered, batches of 32)",
          "ompi_tuned_selection": "Open MPI's selection (basic linear at P >= 1024)"}
BASELINE = BASELINES["Polaris"]
# "For Polaris and Fugaku, we utilized 32 processes per node" (Sec. V): model-run's
# --ranks-per-node (Fugaku's nodes have 48 cores)
RANKS_PER_NODE = 32
# the columns of the checked-in file (what the table and model_tier.md read)
RESULT_COLUMNS = ("run_id, section, kernel, P, Q, S, radix, median_s, status, validated, "
                  "trace_s, trace_peak_mb")
RUN_COLUMNS = "id, backend, platform, platform_sha256, smpi_options, network_model"
# the paper's Fig. 8 numbers at P = 8192 (16 B: MPI_Alltoallv and TuNA at its best radix,
# milliseconds; 1 KiB: the speedup), its crossover sizes (Fig. 8's text: TuNA ahead "when S
# is no more than" crossover, "significant performance advantages when S is less than"
# significant) and Fig. 7's large-S regime boundary
PUBLISHED = {"Polaris": {"a2av_16": 51.8, "tuna_16": 1.78, "speedup_1k": 5.62,
                         "crossover": 2048, "significant": 512, "large_from": 8192},
             "Fugaku": {"a2av_16": 408.33, "tuna_16": 5.79, "speedup_1k": 7.26,
                        "crossover": 16384, "significant": 2048, "large_from": 32768}}
FUGAKU_16K_SPEEDUP = 9.69
# the sizes the paper ran TuNA at (Sec. V-A: "we varied S from 16 bytes to 16 KiB")
PAPER_SIZES = (16, 16384)
# why the model's best radix grows to P (the exchange that moves fewest bytes) too early
BYTES_WHY = {
    "polaris.xml": "the model is bandwidth-bound there: a node's 32 ranks share its links "
                   "(polaris.xml: 50 GB/s of NICs, 25 GB/s switch-to-switch links, one "
                   "between two switches of a group: assumed) and per-message costs (0.2 + "
                   "0.3 us, assumed) weigh little against the bytes each extra round forwards "
                   "(note 2)",
    "fugaku.xml": "the model is bandwidth-bound there: a node's 32 ranks share its 38.1 GB/s "
                  "injection and the 6.8 GB/s torus links its minimal routes cross, and "
                  "per-message costs (0.2 + 0.4 us, assumed) weigh little against the bytes "
                  "each extra round forwards (note 2)"}
# the memory the machine lets one configuration take (24 GB shared by five sessions)
MEMORY_LIMIT_GB = 10.0
# why the model's MPI_Alltoallv is far faster than the machines' (note 5 of the table)
A2AV_WHY = ("the baseline's cost per message: the model charges each of a rank's %d messages "
            "smpi/ois + smpi/or (%s) and its bytes on shared links, and no message matching "
            "(%s); the measured time is %.1f us per message a rank, which the model has no "
            "term for (a NIC's message rate shared by the node's %d ranks, the matching "
            "queue, skew between ranks) and that is not fitted here (note 5)")
# why a baseline has no row at P = 8192 (fig8_rows, note 3): the data lacks it
NOT_TRACED = "%s at P = 8192 is not in the data (" + DATA + "; note 3)"
QUEUE = {"mpich_selection": "MPICH posts 32 receives a batch",
         "ompi_tuned_selection": "Open MPI's linear exchange posts all P - 1 receives at once"}

# the verdicts (see the module's description)
WITHIN, REPRODUCED, MISSED = "within 2x", "trend reproduced", "missed"
INDETERMINATE, NOT_TESTABLE = "indeterminate", "not testable"


def load_sql(path, probes, writer, what):
    """The SQL file at path in an in-memory database, checked by running each probe query;
    writer and what say what writes it and what it should be (A2AError otherwise)."""
    conn = sqlite3.connect(":memory:")
    try:
        with open(path) as f:
            conn.executescript(f.read())
        for probe in probes:
            conn.execute(probe).fetchall()
    except OSError as e:
        raise A2AError("%s: %s (%s)" % (path, e.strerror or e, writer))
    except sqlite3.Error as e:
        raise A2AError("%s: not %s (%s)" % (path, what, e))
    return conn


def load(path):
    """The rows of the TuNA data file in an in-memory database (A2AError if unreadable)."""
    return load_sql(path, ("SELECT %s FROM results LIMIT 1" % RESULT_COLUMNS,
                           "SELECT platform FROM runs"), "a2a paper-night writes it",
                    "the TuNA model rows paper-table reads")


class TunaData:
    """Lookups over the TuNA model rows, per platform."""

    def __init__(self, conn):
        self.conn = conn
        self.runs = {p: (i, o or "") for i, p, o in
                     conn.execute("SELECT id, platform, smpi_options FROM runs")}

    def run_id(self, platform):
        if platform not in self.runs:
            raise A2AError("the TuNA data has no run on %s (a2a paper-night)" % platform)
        return self.runs[platform][0]

    def error_2048(self, platform):
        """The model's error against SimGrid at P = 2048 on this platform that its run
        recorded (an Error2048), or None."""
        return errors_2048(self.runs.get(platform, (0, ""))[1]).get(platform)

    def error(self, platform):
        """The model's error against SimGrid its run recorded ('not measured' if none)."""
        found = re.search(r"error vs simgrid \([^)]*\): (median [^;]*cells\))",
                          self.runs.get(platform, (0, ""))[1])
        return found.group(1) if found else "not measured"

    def overheads(self, platform):
        """smpi/ois and smpi/or (what SMPI charges each of the kernels' non-blocking sends
        and each receive below the detached threshold) as the run's smpi_options records
        them ('ois=0:2e-07:0'), in microseconds."""
        opts = self.runs.get(platform, (0, ""))[1]
        got = {}
        for token in opts.replace(";", " ").split():
            name, _, value = token.partition("=")
            if name in ("ois", "or") and value.count(":") == 2:
                got[name] = float(value.split(":")[1]) * 1e6
        if set(got) != {"ois", "or"}:
            raise A2AError("the TuNA run on %s does not record smpi/ois and smpi/or" % platform)
        return "%.2g + %.2g us" % (got["ois"], got["or"])

    def node_size(self, platform):
        return self.conn.execute("SELECT max(Q) FROM results WHERE run_id = ?",
                                 (self.run_id(platform),)).fetchone()[0]

    def rows(self, platform, kernel, P, S, section=None):
        """[(radix, seconds, trace_s, trace_peak_mb)] of the ok rows, radix ascending."""
        sql = ("SELECT IFNULL(radix, 0), median_s, trace_s, trace_peak_mb FROM results "
               "WHERE run_id = ? AND kernel = ? AND P = ? AND S = ? AND status = 'ok'")
        args = [self.run_id(platform), kernel, P, S]
        if section:
            sql += " AND section = ?"
            args.append(section)
        return self.conn.execute(sql + " ORDER BY radix", args).fetchall()

    def time(self, platform, kernel, P, S):
        """Seconds of a kernel without radix (the baseline); None if the data lacks it."""
        rows = self.rows(platform, kernel, P, S)
        return rows[0][1] if rows else None

    def best(self, platform, P, S, section):
        """(radix, seconds) of TuNA's fastest sampled radix; None if the data lacks it."""
        rows = self.rows(platform, "tuna", P, S, section)
        if not rows:
            return None
        return min(((r, t) for r, t, _, _ in rows), key=lambda rt: (rt[1], rt[0]))

    def sizes(self, platform, section, P):
        return [s for (s,) in self.conn.execute(
            "SELECT DISTINCT S FROM results WHERE run_id = ? AND section = ? AND P = ? "
            "ORDER BY S", (self.run_id(platform), section, P))]

    def radices(self, platform, section, P):
        return [r for (r,) in self.conn.execute(
            "SELECT DISTINCT radix FROM results WHERE run_id = ? AND section = ? AND P = ? "
            "ORDER BY radix", (self.run_id(platform), section, P))]


ERROR_2048 = re.compile(r"error at P = 2048( on [\w.]+)? vs simgrid \(([^)]*)\): median "
                        r"([\d.]+) %, worst ([\d.]+) % \((\d+) cells\); of a ratio of two "
                        r"times at one \(P, S\): worst ([\d.]+) %")


class Error2048:
    """The model's error against SimGrid at P = 2048 a run recorded (error_2048's text): the
    worst error of a time and of a ratio of two (fractions), and the text the table prints."""

    def __init__(self, found):
        self.platform = (found.group(1) or "")[4:] or None
        self.path = found.group(2)
        self.time, self.ratio = float(found.group(4)) / 100, float(found.group(6)) / 100
        self.text = "median %s %%, worst %s %% (%s cells)" % found.group(3, 4, 5)
        self.ratio_text = "%s %%" % found.group(6)


def errors_2048(opts):
    """{platform name or None (dragonfly_16k.xml): Error2048} of a run's smpi_options."""
    return {e.platform: e for e in (Error2048(f) for f in ERROR_2048.finditer(opts or ""))}


def ms(seconds):
    return "%.4g ms" % (seconds * 1e3)


def within_2x(ratio):
    return 0.5 <= ratio <= 2.0


def pct(fraction):
    """A margin as the table prints it ('n/a' when only one side was sampled)."""
    return "n/a" if fraction == float("inf") else "%.1f %%" % (100 * fraction)


def ratio_verdict(ratio, err):
    """(verdict, margin) of ours / published: within 2x or missed; indeterminate when ours
    moved by less than err (the model's error against SimGrid, a fraction) would cross the
    nearer 2x line. margin: how far ours would have to move to cross it."""
    margin = min(abs(2.0 / ratio - 1), abs(0.5 / ratio - 1))
    if margin < err:
        return INDETERMINATE, margin
    return (WITHIN if within_2x(ratio) else MISSED), margin


def radix_fact(times, in_class):
    """(holds, gap) of the fact 'the fastest radix is in the class' over {radix: seconds}:
    gap, how far apart the fastest in the class and the fastest outside it are (relative to
    the faster; inf when one side was not sampled)."""
    inside = [t for r, t in times.items() if in_class(r)]
    outside = [t for r, t in times.items() if not in_class(r)]
    if not inside or not outside:
        return bool(inside), float("inf")
    a, b = min(inside), min(outside)
    return a <= b, abs(a - b) / min(a, b)


def facts_verdict(facts, err, yes=REPRODUCED):
    """(verdict, margin) of a claim that holds when each of its facts ([(holds, gap)]) does:
    missed when a fact fails by more than err, else indeterminate when a fact's gap is within
    err (the model's error could flip it), else `yes`. margin: the failing fact's gap, the
    smallest gap within err, or the smallest gap."""
    firm = [g for h, g in facts if not h and g >= err]
    if firm:
        return MISSED, max(firm)
    unsure = [g for h, g in facts if g < err]
    if unsure:
        return INDETERMINATE, min(unsure)
    return yes, min(g for _, g in facts)


def by_size(best, facts, sizes):
    """'16 B: 8 (4.2 %), ...': the best radix at each S and its fact's gap."""
    return ", ".join("%s: %d (%s)" % (fmt_size(S), best[S], pct(facts[S][1])) if S in facts
                     else "%s: %d" % (fmt_size(S), best[S]) for S in sizes)


def other_family(d, platform, machine, P, S):
    """' (MPICH's selection: 6.0 ms)': the other MPI family's baseline where the data has it."""
    other = [k for k in FAMILY if k != BASELINES[machine]][0]
    t = d.time(platform, other, P, S)
    return "; %s: %s" % (FAMILY[other].split(" (")[0], ms(t)) if t else ""


def fig8_rows(d, platform, machine, err_time, err_rel):
    """P = 8192: MPI_Alltoallv and TuNA's best at 16 B, their speedups at 16 B and 1 KiB."""
    pub, rows, P = PUBLISHED[machine], [], 8192
    baseline = BASELINES[machine]
    name = FAMILY[baseline].split(" (")[0]
    node_size = d.node_size(platform)
    radices = ", ".join(str(r) for r in d.radices(platform, "tuna_fig8", P))
    backend = "model, %s" % platform
    base16, best16 = d.time(platform, baseline, P, 16), d.best(platform, P, 16, "tuna_fig8")
    per_msg = pub["a2av_16"] * 1e3 / (P - 1)
    if base16 is None:
        rows.append((SOURCE + ", Fig. 8", machine, P, "16 B", "MPI_Alltoallv (ours: %s)"
                     % FAMILY[baseline], "%.5g ms" % pub["a2av_16"],
                     "not modelled at P = 8192%s" % other_family(d, platform, machine, P, 16)
                     .replace(";", ", beside:"), "", "", NOT_TESTABLE, NOT_TRACED % name))
    else:
        ratio = base16 / (pub["a2av_16"] * 1e-3)
        verdict, margin = ratio_verdict(ratio, err_time)
        rows.append((SOURCE + ", Fig. 8", machine, P, "16 B", "MPI_Alltoallv (ours: %s)"
                     % FAMILY[baseline], "%.5g ms" % pub["a2av_16"],
                     "%s (%s%s)" % (ms(base16), backend,
                                    other_family(d, platform, machine, P, 16)),
                     "%.3f" % ratio, pct(margin), verdict,
                     "" if verdict == WITHIN else
                     A2AV_WHY % (P - 1, d.overheads(platform), QUEUE[baseline], per_msg,
                                 node_size)))
    r, t = best16
    ratio = t / (pub["tuna_16"] * 1e-3)
    verdict, margin = ratio_verdict(ratio, err_time)
    rows.append((SOURCE + ", Fig. 8", machine, P, "16 B", "tuna, best radix",
                 "%.3g ms" % pub["tuna_16"],
                 "%s, radix %d (%s; radix sampled %s)" % (ms(t), r, backend, radices),
                 "%.2f" % ratio, pct(margin), verdict,
                 "" if verdict == WITHIN else
                 "TuNA's per-round cost: its rounds at small blocks are priced high (note 2)"
                 if ratio > 2 else
                 "the model is faster than the machine: the per-message cost it lacks (note 5) "
                 "weighs on TuNA's messages too, fewer than the baseline's"))
    for S, published in ((16, pub["a2av_16"] / pub["tuna_16"]), (1024, pub["speedup_1k"])):
        base, (r, t) = d.time(platform, baseline, P, S), d.best(platform, P, S, "tuna_fig8")
        if base is None:
            rows.append((SOURCE + ", Fig. 8", machine, P, fmt_size(S),
                         "tuna (best radix) against MPI_Alltoallv", "%.3gx" % published,
                         "tuna radix %d %s (%s); %s not modelled at P = 8192%s" % (
                             r, ms(t), backend, name,
                             other_family(d, platform, machine, P, S).replace(";", ", beside:")),
                         "", "", NOT_TESTABLE, NOT_TRACED % name))
            continue
        ours = base / t
        ratio = ours / published
        verdict, margin = ratio_verdict(ratio, err_rel)
        rows.append((SOURCE + ", Fig. 8", machine, P, fmt_size(S),
                     "tuna (best radix) against MPI_Alltoallv", "%.3gx" % published,
                     "%.2fx (%s; tuna radix %d %s, %s %s)"
                     % (ours, backend, r, ms(t), name, ms(base)), "%.2f" % ratio, pct(margin),
                     verdict, "" if verdict == WITHIN else
                     "the baseline, modelled %.0fx faster than the machine's at 16 B (the "
                     "MPI_Alltoallv row above; note 5)" % ((pub["a2av_16"] * 1e-3) / base16)
                     if base16 else "the baseline's per-message cost (note 5)"))
    return rows


def fugaku_16k_row(d):
    """P = 16,384, S = 16 KiB on Fugaku: not testable against the machine's MPI family (Open
    MPI's linear exchange is beyond the tracer's memory there: its traced world holds every
    message and posted receive at once, O(P^2), so P = 8192's peak times 4)."""
    peak = d.conn.execute("SELECT max(trace_peak_mb) FROM results WHERE P = 8192 AND kernel = "
                          "'ompi_tuned_selection'").fetchone()[0]
    why = ("Open MPI's selection at P = 16,384 is its linear exchange: every rank posts all "
           "16,383 messages at once, 268 million in flight in a traced world%s, beyond the "
           "%.0f GB one run may take on this shared machine; not modelled (note 3)"
           % (" (%.1f GB at P = 8192 with 4x fewer: about %.0f GB at P = 16,384)"
              % (peak / 1024, 4 * peak / 1024) if peak else "", MEMORY_LIMIT_GB))
    return (SOURCE + ", Fig. 8", "Fugaku", 16384, "16 KiB",
            "tuna (best radix) against MPI_Alltoallv", "%.3gx" % FUGAKU_16K_SPEEDUP, "none", "",
            "", NOT_TESTABLE, why)


def crossover_rows(d, platform, machine):
    """Fig. 8's crossover (TuNA ahead of MPI_Alltoallv up to a size): not testable, the
    model has two sizes at the figure's P; the sizes it has, and the S curve at P = 2048
    (not the claim's P), shown."""
    P, pub = 2048, PUBLISHED[machine]
    baseline = BASELINES[machine]
    sizes = d.sizes(platform, "tuna_fig7", P)
    ratios = {}
    for S in sizes:
        base, best = d.time(platform, baseline, P, S), d.best(platform, P, S, "tuna_fig7")
        if base and best:
            ratios[S] = base / best[1]
    up_to = None
    for S in sizes:
        if ratios.get(S, 0) <= 1.0:
            break
        up_to = S
    at8192 = ", ".join("%s %.2fx" % (fmt_size(S), d.time(platform, baseline, 8192, S) /
                                      d.best(platform, 8192, S, "tuna_fig8")[1])
                       for S in (16, 1024) if d.time(platform, baseline, 8192, S))
    beats = "up to S = %s" % fmt_size(up_to) if up_to else "at no S"
    if up_to == sizes[-1]:
        beats = "at every S to %s" % fmt_size(up_to)
    ours = ("at P = 8192 (S modelled: 16 B, 1 KiB), against %s: %s; at P = 2048, not the "
            "figure's P: ahead %s (by S: %s)" % (FAMILY[baseline].split(" (")[0],
                                                 at8192 or "not modelled", beats,
                                     ", ".join("%s %.2fx" % (fmt_size(S), ratios[S])
                                               for S in sizes if S in ratios)))
    return [(SOURCE + ", Fig. 8", machine, 8192, "16 B .. 16 KiB",
             "crossover: tuna beats MPI_Alltoallv",
             "\"when S is no more than %s\"; \"significant performance advantages when S is "
             "less than %s\"" % (fmt_size(pub["crossover"]), fmt_size(pub["significant"])),
             ours, "", "", NOT_TESTABLE,
             "the claim is Fig. 8's (P = 8192 and 16,384); %s, so where TuNA stops winning is "
             "not located (note 3)" % (
                 "the model has S = 16 B and 1 KiB at P = 8192 (MPI_Alltoallv's trace takes "
                 "up to %.0f s and %.1f GB a size there)" % trace_cost_8192(d, baseline)
                 if at8192 else
                 "the model has no %s at P = 8192" % FAMILY[baseline].split(" (")[0]))]


def trace_cost_8192(d, kernel):
    """(seconds, GB): the most a trace of kernel at P = 8192 took in the data."""
    s, mb = d.conn.execute("SELECT max(trace_s), max(trace_peak_mb) FROM results WHERE "
                           "P = 8192 AND kernel = ?", (kernel,)).fetchone()
    return (s or 0, (mb or 0) / 1024)


def regime_rows(d, platform, machine, err):
    """Fig. 7's three regimes of TuNA's best radix against S at P = 2048 (the paper: "for
    small S ranging from 2 to 512 bytes", "medium S ranging from 512 to 8 KiB", "large S
    exceeding 8 KiB on Polaris and 32 KiB on Fugaku"), each a fact per S: within one step of
    S of the regime's edges, and a radix within a factor 2 of the paper's."""
    P, pub = 2048, PUBLISHED[machine]
    sizes = d.sizes(platform, "tuna_fig7", P)
    times = {S: dict((r, t) for r, t, _, _ in d.rows(platform, "tuna", P, S, "tuna_fig7"))
             for S in sizes}
    best = {S: min(times[S], key=lambda r: (times[S][r], r)) for S in sizes}
    where = (SOURCE + ", Fig. 7", machine, P)
    rows = []
    # small blocks: radix <= 4 (a factor 2 of 2) up to 256 B (one step below 512 B)
    facts = {S: radix_fact(times[S], lambda r: r <= 4) for S in sizes if S <= 256}
    verdict, margin = facts_verdict(list(facts.values()), err)
    rows.append(where + ("16 B .. 512 B", "tuna, best radix (small blocks)",
                         "approx 2 (\"small S ranging from 2 to 512 bytes\")",
                         "best by S (margin): %s" % by_size(best, facts,
                                                            [S for S in sizes if S <= 512]),
                         "", pct(margin), verdict,
                         "" if verdict == REPRODUCED else
                         "larger radices at %s: in the model the bytes each extra round "
                         "forwards weigh more against its per-round costs (smpi/ois + or, "
                         "the route latency) than on %s (note 2)"
                         % (", ".join(fmt_size(S) for S in facts if not facts[S][0]) or
                            "no S", machine)))
    # medium: a U around sqrt P (a factor 2) from 1 KiB to 4 KiB
    root = math.sqrt(P)
    near = lambda r: root / 2 <= r <= 2 * root
    facts = {S: radix_fact(times[S], near) for S in sizes if 1024 <= S <= 4096}
    verdict, margin = facts_verdict(list(facts.values()), err)
    off = [S for S in facts if not facts[S][0]]
    rows.append(where + ("512 B .. 8 KiB", "tuna, best radix (medium blocks; sqrt P = %.1f)"
                         % root, "U-shaped around sqrt P",
                         "best by S (margin): %s" % by_size(
                             best, facts, [S for S in sizes if 512 <= S <= 8192]), "",
                         pct(margin), verdict,
                         "" if verdict == REPRODUCED else
                         "best radix leaves sqrt P at %s: %s"
                         % (", ".join("%s (%d)" % (fmt_size(S), best[S]) for S in off),
                            BYTES_WHY[platform]) if off else
                         "the best radix is near sqrt P, by margins within the model's error"))
    # large: radix >= P/2 above the boundary, and not yet fastest more than one step of S
    # before it; a boundary past the sizes the paper ran is not testable
    B = pub["large_from"]
    claim = ("approx P (\"large S exceeding %s on %s\")" % (fmt_size(B), machine))
    if B >= min(PAPER_SIZES[1], sizes[-1]):
        rows.append(where + ("> %s" % fmt_size(B), "tuna, best radix (large blocks)", claim,
                             "best by S: %s" % ", ".join("%s: %d" % (fmt_size(S), best[S])
                                                         for S in sizes if S >= 4096),
                             "", "", NOT_TESTABLE,
                             "above the sizes the paper ran (16 B .. 16 KiB) and the model "
                             "was run at"))
        return rows
    big = lambda r: r >= P // 2
    facts = {S: radix_fact(times[S], big) for S in sizes if S > B}
    facts.update({S: radix_fact(times[S], lambda r: not big(r)) for S in sizes if S <= B // 4})
    verdict, margin = facts_verdict(list(facts.values()), err)
    early = [S for S in sizes if S <= B // 4 and not facts[S][0]]
    rows.append(where + ("> %s" % fmt_size(B), "tuna, best radix (large blocks)", claim,
                         "best by S (margin): %s" % by_size(best, facts,
                                                            [S for S in sizes if S >= B // 16]),
                         "", pct(margin), verdict,
                         "" if verdict == REPRODUCED else
                         "radix P fastest from %s, more than one step of S before %s: %s"
                         % (fmt_size(early[0]), fmt_size(B), BYTES_WHY[platform])
                         if early else "radix P's margins are within the model's error"))
    return rows


def rows(d, errs):
    """Every TuNA row of the table: errs(platform) -> (the model's error against SimGrid
    that a time, and that a speedup or a radix fact, is held against, fractions)."""
    out = []
    for machine, platform in MACHINES:
        out += fig8_rows(d, platform, machine, *errs(platform))
    out.append(fugaku_16k_row(d))
    for machine, platform in MACHINES:
        out += crossover_rows(d, platform, machine)
    for machine, platform in MACHINES:
        out += regime_rows(d, platform, machine, errs(platform)[1])
    return out


def cost_note(d):
    """Note 3 of the table: how the TuNA rows are made and what they cost (from the data)."""
    parts, traced = [], set()
    for machine, platform in MACHINES:
        rows = d.conn.execute(
            "SELECT kernel, P, S, IFNULL(radix, 0), trace_s, trace_peak_mb FROM results WHERE "
            "run_id = ?", (d.run_id(platform),)).fetchall()
        # a configuration traced for an earlier platform is priced again, not traced again
        own = [r for r in rows if r[:4] not in traced]
        traced |= {r[:4] for r in rows}
        parts.append("%s: %d configurations, %d of them traced for it, %.0f min of tracing, "
                     "peak %.1f GB" % (platform, len(rows), len(own),
                                       sum(r[4] or 0 for r in own) / 60,
                                       max([r[5] or 0 for r in own] or [0]) / 1024))
    r8 = d.conn.execute(
        "SELECT min(trace_s), max(trace_s), max(trace_peak_mb) FROM results WHERE P = 8192 "
        "AND kernel = 'tuna'").fetchone()
    b8 = {k: d.conn.execute(
        "SELECT min(trace_s), max(trace_s), max(trace_peak_mb) FROM results WHERE P = 8192 "
        "AND kernel = ?", (k,)).fetchone() for k in FAMILY}
    radices = ", ".join(str(r) for r in d.radices(MACHINES[0][1], "tuna_fig8", 8192))
    return ("3. **The TuNA rows** (%s, `%s`). TuNA's schedule and MPI_Alltoallv's depend on "
            "the block sizes each rank receives: the model tier runs every rank of the kernel's "
            "own code as a coroutine of one process (sizes delivered, payloads as sizes only), "
            "on uniform blocks in [0, S], seed 1, as the paper's, and prices node 0's schedule "
            "(docs/results/model_tier.md). Fig. 7 at P = 2048: radix 2, 4, .., 2048 and sqrt P, "
            "S = 16 B .. 16 KiB. Fig. 8 at P = 8192: TuNA's best radix over radix %s only, "
            "not the paper's 2 .. P, because each trace there takes %.0f to %.0f s and up to "
            "%.1f GB (MPI_Alltoallv: MPICH's %.0f to %.0f s, %.1f GB; Open MPI's linear "
            "exchange %s); for the same reason the S curve against "
            "MPI_Alltoallv is at P = 2048 (P = 8192 has S = 16 B and 1 KiB). A schedule does "
            "not depend on the platform: Fugaku's rows price the traces Polaris' run made "
            "(`A2A_TRACE_CACHE`); each row keeps what its trace cost. Cost, tracer wall time on "
            "a 2-core machine shared with other work: %s. SimGrid does not reach the papers' "
            "P on this machine: tra at P = 4096, radix 2, 16 B takes 6.5 minutes, and an "
            "exchange of P^2 messages took 130 s at P = 1024 (tra, radix P), so "
            "MPI_Alltoallv's 64 times as many at P = 8192 would take over 2 hours per "
            "configuration by that scaling (not measured)."
            % (DATA, SWEEP, radices, r8[0], r8[1], r8[2] / 1024,
               b8["mpich_selection"][0], b8["mpich_selection"][1],
               b8["mpich_selection"][2] / 1024,
               "%.0f to %.0f s, %.1f GB" % (b8["ompi_tuned_selection"][0],
                                            b8["ompi_tuned_selection"][1],
                                            b8["ompi_tuned_selection"][2] / 1024)
               if b8["ompi_tuned_selection"][0] else "not in the data",
               "; ".join(parts)))


def baseline_note(d):
    """Note 5 of the table: why the model's MPI_Alltoallv is far below the machines', and
    why the model is not given a per-message receive cost (from the data)."""
    P = 8192
    per = []
    for machine, platform in MACHINES:
        kernel = BASELINES[machine]
        if d.time(platform, kernel, P, 16) is None:   # the machine's family not modelled here
            kernel = "mpich_selection"
        per.append("%s (%s%s): %s modelled against %.5g ms measured (%.1f us per message of a "
                   "rank; smpi/ois + or %s)"
                   % (machine, FAMILY[kernel].split(" (")[0],
                      "" if kernel == BASELINES[machine] else
                      ", as %s is not modelled at this P" % FAMILY[BASELINES[machine]]
                      .split(" (")[0], ms(d.time(platform, kernel, P, 16)),
                      PUBLISHED[machine]["a2av_16"],
                      PUBLISHED[machine]["a2av_16"] * 1e3 / (P - 1), d.overheads(platform)))
    return ("5. **MPI_Alltoallv's gap, and no extra receive cost.** At P = 8192, 16 B: %s. "
            "The model already charges every message smpi/ois on its sender and smpi/or on its "
            "receiver, so the P - 1 receives a rank posts are paid for, and it has no cost of "
            "matching a message against the posted receives. On Polaris that queue is short: "
            "MPICH's MPI_Alltoallv posts its receives in batches of 32 (the scattered exchange, "
            "kernels/nonuniform/mpich_selection_v.c), a queue that costs little by the "
            "published studies (Levy et al., \"Using simulation to examine the effect of MPI "
            "message matching costs on application performance\", Parallel Computing 84, 2019: "
            "matching matters only for much longer queues or much slower match operations), "
            "and Slingshot 11's NIC can match in hardware (libfabric's cxi provider, "
            "FI_CXI_RX_MATCH_MODE = hardware). On Fugaku Open MPI's selection at P >= 1024 is "
            "its linear exchange (kernels/nonuniform/linear_v.c), which posts all P - 1 "
            "receives at once: a long queue, whose matching cost the model leaves out. What "
            "the model lacks besides is a cost of that size per message: a NIC's message rate "
            "shared by the node's ranks (their messages injected one after the other), the "
            "skew between ranks, and the vendors' own MPI_Alltoallv (Cray MPICH's and Fujitsu "
            "MPI's, not necessarily the open libraries' choices). A rate set from these two "
            "measurements would be fitted to the numbers compared with; none is, so the "
            "baseline rows are documented misses and the model's TuNA speedups understate the "
            "paper's." % "; ".join(per))
