"""`a2a platform MACHINE`: writes the SimGrid platform file of a dragonfly machine
(platforms/polaris.xml, theta.xml, dragonfly.xml, dragonfly_16k.xml are its output,
checked in).

SimGrid 3.32's DRAGONFLY cluster cannot share a node's intra-node bandwidth: its loopback
link is FATPIPE (every flow has it alone), and without one a message to the same node
crosses the node's network port both ways. So these platforms spell the dragonfly out:
each node is a zone of its own holding its host and a SHARED memory link that its
messages to itself cross (the self-route), joined to its switch by a full-duplex NIC link;
switches of a group are linked all to all along rows and columns (Slingshot: one row;
Aries: rank-1 rows and rank-2 columns), each pair of groups by global links; the
top-level zone routes minimally (DijkstraCache: fewest links). The network model is the
file's <config> block; the zone's <prop>s say the topology for tools that read it."""
import os

from ..core.common import A2AError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))

# The machines: topology, rates, per-message costs, and the comment that cites them.
MACHINES = {
    "polaris": dict(
        groups=8, rows=1, columns=8, nodes_per_switch=8, cores=32,
        link_bw=25.0, link_lat="0.35us", counts=(1, 1, 4),
        nic_bw=25.0, nic_lat="0.65us", mem_bw=102.4, mem_lat="0.1us",
        os="3e-07", ois="2e-07", eager=65536,
        comment="""\
  polaris.xml: ALCF Polaris as the TuNA paper ran it (HPE Slingshot 11 dragonfly, Cray
  MPICH, 32 ranks per node), large enough for its largest P: 512 nodes x 32 cores = 16,384
  ranks (Polaris has 560 nodes, each one 32-core AMD EPYC 7543P).
  Topology: 8 groups of 64 nodes, 8 switches per group linked all to all, 8 nodes per
  switch, 4 global links between each pair of groups. Ranks are placed in order, 32 per
  node: P = 2048 (64 nodes) is one group and never uses a global link; P = 4096 spans 2
  groups, P = 8192 4, P = 16,384 all 8.
  Figures and their source:
   - links: 200 Gb/s = 25 GB/s per port and direction (Slingshot 11: HPE Rosetta switch,
     64 ports of 200 Gb/s; Cassini NIC, 200 Gb/s); 0.35 us per switch-to-switch link
     (Rosetta port-to-port latency about 350 ns, De Sensi et al., "An In-Depth Analysis of
     the Slingshot Interconnect", SC 2020); 0.65 us for a node's link to its switch (NIC,
     PCIe and the switch port).
   - intra-node: each node's memory link, 102.4 GB/s, shared by every message of the node
     to itself (EPYC 7543P: 8 channels of DDR4-3200 = 204.8 GB/s, AMD's specification; a
     single-copy transfer reads and writes each byte, so half of it), 0.1 us.""",
        why="a small message between two nodes of one switch then costs 0.3 + 1.3 + 0.3 = "
            "1.9 us one way, about the MPI latency of Slingshot 11 with Cray MPICH (about "
            "2 us), and one inside a node 0.7 us"),
    "theta": dict(
        groups=8, rows=2, columns=8, nodes_per_switch=4, cores=64,
        link_bw=5.25, link_lat="0.1us", counts=(1, 3, 2),
        nic_bw=10.0, nic_lat="0.35us", mem_bw=200.0, mem_lat="0.1us",
        os="3e-07", ois="2e-07", eager=8192,
        comment="""\
  theta.xml: ALCF Theta as the TRA paper ran it (Cray XC40, Aries dragonfly, Cray MPICH,
  64 ranks per node, one per KNL 7230 core), large enough for its largest P: 512 nodes x
  64 cores = 32,768 ranks (P = 16,384 needs 256 nodes; Theta has 4,392).
  Topology: 8 groups of 64 nodes; a group is 2 chassis (rows) of 8 Aries routers, 4 nodes
  per router as on Aries; routers of a chassis linked all to all by 1 link (rank-1,
  backplane), routers in the same slot of the 2 chassis by 3 links (rank-2, copper), 2
  global links between each pair of groups (rank-3, optical). Ranks are placed in order,
  64 per node: P = 2048 (32 nodes) is half a group and never uses a global link; P = 8192
  (128 nodes) spans 2 groups, P = 16,384 4 groups.
  Figures and their source (Alverson, Froese, Kaplan, Roweth, "Cray XC Series Network",
  Cray white paper WP-Aries01-1112, 2012):
   - links: 5.25 GB/s per direction (rank-1 and rank-2 links: 3 lanes of 14 Gb/s; the
     optical rank-3 links, 4.7 GB/s, are taken at the same rate), 0.1 us per link (router
     traversal about 100 ns); a node's link to its router 10 GB/s, 0.35 us (Aries NIC on a
     PCIe Gen3 x16 host interface, 15.75 GB/s raw; about 10 GB/s is assumed usable).
   - intra-node: each node's memory link, 200 GB/s, shared by every message of the node to
     itself (KNL MCDRAM, "over 400 GB/s", Intel Xeon Phi 7230 specification; Theta runs it
     as a cache; a single-copy transfer reads and writes each byte, so half of it), 0.1 us.""",
        why="a small message between two nodes of one router then costs 0.3 + 0.7 + 0.3 = "
            "1.3 us one way, the MPI latency of Aries (1.3 us on Xeon nodes, the white paper "
            "above; KNL's slower cores add to it), and one inside a node 0.7 us"),
}
# the figures of the generic dragonfly (Polaris' rates), cited in both of its files
SLINGSHOT_FIGURES = """\
   - links: 200 Gb/s = 25 GB/s per port and direction (Slingshot 11; HPE Rosetta switch,
     64 x 200 Gb/s ports); 0.35 us per switch-to-switch link (Rosetta port-to-port latency
     ~350 ns, De Sensi et al., "An In-Depth Analysis of the Slingshot Interconnect", SC
     2020); 0.65 us for a node's link to its switch (NIC, PCIe and the switch port).
   - intra-node: each node's memory link, 102.4 GB/s, shared by every message of the node
     to itself (half of the EPYC 7543P's 204.8 GB/s: a single-copy transfer reads and
     writes each byte), 0.1 us."""
# the generic dragonfly: Polaris' rates and costs on a quarter of its nodes
MACHINES["dragonfly"] = dict(
        MACHINES["polaris"], nodes_per_switch=2, counts=(1, 1, 2),
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
""" + SLINGSHOT_FIGURES,
        why="a small message between two nodes of one switch then costs 0.3 + 1.3 + 0.3 = "
            "1.9 us one way, about Slingshot 11 MPI latency, and one inside a node 0.7 us")

# the generic dragonfly at the papers' largest P: dragonfly.xml's groups, 32 of them
MACHINES["dragonfly_16k"] = dict(
        MACHINES["dragonfly"], groups=32,
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
""" + SLINGSHOT_FIGURES)

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
        "platform", help="write the SimGrid platform file of a dragonfly machine",
        description="Writes the platform file of MACHINE (%s): hosts with a shared memory "
                    "link each, NIC links, switches linked by rows, columns and global links, "
                    "and the network model in a <config> block." % ", ".join(sorted(MACHINES)),
        epilog="example:  a2a platform polaris --out platforms/polaris.xml",
        formatter_class=common["formatter"])
    p.add_argument("machine", metavar="MACHINE", help="one of %s" % ", ".join(sorted(MACHINES)))
    p.add_argument("--out", help="the file to write (default: standard output)")
    p.set_defaults(func=run, needs_db=False)
    return p


def _rate(gbps):
    return "%gGBps" % gbps


def dragonfly(name, m):
    """The platform file of machine m (a MACHINES entry) as text."""
    G, R, C, n = m["groups"], m["rows"], m["columns"], m["nodes_per_switch"]
    zones, links, routes = [], [], []

    def link(ident, bw, lat):
        links.append('    <link id="%s" bandwidth="%s" latency="%s" sharing_policy="SPLITDUPLEX"/>'
                     % (ident, bw, lat))

    def both_ways(zone_a, gw_a, zone_b, gw_b, ident):
        for src, dst, gs, gd, way in ((zone_a, zone_b, gw_a, gw_b, "UP"),
                                      (zone_b, zone_a, gw_b, gw_a, "DOWN")):
            routes.append('    <zoneRoute src="%s" dst="%s" gw_src="%s" gw_dst="%s" symmetrical="NO">'
                          '<link_ctn id="%s" direction="%s"/></zoneRoute>' % (src, dst, gs, gd, ident, way))

    def switch(g, r, c):
        return "%s-sw%d-%d-%d" % (name, g, r, c)

    node = 0
    for g in range(G):
        for r in range(R):
            for c in range(C):
                for _ in range(n):
                    host = "%s-%d" % (name, node)
                    zones += ['    <zone id="%s-node" routing="Full">' % host,
                              '      <host id="%s" speed="1Gf" core="%d"/>' % (host, m["cores"]),
                              '      <link id="%s-mem" bandwidth="%s" latency="%s"/>'
                              % (host, _rate(m["mem_bw"]), m["mem_lat"]),
                              '      <route src="%s" dst="%s"><link_ctn id="%s-mem"/></route>'
                              % (host, host, host),
                              '    </zone>']
                    link(host + "-nic", _rate(m["nic_bw"]), m["nic_lat"])
                    both_ways(host + "-node", host, switch(g, r, c) + "-zone", switch(g, r, c),
                              host + "-nic")
                    node += 1
    for g in range(G):
        for r in range(R):
            for c in range(C):
                zones += ['    <zone id="%s-zone" routing="Full">' % switch(g, r, c),
                          '      <router id="%s"/>' % switch(g, r, c), '    </zone>']
    row_count, column_count, global_count = m["counts"]
    for g in range(G):
        for r in range(R):
            for c in range(C):
                for c2 in range(c + 1, C):
                    ident = "%s-row%d-%d-%d-%d" % (name, g, r, c, c2)
                    link(ident, _rate(m["link_bw"] * row_count), m["link_lat"])
                    both_ways(switch(g, r, c) + "-zone", switch(g, r, c),
                              switch(g, r, c2) + "-zone", switch(g, r, c2), ident)
                for r2 in range(r + 1, R):
                    ident = "%s-column%d-%d-%d-%d" % (name, g, c, r, r2)
                    link(ident, _rate(m["link_bw"] * column_count), m["link_lat"])
                    both_ways(switch(g, r, c) + "-zone", switch(g, r, c),
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
            link(ident, _rate(m["link_bw"] * global_count), m["link_lat"])
            both_ways(gateway(i, j) + "-zone", gateway(i, j), gateway(j, i) + "-zone",
                      gateway(j, i), ident)
    eager_why = ("Cray MPICH's eager limit on Aries (MPICH_GNI_MAX_EAGER_MSG_SIZE, 8192 bytes "
                 "by default, Cray's intro_mpi manual)" if m["eager"] == 8192 else
                 "SimGrid's default")
    note = MODEL_NOTE.format(os_us="%g" % (float(m["os"]) * 1e6),
                             ois_us="%g" % (float(m["ois"]) * 1e6), why=m["why"],
                             eager=m["eager"], eager_why=eager_why, name=name)
    config = ['  <config>',
              '    <prop id="network/model" value="SMPI"/>',
              '    <prop id="smpi/os" value="0:%s:0"/>' % m["os"],
              '    <prop id="smpi/or" value="0:%s:0"/>' % m["os"],
              '    <prop id="smpi/ois" value="0:%s:0"/>' % m["ois"],
              '    <prop id="smpi/bw-factor" value="0:0.95"/>',
              '    <prop id="smpi/lat-factor" value="0:1"/>',
              '    <prop id="network/weight-S" value="0"/>',
              '    <prop id="network/crosstraffic" value="no"/>',
              '    <prop id="smpi/send-is-detached-thresh" value="%d"/>' % m["eager"],
              '    <prop id="smpi/async-small-thresh" value="0"/>',
              '    <prop id="network/TCP-gamma" value="4194304"/>',
              '  </config>']
    topology = ("dragonfly groups=%d rows=%d columns=%d nodes_per_switch=%d cores_per_node=%d "
                "row_links=%d column_links=%d global_links=%d"
                % (G, R, C, n, m["cores"], row_count, column_count, global_count))
    props = ['    <prop id="a2a/topology" value="%s"/>' % topology,
             '    <prop id="a2a/link" value="%s %s"/>' % (_rate(m["link_bw"]), m["link_lat"]),
             '    <prop id="a2a/nic" value="%s %s"/>' % (_rate(m["nic_bw"]), m["nic_lat"]),
             '    <prop id="a2a/memory" value="%s %s"/>' % (_rate(m["mem_bw"]), m["mem_lat"])]
    return "\n".join(["<?xml version='1.0'?>",
                      '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
                      "<!--", m["comment"], note, "-->", '<platform version="4.1">'] + config +
                     ['  <zone id="%s" routing="DijkstraCache">' % name] + props + zones +
                     links + routes + ['  </zone>', '</platform>', ''])


def run(args, db=None):
    """`a2a platform`: the file on --out (or standard output); 0."""
    del db
    if args.machine not in MACHINES:
        raise A2AError("unknown machine '%s' (choose from %s)" % (args.machine,
                                                                 ", ".join(sorted(MACHINES))))
    text = dragonfly(args.machine, MACHINES[args.machine])
    if args.out:
        try:
            with open(args.out, "w") as f:
                f.write(text)
        except OSError as e:
            raise A2AError("--out %s: %s" % (args.out, e.strerror or e))
    else:
        print(text, end="")
    return 0
