"""`a2a platform MACHINE`: writes the SimGrid platform file of a machine of
platform_table.py (platforms/theta.xml, polaris.xml, fugaku.xml, dragonfly.xml,
dragonfly_16k.xml are its output, checked in); `a2a platform --page` the table's page,
docs/results/platforms.md (platform_page.py).

SimGrid 3.32's DRAGONFLY and TORUS clusters cannot share a node's intra-node bandwidth apart
from its network port (a cluster's loopback link is FATPIPE: every flow has it alone; its
limiter link is crossed by the node's messages to other nodes too), and a TORUS node has no
NIC link of its own to carry its injection bandwidth. So these platforms spell the network
out: each node is a zone of its own holding its host and a SHARED memory link that its
messages to itself cross (the self-route), joined to its switch or router by a full-duplex
NIC link (the node's injection bandwidth); a dragonfly's switches of a group are linked all
to all along rows and columns (Slingshot: one row; Aries: rank-1 rows and rank-2 columns),
each pair of groups by global links; a torus's routers to the next along each dimension.
The top-level zone routes minimally (DijkstraCache: lowest latency). The network model is
the file's <config> block; the zone's <prop>s say the topology for tools that read it."""
import os

from ..core.common import A2AError
from .platform_table import KIND_KEYS, MACHINES, PARAMETER_NAMES, scaled

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))

# The two generic dragonflies' comments, as their files have carried them since their rows
# were simulated (each file's sha256 is how its checked-in rows find it: the text stays)
LEGACY = {
    "dragonfly": dict(
        comment="""\
  dragonfly.xml: an HPE Slingshot-class dragonfly, like the TuNA paper's Polaris (ALCF),
  small enough for quick studies: 128 nodes x 32 cores = 4096 ranks, 32 ranks per node in
  order (Polaris nodes: one 32-core AMD EPYC 7543P). polaris.xml is the paper's scale.
  Topology: 8 groups of 16 nodes, 8 switches per group linked all to all, 2 nodes per
  switch, 2 global links between each pair of groups; 512 ranks per group: P = 512 is one
  group, P = 1024 spans 2 groups, P = 4096 all 8. (Until schema 4 it was SimGrid's
  DRAGONFLY cluster "4,2;2,2;4,1;4" with 1024 ranks per group, so P <= 1024 never used a
  global link, SMPI's default network model and a FATPIPE loopback; the figures in
  docs/results made before then used that file, git history has it.)
  Figures and their source:
""",
        why="a small message between two nodes of one switch then costs 0.3 + 1.3 + 0.3 = "
            "1.9 us one way, about Slingshot 11 MPI latency, and one inside a node 0.7 us"),
    "dragonfly_16k": dict(
        comment="""\
  dragonfly_16k.xml: dragonfly.xml grown to the TRA and TuNA papers' largest P, for the
  model tier (`a2a model-run`): 512 nodes x 32 cores = 16,384 ranks, 32 ranks per node in
  order. SimGrid itself is not run at this size (hours per configuration); the model's
  error against SimGrid is measured on dragonfly.xml.
  Topology: dragonfly.xml's groups, 32 of them instead of 8: 16 nodes per group, 8
  switches per group linked all to all, 2 nodes per switch, 2 global links between each
  pair of groups; switch k of group g holds the global links to groups g + 1 + k,
  g + 9 + k, g + 17 + k, g + 25 + k (modulo 32; at most 8 global ports, a Rosetta switch
  has 64). Its first 8 groups are dragonfly.xml's under other names, so P <= 4096
  runs on the same network there: P = 512 is one group, P = 4096 8 groups, P = 8192 16,
  P = 16,384 all 32. (It was SimGrid's DRAGONFLY cluster "8,2;2,2;4,1;8" before it was
  generated here, with SMPI's default network model and an unshared 10 GB/s loopback;
  git history has it.)
  Figures and their source (dragonfly.xml's):
""",
        why=None),
}
LEGACY["dragonfly_16k"]["why"] = LEGACY["dragonfly"]["why"]
# the figures of the generic dragonfly (Polaris' rates), cited in both of its files
SLINGSHOT_FIGURES = """\
   - links: 200 Gb/s = 25 GB/s per port and direction (Slingshot 11; HPE Rosetta switch,
     64 x 200 Gb/s ports); 0.35 us per switch-to-switch link (Rosetta port-to-port latency
     ~350 ns, De Sensi et al., "An In-Depth Analysis of the Slingshot Interconnect", SC
     2020); 0.65 us for a node's link to its switch (NIC, PCIe and the switch port).
   - intra-node: each node's memory link, 102.4 GB/s, shared by every message of the node
     to itself (half of the EPYC 7543P's 204.8 GB/s: a single-copy transfer reads and
     writes each byte), 0.1 us."""
# what each generated machine is, the first line of its file's comment
TITLES = {
    "polaris": "ALCF Polaris as the TuNA paper ran it (HPE Slingshot 11 dragonfly, Cray "
               "MPICH, 32 ranks per node)",
    "theta": "ALCF Theta as the TRA paper ran it (Cray XC40, Aries dragonfly, Cray MPICH, 64 "
             "ranks per node, one per KNL 7230 core)",
    "fugaku": "RIKEN Fugaku as the TuNA paper ran it (Tofu interconnect D, Fujitsu's Open "
              "MPI-based MPI, 32 ranks per node)",
    "dragonfly": "an HPE Slingshot-class dragonfly with Polaris' rates, one NIC a node",
    "dragonfly_16k": "dragonfly.xml grown to the papers' largest P (32 groups)",
}

MODEL_NOTE = """\
   - speed 1Gf with smpi/host-speed 1Gf (set by `a2a simulate`): local computation
     (copies included) is measured on the simulating machine and charged 1:1.
  Network model (the <config> block; `a2a simulate` records it with every run):
   - smpi/os, smpi/or {os_us} us, smpi/ois {ois_us} us: per-message software cost of sending and
     receiving; {why}. Assumed, not fitted to the papers' all-to-all times.
   - smpi/bw-factor 0.95: payload is 95 % of the link rate; smpi/lat-factor 1: a link's
     latency is what a message sees. SMPI's defaults instead are Ethernet/TCP fits
     (bandwidth 0.34-0.94, latency 2-11.6 times the links').
   - network/weight-S 0, network/crosstraffic no: links shared equally between flows,
     no acknowledgement traffic on the reverse path (credit-based links, not TCP).
   - smpi/send-is-detached-thresh {eager}: {eager_why}; smpi/async-small-thresh 0 and
     network/TCP-gamma 4194304: SimGrid's defaults, written here so that nothing is implicit
     (TCP-gamma caps a flow at gamma / (2 x latency), terabytes per second here).
  Generated by `scripts/a2a platform {name}`; edit the table in scripts/a2a_tools/platform.py."""


def add_parser(sub, common):
    """Registers `a2a platform` and its options."""
    p = sub.add_parser(
        "platform", help="write the SimGrid platform file of a machine, or the table of them",
        description="Writes the platform file of MACHINE (%s) from the table of "
                    "scripts/a2a_tools/platform_table.py: hosts with a shared memory link "
                    "each, NIC links, switches (a dragonfly's rows, columns and global links) "
                    "or routers (a torus), and the network model in a <config> block; or, "
                    "with --page, the markdown page of the table (every figure with its "
                    "source or 'assumed', and what SimGrid and the model tier make of it)."
                    % ", ".join(sorted(MACHINES)),
        epilog="examples:  a2a platform polaris --out platforms/polaris.xml\n"
               "           a2a platform --page --out docs/results/platforms.md",
        formatter_class=common["formatter"])
    p.add_argument("machine", metavar="MACHINE", nargs="?",
                   help="one of %s" % ", ".join(sorted(MACHINES)))
    p.add_argument("--page", action="store_true",
                   help="write the table of every machine's figures and sources (markdown) "
                        "instead of a platform file")
    p.add_argument("--scale", action="append", default=[], metavar="FIGURE=FACTOR",
                   help="write the machine with this figure of its table times FACTOR "
                        "(e.g. nic_lat=0.5; repeatable): the variants papers.md's bands "
                        "price (a2a paper-bands)")
    p.add_argument("--out", help="the file to write (default: standard output)")
    p.set_defaults(func=run, needs_db=False)
    return p


def _rate(gbps):
    return "%gGBps" % gbps


def _us(micro):
    return "%gus" % micro


def value(machine, key):
    """The value of a figure of a machine (platform_table.MACHINES[machine][key])."""
    return MACHINES[machine][key].value


class _Writer:
    """The lines of a generated platform: zones, links and routes, in the order written."""

    def __init__(self):
        self.zones, self.links, self.routes = [], [], []

    def link(self, ident, bw, lat):
        self.links.append('    <link id="%s" bandwidth="%s" latency="%s" '
                          'sharing_policy="SPLITDUPLEX"/>' % (ident, bw, lat))

    def both_ways(self, zone_a, gw_a, zone_b, gw_b, ident):
        for src, dst, gs, gd, way in ((zone_a, zone_b, gw_a, gw_b, "UP"),
                                      (zone_b, zone_a, gw_b, gw_a, "DOWN")):
            self.routes.append('    <zoneRoute src="%s" dst="%s" gw_src="%s" gw_dst="%s" '
                               'symmetrical="NO"><link_ctn id="%s" direction="%s"/></zoneRoute>'
                               % (src, dst, gs, gd, ident, way))

    def node(self, host, m, switch):
        """A host in a zone of its own with its memory link (its route to itself), joined
        to router `switch` by its NIC link (the node's injection bandwidth)."""
        self.zones += ['    <zone id="%s-node" routing="Full">' % host,
                       '      <host id="%s" speed="1Gf" core="%d"/>' % (host, m["cores"].value),
                       '      <link id="%s-mem" bandwidth="%s" latency="%s"/>'
                       % (host, _rate(m["mem_bw"].value), _us(m["mem_lat"].value)),
                       '      <route src="%s" dst="%s"><link_ctn id="%s-mem"/></route>'
                       % (host, host, host),
                       '    </zone>']
        self.link(host + "-nic", _rate(m["injection"].value), _us(m["nic_lat"].value))
        self.both_ways(host + "-node", host, switch + "-zone", switch, host + "-nic")

    def router(self, ident):
        self.zones += ['    <zone id="%s-zone" routing="Full">' % ident,
                       '      <router id="%s"/>' % ident, '    </zone>']


def _dragonfly(name, m, w):
    """Writes a dragonfly's nodes, switches, row, column and global links into w; returns
    its <prop>s."""
    G, R, C, n = (m[k].value for k in ("groups", "rows", "columns", "nodes_per_switch"))
    link_bw, link_lat = m["link_bw"].value, _us(m["link_lat"].value)

    def switch(g, r, c):
        return "%s-sw%d-%d-%d" % (name, g, r, c)

    node = 0
    for g in range(G):
        for r in range(R):
            for c in range(C):
                for _ in range(n):
                    w.node("%s-%d" % (name, node), m, switch(g, r, c))
                    node += 1
    for g in range(G):
        for r in range(R):
            for c in range(C):
                w.router(switch(g, r, c))
    row_count, column_count, global_count = (m[k].value for k in ("row_links", "column_links",
                                                                  "global_links"))
    for g in range(G):
        for r in range(R):
            for c in range(C):
                for c2 in range(c + 1, C):
                    ident = "%s-row%d-%d-%d-%d" % (name, g, r, c, c2)
                    w.link(ident, _rate(link_bw * row_count), link_lat)
                    w.both_ways(switch(g, r, c) + "-zone", switch(g, r, c),
                                switch(g, r, c2) + "-zone", switch(g, r, c2), ident)
                for r2 in range(r + 1, R):
                    ident = "%s-column%d-%d-%d-%d" % (name, g, c, r, r2)
                    w.link(ident, _rate(link_bw * column_count), link_lat)
                    w.both_ways(switch(g, r, c) + "-zone", switch(g, r, c),
                                switch(g, r2, c) + "-zone", switch(g, r2, c), ident)

    def gateway(g, other):
        """The switch of group g that holds its global links to group other: the k-th
        switch those to groups g + 1 + k, g + 1 + k + R*C, ... (one group each when
        G <= R*C + 1; with more groups a switch holds several)."""
        k = ((other - g) % G - 1) % (R * C)
        return switch(g, k // C, k % C)

    for i in range(G):
        for j in range(i + 1, G):
            ident = "%s-global%d-%d" % (name, i, j)
            w.link(ident, _rate(link_bw * global_count), link_lat)
            w.both_ways(gateway(i, j) + "-zone", gateway(i, j), gateway(j, i) + "-zone",
                        gateway(j, i), ident)
    topology = ("dragonfly groups=%d rows=%d columns=%d nodes_per_switch=%d cores_per_node=%d "
                "row_links=%d column_links=%d global_links=%d"
                % (G, R, C, n, m["cores"].value, row_count, column_count, global_count))
    return ['    <prop id="a2a/topology" value="%s"/>' % topology,
            '    <prop id="a2a/link" value="%s %s"/>' % (_rate(link_bw), link_lat),
            '    <prop id="a2a/nic" value="%s %s"/>' % (_rate(m["injection"].value),
                                                        _us(m["nic_lat"].value)),
            '    <prop id="a2a/memory" value="%s %s"/>' % (_rate(m["mem_bw"].value),
                                                           _us(m["mem_lat"].value))]


def torus_neighbours(dims):
    """[(node, dimension, neighbour)] of a torus whose node index counts the first dimension
    fastest: each node linked to the next along every dimension, wrapping around (a ring);
    a dimension of 2 nodes has one link between them, not two."""
    total = 1
    for d in dims:
        total *= d
    out = []
    for node in range(total):
        stride = 1
        for k, d in enumerate(dims):
            x = (node // stride) % d
            if d > 2 or (d == 2 and x == 0):
                out.append((node, k, node + (((x + 1) % d) - x) * stride))
            stride *= d
    return out


def _torus(name, m, w):
    """Writes a torus's nodes, one router each, and the routers' links into w; returns its
    <prop>s."""
    dims = [int(x) for x in m["torus"].value.split(",")]
    total = 1
    for d in dims:
        total *= d
    router = lambda i: "%s-r%d" % (name, i)
    for i in range(total):
        w.node("%s-%d" % (name, i), m, router(i))
    for i in range(total):
        w.router(router(i))
    link_bw, link_lat = _rate(m["link_bw"].value), _us(m["link_lat"].value)
    for a, k, b in torus_neighbours(dims):
        ident = "%s-t%d-%d" % (name, a, k)
        w.link(ident, link_bw, link_lat)
        w.both_ways(router(a) + "-zone", router(a), router(b) + "-zone", router(b), ident)
    return ['    <prop id="a2a/topology" value="torus %s cores_per_node=%d"/>'
            % (m["torus"].value, m["cores"].value),
            '    <prop id="a2a/link" value="%s %s"/>' % (link_bw, link_lat),
            '    <prop id="a2a/nic" value="%s %s"/>' % (_rate(m["injection"].value),
                                                        _us(m["nic_lat"].value)),
            '    <prop id="a2a/memory" value="%s %s"/>' % (_rate(m["mem_bw"].value),
                                                           _us(m["mem_lat"].value))]


def _wrap(text, first, rest, width=92):
    """text wrapped to width, its first line after `first`, the others after `rest`."""
    import textwrap
    return textwrap.fill(text, width=width, initial_indent=first, subsequent_indent=rest,
                         break_on_hyphens=False, break_long_words=False)


def figures_comment(name, m):
    """The comment of a generated file: what it models, then every figure with its source
    (or what is assumed in it), from the table."""
    nodes, cores = m["file_nodes"].value, m["cores"].value
    lines = [_wrap("%s.xml: %s. %d nodes x %d cores = %d ranks; ranks placed in order, "
                   "%d per node in the papers' runs." % (name, TITLES[name], nodes, cores,
                                                         nodes * cores,
                                                         m["ranks_per_node"].value),
                   "  ", "  "),
             _wrap("Generated by `scripts/a2a platform %s` from the table in "
                   "scripts/a2a_tools/platform_table.py, which gives every figure below its "
                   "source or says it is assumed (docs/results/platforms.md shows it, with "
                   "what SimGrid and the model tier make of each)." % name, "  ", "  "),
             "  Figures (value: source; assumed: what is assumed):"]
    for key in KIND_KEYS[m["kind"]]:
        f = m[key]
        what, unit = PARAMETER_NAMES[key]
        shown = ("%g" % f.value if isinstance(f.value, float) else str(f.value)) + (
            " " + unit if unit else "")
        lines.append(_wrap("%s %s: %s%s" % (what, shown, f.source_text(),
                                            " (%s)" % f.note if f.note else ""),
                           "   - ", "     "))
    lines += ["  Also: speed 1Gf with smpi/host-speed 1Gf (set by `a2a simulate`): local "
              "computation", "  (copies included) is measured on the simulating machine and "
              "charged 1:1; smpi/async-small-thresh 0", "  and network/TCP-gamma 4194304 "
              "are SimGrid's defaults, written so that nothing is implicit."]
    text = "\n".join(lines)
    if "--" in text:
        raise A2AError("%s: a figure's text holds '--', which an XML comment cannot" % name)
    return text


def platform_text(name, m=None):
    """The platform file of machine `name` (its table, or the table m) as text."""
    m = m or MACHINES[name]
    w = _Writer()
    props = (_torus if m["kind"] == "torus" else _dragonfly)(name, m, w)
    eager = m["eager"].value
    if name in LEGACY:
        eager_why = ("Cray MPICH's eager limit on Aries (MPICH_GNI_MAX_EAGER_MSG_SIZE, 8192 "
                     "bytes by default, Cray's intro_mpi manual)" if eager == 8192 else
                     "SimGrid's default")
        comment = [LEGACY[name]["comment"] + SLINGSHOT_FIGURES,
                   MODEL_NOTE.format(os_us="%g" % m["os"].value, ois_us="%g" % m["ois"].value,
                                     why=LEGACY[name]["why"], eager=eager, eager_why=eager_why,
                                     name=name)]
    else:
        comment = [figures_comment(name, m)]
    seconds = lambda key: "%g" % (m[key].value * 1e-6)
    config = ['  <config>',
              '    <prop id="network/model" value="SMPI"/>',
              '    <prop id="smpi/os" value="0:%s:0"/>' % seconds("os"),
              '    <prop id="smpi/or" value="0:%s:0"/>' % seconds("or"),
              '    <prop id="smpi/ois" value="0:%s:0"/>' % seconds("ois"),
              '    <prop id="smpi/bw-factor" value="0:%g"/>' % m["bw_factor"].value,
              '    <prop id="smpi/lat-factor" value="0:%g"/>' % m["lat_factor"].value,
              '    <prop id="network/weight-S" value="0"/>',
              '    <prop id="network/crosstraffic" value="no"/>',
              '    <prop id="smpi/send-is-detached-thresh" value="%d"/>' % eager,
              '    <prop id="smpi/async-small-thresh" value="0"/>',
              '    <prop id="network/TCP-gamma" value="4194304"/>',
              '  </config>']
    return "\n".join(["<?xml version='1.0'?>",
                      '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
                      "<!--"] + comment + ["-->", '<platform version="4.1">'] + config +
                     ['  <zone id="%s" routing="DijkstraCache">' % name] + props + w.zones +
                     w.links + w.routes + ['  </zone>', '</platform>', ''])


def variant(machine, scales):
    """The table of machine with each 'FIGURE=FACTOR' of scales applied (platform_table.
    scaled); the machine's own table when there are none. A2AError on a figure that does not
    scale."""
    m = MACHINES[machine]
    for text in scales:
        key, _, factor = text.partition("=")
        try:
            factor = float(factor)
        except ValueError:
            raise A2AError("--scale %s: not FIGURE=FACTOR" % text)
        if key not in m or key == "kind":
            raise A2AError("--scale %s: %s has no figure '%s'" % (text, machine, key))
        out = scaled(m, key, factor)
        if out is None:
            raise A2AError("--scale %s: %s's %s (%s) does not scale by %g" % (
                text, machine, key, m[key].value, factor))
        m = out
    return m


def run(args, db=None):
    """`a2a platform`: the file (or with --page the table's page) on --out or standard
    output; 0."""
    del db
    if args.page:
        if args.machine:
            raise A2AError("--page writes every machine's table: no MACHINE with it")
        from .platform_page import page
        text = page()
    elif not args.machine:
        raise A2AError("name a MACHINE (%s), or --page" % ", ".join(sorted(MACHINES)))
    elif args.machine not in MACHINES:
        raise A2AError("unknown machine '%s' (choose from %s)" % (args.machine,
                                                                 ", ".join(sorted(MACHINES))))
    else:
        text = platform_text(args.machine, variant(args.machine, args.scale))
    if args.out:
        try:
            with open(args.out, "w") as f:
                f.write(text)
        except OSError as e:
            raise A2AError("--out %s: %s" % (args.out, e.strerror or e))
    else:
        print(text, end="")
    return 0
