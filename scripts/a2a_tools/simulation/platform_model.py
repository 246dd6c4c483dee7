"""The network a SimGrid platform file describes, as the model tier (`a2a model-run`) reads
it: nodes and their cores, the node's own link (its injection bandwidth, shared by its
ranks), the intra-node transport (loopback), the topology's route lengths, and SMPI's
per-message factors and overheads.

Read from any SimGrid 4.1 platform: its first <cluster> tag (flat, or with topology =
FAT_TREE, DRAGONFLY or TORUS and its topo_parameters; bw, lat, loopback_bw, loopback_lat,
bb_bw, bb_lat, core, radical), or else its <host>s, <router>s, <link>s and
<route>/<zoneRoute>s as a graph (GraphNetwork: each host one node), and
the network model as netmodel.py reads it (the <config> block's smpi/bw-factor,
smpi/lat-factor, smpi/os, smpi/or, smpi/ois, smpi/send-is-detached-thresh,
network/crosstraffic: CROSSTRAFFIC_SHARE below, and network/weight-S: Platform.penalty;
other SimGrid options are recorded but not modelled). Options given with the
run (--cfg=smpi/os:...) override the
file, and a run's recorded model (runs.network_model) overrides both. What nobody set is
SimGrid 3.32's default: its SMPI bandwidth and latency factors (fitted on Ethernet) and
zero overheads."""
import re
import xml.etree.ElementTree as ET

from ..core import netmodel
from ..core.common import A2AError
from .simulate import _radical

NETWORK_PROPS = ("smpi/bw-factor", "smpi/lat-factor", "smpi/os", "smpi/or", "smpi/ois",
                 "smpi/send-is-detached-thresh", "network/crosstraffic", "network/weight-S")

# SimGrid 3.32's cross-traffic (network/crosstraffic, on by default): a flow from a to b also
# consumes this fraction of its rate on every link of b's route back to a, as TCP's
# acknowledgements would (src/surf/network_cm02.cpp, NetworkCm02Model::
# comm_action_expand_constraints: each back-route link is expanded with weight .05; on one
# SHARED link the two weights add). Measured with SimGrid 3.32, 10 MB over a 1 GB/s link,
# factors 1: alone 10.0 ms on a SPLITDUPLEX link, 10.5 ms on a SHARED one; against a flow the
# other way 10.5 ms on SPLITDUPLEX (20.0 ms without cross-traffic: 10.0)
CROSSTRAFFIC_SHARE = 0.05

# how the model routes a flow between two nodes: minimal, SimGrid's one lowest-latency route
# per pair (the default, what a simulation runs); adaptive, that route and Valiant's detours
# through the other routers of the group, in the shares that leave the busiest link least
# loaded (model_run.CostModel.busiest_link; docs/results/model_tier.md)
ROUTINGS = ("minimal", "adaptive")

_UNITS_BW = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "ki": 2 ** 10, "mi": 2 ** 20,
             "gi": 2 ** 30, "ti": 2 ** 40}
_UNITS_TIME = {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12, "m": 60, "h": 3600}


def bandwidth(text, where):
    """Bytes per second of '25GBps', '200Gbps', '10GiBps' or a bare number (bytes/s)."""
    m = re.fullmatch(r"\s*([\d.eE+-]+)\s*([kKmMgGtT]i?)?([Bb]ps|[Bb]/s)?\s*", text or "")
    if not m:
        raise A2AError("%s: '%s' is not a bandwidth (e.g. 25GBps, 200Gbps)" % (where, text))
    value = float(m.group(1)) * _UNITS_BW[(m.group(2) or "").lower()]
    return value / 8 if m.group(3) and m.group(3)[0] == "b" else value


def duration(text, where):
    """Seconds of '0.35us', '1ms', '2e-6' (seconds)."""
    m = re.fullmatch(r"\s*([\d.eE+-]+)\s*(s|ms|us|ns|ps|m|h)?\s*", text or "")
    if not m:
        raise A2AError("%s: '%s' is not a latency (e.g. 0.35us)" % (where, text))
    return float(m.group(1)) * _UNITS_TIME[m.group(2) or "s"]


class Piecewise:
    """SMPI's size-dependent factor 'threshold:value;...' (value of the largest threshold
    at most the size), or its overhead 'threshold:offset:per_byte;...' (offset + size x
    per_byte); further values of a section are ignored, as SimGrid does."""

    def __init__(self, text, where):
        self.text = text
        self.pieces = []
        for item in filter(None, (t.strip() for t in text.split(";"))):
            parts = item.split(":")
            try:
                nums = [float(p) for p in parts]
            except ValueError:
                nums = []
            if len(nums) < 2:
                raise A2AError("%s: '%s' is not 'bytes:value' or 'bytes:offset:per_byte'"
                               % (where, item))
            # SimGrid reads the first values of a section and ignores the rest (its
            # default overhead is '0:0:0:0:0')
            self.pieces.append((nums[0], nums[1], nums[2] if len(nums) > 2 else 0.0))
        self.pieces.sort()

    def __call__(self, size, overhead=False):
        chosen = (0.0, 0.0 if overhead else 1.0, 0.0)
        for piece in self.pieces:
            if size >= piece[0]:
                chosen = piece
        return chosen[1] + chosen[2] * size if overhead else chosen[1]


class Topology:
    """The number of links on the route between two nodes."""

    def __init__(self, kind, params, nodes, where, backbone=False):
        self.kind, self.nodes, self.backbone = kind, nodes, backbone
        try:
            levels = [[int(x) for x in part.split(",")] for part in params.split(";")] if params else []
        except ValueError:
            raise A2AError("%s: topo_parameters '%s' are not numbers" % (where, params))
        self.levels = levels
        if kind == "DRAGONFLY":
            if len(levels) != 4:
                raise A2AError("%s: DRAGONFLY needs 'groups,links;chassis,links;routers,links;"
                               "nodes'" % where)
            self.per = [levels[3][0], levels[2][0], levels[1][0]]  # nodes/router, routers/chassis, chassis/group
        elif kind == "FAT_TREE":
            if len(levels) < 2:
                raise A2AError("%s: FAT_TREE needs 'levels;down,...;up,...;parallel,...'" % where)
            self.down = levels[1]
        elif kind == "TORUS":
            self.dims = levels[0] if levels else [nodes]

    def route(self, a, b):
        """The network links between node a and node b (a != b), beyond the two nodes' own
        links, as (link id, capacity in multiples of the cluster's link bandwidth), on
        SimGrid's route for the topology; links are directional (one capacity each way)."""
        if self.kind == "DRAGONFLY":
            return self._dragonfly(a, b)
        if self.kind == "FAT_TREE":
            return self._fat_tree(a, b)
        if self.kind == "TORUS":
            return self._torus(a, b)
        return [(("backbone",), 1.0)] if self.backbone else []  # flat: one shared backbone

    def _dragonfly(self, a, b):
        # routers: (group, chassis, blade); green links join the blades of a chassis, black
        # links the same blade of the chassis of a group, blue (global) links the groups;
        # `links` parallel links are one link of that many times the bandwidth
        per_router, blades, chassis = self.per
        green, black, blue = self.levels[2][1], self.levels[1][1], self.levels[0][1]
        ra, rb = a // per_router, b // per_router
        if ra == rb:
            return []
        coords = lambda r: (r // (blades * chassis), (r // blades) % chassis, r % blades)
        (ga, ca, ba), (gb, cb, bb) = coords(ra), coords(rb)
        hops = []

        def walk(src, dst):
            g, c, b = src
            if b != dst[2]:
                hops.append((("green", g, c, b, dst[2]), green))
            if c != dst[1]:
                hops.append((("black", g, c, dst[1], dst[2]), black))

        if ga == gb:
            walk((ga, ca, ba), (gb, cb, bb))
        else:
            # the gateway of group g towards group h: the router whose index is h's rank
            # among the other groups (spread over the group's routers)
            gate = lambda g, h: (h - (h > g)) % (blades * chassis)
            out, back = gate(ga, gb), gate(gb, ga)
            walk((ga, ca, ba), (ga, out // blades, out % blades))
            hops.append((("blue", ga, gb), blue))
            walk((gb, back // blades, back % blades), (gb, cb, bb))
        return hops

    def _fat_tree(self, a, b):
        # up through the level whose subtree holds both; the parent taken by destination
        # (d-mod-k), the same switches on the way down
        hops, span = [], 1
        ups = self.levels[2] if len(self.levels) > 2 else [1] * len(self.down)
        for level, down in enumerate(self.down):
            span *= down
            if a // span == b // span:
                break
            parent = b % max(1, ups[level + 1] if level + 1 < len(ups) else 1)
            hops.append((("up", level, a // span, parent), 1.0))
            hops.append((("down", level, b // span, parent), 1.0))
        return hops

    def _torus(self, a, b):
        hops, stride, here = [], 1, a
        for d in self.dims:
            x, y = (here // stride) % d, (b // stride) % d
            step = 1 if (y - x) % d <= d // 2 else -1
            while x != y:
                hops.append((("torus", here, stride, step), 1.0))
                nx = (x + step) % d
                here += (nx - x) * stride
                x = nx
            stride *= d
        return hops


class Platform:
    """A platform file read for the model (see the module's description)."""

    def __init__(self, path, options="", model=None, routing="minimal"):
        """model: the network model ({option: [value, source]}, netmodel's form) the
        platform is priced with; by default the one a launch on it with options (an
        smpirun's --cfg=... text) runs with, netmodel.effective. routing: ROUTINGS' minimal
        (SimGrid's routes) or adaptive (a platform of explicit routers only: detours)."""
        self.path = path
        if routing not in ROUTINGS:
            raise A2AError("routing '%s': one of %s" % (routing, ", ".join(ROUTINGS)))
        self.routing = routing
        try:
            root = ET.parse(path).getroot()
        except OSError as e:
            raise A2AError("%s: cannot read the platform file: %s" % (path, e.strerror or e))
        except ET.ParseError as e:
            raise A2AError("%s:%d: not a well-formed platform file" % (path, e.position[0]))
        if root.tag != "platform":
            raise A2AError("%s: not a SimGrid platform file (root <%s>)" % (path, root.tag))
        if model is None:
            model = netmodel.effective(path, re.findall(r"--cfg=(\S+)", options or ""))
        props = {k: v[0] for k, v in model.items() if isinstance(v, list)}
        self.props = {k: v for k, v in props.items() if k in NETWORK_PROPS}
        self._routes = {}
        self.bw_factor = Piecewise(props.get("smpi/bw-factor", netmodel.DEFAULTS["smpi/bw-factor"]), path)
        self.lat_factor = Piecewise(props.get("smpi/lat-factor", netmodel.DEFAULTS["smpi/lat-factor"]), path)
        self.send_overhead = Piecewise(props.get("smpi/os", ""), path)
        self.recv_overhead = Piecewise(props.get("smpi/or", ""), path)
        self.isend_overhead = Piecewise(props.get("smpi/ois", ""), path)
        cross = props.get("network/crosstraffic", netmodel.DEFAULTS["network/crosstraffic"])
        cross_on = {"yes": True, "on": True, "true": True, "1": True,
                    "no": False, "off": False, "false": False, "0": False}.get(
                        str(cross).strip().lower())   # SimGrid's boolean spellings
        if cross_on is None:
            raise A2AError("%s: network/crosstraffic '%s' is not yes or no" % (path, cross))
        # what each message also puts on its reverse route's links, as a share of its bytes
        self.cross_share = CROSSTRAFFIC_SHARE if cross_on else 0.0
        weight_s = props.get("network/weight-S", netmodel.DEFAULTS["network/weight-S"])
        try:
            # SimGrid's network/weight-S: bytes/s x seconds added per link of a route to a
            # flow's sharing penalty (SMPI's model: 8775 unless set)
            self.weight_s = float(weight_s)
        except ValueError:
            raise A2AError("%s: network/weight-S '%s' is not a number" % (path, weight_s))
        thresh = props.get("smpi/send-is-detached-thresh",
                           netmodel.DEFAULTS["smpi/send-is-detached-thresh"])
        try:
            self.detached_below = int(thresh)
        except ValueError:
            raise A2AError("%s: smpi/send-is-detached-thresh '%s' is not a number of bytes"
                           % (path, thresh))
        clusters = list(root.iter("cluster"))
        if clusters:
            self._cluster(clusters[0], path)
        else:
            self._hosts(root, path)
        if routing == "adaptive" and self.topology is not None:
            raise A2AError("%s: adaptive routing is modelled on platforms of explicit routers "
                           "(a2a platform's), not on a <cluster>" % path)

    def _cluster(self, el, path):
        where = "%s: cluster '%s'" % (path, el.get("id"))
        self.nodes = len(_radical(el.get("radical", ""), where))
        self.cores = int(el.get("core", "1"))
        self.link_bw = bandwidth(el.get("bw"), where)
        self.link_lat = duration(el.get("lat"), where)
        no_loopback = not (el.get("loopback_bw") or el.get("loopback_lat"))
        if el.get("limiter_link") and no_loopback and el.get("topology", "").upper() == "TORUS":
            # no loopback on a torus: SimGrid's TORUS zone sends a node's messages to itself
            # through its limiter link alone (no torus link, no latency), shared by the
            # node's flows
            self.loop_bw = bandwidth(el.get("limiter_link"), where)
            self.loop_lat = 0.0
            self.loop_shared = True
        elif el.get("limiter_link") and no_loopback:
            # no loopback elsewhere (fat tree): a node's messages to itself go out and back
            # through its own link and its limiter link, which every flow of the node shares
            self.loop_bw = min(bandwidth(el.get("limiter_link"), where), self.link_bw)
            self.loop_lat = 2 * self.link_lat
            self.loop_shared = True
        else:
            self.loop_bw = bandwidth(el.get("loopback_bw", "498MBps"), where)
            self.loop_lat = duration(el.get("loopback_lat", "15us"), where)
            self.loop_shared = False  # a cluster's loopback is a FATPIPE
        self.backbone_lat = duration(el.get("bb_lat", "0"), where)
        self.backbone_factor = 1.0
        self.topology = Topology(el.get("topology", "FLAT").upper(), el.get("topo_parameters", ""),
                                 self.nodes, where, backbone=el.get("bb_bw") is not None)
        if el.get("bb_bw") is not None:
            self.backbone_factor = bandwidth(el.get("bb_bw"), where) / self.link_bw

    def _hosts(self, root, path):
        self.graph = GraphNetwork(root, path)
        self.nodes, self.cores = len(self.graph.hosts), self.graph.cores
        self.link_bw = None  # a node's own link is one of its routes' links
        self.loop_lat, self.loop_bw, self.loop_shared = self.graph.loopback()
        self.topology = None

    def route(self, a, b):
        """The route between nodes a and b (a != b): ([(shared link id, bytes/s)], seconds of
        latency over all its links, the nodes' own two included); memoised (a dragonfly's
        routes depend on the routers only)."""
        topo = self.topology
        if topo is None:
            return self.graph.route(a, b)
        key = (a // topo.per[0], b // topo.per[0]) if topo.kind == "DRAGONFLY" else (a, b)
        hit = self._routes.get(key)
        if hit is None:
            links = topo.route(a, b)
            hops = 2 + len(links) if topo.kind in ("DRAGONFLY", "FAT_TREE", "TORUS") else 2
            hit = ([(link, self.link_bw * (self.backbone_factor if link == ("backbone",) else cap))
                    for link, cap in links], hops * self.link_lat + self.backbone_lat)
            self._routes[key] = hit
        return hit

    def detours(self, a, b):
        """The non-minimal paths adaptive routing spreads a flow from node a to node b over
        besides its minimal route (GraphNetwork.detours); none under minimal routing."""
        return self.graph.detours(a, b) if self.routing == "adaptive" else []

    def penalty(self, a, b):
        """SimGrid 3.32's sharing penalty of a flow from node a to node b (a != b): its route's
        latency (the links' own, before smpi/lat-factor) plus, when network/weight-S is
        above 0 (SimGrid adds nothing otherwise), weight-S over each link's bandwidth, the
        two nodes' own links included (NetworkCm02Model::communicate); always above 0: a
        flow whose route has no latency starts with penalty 1 and keeps it. On a saturated
        link, flows get rates in inverse proportion to their penalties."""
        links, latency = self.route(a, b)
        if latency <= 0:
            return 1.0
        if self.weight_s <= 0:
            return latency
        ends = [self.link_bw, self.link_bw] if self.topology else []
        return latency + self.weight_s * sum(1.0 / bw for bw in [b for _, b in links] + ends)

    def describe(self):
        """One line naming the network model's parameters (recorded with model rows)."""
        link = ("link=%.4gGB/s,%.3gus" % (self.link_bw / 1e9, self.link_lat * 1e6)
                if self.topology else "links=%d" % len(self.graph.links))
        return ("nodes=%d cores=%d %s loopback=%.4gGB/s,%.3gus%s topology=%s "
                "bw-factor=%s lat-factor=%s os=%s or=%s ois=%s detached-below=%d weight-S=%g"
                % (self.nodes, self.cores, link, self.loop_bw / 1e9, self.loop_lat * 1e6,
                   " shared" if self.loop_shared else "",
                   self.topology.kind if self.topology else "routes",
                   self.bw_factor.text, self.lat_factor.text, self.send_overhead.text or "0",
                   self.recv_overhead.text or "0", self.isend_overhead.text or "0",
                   self.detached_below, self.weight_s)
                + (" routing=%s" % self.routing if self.routing != "minimal" else ""))


class GraphNetwork:
    """A platform of explicit <host>s, <router>s, <link>s and <route>/<zoneRoute>s: every
    route an edge from its source (gw_src) to its destination (gw_dst) carrying its links
    (and back, unless symmetrical="NO"); a route from a host to itself is its loopback.
    Node-to-node routes are the lowest-latency paths (SimGrid's Dijkstra routing; Full and
    Floyd zones list their routes, which are edges here). A SPLITDUPLEX link is two
    links, one per direction; a FATPIPE link is never shared."""

    def __init__(self, root, path):
        self.hosts = [h.get("id") for h in root.iter("host")]
        if not self.hosts:
            raise A2AError("%s: the platform has no <cluster> and no <host>" % path)
        self.cores = int(next(root.iter("host")).get("core", "1"))
        self.index = {h: i for i, h in enumerate(self.hosts)}
        self.links = {}
        for l in root.iter("link"):
            where = "%s: link '%s'" % (path, l.get("id"))
            self.links[l.get("id")] = (bandwidth(l.get("bandwidth"), where),
                                       duration(l.get("latency", "0"), where),
                                       l.get("sharing_policy", "SHARED").upper())
        self.edges, self.self_routes = {}, {}
        for el in root.iter():
            if el.tag not in ("route", "zoneRoute"):
                continue
            a, b = el.get("gw_src") or el.get("src"), el.get("gw_dst") or el.get("dst")
            hops = []
            for ctn in el.iter("link_ctn"):
                if ctn.get("id") not in self.links:
                    raise A2AError("%s: a route names link '%s', which is not declared"
                                   % (path, ctn.get("id")))
                hops.append((ctn.get("id"), (ctn.get("direction") or "UP").upper()))
            if a == b:
                self.self_routes[a] = hops
                continue
            self.edges.setdefault(a, []).append((b, hops))
            if (el.get("symmetrical") or "YES").upper() != "NO":
                back = [(i, "DOWN" if d == "UP" else "UP") for i, d in reversed(hops)]
                self.edges.setdefault(b, []).append((a, back))
        self._from, self._paths, self._detours = {}, {}, {}
        # a2a platform's dragonfly switches are ROUTER-sw<group>-<row>-<column>; a router
        # named otherwise is in group 0 (a hand-made platform: one group)
        self.routers = {r.get("id"): int(m.group(1)) if m else 0
                        for r in root.iter("router")
                        for m in [re.search(r"-sw(\d+)-\d+-\d+$", r.get("id"))]}
        self.router_of = {h: next((w for w, _ in self.edges.get(h, ()) if w in self.routers),
                                  None) for h in self.hosts}

    def _latency(self, hops):
        return sum(self.links[i][1] for i, _ in hops)

    def _shared(self, hops):
        """[(link id, bytes/s)] of the hops that flows share (FATPIPE links are not)."""
        out = []
        for i, d in hops:
            bw, _, policy = self.links[i]
            if policy != "FATPIPE":
                out.append(((i, d if policy == "SPLITDUPLEX" else None), bw))
        return out

    def loopback(self):
        """(latency, bandwidth, shared) of node 0's route to itself."""
        hops = self.self_routes.get(self.hosts[0])
        if not hops:  # SimGrid's default loopback: a FATPIPE of 10 GB/s... per host zone
            return 0.0, float("inf"), False
        bw = min(self.links[i][0] for i, _ in hops)
        return (self._latency(hops), bw,
                any(self.links[i][2] != "FATPIPE" for i, _ in hops))

    def _search(self, src):
        """({vertex: latency}, {vertex: [(link id, direction)]}, {vertex: the vertex before
        it}) of the lowest-latency paths from vertex src (a host or a router) to every vertex
        it reaches: SimGrid's Dijkstra."""
        import heapq
        best, paths, before, queue = {src: 0.0}, {src: []}, {src: None}, [(0.0, src)]
        while queue:
            t, v = heapq.heappop(queue)
            if t > best.get(v, float("inf")):
                continue
            for w, hops in self.edges.get(v, ()):
                tw = t + self._latency(hops)
                if tw < best.get(w, float("inf")):
                    best[w], paths[w], before[w] = tw, paths[v] + hops, v
                    heapq.heappush(queue, (tw, w))
        return best, paths, before

    def detours(self, a, b):
        """[[(shared link id, bytes/s)]...]: the non-minimal paths from host a to host b
        (indexes) that adaptive routing adds to the minimal one (Valiant's, inside a
        group): through each other router of the group of a's and b's routers, in file
        order, a minimal path to it and a minimal path on to b's router, each path with the
        two hosts' own links; an intermediate router whose first leg passes through b's
        router, or whose second leg passes through a's, is left out. [] when a and b hang
        off one router or their routers are in different groups (those flows stay
        minimal). Memoised per pair of routers."""
        ha, hb = self.hosts[a], self.hosts[b]
        ra, rb = self.router_of[ha], self.router_of[hb]
        if ra is None or rb is None or ra == rb or self.routers[ra] != self.routers[rb]:
            return []
        if (ra, rb) not in self._detours:
            legs = []
            for mid, group in self.routers.items():
                if mid in (ra, rb) or group != self.routers[ra]:
                    continue
                first, second = self._router_paths(ra), self._router_paths(mid)
                if mid not in first[1] or rb not in second[1]:
                    continue
                if rb in self._through(first[2], mid) or ra in self._through(second[2], rb):
                    continue
                legs.append(first[1][mid] + second[1][rb])
            self._detours[(ra, rb)] = legs
        up = next(h for w, h in self.edges[ha] if w == ra)
        down = next(h for w, h in self.edges[rb] if w == hb)
        return [self._shared(up + leg + down) for leg in self._detours[(ra, rb)]]

    def _router_paths(self, router):
        """_search from a router; memoised."""
        if router not in self._paths:
            self._paths[router] = self._search(router)
        return self._paths[router]

    @staticmethod
    def _through(before, end):
        """The vertices strictly inside the path that `before` (a _search's) leads to end."""
        inside, v = set(), before.get(end)
        while v is not None and before.get(v) is not None:
            inside.add(v)
            v = before[v]
        return inside

    def route(self, a, b):
        """([(shared link id, bytes/s)], latency) of the lowest-latency path from host a to
        host b (indexes)."""
        if a not in self._from:
            best, paths, _ = self._search(self.hosts[a])
            self._from[a] = {self.index[h]: (self._shared(paths[h]), best[h])
                             for h in paths if h in self.index}
        hit = self._from[a].get(b)
        if hit is None:
            raise A2AError("no route from host %s to host %s" % (self.hosts[a], self.hosts[b]))
        return hit
