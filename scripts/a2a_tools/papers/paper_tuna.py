"""The TuNA paper's rows of docs/results/papers.md (`a2a paper-table`): its Fig. 7 radix
regimes at P = 2048 and its Fig. 8 comparisons with MPI_Alltoallv at P = 8192 (and 16,384),
on Polaris and Fugaku, beside the model tier's figures for the same machine, P, S and radix.

The data: tests/data/papers-tuna-model.sql, the rows of sweeps/paper/papers_tuna.ini modelled
(`a2a model-run`, backend = model: TuNA and mpich_selection as traced worlds of every rank)
once on platforms/polaris.xml and once on platforms/fugaku.xml, with what each
configuration's trace cost (trace_s, trace_peak_mb: the tracer's wall time on the shared
machine and its peak resident memory). `a2a paper-night` writes it; nothing here re-runs
the model. MPI_Alltoallv is `mpich_selection` (MPICH's MPI_Alltoallv rebuilt on liba2a:
the scattered exchange in batches of 32, empty blocks skipped)."""
import math
import sqlite3

from ..core.common import A2AError, fmt_size

DATA = "tests/data/papers-tuna-model.sql"
SWEEP = "sweeps/paper/papers_tuna.ini"
SOURCE = "TuNA paper (tuna-nonuniform-alltoall.txt), Sec. V-A"
# machine -> the platform file its rows were modelled on
MACHINES = (("Polaris", "polaris.xml"), ("Fugaku", "fugaku.xml"))
# the sweep's sections each platform runs (P = 16,384 is Fig. 8's Fugaku point only)
SECTIONS = {"polaris.xml": "tuna_fig7,mpich_2048,tuna_fig8,mpich_fig8",
            "fugaku.xml": "tuna_fig7,mpich_2048,tuna_fig8,mpich_fig8,tuna_16k,mpich_16k"}
BASELINE = "mpich_selection"
# "For Polaris and Fugaku, we utilized 32 processes per node" (Sec. V): model-run's
# --ranks-per-node (Fugaku's nodes have 48 cores)
RANKS_PER_NODE = 32
# the columns of the checked-in file (what the table and model_tier.md read)
RESULT_COLUMNS = ("run_id, section, kernel, P, Q, S, radix, median_s, status, validated, "
                  "trace_s, trace_peak_mb")
RUN_COLUMNS = "id, backend, platform, platform_sha256, smpi_options, network_model"
# the paper's Fig. 8 numbers at P = 8192 (16 B: MPI_Alltoallv and TuNA at its best radix,
# milliseconds; 1 KiB: the speedup) and Fig. 7's large-S regime boundary
PUBLISHED = {"Polaris": {"a2av_16": 51.8, "tuna_16": 1.78, "speedup_1k": 5.62,
                         "crossover": 2048, "large_from": 8192},
             "Fugaku": {"a2av_16": 408.33, "tuna_16": 5.79, "speedup_1k": 7.26,
                        "crossover": 16384, "large_from": 32768}}
FUGAKU_16K_SPEEDUP = 9.69
# why the model's best radix grows to P (the exchange that moves fewest bytes) too early
BYTES_WHY = {
    "polaris.xml": "the model is bandwidth-bound there: a node's 32 ranks share its one "
                   "25 GB/s link and per-message costs (0.3 + 0.3 us) weigh little against "
                   "the bytes each extra round forwards (note 2)",
    "fugaku.xml": "the model is bandwidth-bound there: it charges a node's inter-node bytes "
                  "to one 6.8 GB/s link (fugaku.xml's torus: one link a node, as SimGrid's "
                  "TORUS zone routes it), where a Tofu-D node injects on several links at "
                  "once, so the radix that forwards fewest bytes wins early (note 2)"}
# the memory the machine lets one configuration take (24 GB shared by five sessions)
MEMORY_LIMIT_GB = 10.0
# why the model's MPI_Alltoallv is far faster than the machines' (note 5 of the table)
A2AV_WHY = ("the baseline's cost per message: the model charges each of a rank's %d messages "
            "smpi/ois + smpi/or (%s) and its bytes on shared links, and its matching queue is "
            "at most MPICH's batch of 32 posted receives; the measured time is %.1f us per "
            "message a rank, which the model has no term for (a NIC's message rate shared by "
            "the node's %d ranks, skew between the 256 batches' waits) and that is not fitted "
            "here (note 5)")


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

    def error(self, platform):
        """The model's error against SimGrid its run recorded ('not measured' if none)."""
        opts = self.runs.get(platform, (0, ""))[1]
        return opts.split("error vs simgrid", 1)[1].split(": ", 1)[1] \
            if "error vs simgrid" in opts else "not measured"

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


def ms(seconds):
    return "%.4g ms" % (seconds * 1e3)


def within_2x(ratio):
    return 0.5 <= ratio <= 2.0


def fig8_rows(d, platform, machine):
    """P = 8192: MPI_Alltoallv and TuNA's best at 16 B, their speedups at 16 B and 1 KiB."""
    pub, rows, P = PUBLISHED[machine], [], 8192
    node_size = d.node_size(platform)
    radices = ", ".join(str(r) for r in d.radices(platform, "tuna_fig8", P))
    backend = "model, %s" % platform
    base16, best16 = d.time(platform, BASELINE, P, 16), d.best(platform, P, 16, "tuna_fig8")
    ratio = base16 / (pub["a2av_16"] * 1e-3)
    per_msg = pub["a2av_16"] * 1e3 / (P - 1)
    rows.append((SOURCE + ", Fig. 8", machine, P, "16 B", "MPI_Alltoallv (ours: mpich_selection)",
                 "%.5g ms" % pub["a2av_16"], "%s (%s)" % (ms(base16), backend), "%.3f" % ratio,
                 "within 2x" if within_2x(ratio) else "missed",
                 "" if within_2x(ratio) else
                 A2AV_WHY % (P - 1, d.overheads(platform), per_msg, node_size)))
    r, t = best16
    ratio = t / (pub["tuna_16"] * 1e-3)
    rows.append((SOURCE + ", Fig. 8", machine, P, "16 B", "tuna, best radix",
                 "%.3g ms" % pub["tuna_16"],
                 "%s, radix %d (%s; radix sampled %s)" % (ms(t), r, backend, radices),
                 "%.2f" % ratio, "within 2x" if within_2x(ratio) else "missed",
                 "" if within_2x(ratio) else
                 "TuNA's per-round cost: its rounds at small blocks are priced high (note 2)"
                 if ratio > 2 else
                 "the model is faster than the machine: the per-message cost it lacks (note 5) "
                 "weighs on TuNA's messages too, fewer than the baseline's"))
    for S, published in ((16, pub["a2av_16"] / pub["tuna_16"]), (1024, pub["speedup_1k"])):
        base, (r, t) = d.time(platform, BASELINE, P, S), d.best(platform, P, S, "tuna_fig8")
        ours = base / t
        ratio = ours / published
        rows.append((SOURCE + ", Fig. 8", machine, P, fmt_size(S),
                     "tuna (best radix) against MPI_Alltoallv", "%.3gx" % published,
                     "%.2fx (%s; tuna radix %d %s, mpich_selection %s)"
                     % (ours, backend, r, ms(t), ms(base)), "%.2f" % ratio,
                     "within 2x" if within_2x(ratio) else "missed",
                     "" if within_2x(ratio) else
                     "the baseline, modelled %.0fx faster than the machine's at 16 B (the "
                     "MPI_Alltoallv row above; note 5)" % ((pub["a2av_16"] * 1e-3) / base16)))
    return rows


def fugaku_16k_row(d):
    """P = 16,384, S = 16 KiB on Fugaku: the speedup if the data has it, else why not
    (the peak memory and time measured at P = 8192, extrapolated)."""
    platform, P, S = "fugaku.xml", 16384, 16384
    base, best = d.time(platform, BASELINE, P, S), d.best(platform, P, S, "tuna_16k")
    where = (SOURCE + ", Fig. 8", "Fugaku", P, "16 KiB",
             "tuna (best radix) against MPI_Alltoallv", "%.3gx" % FUGAKU_16K_SPEEDUP)
    if base and best:
        ours = base / best[1]
        ratio = ours / FUGAKU_16K_SPEEDUP
        return where + ("%.2fx (model, fugaku.xml; tuna radix %d %s, mpich_selection %s; radix "
                        "sampled %s)" % (ours, best[0], ms(best[1]), ms(base), ", ".join(
                            str(r) for r in d.radices(platform, "tuna_16k", P))), "%.2f" % ratio,
                        "within 2x" if within_2x(ratio) else "missed",
                        "" if within_2x(ratio) else
                        "at 16 KiB the model prices both by their bytes (bandwidth-bound: %s), "
                        "where the machine's MPI_Alltoallv also pays the per-message costs the "
                        "model lacks (note 5)" % BYTES_WHY[platform].split(": ", 1)[1]
                        .replace(" (note 2)", ""))
    def at8192(kernel, radix=None):
        """(largest peak MB, longest trace s) of a kernel's P = 8192 rows (radix: only it)."""
        return d.conn.execute(
            "SELECT max(trace_peak_mb), max(trace_s) FROM results WHERE P = 8192 AND kernel = ? "
            "AND IFNULL(radix, 0) = IFNULL(?, IFNULL(radix, 0))", (kernel, radix)).fetchone()
    base, root, two = at8192(BASELINE), at8192("tuna", 91), at8192("tuna", 2)
    if None in base + root + two:
        return where + ("none", "", "missed", "not modelled, and no P = 8192 trace to size it")
    gb = {"the baseline": 4 * base[0] / 1024, "TuNA at sqrt P": 4 * root[0] / 1024,
          "TuNA at radix 2": 4 * two[0] / 1024}
    sizes = ", ".join("%s about %.1f GB%s" % (k, v, " (over the limit)" if v > MEMORY_LIMIT_GB
                                                else "") for k, v in gb.items())
    why = ("at P = 16,384 a traced world holds 4x the counts and its baseline 4x the messages "
           "of P = 8192; from the traces there: %s, against the %.0f GB one run may take on "
           "this shared 24 GB machine, and the baseline about %.0f min" % (
               sizes, MEMORY_LIMIT_GB, 4 * base[1] / 60))
    if max(gb["the baseline"], gb["TuNA at sqrt P"]) > MEMORY_LIMIT_GB:
        return where + ("none", "", "missed", "not modelled: %s (note 3)" % why)
    return where + ("none", "", "missed",
                    "not in this data: %s; that did not fit the session that made this data "
                    "(load average 15-67 on 2 cores); `a2a paper-night` runs them (note 3)" % why)


def crossover_rows(d, platform, machine):
    """The largest S up to which TuNA's best beats MPI_Alltoallv, at P = 2048 over the Fig. 7
    sizes (at P = 8192 the baseline costs minutes of tracing per S: two S only)."""
    P, pub = 2048, PUBLISHED[machine]
    sizes = d.sizes(platform, "tuna_fig7", P)
    ratios = {}
    for S in sizes:
        base, best = d.time(platform, BASELINE, P, S), d.best(platform, P, S, "tuna_fig7")
        if base and best:
            ratios[S] = base / best[1]
    up_to = None
    for S in sizes:
        if ratios.get(S, 0) <= 1.0:
            break
        up_to = S
    ok = up_to is not None and pub["crossover"] / 2 <= up_to <= pub["crossover"] * 2
    at8192 = ", ".join("%s %.2fx" % (fmt_size(S), d.time(platform, BASELINE, 8192, S) /
                                      d.best(platform, 8192, S, "tuna_fig8")[1])
                       for S in (16, 1024))
    beats = "up to S = %s" % fmt_size(up_to) if up_to else "at no S"
    if up_to == sizes[-1]:
        beats = "at every S to %s" % fmt_size(up_to)
    ours = ("%s at P = 2048 (speedup by S: %s; at P = 8192: %s)"
            % (beats, ", ".join("%s %.2fx" % (fmt_size(S), ratios[S])
                                for S in sizes if S in ratios), at8192))
    if ok:
        why = "at P = 2048: the S curve of the baseline at P = 8192 was not traced (note 3)"
    elif up_to is None or up_to < pub["crossover"] / 2:
        why = ("at P = 2048; the model's baseline is too fast from the small sizes on "
               "(the MPI_Alltoallv rows; note 5), so TuNA loses earlier than on %s" % machine)
    else:
        why = ("at P = 2048; TuNA still wins past the paper's crossover: the model's large-S "
               "TuNA (radix P) is priced bandwidth-bound, as the baseline is (note 2)")
    return [(SOURCE + ", Fig. 8", machine, 2048, "16 B .. 16 KiB",
             "crossover: tuna beats MPI_Alltoallv", "up to S = %s" % fmt_size(pub["crossover"]),
             ours, "", "trend reproduced" if ok else "missed", why)]


def regime_rows(d, platform, machine):
    """Fig. 7's three regimes of TuNA's best radix against S at P = 2048: about 2 up to
    512 B, a U around sqrt P to 8 KiB, about P above 8 KiB (Polaris) or 32 KiB (Fugaku);
    each within one step of S and a factor 2 of the radix."""
    P, pub = 2048, PUBLISHED[machine]
    sizes = d.sizes(platform, "tuna_fig7", P)
    radices = d.radices(platform, "tuna_fig7", P)
    best = {S: d.best(platform, P, S, "tuna_fig7")[0] for S in sizes}
    where = (SOURCE + ", Fig. 7", machine, P)
    rows = []
    # small blocks: radix <= 4 (a factor 2 of 2) up to 256 B (one step below 512 B)
    small = [S for S in sizes if S <= 256]
    off = [S for S in small if best[S] > 4]
    rows.append(where + ("16 B .. 512 B", "tuna, best radix (small blocks)", "approx 2",
                         "best by S: %s" % ", ".join("%s: %d" % (fmt_size(S), best[S])
                                                     for S in sizes if S <= 512), "",
                         "trend reproduced" if not off else "missed",
                         "" if not off else
                         "larger radices at %s: in the model the bytes each extra round "
                         "forwards weigh more against its per-round costs (smpi/ois + or, "
                         "the route latency) than on %s (note 2)"
                         % (", ".join(fmt_size(S) for S in off), machine)))
    # medium: a U around sqrt P (a factor 2) from 1 KiB to 4 KiB, the minimum inside the range
    root = math.sqrt(P)
    medium = [S for S in sizes if 1024 <= S <= 4096]
    off = [S for S in medium if not (root / 2 <= best[S] <= 2 * root)
           or best[S] in (radices[0], radices[-1])]
    rows.append(where + ("512 B .. 8 KiB", "tuna, best radix (medium blocks; sqrt P = %.1f)"
                         % root, "U-shaped around sqrt P",
                         "best by S: %s" % ", ".join("%s: %d" % (fmt_size(S), best[S])
                                                     for S in sizes if 512 <= S <= 8192), "",
                         "trend reproduced" if not off else "missed",
                         "" if not off else "best radix leaves sqrt P at %s: %s"
                         % (", ".join("%s (%d)" % (fmt_size(S), best[S]) for S in off),
                            BYTES_WHY[platform])))
    # large: radix >= P/2 above the boundary (Polaris: 16 KiB); on Fugaku the boundary,
    # 32 KiB, is past Fig. 7's sizes: radix P must not win two steps of S before it
    if pub["large_from"] < sizes[-1] + 1:
        large = [S for S in sizes if S > pub["large_from"]]
        off = [S for S in large if best[S] < P // 2]
        rows.append(where + ("> %s" % fmt_size(pub["large_from"]),
                             "tuna, best radix (large blocks)",
                             "approx P", "best by S: %s" % ", ".join(
                                 "%s: %d" % (fmt_size(S), best[S]) for S in large), "",
                             "trend reproduced" if not off else "missed",
                             "" if not off else "radix P not yet fastest at %s (note 2)"
                             % ", ".join(fmt_size(S) for S in off)))
    else:
        early = [S for S in sizes if S <= pub["large_from"] // 4 and best[S] >= P // 2]
        rows.append(where + ("> %s" % fmt_size(pub["large_from"]),
                             "tuna, best radix (large blocks)",
                             "approx P (above Fig. 7's 16 KiB)",
                             "best by S: %s; radix P first fastest at %s" % (
                                 ", ".join("%s: %d" % (fmt_size(S), best[S]) for S in sizes
                                           if S >= 4096),
                                 next((fmt_size(S) for S in sizes if best[S] >= P // 2), "no S")),
                             "", "trend reproduced" if not early else "missed",
                             "" if not early else
                             "radix P fastest from %s, more than one step of S before %s: %s"
                             % (fmt_size(early[0]), fmt_size(pub["large_from"]),
                                BYTES_WHY[platform])))
    return rows


def rows(d):
    """Every TuNA row of the table."""
    out = []
    for machine, platform in MACHINES:
        out += fig8_rows(d, platform, machine)
    out.append(fugaku_16k_row(d))
    for machine, platform in MACHINES:
        out += crossover_rows(d, platform, machine)
    for machine, platform in MACHINES:
        out += regime_rows(d, platform, machine)
    return out


def cost_note(d):
    """Note 3 of the table: how the TuNA rows are made and what they cost (from the data)."""
    parts = []
    for machine, platform in MACHINES:
        got = d.conn.execute(
            "SELECT count(*), sum(trace_s), max(trace_peak_mb) FROM results WHERE run_id = ?",
            (d.run_id(platform),)).fetchone()
        parts.append("%s: %d configurations, %.0f min of tracing, peak %.1f GB"
                     % (platform, got[0], (got[1] or 0) / 60, (got[2] or 0) / 1024))
    r8 = d.conn.execute(
        "SELECT min(trace_s), max(trace_s), max(trace_peak_mb) FROM results WHERE P = 8192 "
        "AND kernel = 'tuna'").fetchone()
    b8 = d.conn.execute(
        "SELECT min(trace_s), max(trace_s), max(trace_peak_mb) FROM results WHERE P = 8192 "
        "AND kernel = ?", (BASELINE,)).fetchone()
    radices = ", ".join(str(r) for r in d.radices(MACHINES[0][1], "tuna_fig8", 8192))
    r16 = d.conn.execute("SELECT count(*), min(trace_s), max(trace_s), max(trace_peak_mb) "
                         "FROM results WHERE P = 16384").fetchone()
    names = ["sqrt P" if r == 128 else "P" if r == 16384 else "radix %d" % r
             for r in d.radices("fugaku.xml", "tuna_16k", 16384)]
    sampled = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)
    at16k = ("P = 16,384 (Fugaku, 16 KiB; TuNA at %s%s): %d traces of %.0f to %.0f s and up "
             "to %.1f GB. " % (sampled, "" if "radix 2" in names else
                               ", radix 2 left out for its memory", r16[0], r16[1], r16[2],
                               r16[3] / 1024) if r16[0] else "")
    return ("3. **The TuNA rows** (%s, `%s`). TuNA's schedule and MPI_Alltoallv's depend on "
            "the block sizes each rank receives: the model tier runs every rank of the kernel's "
            "own code as a coroutine of one process (sizes delivered, payloads as sizes only), "
            "on uniform blocks in [0, S], seed 1, as the paper's, and prices node 0's schedule "
            "(docs/results/model_tier.md). Fig. 7 at P = 2048: radix 2, 4, .., 2048 and sqrt P, "
            "S = 16 B .. 16 KiB. Fig. 8 at P = 8192: TuNA's best radix over radix %s only, "
            "not the paper's 2 .. P, because each trace there takes %.0f to %.0f s and up to "
            "%.1f GB (MPI_Alltoallv: %.0f to %.0f s, %.1f GB); for the same reason the "
            "crossover's S curve is at P = 2048 (P = 8192 has S = 16 B and 1 KiB). %sCost, "
            "tracer wall time on a 2-core machine shared with other work: %s. SimGrid does not "
            "reach the papers' P on this machine: tra at P = 4096, radix 2, 16 B takes 6.5 "
            "minutes, and an exchange of P^2 messages took 130 s at P = 1024 (tra, radix P), so "
            "MPI_Alltoallv's 64 times as many at P = 8192 would take over 2 hours per "
            "configuration by that scaling (not measured)."
            % (DATA, SWEEP, radices, r8[0], r8[1], r8[2] / 1024, b8[0], b8[1], b8[2] / 1024,
               at16k, "; ".join(parts)))


def baseline_note(d):
    """Note 5 of the table: why the model's MPI_Alltoallv is far below the machines', and
    why the model is not given a per-message receive cost (from the data)."""
    P = 8192
    per = []
    for machine, platform in MACHINES:
        base = d.time(platform, BASELINE, P, 16)
        per.append("%s: %s modelled against %.5g ms measured (%.1f us per message of a rank; "
                   "smpi/ois + or %s)" % (machine, ms(base), PUBLISHED[machine]["a2av_16"],
                                         PUBLISHED[machine]["a2av_16"] * 1e3 / (P - 1),
                                         d.overheads(platform)))
    return ("5. **MPI_Alltoallv's gap, and no extra receive cost.** At P = 8192, 16 B: %s. "
            "The model already charges every message smpi/ois on its sender and smpi/or on its "
            "receiver, so the P - 1 receives a rank posts are paid for; and the matching queue "
            "those messages search is short: MPICH's MPI_Alltoallv posts its receives in "
            "batches of 32 (the scattered exchange, kernels/nonuniform/mpich_selection_v.c), "
            "not P - 1 at once. A queue that short costs little by the published studies "
            "(Levy et al., \"Using simulation to examine the effect of MPI message matching "
            "costs on application performance\", Parallel Computing 84, 2019: matching matters "
            "only for much longer queues or much slower match operations), and Slingshot 11's "
            "NIC can match in hardware (libfabric's cxi provider, FI_CXI_RX_MATCH_MODE = "
            "hardware). So no per-message receive overhead is added. What the model lacks is a "
            "cost of that size per message: a NIC's message rate shared by the node's ranks "
            "(their messages injected one after the other), the skew of 256 batches' waits "
            "over 8192 ranks, and the vendors' own MPI_Alltoallv (Cray MPICH's and Fujitsu "
            "MPI's, not necessarily MPICH's scattered exchange). A rate set from these two "
            "measurements would be fitted to the numbers compared with; none is, so the "
            "baseline rows are documented misses and the model's TuNA speedups understate the "
            "paper's." % "; ".join(per))
