"""`a2a model-run` and `a2a model-check`: the model tier, for the scale SimGrid cannot reach.

Each configuration's exact message schedule comes from the kernel's own code: a2atrace
(build/model/a2atrace, `make build/model/a2atrace`) runs the liba2a kernel for the ranks of
one node against a tracing MPI layer and reports, per epoch (the messages a rank has in
flight together: one MPI_Sendrecv, or the requests one MPI_Waitall completes), each rank's
sends by rank offset and size, the most messages a rank sends and receives, and the copy
seconds the SimGrid build's copy-cost model charges (each copy only when it reaches
smpi/cpu-threshold, 1 us by default: SMPI discards shorter computations). Every uniform kernel is
node-circulant (rank n*Q + j does what rank j does, n*Q ranks further on; `a2atrace
--all-nodes` checks it), so node 0 stands for every node.

The cost of an epoch (bulk-synchronous: the next starts when the slowest rank is done):
  copies + sends x smpi/ois + receives x smpi/or (below smpi/send-is-detached-thresh only:
    SMPI's charges for liba2a's non-blocking sends; smpi/os is a blocking send's)
  + the longer of: the slowest intra-node message (loopback latency x lat-factor + bytes /
    (loopback bandwidth x bw-factor): SMPI's loopback is not shared between flows), and the
    inter-node traffic: the longest route latency x lat-factor, over every node sending
    at that node distance, + the time of the most loaded link: the node's own link (its
    ranks' bytes to other nodes / bandwidth) or the busiest shared link of the topology
    (every node's routes at once), bytes counted as bytes / bw-factor.
The sum over epochs is the configuration's time, plus each MPI_Allreduce the kernel made
(TuNA, two-phase Bruck: `allreduce` records of a traced world) as the steps of SMPI's rdb
algorithm, the one `a2a simulate` runs it with, each priced as an epoch. Nothing is
fitted: every number comes from the platform file (platform_model.py) and SimGrid's
documented defaults; what the model leaves out (ranks running ahead into the next epoch,
SMPI's max-min sharing details) is what `a2a model-check` measures against SimGrid.
That is the timing of --epochs. The default timing (--clocks) carries every rank's clock
through its epochs instead, as SMPI runs ranks: a rank goes on to its next epoch once its
own receives are in (a send below smpi/send-is-detached-thresh completes at once), a message
moves once both its ranks have posted it, and the messages in flight on a node's link share
it whatever epoch they belong to, each in inverse proportion to its route's sharing penalty
(Platform.penalty: SimGrid's latency-weighted sharing; CostModel.clocked_seconds); where the
run's network model has SimGrid's cross-traffic on (network/crosstraffic, SimGrid 3.32's
default), each message also loads the links of its route back by 5 %
(platform_model.CROSSTRAFFIC_SHARE), as SimGrid's flows do: the node's link, the topology's
links, a shared memory link; and each step's traffic of every node is shared as SimGrid's
max-min solver shares it, which can hold a message at its route back's share
(CostModel.held_seconds). A kernel whose ranks wait on unequal latencies (TuNA's and tra's
rounds at small blocks, where some ranks' partners are on their own node) then runs ahead as
in SimGrid; the error of both timings on the checked-in comparisons is in
docs/results/model_tier.md.

Routes are SimGrid's (minimal) unless the launch asks for adaptive routing (--routing
adaptive: each step's flows between two routers of a group spread over Valiant's detours
in the share that leaves the busiest link least loaded, best_mix; platform_model.ROUTINGS).

Rows: backend = 'model', validated = 0, status ok, one run per launch with the platform,
its sha256, the model's parameters in smpi_options and its network model in network_model
(netmodel.effective, as a simulated run on the platform records it); with --check SIMDB the
error against SimGrid (median and worst over the simulated cells of the modelled kernels)
goes with the run and every row, and figures drawn from the rows print it. With
A2A_TRACE_CACHE=DIR each trace is kept in DIR and read back by the next launch that needs
it (model_run.TRACE_CACHE)."""
import datetime
import hashlib
import json
import os
import re
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

from ..core import netmodel, vlist
from ..core.common import A2AError
from ..core.db import param_columns
from .platform_model import ROUTINGS, Platform
from .simulate import ALLREDUCE
from ..core.sweepfile import Sweep

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
TRACER = os.path.join(ROOT, "build", "model", "a2atrace")
# the kernels a2atrace runs and the a2atrace options of the parameters each takes
KERNEL_PARAMS = {"tra": ("radix",), "tra2": ("radix", "radix2", "ppn"), "bruck": (),
                 "spread_out": (), "pairwise": (), "scattered": ("block_count",),
                 "tuna": ("radix", "block_count"), "twophase_bruck": (), "mpich_selection": (),
                 "ompi_tuned_selection": (),
                 "tuna_staggered": ("ppn", "radix", "block_count"),
                 "tuna_coalesced": ("ppn", "radix", "block_count")}
# the non-uniform ones: a2atrace runs every rank (a traced world) on the seeded blocks of
# a distribution of workloads/workload.h, and prices node 0's schedule (see trace)
NONUNIFORM = {"tuna", "tuna_staggered", "tuna_coalesced", "twophase_bruck", "mpich_selection",
              "ompi_tuned_selection"}
SEEDED_DISTS = {"uniform", "normal", "powerlaw", "fft_n1", "fft_n2", "constant"}
# SMPI's `ring` alltoall (the simulated `vendor` rows' algorithm, `a2a simulate --vendor
# ring`) sends to rank + i and receives from rank - i in round i: liba2a's pairwise schedule
VENDOR_SCHEDULES = {"ring": "pairwise"}
# the most nodes CostModel.held_seconds solves SimGrid's max-min sharing for (one solve per
# step, at most 64 x 63 node pairs: at P = 4096 in nodes of 32, tra radix P's 4095 steps
# took 22 s); a larger machine keeps the busiest link's rate
HELD_MAX_NODES = 64


# SimGrid 3.32's smpi/cpu-threshold: SMPI's smpi_execute discards a computation shorter than
# this many seconds, so a copy the copy-cost model prices below it costs nothing simulated
CPU_THRESHOLD_DEFAULT = 1e-6


def cpu_threshold(platform, options=""):
    """The smpi/cpu-threshold (seconds) a launch on the platform file with these options (an
    smpirun's --cfg=... text) runs with: the command line's, else the platform's <config>,
    else SimGrid 3.32's default (CPU_THRESHOLD_DEFAULT). In 3.32 a negative value discards
    nothing (every copy is charged), as 0 does."""
    given = [o.partition(":")[2] for o in re.findall(r"--cfg=(\S+)", options or "")
             if o.partition(":")[0] == "smpi/cpu-threshold"]
    text = given[-1] if given else netmodel.platform_config(platform).get("smpi/cpu-threshold")
    if text is None:
        return CPU_THRESHOLD_DEFAULT
    try:
        return float(text)
    except ValueError:
        raise A2AError("%s: smpi/cpu-threshold '%s' is not a number of seconds" % (platform, text))


def trace(kernel, P, S, node_size, params, copy_model, threshold=CPU_THRESHOLD_DEFAULT):
    """a2atrace's summary of one configuration: {'epochs': [(max_sends, max_recvs,
    copy_s, [(local rank or None for all, rank offset, bytes, count)...])], 'stats':
    (rounds, blocks, bytes, messages), 'cost': {'seconds': the tracer's wall time,
    'peak_mb': its peak resident memory}}. Copies go through the copy-cost model
    (copy_model, a2a simulate's BYTES:GBPS,... text; empty: free) and, as SMPI charges
    them, only those of at least `threshold` seconds (smpi/cpu-threshold) cost time."""
    if not os.access(TRACER, os.X_OK):
        raise A2AError("%s is not built: make build/model/a2atrace" % TRACER)
    cmd = [TRACER, kernel, str(P), str(S), "--node-size", str(node_size),
           "--cpu-threshold", repr(float(threshold))]
    for name in KERNEL_PARAMS[kernel]:
        if params.get(name) is not None:
            cmd += ["--" + name.replace("_", "-"), str(params[name])]
    if kernel in NONUNIFORM:
        cmd += ["--dist", params.get("dist", "uniform"), "--seed", str(params.get("seed", 1))]
    env = dict(os.environ, A2A_SIM_COPY_MODEL=copy_model or "")
    cached = _cache_file(cmd, copy_model)
    if cached and os.path.exists(cached):
        return _cache_read(cached), None
    t0 = time.time()
    with tempfile.TemporaryFile(mode="w+") as err:
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=env)
        stdout = child.stdout.read()
        child.stdout.close()
        # wait4: the tracer's own peak resident memory, as /usr/bin/time -v reports it
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read()
    cost = {"seconds": time.time() - t0, "peak_mb": usage.ru_maxrss / 1024.0}
    if child.returncode != 0:
        return None, (stderr.strip().splitlines() or ["a2atrace failed"])[0]
    epochs, stats, reductions = [], None, []
    for line in stdout.splitlines():
        f = line.split()
        if f[0] == "allreduce":
            reductions.append((int(f[1]), int(f[2])))
        elif f[0] == "epoch":
            epochs.append((int(f[2]), int(f[3]), float(f[4]), []))
        elif f[0] == "send":
            epochs[int(f[1])][3].append((None if f[2] == "*" else int(f[2]), int(f[3]),
                                         int(f[4]), int(f[5])))
        elif f[0] == "stats" and stats is None:
            stats = tuple(int(x) for x in f[2:6])
    traced = {"epochs": epochs, "stats": stats, "reductions": reductions, "cost": cost}
    if cached:
        _cache_write(cached, traced)
    return traced, None


# A2A_TRACE_CACHE=DIR keeps each configuration's trace (a2atrace's summary, with what tracing
# it cost) in DIR, keyed by the tracer's command line, its copy model and the tracer binary:
# a schedule does not depend on the platform, so pricing one sweep on several platforms, or
# one platform with a figure changed, traces each configuration once. Unset: no cache.
TRACE_CACHE = "A2A_TRACE_CACHE"


def _cache_file(cmd, copy_model):
    """The cache file of a tracer command (None when A2A_TRACE_CACHE is unset)."""
    where = os.environ.get(TRACE_CACHE)
    if not where:
        return None
    if not hasattr(_cache_file, "binary"):
        with open(TRACER, "rb") as f:
            _cache_file.binary = hashlib.sha256(f.read()).hexdigest()
    key = hashlib.sha256(json.dumps([_cache_file.binary, cmd[1:], copy_model or ""])
                         .encode()).hexdigest()
    os.makedirs(where, exist_ok=True)
    return os.path.join(where, key + ".json.gz")


def _cache_read(path):
    """A trace as trace() returns it, from its cache file."""
    import gzip
    with gzip.open(path, "rt") as f:
        data = json.load(f)
    return {"epochs": [(a, b, c, [tuple(x) for x in flows]) for a, b, c, flows in data["epochs"]],
            "stats": tuple(data["stats"]) if data["stats"] else None,
            "reductions": [tuple(r) for r in data["reductions"]], "cost": data["cost"]}


def _cache_write(path, traced):
    """Writes a trace to its cache file (whole or not at all)."""
    import gzip
    with gzip.open(path + ".part", "wt") as f:
        json.dump(traced, f)
    os.replace(path + ".part", path)


def trace_cost(traced):
    """What tracing one configuration cost, as model-run's rows (message) and progress lines
    say it: 'a2atrace SECONDS s, peak MB MB' (the tracer process's wall time and peak resident
    memory; TRACE_COST reads it back)."""
    return "a2atrace %.1f s, peak %.0f MB" % (traced["cost"]["seconds"], traced["cost"]["peak_mb"])


# reads trace_cost's text back: (seconds, megabytes)
TRACE_COST = re.compile(r"a2atrace ([0-9.]+) s, peak ([0-9]+) MB")


def best_mix(minimal, spread):
    """(share, seconds): the share of every flow's bytes sent on its minimal route (the rest
    spread equally over its detours) that leaves the most loaded link least loaded, and that
    link's seconds; minimal, spread: each link's seconds (numpy arrays) with every flow on
    its minimal route or every flow spread. The busiest link's seconds are convex and
    piecewise linear in the share: bisection on the slope of the busiest link, then the
    best of the bracket's ends and the shares 0 and 1 (ties: the larger share)."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        i = int((spread + mid * (minimal - spread)).argmax())
        slope = minimal[i] - spread[i]
        if slope == 0:
            lo = hi = mid
            break
        lo, hi = (lo, mid) if slope > 0 else (mid, hi)
    worst = lambda a: float((spread + a * (minimal - spread)).max())
    seconds, share = min((worst(a), -a) for a in (1.0, hi, lo, 0.0))
    return -share, seconds


class CostModel:
    """The cost of a traced schedule on a platform (see the module's description)."""

    def __init__(self, platform, ranks_per_node=None, clocks=True):
        self.p = platform
        self.ranks_per_node = ranks_per_node or platform.cores
        self.clocks = clocks  # every rank's clock instead of bulk-synchronous epochs
        # SimGrid's cross-traffic share (platform_model.CROSSTRAFFIC_SHARE), with the clocks
        # only: the epochs already over-count a round's simultaneity at small blocks, and
        # with the share they are further from SimGrid on the dragonfly comparisons
        # (docs/results/model_tier.md); clocks is the default timing, False the epochs
        self.cross = platform.cross_share if clocks else 0.0
        self._offsets = {}   # (nodes, offset) -> (worst latency, link indexes, counts)
        self._links = {}     # (nodes) -> {link id: index}
        self._capacity = {}  # (nodes) -> [bytes/s of each link]
        # SimGrid's latency-weighted sharing of a node's link, with the clocks only
        self.weighted = clocks
        self._weights = {}   # (nodes, offset) -> share weight of node 0's messages
        self._nearest = {}   # nodes -> the smallest sharing penalty of a route
        self._held = {}      # (nodes, loads, counts) -> held_seconds
        self._spread = {}    # (nodes, offset) -> link indexes, counts spread over detours
        if platform.routing == "adaptive" and self.cross:
            raise A2AError("%s: adaptive routing with network/crosstraffic on is not modelled "
                           "(CostModel.held_seconds solves minimal routes)" % platform.path)

    def node_size(self, P):
        """Ranks on one node: rank r runs on node r // node_size, each node one host of the
        platform with its links and memory, whatever its core count."""
        return min(P, self.ranks_per_node)

    def offset(self, nodes, d):
        """For every node n sending to node n + d at once: the longest route latency, and
        how many of those routes cross each shared network link (indexes, counts); under
        adaptive routing also each link's count of flows spread over their detours
        (self._spread, see busiest_link)."""
        key = (nodes, d)
        if key not in self._offsets:
            import numpy
            counts, spread, worst = {}, {}, 0.0
            for n in range(nodes):
                links, latency = self.p.route(n, (n + d) % nodes)
                worst = max(worst, latency)
                for link, bw in links:
                    i = self._link_index(nodes, link, bw)
                    counts[i] = counts.get(i, 0) + 1
                if self.p.routing == "adaptive":
                    # the flow spread equally over its detours (its minimal route when it
                    # has none: one router, or another group)
                    paths = self.p.detours(n, (n + d) % nodes) or [links]
                    for path in paths:
                        for link, bw in path:
                            i = self._link_index(nodes, link, bw)
                            spread[i] = spread.get(i, 0.0) + 1.0 / len(paths)
            self._offsets[key] = (worst, numpy.array(list(counts), dtype=numpy.int64),
                                  numpy.array(list(counts.values()), dtype=float))
            self._spread[key] = (numpy.array(list(spread), dtype=numpy.int64),
                                 numpy.array(list(spread.values()), dtype=float))
        return self._offsets[key]

    def _link_index(self, nodes, link, bw):
        """The index of a shared link among those of `nodes` nodes' routes (added with its
        bandwidth when first seen)."""
        index = self._links.setdefault(nodes, {})
        if link not in index:
            capacity = self._capacity.setdefault(nodes, [])
            index[link] = len(capacity)
            capacity.append(bw)
        return index[link]

    def link_seconds(self, nodes, loads):
        """(minimal, spread): seconds each shared link (by self._links[nodes]' index) needs
        for {offset: wire bytes per node}, every flow on its minimal route, and (adaptive
        routing; None under minimal) every flow spread equally over its detours, each
        node's messages to node n + d also loading the links of the route back from n + d
        to n (offset -d) by the cross-traffic share (self.cross); None when no flow crosses
        a shared link."""
        import numpy
        cross = self.cross
        weighted = list(loads.items())
        if cross:
            weighted += [((nodes - d) % nodes, cross * wire) for d, wire in loads.items()]
        for d, _ in weighted:
            self.offset(nodes, d)
        capacity = numpy.array(self._capacity.get(nodes, []), dtype=float)
        if not len(capacity):
            return None
        total = numpy.zeros(len(capacity))
        spread = numpy.zeros(len(capacity)) if self.p.routing == "adaptive" else None
        for d, wire in weighted:
            _, idx, cnt = self._offsets[(nodes, d)]
            total += numpy.bincount(idx, weights=cnt * wire, minlength=len(capacity))
            if spread is not None:
                idx, cnt = self._spread[(nodes, d)]
                spread += numpy.bincount(idx, weights=cnt * wire, minlength=len(capacity))
        return total / capacity, None if spread is None else spread / capacity

    def busiest_link(self, nodes, loads):
        """Seconds the most loaded shared link needs for {offset: wire bytes per node}
        (link_seconds); under adaptive routing, with every flow's bytes shared between its
        minimal route and its detours in the proportion that leaves that link least loaded
        (best_mix)."""
        seconds = self.link_seconds(nodes, loads)
        if seconds is None:
            return 0.0
        minimal, spread = seconds
        if spread is None:
            return float(minimal.max())
        return best_mix(minimal, spread)[1]

    def own_link(self, wire):
        """Seconds a node's own link needs for `wire` bytes it sends to other nodes: it also
        carries the cross-traffic share of what the node receives, which is as much (every
        node sends what node 0 sends, node-circulant)."""
        return wire * (1.0 + self.cross) / self.p.link_bw if self.p.link_bw else 0.0

    def node_loads(self, flows, Q, nodes):
        """{node offset: bytes on the wire} node 0 sends in an epoch's flows (offset 0: its
        own), each message's bytes divided by SMPI's bandwidth factor of its size (on the
        checked-in dragonfly rows, counting the factor only as a bound on each flow's rate
        took the median error from 4 % to 11 %)."""
        loads = {}
        for local, offset, size, count in flows:
            wire = count * size / self.p.bw_factor(size)
            for j in range(Q) if local is None else (local,):
                d = ((j + offset) // Q) % nodes
                loads[d] = loads.get(d, 0.0) + wire
        return loads

    def held_seconds(self, nodes, loads, counts):
        """Seconds until every node's messages of one step are through, all started at once
        ({offset: wire bytes}, {offset: messages} of node 0; node n sends node 0's, n nodes
        on), as SimGrid 3.32's max-min solver shares the network with cross-traffic on:
        every message a variable whose penalty is its route's (Platform.penalty), with
        weight 1 on its route's links (the two nodes' own links and the topology's) and the
        cross-traffic share on the links of its route back; the least loaded link (its
        capacity over the sum of weight / penalty of its messages) fixes every message on
        it, forward or back, at that level over its own penalty, the next such link those
        left, and so on (progressive filling); the rates are solved again each time a
        message ends. A message held on its route back's link is what the busiest link
        alone does not give. Memoised: steps of equal traffic recur across rounds and
        kernels."""
        key = (nodes, tuple(sorted(loads.items())), tuple(sorted(counts.items())))
        if key not in self._held:
            self._held[key] = self._held_solve(nodes, loads, counts)
        return self._held[key]

    def _held_solve(self, nodes, loads, counts):
        """held_seconds, solved (see there)."""
        import numpy
        p = self.p
        links, caps = {}, []

        def link(key, bw):
            """The index of link `key` among the solve's constraints (added with capacity
            bw, in bytes/s, when first seen)."""
            if key not in links:
                links[key] = len(caps)
                caps.append(bw)
            return links[key]

        var_of, var_link, var_coef = [], [], []
        penalty, size, mult = [], [], []
        for d, wire in loads.items():
            k = counts[d]
            for n in range(nodes):
                m = (n + d) % nodes
                v = len(penalty)
                penalty.append(p.penalty(n, m))
                size.append(wire / k)
                mult.append(k)
                # a cluster's node links are not in its routes' links (a graph's are)
                ends = lambda a, b: ([link(("up", a), p.link_bw), link(("down", b), p.link_bw)]
                                     if p.link_bw else [])
                forward = ends(n, m) + [link(l, bw) for l, bw in p.route(n, m)[0]]
                back = ends(m, n) + [link(l, bw) for l, bw in p.route(m, n)[0]]
                for idx, coef in [(i, 1.0) for i in forward] + [(i, self.cross) for i in back]:
                    var_of.append(v)
                    var_link.append(idx)
                    var_coef.append(coef)
        var_of, var_link = numpy.array(var_of), numpy.array(var_link)
        var_coef = numpy.array(var_coef)
        penalty, mult = numpy.array(penalty), numpy.array(mult, dtype=float)
        left = numpy.array(size)
        caps = numpy.array(caps)
        alive = numpy.ones(len(left), dtype=bool)
        t = 0.0
        while alive.any():
            rate = numpy.zeros(len(left))
            free = alive.copy()
            room = caps.copy()
            while free.any():
                on = free[var_of]
                usage = numpy.bincount(var_link[on], weights=(var_coef * mult[var_of]
                                                              / penalty[var_of])[on],
                                       minlength=len(caps))
                used = usage > 0
                level = numpy.full(len(caps), numpy.inf)
                level[used] = numpy.maximum(room[used], 0.0) / usage[used]
                low = level.min()
                saturated = level <= low * (1 + 1e-9)
                fixed = numpy.zeros(len(left), dtype=bool)
                fixed[var_of[on & saturated[var_link]]] = True
                rate[fixed] = low / penalty[fixed]
                take = fixed[var_of]
                room -= numpy.bincount(var_link[take], weights=(var_coef * mult[var_of]
                                                                * rate[var_of])[take],
                                       minlength=len(caps))
                free &= ~fixed
            step = (left[alive] / rate[alive]).min()
            t += step
            left[alive] -= rate[alive] * step
            alive &= left > 1e-9 * numpy.maximum(numpy.array(size), 1.0)
        return t

    def share_weight(self, nodes, d):
        """The weight of node 0's messages to node d on its network link, when the clocks
        share it: SimGrid's inverse sharing penalty (Platform.penalty), relative to the
        smallest penalty of any node offset (so 1 for the nearest nodes)."""
        if not self.weighted:
            return 1.0
        key = (nodes, d)
        if key not in self._weights:
            if nodes not in self._nearest:
                self._nearest[nodes] = min(self.p.penalty(0, e) for e in range(1, nodes))
            self._weights[key] = self._nearest[nodes] / self.p.penalty(0, d)
        return self._weights[key]

    def worst_latency(self, nodes, d):
        """The longest route latency from a node n to node n + d, over every n."""
        return self.offset(nodes, d)[0]

    def overhead(self, sends, recvs, size, blocking=False):
        """Seconds a rank spends in SMPI's per-message software costs for `sends` sends and
        `recvs` receives of `size` bytes: a non-blocking send (MPI_Isend, the send half
        of MPI_Sendrecv: every liba2a message) smpi/ois, a blocking one smpi/os below
        smpi/send-is-detached-thresh and nothing from it on; a receive smpi/or below that
        threshold only (SMPI charges `or` for a detached sender's message)."""
        p = self.p
        small = size < p.detached_below
        send = ((p.send_overhead(size, True) if small else 0.0) if blocking
                else p.isend_overhead(size, True))
        return sends * send + (recvs * p.recv_overhead(size, True) if small else 0.0)

    def reduction_steps(self, P, size):
        """SMPI's `rdb` MPI_Allreduce of `size` bytes over P ranks, as the steps node 0's
        ranks take: [(blocking, flows)], flows as a2atrace's (local rank, offset, bytes,
        count). Below the largest power of two p2 <= P, ranks under 2 (P - p2) pair up:
        the even one sends its value to the odd one first and gets the result back last
        (blocking MPI_Send / MPI_Recv); the p2 remaining ranks exchange with the partner
        whose index differs in one bit, lowest bit first (MPI_Sendrecv), log2 p2 steps."""
        Q = self.node_size(P)
        p2 = 1 << (P.bit_length() - 1)
        rem = P - p2
        real = lambda n: 2 * n + 1 if n < rem else n + rem   # the rank of index n
        index = lambda r: r // 2 if r < 2 * rem else r - rem  # the index of an active rank
        steps = []
        if rem:
            steps.append((True, [(j, 1, size, 1) for j in range(min(Q, 2 * rem)) if j % 2 == 0]))
        mask = 1
        while mask < p2:
            flows = [(j, (real(index(j) ^ mask) - j) % P, size, 1) for j in range(Q)
                     if not (j < 2 * rem and j % 2 == 0)]
            steps.append((False, flows))
            mask <<= 1
        if rem:
            steps.append((True, [(j, P - 1, size, 1) for j in range(min(Q, 2 * rem)) if j % 2]))
        return [(blocking, flows) for blocking, flows in steps if flows]

    def seconds(self, traced, P):
        """(seconds, {term: seconds}) of a traced configuration, epoch by epoch (see the
        module's description), then the kernel's own MPI_Allreduce calls, each as the
        steps of SMPI's rdb algorithm (reduction_steps), priced as epochs of one message
        each way. With clocks: (seconds, {'clocks': seconds}) of clocked_seconds."""
        if self.clocks:
            total = self.clocked_seconds(traced, P)
            return total, {"clocks": total}
        Q = self.node_size(P)
        nodes = max(1, P // Q)
        terms = {"copy": 0.0, "overhead": 0.0, "intra": 0.0, "inter": 0.0}
        epochs = [(sends, recvs, copy, flows, False)
                  for sends, recvs, copy, flows in traced["epochs"]]
        for ranks, size in traced.get("reductions", ()):
            epochs += [(1, 1, 0.0, flows, blocking)
                       for blocking, flows in self.reduction_steps(ranks, size)]
        for sends, recvs, copy, flows, blocking in epochs:
            self.epoch(terms, sends, recvs, copy, flows, blocking, Q, nodes)
        return sum(terms.values()), terms

    def clocked_seconds(self, traced, P):
        """Seconds of a traced configuration with every rank's clock carried through its
        epochs, as SMPI runs ranks (see the module's description): node 0's ranks (rank
        n*Q + j keeps rank j's clock), the kernel's MPI_Allreduce first (rdb's steps), then
        its epochs; a rank starts an epoch when it has finished the one before (copies and
        overheads first) and finishes it when its receives have arrived (and its sends, from
        smpi/send-is-detached-thresh on: a detached send completes at once); a message
        moves once both ranks have posted it, after its latency, through the node's network
        link (for other nodes) or its memory link (when shared; else the loopback alone),
        the messages in flight on a link sharing it in proportion to their weights
        (share_weight: equal on the memory link), each link's rate the epoch's (the node
        link's bandwidth or, when it is slower, the topology's busiest link's share or
        SimGrid's max-min sharing of the step, held_seconds). Returns the latest rank's end."""
        import heapq
        p = self.p
        Q = self.node_size(P)
        nodes = max(1, P // Q)
        steps = [(1, 1, 0.0, flows, blocking)
                 for ranks, size in traced.get("reductions", ())
                 for blocking, flows in self.reduction_steps(ranks, size)]
        steps += [(sends, recvs, copy, flows, False)
                  for sends, recvs, copy, flows in traced["epochs"]]
        # per step: its messages [sender, receiver, latency, link (MEMORY, NETWORK or None:
        # a loopback of its own), work seconds at the link's full rate, sender waits, share
        # weight on the link (share_weight)], what each rank waits for, its start cost
        MEMORY, NETWORK = 0, 1   # the links of node 0 that its messages share
        plans = []
        for sends, recvs, copy, flows, blocking in steps:
            largest = max((b for _, _, b, _ in flows), default=0)
            msgs, loads, counts = [], {}, {}
            for local, offset, size, count in flows:
                wire = count * size / p.bw_factor(size)
                waits = size >= p.detached_below
                for j in range(Q) if local is None else (local,):
                    to = j + offset
                    d = (to // Q) % nodes
                    if d:
                        loads[d] = loads.get(d, 0.0) + wire
                        counts[d] = counts.get(d, 0) + count
                        msgs.append([j, to % Q, p.lat_factor(size) * self.worst_latency(nodes, d),
                                     NETWORK, wire, waits, self.share_weight(nodes, d)])
                    else:   # a shared memory link is the route both ways: cross-traffic
                        msgs.append([j, to % Q, p.lat_factor(size) * p.loop_lat,
                                     MEMORY if p.loop_shared else None,
                                     wire * (1.0 + self.cross if p.loop_shared else 1.0)
                                     / p.loop_bw, waits, 1.0])
            if loads:
                total = sum(loads.values())
                busy = max(self.own_link(total), self.busiest_link(nodes, loads))
                if self.cross and nodes <= HELD_MAX_NODES:
                    busy = max(busy, self.held_seconds(nodes, loads, counts))
                for m in msgs:   # the node link's work at the epoch's rate
                    if m[3] == NETWORK:
                        m[4] = m[4] * busy / total
            need = [0] * Q
            touches = [[] for _ in range(Q)]
            for i, (sender, receiver, _, _, _, sender_waits, _) in enumerate(msgs):
                need[receiver] += 1
                if sender_waits:
                    need[sender] += 1
                touches[sender].append(i)
                if receiver != sender:
                    touches[receiver].append(i)
            plans.append((copy + self.overhead(sends, recvs, largest, blocking), msgs, need,
                          touches, [0] * len(msgs), [0.0] * len(msgs)))
        # MEMORY's and NETWORK's [virtual time, real time, heap of (virtual end, seq, step,
        # message), the sum of its messages' weights]: a link's virtual time runs at
        # 1 / (the weights of its messages in flight), a message's share is its weight's
        links = [[0.0, 0.0, [], 0.0], [0.0, 0.0, [], 0.0]]
        events, seq, end = [], 0, [0.0] * Q

        def advance(link, t):
            """Moves a link's virtual time to real time t (its messages share it in proportion
            to their weights)."""
            if link[2]:
                link[0] += (t - link[1]) / link[3]
            link[1] = t

        def post(j, e, t):
            """Rank j starts step e at time t (past the last step: its end is t): after the
            step's start cost it posts its messages, each ready its latency after both its
            ranks have posted it; with nothing to wait for it starts step e + 1 at once."""
            nonlocal seq
            if e == len(plans):
                end[j] = t
                return
            cost, msgs, need, touches, posted, when = plans[e]
            t += cost
            if need[j] == 0:
                seq += 1
                heapq.heappush(events, (t, seq, "post", (j, e + 1)))
            for i in touches[j]:
                posted[i] += 1 if msgs[i][0] != msgs[i][1] else 2
                when[i] = max(when[i], t)
                if posted[i] == 2:
                    seq += 1
                    heapq.heappush(events, (when[i] + msgs[i][2], seq, "ready", (e, i)))

        def deliver(e, i, t):
            """Message i of step e has arrived at time t: its receiver (and its sender, when
            the send is not detached) waits for one message fewer; a rank that waits for
            none starts step e + 1 at t."""
            nonlocal seq
            _, msgs, need, _, _, _ = plans[e]
            sender, receiver, _, _, _, sender_waits, _ = msgs[i]
            for r in ((receiver, sender) if sender_waits else (receiver,)):
                need[r] -= 1
                if need[r] == 0:
                    seq += 1
                    heapq.heappush(events, (t, seq, "post", (r, e + 1)))

        for j in range(Q):
            post(j, 0, 0.0)
        while True:
            t_event = events[0][0] if events else None
            t_done, which = None, None
            for k, link in enumerate(links):
                if link[2]:
                    t = link[1] + (link[2][0][0] - link[0]) * link[3]
                    if t_done is None or t < t_done:
                        t_done, which = t, k
            if t_event is None and t_done is None:
                break
            if t_done is not None and (t_event is None or t_done <= t_event):
                link = links[which]
                advance(link, t_done)
                _, _, e, i = heapq.heappop(link[2])
                # the weights left in flight (summed afresh when none: no rounding drift)
                link[3] = link[3] - plans[e][1][i][6] if link[2] else 0.0
                deliver(e, i, t_done)
                continue
            t, _, kind, data = heapq.heappop(events)
            if kind == "post":
                post(data[0], data[1], t)
                continue
            e, i = data
            _, _, _, link_id, work, _, weight = plans[e][1][i]
            if kind == "done":
                deliver(e, i, t)
            elif link_id is None:   # a loopback no other message shares
                seq += 1
                heapq.heappush(events, (t + work, seq, "done", (e, i)))
            else:   # "ready": the message joins its link's sharing
                link = links[link_id]
                advance(link, t)
                seq += 1
                heapq.heappush(link[2], (link[0] + work / weight, seq, e, i))
                link[3] += weight
        return max(end)

    def epoch(self, terms, sends, recvs, copy, flows, blocking, Q, nodes):
        """Adds one epoch's seconds to terms (see the module's description)."""
        p = self.p
        largest = max((b for _, _, b, _ in flows), default=0)
        terms["copy"] += copy
        terms["overhead"] += self.overhead(sends, recvs, largest, blocking)
        intra = inter_lat = 0.0
        for local, offset, size, count in flows:
            wire = count * size / p.bw_factor(size)
            for d in {((j + offset) // Q) % nodes for j in (range(Q) if local is None else (local,))}:
                if d == 0:
                    intra = max(intra, p.lat_factor(size) * p.loop_lat + wire / p.loop_bw)
                else:
                    inter_lat = max(inter_lat,
                                    p.lat_factor(size) * self.worst_latency(nodes, d))
        loads = self.node_loads(flows, Q, nodes)
        if p.loop_shared and loads.get(0):   # one memory link for all of a node's messages
            intra = max(intra, p.loop_lat + loads[0] / p.loop_bw)
        inter = {d: w for d, w in loads.items() if d != 0}
        if inter:
            inter_lat += max(self.own_link(sum(inter.values())), self.busiest_link(nodes, inter))
        terms["inter" if inter_lat > intra else "intra"] += max(intra, inter_lat)


def _expand(text, env, where):
    try:
        return vlist.parse(text, env)
    except A2AError as e:
        raise A2AError("%s: %s" % (where, e))


def configurations(sweep, platform, sections=None, only_P=None, world=0):
    """[(section, kernel, P, S, params)] of the sweep's uniform sections the model covers,
    in sweep order, `world` (default: the platform's cores) standing for world in P lists;
    a list of (section, kernel) it skips and why."""
    capacity = platform.nodes * platform.cores
    world = world or capacity
    out, skipped = [], []
    for sec in sweep.sections:
        if sections and sec.name not in sections:
            continue
        get = lambda key, default=None: (sweep.setting(sec, key).value
                                         if sweep.setting(sec, key) else default)
        family = get("family", "uniform")
        kernels = [k.strip() for k in get("kernels", "").split(",") if k.strip()]
        if family not in ("uniform", "nonuniform"):
            skipped.append((sec.name, "family %s (the model covers the uniform and "
                                      "non-uniform families)" % family))
            continue
        dists = [None]
        if family == "nonuniform":
            dists = [d.strip() for d in get("dist", "uniform").split(",") if d.strip()]
            for d in dists:
                if d not in SEEDED_DISTS:
                    raise A2AError("%s [%s]: dist %s: the model traces the seeded distributions "
                                   "(%s)" % (sweep.shown, sec.name, d, ", ".join(sorted(SEEDED_DISTS))))
        seed = int(get("seed", "1"))
        for P in sweep.process_counts(sec, world):
            if only_P and P not in only_P:
                continue
            if P > capacity:
                raise A2AError("%s: P = %d needs more cores than %s has (%d)"
                               % (sweep.shown, P, platform.path, capacity))
            for kernel in kernels:
                if (kernel in NONUNIFORM) != (family == "nonuniform"):
                    why = "kernel %s of the %s family" % (kernel, family)
                    if (sec.name, why) not in skipped:
                        skipped.append((sec.name, why))
                    continue
                if kernel not in KERNEL_PARAMS:
                    why = "kernel %s (a2atrace runs %s)" % (kernel, ", ".join(KERNEL_PARAMS))
                    if (sec.name, why) not in skipped:
                        skipped.append((sec.name, why))
                    continue
                combos = [{} if d is None else {"dist": d, "seed": seed} for d in dists]
                for name in KERNEL_PARAMS[kernel]:
                    grown = []
                    for c in combos:
                        Q = c.get("ppn") or platform.cores
                        env = {"P": P, "Q": Q, "N": max(1, P // Q), "world": world}
                        values = _expand(get(name, "0" if name == "ppn" else "2"), env,
                                         "%s [%s] %s" % (sweep.shown, sec.name, name))
                        grown += [dict(c, **{name: v}) for v in values]
                    combos = grown
                for S in _expand(get("S", "16"), {"P": P, "world": world},
                                 "%s [%s] S" % (sweep.shown, sec.name)):
                    for c in combos:
                        out.append((sec.name, kernel, P, S, c))
    return out, skipped


def _valid(kernel, P, params, cores):
    """Why the kernel refuses these parameters at P, or None (the kernels' own ranges)."""
    r = params.get("radix")
    if kernel == "tra" and not 2 <= r <= max(2, P):
        return "radix %d outside [2, max(2, P)]" % r
    if "ppn" in KERNEL_PARAMS.get(kernel, ()):
        Q = params.get("ppn") or min(P, cores)   # the ranks of a node (ppn 0: the platform's)
        if P % Q:
            return "P = %d not a multiple of ppn %d" % (P, Q)
    if kernel == "tra2":
        N = P // Q
        if not (2 <= r <= max(2, Q) and 2 <= params["radix2"] <= max(2, N)):
            return "radix outside [2, Q] or radix2 outside [2, N]"
    if kernel == "scattered" and not 1 <= params["block_count"] <= P:
        return "block_count outside [1, P]"
    if kernel == "tuna" and not (2 <= r <= max(2, P) and 1 <= params["block_count"] <= r - 1):
        return "radix outside [2, max(2, P)] or block_count outside [1, radix - 1]"
    if kernel in ("tuna_staggered", "tuna_coalesced"):
        # inter-node exchanges a batch may hold: (N - 1) * Q one-block ones, or N - 1 rounds
        most = (P // Q - 1) * (Q if kernel == "tuna_staggered" else 1)
        if not (2 <= r <= max(2, Q) and 1 <= params["block_count"] <= max(1, most)):
            return "radix outside [2, max(2, Q)] or block_count outside [1, %d]" % max(1, most)
    return None


def _sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# what the model tier's figures are computed from (platforms and sweeps are recorded apart)
MODEL_SOURCES = ("scripts", "model", "kernels", "include", "Makefile")


def _git_revision():
    """The tree's `git describe --always`, with -dirty when a file of MODEL_SOURCES differs
    from it (an uncommitted edit of docs or data does not); 'unknown' outside git."""
    try:
        out = subprocess.run(["git", "-C", ROOT, "describe", "--always"],
                             capture_output=True, text=True, timeout=10)
        rev = out.stdout.strip()
        if not rev:
            return "unknown"
        diff = subprocess.run(["git", "-C", ROOT, "diff", "--quiet", "HEAD", "--"] +
                              list(MODEL_SOURCES), capture_output=True, timeout=10)
        return rev + ("-dirty" if diff.returncode != 0 else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def open_target(path):
    """A writable connection to the results database; a new one gets a2atune's schema from
    a2atune itself (`a2atune copybench` into a scratch file, its tables copied)."""
    from ..database.merge import open_target as merge_target, sync_schema
    conn = merge_target(path, False)
    if conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'runs'").fetchone()[0]:
        return conn
    from ..core.params import binary
    scratch = path + ".schema-%d" % os.getpid()
    try:
        rc = subprocess.call([binary(), "copybench", "--sizes", "1K", "--threads", "1",
                              "--quiet", "--db", scratch], stdout=subprocess.DEVNULL)
        if rc != 0:
            raise A2AError("%s copybench could not create a database (exit %d)" % (binary(), rc))
        src = sqlite3.connect(scratch)
        sync_schema(conn, src)
        src.close()
    finally:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(scratch + suffix):
                os.remove(scratch + suffix)
    return conn


def timing_options(parser):
    """--clocks (the default timing) and --epochs, one of them."""
    timing = parser.add_mutually_exclusive_group()
    timing.add_argument("--clocks", action="store_true",
                        help="every rank's clock carried through its epochs (a rank goes on "
                             "when its own messages are in, as in SMPI; links shared as "
                             "SimGrid's max-min shares them: in inverse proportion to route "
                             "latency, with its cross-traffic where the run's network model has "
                             "it): the default; recorded with the run (timing=clocks)")
    timing.add_argument("--epochs", action="store_true",
                        help="bulk-synchronous epochs instead of the clocks (every rank starts "
                             "a round when the slowest has ended the one before; links shared "
                             "equally, no cross-traffic); recorded with the run (timing=epochs)")


def add_parser(sub, common):
    """Registers `a2a model-run` and `a2a model-check`."""
    p = sub.add_parser(
        "model-run", help="the model tier: a sweep's uniform sections at any P in seconds",
        description="Evaluates each configuration of SWEEP's uniform sections (tra, tra2, "
                    "bruck, spread_out, pairwise, scattered) with the model tier: the kernel's "
                    "own schedule (a2atrace) under the platform's per-message costs, shared "
                    "node links, route latencies and the copy-cost model. Rows: backend = "
                    "model, validated = 0. Seconds per configuration at P = 16,384.",
        epilog="example:  a2a model-run sweeps/paper/tra_fig8_model.ini --platform "
               "platforms/dragonfly.xml --db results/model.db --check results/sim.db",
        formatter_class=common["formatter"])
    p.add_argument("sweep", metavar="SWEEP")
    p.add_argument("--platform", required=True, help="SimGrid platform file (platforms/*.xml)")
    p.add_argument("--db", required=True, help="results database (created if missing)")
    p.add_argument("--section", help="only these sections (comma-separated)")
    p.add_argument("--P", dest="only_P", help="only these process counts (comma-separated)")
    p.add_argument("--ranks-per-node", default=None, type=int, metavar="N",
                   help="ranks placed on each node, at most its cores (default: the platform's "
                        "cores; the TuNA paper ran 32 on Fugaku's 48-core nodes)")
    p.add_argument("--world", type=int, default=0,
                   help="the value of `world` in P lists (default: the platform's cores)")
    p.add_argument("--dry-run", action="store_true",
                   help="print how many configurations the sweep has and what it skips; run none")
    p.add_argument("--copy-model", default="none", metavar="MODEL|DB|none",
                   help="the copy-cost model as `a2a simulate` takes it (BYTES:GBPS,... or a "
                        "copybench database); default: %(default)s (copies free)")
    p.add_argument("--check", metavar="SIMDB",
                   help="a simulated database: the model's error against it (model-check on "
                        "the same platform) is stored with every row and printed")
    p.add_argument("--routing", choices=ROUTINGS, default="minimal",
                   help="minimal: SimGrid's routes, one lowest-latency route per pair of "
                        "nodes (what a simulation runs); adaptive: a flow between two routers "
                        "of one group also spread over Valiant's detours through the group's "
                        "other routers, in the share that leaves the busiest link least loaded "
                        "(platforms of explicit routers only; recorded as routing=adaptive in "
                        "the run's smpi_options). Default: %(default)s")
    timing_options(p)
    p.set_defaults(func=run, needs_db=False)
    c = sub.add_parser(
        "model-check", help="the model tier's error against SimGrid, per cell",
        description="Runs the model on every ok row of SIMDB that SimGrid simulated "
                    "(backend = simgrid, a kernel a2atrace runs; SMPI's ring `vendor` rows as "
                    "the pairwise schedule), each with the platform file whose sha256 its run "
                    "recorded (refused, one line, when none is found), the network model and "
                    "copy model its run recorded, and prints per cell the simulated and modelled "
                    "seconds and the error (model / simgrid - 1), then the median and worst "
                    "absolute error per kernel and overall. Nothing is fitted.",
        formatter_class=common["formatter"])
    c.add_argument("--db", required=True,
                   help="a database with simulated rows, or .sql dumps (comma-separated)")
    c.add_argument("--platforms", default=os.path.join(ROOT, "platforms"),
                   help="where to look for the runs' platform files by their sha256, besides "
                        "platforms/archive and tests/data (default: %(default)s)")
    c.add_argument("--P", dest="only_P", help="only these process counts (comma-separated)")
    c.add_argument("--quiet", action="store_true", help="only the summary lines")
    timing_options(c)
    c.set_defaults(func=check, needs_db=False)
    return p


def _ints(text):
    return {int(x) for x in text.split(",")} if text else None


def run(args, db):
    """`a2a model-run`: rows for every configuration; exit 0, or 1 if one failed."""
    del db
    from .simulate import copy_model
    platform = Platform(args.platform, routing=args.routing)
    if args.ranks_per_node is not None and not 1 <= args.ranks_per_node <= platform.cores:
        raise A2AError("--ranks-per-node %d: outside 1 .. %d (the cores of a node of %s)"
                       % (args.ranks_per_node, platform.cores, args.platform))
    sweep = Sweep(args.sweep)
    sections = [s.strip() for s in args.section.split(",")] if args.section else None
    configs, skipped = configurations(sweep, platform, sections, _ints(args.only_P), args.world)
    for name, why in skipped:
        sys.stderr.write("a2a model-run: [%s] skipped: %s\n" % (name, why))
    if not configs:
        raise A2AError("%s: no configuration the model covers" % args.sweep)
    if args.dry_run:
        print("%d configurations at P = %s" % (len(configs), ",".join(
            str(P) for P in sorted({c[2] for c in configs}))))
        return 0
    copies = copy_model(args.copy_model)
    threshold = cpu_threshold(args.platform)
    error = None
    if args.check:
        # every simulated cell of the modelled kernels, each on its own run's platform
        kernels = {k for _, k, _, _, _ in configs}
        cells = check_cells(args.check, os.path.dirname(os.path.abspath(args.platform)),
                            kernels=kernels, clocks=not args.epochs)
        error = summarize(cells, sys.stdout, quiet=True)
    conn = open_target(args.db)
    # recorded as a2a simulate records a launch on the platform without --cfg options, so
    # that model rows and simulated rows of one network model are known as such
    network = netmodel.effective(args.platform, [])
    model = CostModel(platform, args.ranks_per_node, not args.epochs)
    options = "model: a2atrace + cost model; %s allreduce=%s%s%s; copy-model=%s%s%s" % (
        platform.describe(), ALLREDUCE,
        " ranks-per-node=%d" % args.ranks_per_node if args.ranks_per_node else "",
        " timing=%s" % ("epochs" if args.epochs else "clocks"),
        copies or "none",
        " cpu-threshold=%g" % threshold if copies else "",
        "; error vs simgrid (%s): %s" % (args.check, error) if error else "")
    conn.execute("BEGIN")
    run_id = conn.execute(
        "INSERT INTO runs(started, status, host, nodes, world_size, ppn, cores_per_node, "
        "oversubscribed, mpi_library, git_revision, backend, sweep_file, sweep_text, "
        "command_line, platform, platform_sha256, smpi_options, network_model) VALUES (?, "
        "'running', ?, ?, ?, ?, ?, 0, 'model (a2atrace: tracing MPI layer)', ?, 'model', ?, ?, "
        "?, ?, ?, ?, ?)",
        (_now(), socket.gethostname(), platform.nodes, platform.nodes * platform.cores,
         model.ranks_per_node, platform.cores, _git_revision(), os.path.abspath(args.sweep), sweep.text,
         " ".join(sys.argv), os.path.basename(args.platform), _sha256(args.platform),
         options, json.dumps(network))).lastrowid
    conn.execute("COMMIT")
    failed = 0
    t_all = time.time()
    for i, (section, kernel, P, S, params) in enumerate(configs):
        t0 = time.time()
        why = _valid(kernel, P, params, platform.cores)
        traced, status, seconds, stats = None, "skipped", None, (None,) * 4
        if not why:
            traced, why = trace(kernel, P, S, model.node_size(P), params, copies, threshold)
            status = "error" if why else "ok"
        if traced:
            seconds, _ = model.seconds(traced, P)
            stats = traced["stats"]
            why = "modelled; %s" % trace_cost(traced) + (
                "; error vs simgrid: %s" % error if error else "")
        failed += status == "error"
        family = "nonuniform" if kernel in NONUNIFORM else "uniform"
        key = "%s|%s|%s|P=%d|S=%d|%s" % (family, section, kernel, P, S, "|".join(
            "%s=%s" % kv for kv in sorted(params.items())))
        kernel_params = {k: v for k, v in params.items() if k not in ("dist", "seed")}
        columns = param_columns()   # radix, radix2, ...: each parameter's own column
        conn.execute(
            "INSERT OR REPLACE INTO results(run_id, config_key, section, family, kernel, P, Q, S, "
            "dist, %s, params, iterations, warmup, median_s, "
            "q1_s, q3_s, min_s, max_s, mean_s, stddev_s, rounds, blocks, bytes_sent, messages, "
            "status, message, started, ended, validated, seed) VALUES (?, ?, ?, ?, ?, ?, ?, "
            "?, ?, %s?, 1, 0, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)"
            % (", ".join(columns), "?, " * len(columns)),
            (run_id, key, section, family, kernel, P, model.node_size(P), S,
             params.get("dist", "constant")) + tuple(params.get(c) for c in columns)
            + (json.dumps(kernel_params), seconds, seconds, seconds, seconds, seconds, seconds)
            + tuple(stats) + (status, why, _now(), _now(), params.get("seed")))
        tracer = ", " + trace_cost(traced) if traced else ""
        sys.stderr.write("a2a model-run: [%d/%d] %s P = %d S = %d %s: %s (%.2f s%s)\n"
                         % (i + 1, len(configs), kernel, P, S, json.dumps(params),
                            "%.4g us" % (seconds * 1e6) if seconds else why, time.time() - t0,
                            tracer))
    conn.execute("UPDATE runs SET status = 'done', ended = ? WHERE id = ?", (_now(), run_id))
    conn.close()
    sys.stderr.write("a2a model-run: %d configurations in %.1f s -> %s (backend = model)\n"
                     % (len(configs), time.time() - t_all, args.db))
    return 1 if failed else 0


def _open_any(paths):
    """A connection to a database file, or to .sql dumps (comma-separated, loaded in
    order: a later one may add rows to an earlier one's runs) in memory."""
    paths = paths.split(",")
    for path in paths:
        if not os.path.exists(path):
            raise A2AError("%s: no such database" % path)
    if not all(p.endswith(".sql") for p in paths):
        if len(paths) > 1:
            raise A2AError("%s: one database file, or .sql dumps" % ",".join(paths))
        return sqlite3.connect("file:%s?mode=ro" % paths[0], uri=True)
    conn = sqlite3.connect(":memory:")
    for path in paths:
        with open(path) as f:
            try:
                conn.executescript(f.read())
            except sqlite3.Error as e:
                raise A2AError("%s: %s" % (path, e))
    return conn


# where check_cells looks for a run's platform file by its sha256, besides --platforms: the
# files older checked-in simulated rows were made on (platforms/archive/README.md)
ARCHIVES = (os.path.join(ROOT, "platforms", "archive"), os.path.join(ROOT, "tests", "data"))


def platform_files(dirs):
    """{sha256: path} of every .xml file directly in dirs (the first of equal files)."""
    found = {}
    for d in dirs:
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(".xml"):
                found.setdefault(_sha256(os.path.join(d, name)), os.path.join(d, name))
    return found


def check_cells(path, platforms, only_P=None, err=sys.stderr, kernels=None, clocks=True):
    """[(kernel, P, S, params, simgrid seconds, model seconds)] of every simulated ok row
    of path the model covers (of these kernels only, when given), each priced with exactly the platform its run was simulated
    on (the file in `platforms` or ARCHIVES whose sha256 the run recorded) and the network
    model its run recorded (runs.network_model; SMPI 3.32's defaults under the run's SMPI
    options when NULL); clocks: CostModel's clocks. A run whose platform file is not
    found: one line on err, its rows left out."""
    conn = _open_any(path)
    conn.row_factory = sqlite3.Row
    runs = {r["id"]: r for r in conn.execute("SELECT * FROM runs WHERE backend = 'simgrid'")}
    have = {r[0] for r in conn.execute("SELECT name FROM pragma_table_info('results')")}
    columns = [c for c in param_columns() if c in have]   # radix, radix2, ...
    rows = conn.execute(
        "SELECT r.run_id, r.kernel, r.P, r.S, %s"
        "r.median_s, r.family, r.dist, r.seed FROM results r JOIN runs u ON u.id = r.run_id "
        "WHERE u.backend = 'simgrid' AND r.status = 'ok' AND ((r.family = 'uniform' "
        "AND r.dist = 'constant') OR (r.family = 'nonuniform' AND r.kernel IN (%s) AND "
        "IFNULL(r.dist_params, '{}') = '{}' AND IFNULL(r.payload, 'pattern') = 'pattern' AND "
        "IFNULL(r.datatype, 'byte') = 'byte')) ORDER BY r.kernel, r.P, r.S, r.radix"
        % ("".join("r.%s, " % c for c in columns),
           ", ".join("'%s'" % k for k in sorted(NONUNIFORM)))).fetchall()
    conn.close()
    files = platform_files((platforms,) + ARCHIVES)
    cells, models, missing, other_reduction = [], {}, {}, {}
    for row in rows:
        run_id, kernel, P, S = row["run_id"], row["kernel"], row["P"], row["S"]
        sim, family, dist, seed = row["median_s"], row["family"], row["dist"], row["seed"]
        if (only_P and P not in only_P) or (kernels is not None and kernel not in kernels):
            continue
        run = runs[run_id]
        options = run["smpi_options"] or ""
        schedule = kernel
        if kernel == "vendor":
            selector = next((o.split(":")[1] for o in options.split()
                             if o.startswith("--cfg=smpi/alltoall:")), "")
            schedule = VENDOR_SCHEDULES.get(selector)
        if schedule not in KERNEL_PARAMS:
            continue
        reduce_with = next((o.split(":")[1] for o in options.split()
                            if o.startswith("--cfg=smpi/allreduce:")), None)
        if schedule in NONUNIFORM and reduce_with != ALLREDUCE:
            other_reduction.setdefault(run_id, [reduce_with or "its selector's", 0])[1] += 1
            continue
        sha = run["platform_sha256"]
        if sha not in files:
            missing.setdefault(run_id, 0)
            missing[run_id] += 1
            continue
        if run_id not in models:
            recorded = netmodel.recorded(run)
            key = (files[sha], netmodel.identity(recorded))
            found = next((m for k, m, _ in models.values() if k == key), None)
            models[run_id] = (key, found or CostModel(Platform(files[sha], options, recorded),
                                                        clocks=clocks),
                              cpu_threshold(files[sha], options))
        model, threshold = models[run_id][1:]
        copies = next((o.split("=", 1)[1] for o in options.split()
                       if o.startswith("copy-model=")), "none")
        params = {c: row[c] for c in columns if row[c] is not None}
        if family == "nonuniform":
            if dist not in SEEDED_DISTS:
                continue
            params.update(dist=dist, seed=seed if seed is not None else 1)
        traced, why = trace(schedule, P, S, model.node_size(P), params,
                            "" if copies == "none" else copies, threshold)
        if traced:
            cells.append((kernel, P, S, params, sim, model.seconds(traced, P)[0]))
    for run_id, count in sorted(missing.items()):
        err.write("a2a model-check: %s: run %d's %d row(s) refused: no platform file with the "
                  "sha256 it recorded (%s %s) in %s\n"
                  % (path, run_id, count, runs[run_id]["platform"],
                     (runs[run_id]["platform_sha256"] or "none")[:12],
                     ", ".join((platforms,) + ARCHIVES)))
    for run_id, (algorithm, count) in sorted(other_reduction.items()):
        err.write("a2a model-check: %s: run %d's %d row(s) refused: their kernels' MPI_Allreduce "
                  "ran as %s, the model prices SMPI's %s\n"
                  % (path, run_id, count, algorithm, ALLREDUCE))
    return cells


def summarize(cells, out, quiet=False):
    """Prints the cells (unless quiet) and the median and worst |error| per kernel and
    overall; returns the overall summary text."""
    if not cells:
        raise A2AError("no simulated cell the model covers")
    if not quiet:
        out.write("%-10s %6s %7s %-22s %12s %12s %8s\n"
                  % ("kernel", "P", "S", "params", "simgrid_us", "model_us", "error"))
        for kernel, P, S, params, sim, mod in cells:
            out.write("%-10s %6d %7d %-22s %12.3f %12.3f %+7.1f%%\n"
                      % (kernel, P, S, json.dumps(params, separators=(",", ":")), sim * 1e6,
                         mod * 1e6, 100 * (mod / sim - 1)))
    text = None
    for kernel in sorted({c[0] for c in cells}) + [None]:
        errs = [abs(m / s - 1) for k, _, _, _, s, m in cells if kernel in (None, k)]
        line = "median %.1f %%, worst %.1f %% (%d cells)" % (
            100 * statistics.median(errs), 100 * max(errs), len(errs))
        out.write("%-10s %s\n" % (kernel or "all", line))
        text = line
    # the radix each would choose, per (kernel, P, S) with several radices
    groups = {}
    for kernel, P, S, params, sim, mod in cells:
        if "radix" in params:
            key = (kernel, P, S, params.get("dist"), params.get("block_count"), params.get("ppn"))
            groups.setdefault(key, []).append((sim, mod))
    groups = [g for g in groups.values() if len(g) > 1]
    if groups:
        same = sum(min(g)[0] == min(g, key=lambda c: c[1])[0] for g in groups)
        lost = [min(g, key=lambda c: c[1])[0] / min(g)[0] - 1 for g in groups]
        out.write("best radix: the model's is SimGrid's in %d of %d (kernel, P, S); choosing "
                  "the model's costs SimGrid time: median %.1f %%, worst %.1f %%\n"
                  % (same, len(groups), 100 * statistics.median(lost), 100 * max(lost)))
    return text


def check(args, db):
    """`a2a model-check`: exit 0 (the error is a measurement, not a verdict)."""
    del db
    cells = check_cells(args.db, args.platforms, _ints(args.only_P), clocks=not args.epochs)
    summarize(cells, sys.stdout, args.quiet)
    return 0
