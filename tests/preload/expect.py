#!/usr/bin/python3
"""expect.py — does the MPI library (or liba2a's dispatcher) do what a tuning file says?

Reads a tuning file on its own (the way the library does, not through scripts/a2a) and
compares its choice for every call in a log with what the log shows was run:

  expect.py openmpi RULES PROBE_LOG BASELINE_LOG
      Open MPI classic rules vs tests/preload/probe.so lines; where a rule says 0 (Open
      MPI's fixed decision) the call must run what it ran without the file (BASELINE_LOG).
  expect.py mpich JSON PROBE_LOG
      MPICH selection tree vs probe lines at P = 4 (where the algorithms differ in sends:
      brucks 2, pairwise 3, scattered 4; nb uses a schedule tag above 255).
  expect.py a2a JSON VERBOSE_LOG
      a2a tuning file vs the dispatcher's A2A_VERBOSE=1 lines ("a2a: MPI_Alltoall P=4
      S=1024 -> tra radix=2 [...]").
  expect.py resume OLD_FILE NEW_FILE
      an online run that read OLD_FILE (written by one that ended with shapes still
      exploring: its "online_partial" list) and wrote NEW_FILE went on with each of them:
      NEW_FILE has a rule for the shape or its record with more calls explored ("calls"
      counts OLD_FILE's partial records).
  expect.py force PROBE_LOG
      tests/preload/force_check's "force:" lines vs the probe line of the call after each.
  expect.py online VERBOSE_LOG
      the online tuner's decision lines (A2A_VERBOSE=2: every rank) agree: per
      communicator and shape, one line from each of its P ranks, all naming the same
      kernel and the same call to switch at (here "calls" counts the decisions).
  expect.py agreement VERBOSE_LOG
      the dispatcher's deferred alltoallv agreement (A2A_VERBOSE=2): per communicator,
      every one of its P ranks logs the same sequence of "agreement on S deferred from
      call N" / "per call again from call N" lines ("calls" counts the sequences'
      lines, of one rank each).

Prints one line per mismatch and a summary; exit 0 only if nothing mismatched and at
least MIN calls (environment variable, default 4) were checked.
"""
import json
import os
import re
import sys

OMPI_NAMES = {"alltoall": {1: "linear", 2: "pairwise", 3: "modified_bruck", 4: "linear_sync",
                           5: "two_proc"},
              "alltoallv": {1: "basic_linear", 2: "pairwise"}}
OMPI_IDS = {3: "alltoall", 4: "alltoallv"}
PROBE = re.compile(r"^a2a-probe: (alltoallv?) P=(\d+) bytes=(\d+) (.*)$")
VERBOSE = re.compile(r"^a2a: MPI_(Alltoallv?) P=(\d+) S=(\d+) -> (.*)$")


def probe_lines(path):
    """[(collective, P, bytes, {field: value})] of a probe log."""
    out = []
    with open(path) as f:
        for line in f:
            m = PROBE.match(line.strip())
            if m:
                fields = dict(kv.split("=", 1) for kv in m.group(4).split())
                out.append((m.group(1), int(m.group(2)), int(m.group(3)), fields))
    return out


# ---- Open MPI classic rules ------------------------------------------------------------

def read_openmpi(path):
    """{collective: [(comm_size, [(msg_size, alg)])]} from the classic format."""
    numbers = []
    with open(path) as f:
        for line in f:
            numbers += [int(x) for x in line.split("#", 1)[0].split()]
    it = iter(numbers)
    rules = {}
    for _ in range(next(it)):
        coll = OMPI_IDS.get(next(it), "other")
        comms = []
        for _ in range(next(it)):
            size = next(it)
            msgs = []
            for _ in range(next(it)):
                msg, alg, _faninout, _segsize = next(it), next(it), next(it), next(it)
                msgs.append((msg, alg))
            comms.append((size, msgs))
        rules[coll] = comms
    return rules


def openmpi_choice(rules, coll, P, block):
    """Open MPI 4.1's lookup: the largest comm size <= P, then the largest message size
    <= the bytes (alltoall: block * P; alltoallv passes no size)."""
    comms = rules.get(coll)
    if not comms:
        return 0
    best = comms[0]
    for c in comms:
        if c[0] <= P:
            best = c
    size = block * P if coll == "alltoall" else 0
    alg = best[1][0][1]
    for msg, a in best[1]:
        if msg <= size:
            alg = a
    return alg


def check_openmpi(rules_path, log, baseline_log):
    """(calls checked, mismatches) of an Open MPI probe log against a rules file."""
    rules = read_openmpi(rules_path)
    fixed = {(c, P, b): f["algorithm"] for c, P, b, f in probe_lines(baseline_log)}
    bad, n = [], 0
    for coll, P, block, f in probe_lines(log):
        alg = openmpi_choice(rules, coll, P, block)
        want = OMPI_NAMES[coll].get(alg) if alg else fixed.get((coll, P, block))
        n += 1
        if want != f["algorithm"]:
            bad.append("%s P=%d block=%d: the file says %s (%s), Open MPI ran %s"
                       % (coll, P, block, alg, want, f["algorithm"]))
    return n, bad


# ---- MPICH selection tree -------------------------------------------------------------

def mpich_condition(key, P, block):
    """Truth of one condition of MPICH's tree for an intra-communicator call with a
    separate send buffer."""
    if key.endswith("=any") or key == "comm_type=intra" or key == "is_sendbuf_inplace=no":
        return True
    if key in ("comm_type=inter", "is_sendbuf_inplace=yes"):
        return False
    m = re.match(r"^(comm_size|avg_msg_size)(<=|<)(\d+)$", key)
    if m:
        value = P if m.group(1) == "comm_size" else block
        limit = int(m.group(3))
        return value <= limit if m.group(2) == "<=" else value < limit
    if key == "comm_size=pow2":
        return P & (P - 1) == 0
    raise ValueError("condition not modelled here: %s" % key)


def mpich_choice(tree, coll, P, block):
    """The algorithm MPICH's tree names for an intra-communicator call, separate buffers."""
    node = tree["collective=%s" % coll]
    while True:
        for key, sub in node.items():
            if key.startswith("algorithm=") or key.startswith("composition="):
                return key.split("=", 1)[1]
            if mpich_condition(key, P, block):
                node = sub
                break
        else:
            raise ValueError("no branch of %s matches P=%d block=%d" % (coll, P, block))


def mpich_signature_ok(function, fields):
    """Does the probe line fit MPICH's algorithm `function` at P = 4?"""
    scheduled = int(fields["tag"]) > 255
    if function.endswith("_allcomm_nb"):
        return scheduled
    if scheduled:
        return False
    sends = int(fields["sends"])
    expected = {"MPIR_Alltoall_intra_brucks": 2, "MPIR_Alltoall_intra_pairwise": 3,
                "MPIR_Alltoall_intra_scattered": 4}.get(function)
    return expected is None or sends == expected


def check_mpich(path, log):
    """(calls checked, mismatches) of an MPICH probe log (P = 4 lines) against a tree."""
    with open(path) as f:
        tree = json.load(f)
    bad, n = [], 0
    for coll, P, block, f in probe_lines(log):
        if P != 4:
            continue
        function = mpich_choice(tree, coll, P, block)
        n += 1
        if not mpich_signature_ok(function, f):
            bad.append("%s P=%d block=%d: the file says %s, MPICH sent %s messages (tag %s)"
                       % (coll, P, block, function, f["sends"], f["tag"]))
    return n, bad


# ---- the a2a file and the dispatcher ----------------------------------------------------

def a2a_choice(doc, coll, P, S):
    """(kernel, params as text) of the first a2a rule containing (P, S), or (None, None)."""
    for rule in doc.get(coll, []):
        (plo, phi), (slo, shi) = rule["P"], rule["S"]
        if plo <= P and (phi is None or P <= phi) and slo <= S and (shi is None or S <= shi):
            return rule["kernel"], {k: str(v) for k, v in rule.get("params", {}).items()}
    return None, None


def check_a2a(path, log):
    """(calls checked, mismatches) of the dispatcher's verbose log against an a2a file."""
    with open(path) as f:
        doc = json.load(f)
    bad, n = [], 0
    with open(log) as f:
        for line in f:
            m = VERBOSE.match(line.strip())
            if not m:
                continue
            coll, P, S, what = m.group(1).lower(), int(m.group(2)), int(m.group(3)), m.group(4)
            kernel, params = a2a_choice(doc, coll, P, S)
            refused = re.match(r"^MPI library \[rule .*? names (.*?), not valid here: .*\]$", what)
            if refused:  # the dispatcher took the file's rule but its parameters cannot run here
                what = refused.group(1)
            ran = what.split(" [", 1)[0].split(" (", 1)[0].split()
            n += 1
            if kernel is None:
                if ran[:2] != ["MPI", "library"]:
                    bad.append("%s P=%d S=%d: no rule, the dispatcher ran %s" % (coll, P, S, what))
                continue
            got = dict(t.split("=", 1) for t in ran[1:] if "=" in t)
            if ran[0] != kernel or got != params:
                bad.append("%s P=%d S=%d: the file says %s %s, the dispatcher ran %s"
                           % (coll, P, S, kernel, params, what))
    return n, bad


# ---- force_check -------------------------------------------------------------------------

def check_force(log):
    """(calls checked, mismatches) of force_check's lines against the probe lines after
    them (MPI_LIBRARY=openmpi|mpich says how to read the probe)."""
    library = os.environ.get("MPI_LIBRARY", "openmpi")
    bad, n, pending = [], 0, None
    force = re.compile(r"^force: (alltoallv?) P=(\d+) vendor_algorithm=(\d+) name=(\S+)$")
    mpich = {"alltoall": {"brucks": "MPIR_Alltoall_intra_brucks", "nb": "MPIR_Alltoall_allcomm_nb",
                          "pairwise": "MPIR_Alltoall_intra_pairwise",
                          "scattered": "MPIR_Alltoall_intra_scattered"},
             "alltoallv": {"nb": "MPIR_Alltoallv_allcomm_nb",
                           "scattered": "MPIR_Alltoallv_intra_scattered"}}
    with open(log) as f:
        for line in f:
            line = line.strip()
            m = force.match(line)
            if m:
                pending = (m.group(1), int(m.group(2)), int(m.group(3)), m.group(4))
                continue
            p = PROBE.match(line)
            if not p or pending is None:
                continue
            coll, P, alg, name = pending
            pending = None
            fields = dict(kv.split("=", 1) for kv in p.group(4).split())
            if alg == 0 or (library == "mpich" and P != 4):
                continue
            n += 1
            if library == "openmpi" and fields.get("algorithm") != name:
                bad.append("%s P=%d vendor_algorithm=%d (%s): Open MPI ran %s"
                           % (coll, P, alg, name, fields.get("algorithm")))
            if library == "mpich" and not mpich_signature_ok(mpich[coll][name], fields):
                bad.append("%s P=%d vendor_algorithm=%d (%s): MPICH sent %s messages (tag %s)"
                           % (coll, P, alg, name, fields["sends"], fields["tag"]))
    return n, bad


ONLINE = re.compile(r"^a2a: online (MPI_Alltoallv?) P=(\d+) S=(\d+)\.\.(\d+) -> (.*) from call "
                    r"(\d+) \(.*\) \[comm (\S+), world rank (\d+)\]$")


def check_online(log):
    """(decisions, mismatches): per (communicator, shape), every one of its P ranks prints
    the same sequence of decisions (kernel, call): one, or more when the winner drifted and
    the shape was explored again."""
    groups = {}
    with open(log) as f:
        for line in f:
            m = ONLINE.match(line.strip())
            if m:
                coll, P, lo, hi, kernel, call, comm, rank = m.groups()
                per_rank = groups.setdefault((comm, coll, int(P), lo, hi), {})
                per_rank.setdefault(rank, []).append((kernel, call))
    bad = []
    for key, per_rank in sorted(groups.items()):
        comm, coll, P = key[0], key[1], key[2]
        sequences = {tuple(seq) for seq in per_rank.values()}
        if len(per_rank) != P:
            bad.append("%s %s P=%d S=%s..%s: lines from %d ranks, expected %d" %
                       (comm, coll, P, key[3], key[4], len(per_rank), P))
        if len(sequences) != 1:
            bad.append("%s %s P=%d S=%s..%s: ranks disagree: %s" %
                       (comm, coll, P, key[3], key[4], sorted(sequences)))
    return len(groups), bad


AGREEMENT = re.compile(r"^a2a: online MPI_Alltoallv P=(\d+): agreement on S (.*) from call (\d+) "
                       r"\((.*)\) \[comm (\S+), world rank (\d+)\]$")


def check_agreement(log):
    """(lines of one rank, summed over communicators; mismatches): per communicator, the
    same sequence of deferral lines on each of its P ranks."""
    seqs = {}
    with open(log) as f:
        for line in f:
            m = AGREEMENT.match(line.strip())
            if m:
                P, what, call, why, comm, rank = m.groups()
                seqs.setdefault((comm, int(P)), {}).setdefault(rank, []).append((what, call, why))
    bad, n = [], 0
    for (comm, P), ranks in sorted(seqs.items()):
        distinct = {tuple(v) for v in ranks.values()}
        if len(ranks) != P:
            bad.append("%s P=%d: deferral lines from %d ranks, expected %d" % (comm, P, len(ranks), P))
        if len(distinct) != 1:
            bad.append("%s P=%d: ranks switch at different calls: %s" % (comm, P, sorted(distinct)))
        n += min(len(v) for v in ranks.values())
    return n, bad


def check_resume(old_path, new_path):
    """(partial records of old_path, mismatches): each went on in new_path."""
    with open(old_path) as f:
        old = json.load(f)
    with open(new_path) as f:
        new = json.load(f)
    bad, n = [], 0
    for rec in old.get("online_partial", []):
        n += 1
        key = (rec["collective"], rec["P"], rec["S"][0])
        for cand in rec["candidates"]:
            if set(cand) != {"candidate", "state", "median_s", "noise_s", "samples_s"}:
                bad.append("%s P=%d S=%d: a candidate record with keys %s" % (key + (sorted(cand),)))
        rules = [r for r in new.get(rec["collective"], [])
                 if r["P"] == [rec["P"], rec["P"]] and r["S"][0] == rec["S"][0]]
        again = [r for r in new.get("online_partial", [])
                 if (r["collective"], r["P"], r["S"][0]) == key]
        if not rules and not (again and again[0]["explore_calls"] > rec["explore_calls"]):
            bad.append("%s P=%d S=%d: neither decided nor explored further (%d calls before, "
                       "%s after)" % (key + (rec["explore_calls"],
                                             again[0]["explore_calls"] if again else "none")))
    return n, bad


def main(argv):
    """Runs one check; exit status 0 only if it found no mismatch in enough calls."""
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    kind = argv[1]
    if kind == "openmpi" and len(argv) == 5:
        n, bad = check_openmpi(argv[2], argv[3], argv[4])
    elif kind == "mpich" and len(argv) == 4:
        n, bad = check_mpich(argv[2], argv[3])
    elif kind == "a2a" and len(argv) == 4:
        n, bad = check_a2a(argv[2], argv[3])
    elif kind == "online" and len(argv) == 3:
        n, bad = check_online(argv[2])
    elif kind == "agreement" and len(argv) == 3:
        n, bad = check_agreement(argv[2])
    elif kind == "resume" and len(argv) == 4:
        n, bad = check_resume(argv[2], argv[3])
    elif kind == "force" and len(argv) == 3:
        n, bad = check_force(argv[2])
    else:
        sys.stderr.write(__doc__)
        return 2
    for b in bad:
        print("mismatch: " + b)
    minimum = int(os.environ.get("MIN", "4"))
    print("%s: %d calls checked, %d mismatches%s" % (kind, n, len(bad),
                                                     "" if n >= minimum else
                                                     " (fewer than %d checked)" % minimum))
    return 0 if not bad and n >= minimum else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
