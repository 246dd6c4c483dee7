"""The machines `a2a platform` writes (platforms/*.xml), every figure with its source.

Each machine is a table of Figures: the value the generator writes and the documents it
comes from (DOCUMENTS: only those issue 49 names or the platform files' comments cited
before), or ASSUMED with what the assumption is. docs/results/platforms.md shows the
table (`a2a platform --page`); tests/parts/netmodel.sh fails on a figure with neither a
document nor the word assumed. Pure data: no imports beyond the standard library."""
from collections import namedtuple

ASSUMED = "assumed"

# the documents the table may cite, by key
DOCUMENTS = {
    "tra": "TRA paper (tra-configurable-alltoall.txt), Sec. V",
    "tuna": "TuNA paper (tuna-nonuniform-alltoall.txt), Sec. V",
    "xc": "Alverson, Froese, Kaplan, Roweth, \"Cray XC Series Network\", Cray white paper "
          "WP-Aries01-1112, 2012",
    "knl": "Intel Xeon Phi 7230 specification (MCDRAM \"over 400 GB/s\")",
    "cray-mpi": "Cray's intro_mpi manual (MPICH_GNI_MAX_EAGER_MSG_SIZE, 8192 bytes)",
    "slingshot": "HPE Slingshot 11 (Rosetta switch: 64 ports of 200 Gb/s; Cassini NIC: "
                 "200 Gb/s)",
    "desensi": "De Sensi et al., \"An In-Depth Analysis of the Slingshot Interconnect\", "
               "SC 2020",
    "alcf-polaris": "ALCF, Polaris (alcf.anl.gov/polaris, the TuNA paper's ref. 13): a "
                    "pair of Slingshot 11 adapters per node",
    "epyc": "AMD EPYC 7543P specification (8 channels of DDR4-3200 = 204.8 GB/s)",
    "tofu": "Ajima et al., \"The Tofu Interconnect D\", IEEE Cluster 2018",
    "simgrid": "SimGrid 3.32 documentation, \"Configuring SimGrid\" (its defaults)",
}


class Figure(namedtuple("Figure", "value sources assumed note")):
    """One figure of a machine: its value (a number in the parameter's unit, or text), the
    DOCUMENTS keys it comes from, what is assumed in it ('' when nothing is), and a note
    (how it is derived or used)."""

    def source_text(self):
        """'document; document' and/or 'assumed: why' (the page's source column)."""
        parts = [DOCUMENTS[k] for k in self.sources]
        if self.assumed:
            parts.append("%s: %s" % (ASSUMED, self.assumed) if self.assumed != ASSUMED
                         else ASSUMED)
        return "; ".join(parts)


def cited(value, *sources, note=""):
    """A figure taken from documents."""
    return Figure(value, tuple(sources), "", note)


def assumed(value, why, *sources, note=""):
    """A figure that is (partly) assumed: why, and the documents of the part that is not."""
    return Figure(value, tuple(sources), why, note)


# the parameters, in the page's order: (key, what it is, unit); the machines of a kind carry
# every key of that kind (KIND_KEYS)
PARAMETERS = (
    ("cores", "cores per node", ""),
    ("ranks_per_node", "ranks per node (the paper's runs)", ""),
    ("machine_nodes", "nodes of the machine", ""),
    ("file_nodes", "nodes in the platform file", ""),
    ("placement", "rank placement", ""),
    ("groups", "groups in the file", ""),
    ("rows", "switch rows (chassis) per group", ""),
    ("columns", "switches per row", ""),
    ("nodes_per_switch", "nodes per switch", ""),
    ("row_links", "links between two switches of a row", ""),
    ("column_links", "links between two switches of a column", ""),
    ("global_links", "global links between two groups", ""),
    ("global_ports", "global links per switch (the machine's)", ""),
    ("torus", "torus dimensions (nodes per dimension)", ""),
    ("link_bw", "network link bandwidth (switch to switch, router to router), per "
                "direction", "GB/s"),
    ("link_lat", "network link latency", "us"),
    ("nics", "NICs per node", ""),
    ("nic_bw", "NIC bandwidth, per NIC and direction", "GB/s"),
    ("nic_lat", "NIC link latency (node to its switch or router)", "us"),
    ("injection", "injection bandwidth per node", "GB/s"),
    ("routing", "routing", ""),
    ("mem_bw", "memory link bandwidth (intra-node messages)", "GB/s"),
    ("mem_lat", "memory link latency", "us"),
    ("os", "smpi/os (blocking send)", "us"),
    ("or", "smpi/or (receive below the eager limit)", "us"),
    ("ois", "smpi/ois (non-blocking send)", "us"),
    ("bw_factor", "smpi/bw-factor", ""),
    ("lat_factor", "smpi/lat-factor", ""),
    ("eager", "eager limit (smpi/send-is-detached-thresh)", "B"),
    ("sharing", "link sharing (network/weight-S, network/crosstraffic)", ""),
)
PARAMETER_NAMES = {k: (what, unit) for k, what, unit in PARAMETERS}
KIND_KEYS = {
    "dragonfly": tuple(k for k, _, _ in PARAMETERS if k != "torus"),
    "torus": tuple(k for k, _, _ in PARAMETERS
                   if k not in ("groups", "rows", "columns", "nodes_per_switch", "row_links",
                                "column_links", "global_links", "global_ports")),
}

# the network model's choices every generated platform makes alike
_PER_MESSAGE = ("per-message software cost, not measured on the machine: set so that a "
                "small message between two nodes of one switch costs about the "
                "interconnect's MPI latency")
_COMMON = dict(
    bw_factor=assumed(0.95, "payload 95 % of the link rate (SMPI's defaults are "
                            "Ethernet/TCP fits)"),
    lat_factor=assumed(1, "a link's latency is what a message sees"),
    sharing=assumed("weight-S 0, cross-traffic no", "links shared between flows by route "
                    "latency only, no acknowledgement traffic (credit-based links, not "
                    "TCP)"),
    placement=assumed("in order", "a job's nodes are the first of "
                      "the file (a scheduler may place them anywhere)"),
)

POLARIS = dict(
    _COMMON, kind="dragonfly",
    cores=cited(32, "tuna", "tra", note="560 nodes, each one 32-core AMD EPYC 7543P"),
    ranks_per_node=cited(32, "tuna", note="\"we utilized 32 processes per node\""),
    machine_nodes=cited(560, "tuna", "tra"),
    file_nodes=assumed(512, "8 groups of 64 nodes: enough for P = 16,384 at 32 per node"),
    groups=assumed(8, "no source gives Polaris' groups"),
    rows=assumed(1, "Slingshot groups: switches all to all in one row"),
    columns=assumed(8, "no source gives Polaris' switches per group"),
    nodes_per_switch=assumed(8, "no source gives Polaris' nodes per switch"),
    row_links=assumed(1, "one link between two switches of a group"),
    column_links=assumed(1, "one row: no column links"),
    global_links=assumed(4, "no source gives Polaris' global links"),
    global_ports=assumed("not known", "no source gives it"),
    link_bw=cited(25.0, "slingshot", "desensi", note="200 Gb/s a port"),
    link_lat=cited(0.35, "desensi", note="Rosetta port-to-port latency about 350 ns"),
    nics=cited(2, "alcf-polaris"),
    nic_bw=cited(25.0, "slingshot", note="Cassini: 200 Gb/s"),
    nic_lat=assumed(0.65, "NIC, PCIe and the switch port"),
    injection=cited(50.0, "alcf-polaris", "slingshot", note="2 NICs x 25 GB/s, one link of "
                    "50 GB/s to the node's switch (a rank's flow is not held to one NIC's "
                    "25 GB/s)"),
    routing=assumed("minimal", "fewest links (SimGrid's DijkstraCache); Slingshot's "
                    "adaptive routing is not modelled"),
    mem_bw=assumed(102.4, "half the memory bandwidth: a single-copy transfer reads and "
                   "writes each byte", "epyc"),
    mem_lat=assumed(0.1, "one memory copy's start-up"),
    os=assumed(0.3, _PER_MESSAGE + " (0.3 + 1.3 + 0.3 = 1.9 us, Slingshot 11 with Cray "
                    "MPICH about 2 us)"),
    ois=assumed(0.2, _PER_MESSAGE),
    eager=assumed(65536, "SimGrid's default; Cray MPICH's eager limit on Slingshot not "
                  "taken from a source", "simgrid"),
)
POLARIS["or"] = POLARIS["os"]

THETA = dict(
    _COMMON, kind="dragonfly",
    cores=cited(64, "tra", note="Theta: 4,392 nodes, 64 cores per node (KNL 7230)"),
    ranks_per_node=cited(64, "tra", note="\"64/32 processes per node on Theta/Polaris\""),
    machine_nodes=cited(4392, "tra"),
    file_nodes=assumed(384, "one group (96 routers x 4 nodes): P = 16,384 placed in order "
                       "needs 256 nodes, so no paper row crosses a global link"),
    groups=assumed(1, "one group holds every paper row (in-order placement)"),
    rows=cited(6, "xc", note="a group is 2 cabinets, 6 chassis"),
    columns=cited(16, "xc", note="16 Aries routers per chassis, 96 per group"),
    nodes_per_switch=cited(4, "xc", note="one Aries router per 4-node blade"),
    row_links=cited(1, "xc", note="rank-1: the 16 routers of a chassis all to all, backplane"),
    column_links=cited(3, "xc", note="rank-2: a router to the same slot of the other 5 "
                       "chassis, 3 copper links each"),
    global_links=assumed(0, "one group in the file: no global links"),
    global_ports=cited(10, "xc", note="rank-3 optical ports per router (4.7 GB/s); not in "
                       "the file"),
    link_bw=cited(5.25, "xc", note="rank-1 and rank-2 links: 3 lanes of 14 Gb/s"),
    link_lat=cited(0.1, "xc", note="router traversal about 100 ns"),
    nics=cited(1, "xc", note="each Aries has 4 NICs, one per node"),
    nic_bw=assumed(10.0, "about 10 GB/s usable of the PCIe Gen3 x16 host interface's "
                   "15.75 GB/s", "xc"),
    nic_lat=assumed(0.35, "NIC and host interface"),
    injection=assumed(10.0, "one NIC", "xc"),
    routing=assumed("minimal", "fewest links (SimGrid's DijkstraCache); the machine routes "
                    "adaptively (XC white paper), which neither backend models", "xc"),
    mem_bw=assumed(200.0, "half of MCDRAM's 400 GB/s (a single-copy transfer reads and "
                   "writes each byte); Theta runs MCDRAM as a cache", "knl"),
    mem_lat=assumed(0.1, "one memory copy's start-up"),
    os=assumed(0.3, _PER_MESSAGE + " (0.3 + 0.7 + 0.3 = 1.3 us, Aries' MPI latency on Xeon "
                    "nodes in the XC white paper; KNL's slower cores add to it)", "xc"),
    ois=assumed(0.2, _PER_MESSAGE),
    eager=cited(8192, "cray-mpi"),
)
THETA["or"] = THETA["os"]

FUGAKU = dict(
    _COMMON, kind="torus",
    torus=assumed("4,4,3,2,3,2", "the slice's X, Y, Z = 4, 4, 3; the last three are "
                  "Tofu-D's a, b, c unit of 2 x 3 x 2 nodes", "tofu"),
    link_bw=cited(6.8, "tofu", note="28 Gb/s x 2 lanes"),
    link_lat=assumed(0.1, "per hop, so that a put between neighbours (0.49 us) is about the "
                     "wire plus the per-message costs below", "tofu"),
    nics=cited(6, "tofu", note="six Tofu network interfaces (TNIs) a node"),
    nic_bw=cited(6.35, "tofu", note="the injection over the six TNIs, per TNI"),
    nic_lat=assumed(0.0, "the TNI's cost is in the per-hop and per-message figures"),
    injection=cited(38.1, "tofu", note="one link of 38.1 GB/s from the node to its router"),
    routing=assumed("minimal", "fewest links (SimGrid's DijkstraCache, ties in the order "
                    "the links are written); Tofu-D's routing is not modelled"),
    cores=cited(48, "tuna", note="48 user-accessible A64FX cores a node"),
    ranks_per_node=cited(32, "tuna", note="\"we utilized 32 processes per node\""),
    machine_nodes=cited(158976, "tuna"),
    file_nodes=assumed(576, "a slice of the torus (4 x 4 x 3 x 2 x 3 x 2) large enough for "
                       "P = 16,384 at 32 ranks per node"),
    mem_bw=assumed(415.0, "half of A64FX's HBM2 stream bandwidth, 830 GB/s (a copy reads "
                   "and writes each byte); no document cited"),
    mem_lat=assumed(0.0, "no latency, as the TORUS cluster's limiter link had"),
    os=assumed(0.4, _PER_MESSAGE + " (0.4 + 0.1 + 0.4 = 0.9 us to a neighbour: the "
                    "paper's 0.49 us put plus MPI's matching)", "tofu"),
    ois=assumed(0.2, _PER_MESSAGE),
    eager=assumed(65536, "SimGrid's default; Fujitsu MPI's eager limit not taken from a "
                  "source", "simgrid"),
)
FUGAKU["or"] = FUGAKU["os"]

# the generic dragonfly: Polaris' rates, one NIC a node, a quarter of its nodes
DRAGONFLY = dict(
    POLARIS,
    cores=cited(32, "tuna", note="Polaris' nodes"),
    ranks_per_node=assumed(32, "as on Polaris"),
    machine_nodes=assumed("none", "a generic Slingshot-class machine"),
    file_nodes=assumed(128, "8 groups of 16 nodes, small enough for quick studies"),
    nodes_per_switch=assumed(2, "a quarter of polaris.xml's nodes"),
    global_links=assumed(2, "generic"),
    nics=assumed(1, "one NIC a node (Polaris has two)"),
    injection=assumed(25.0, "one NIC", "slingshot"),
)
DRAGONFLY_16K = dict(
    DRAGONFLY,
    file_nodes=assumed(512, "dragonfly.xml's groups, 32 of them: P = 16,384 at 32 per node"),
    groups=assumed(32, "dragonfly.xml grown to the papers' largest P"),
)

MACHINES = {"polaris": POLARIS, "theta": THETA, "fugaku": FUGAKU, "dragonfly": DRAGONFLY,
            "dragonfly_16k": DRAGONFLY_16K}


# the most a figure may be scaled to (`a2a platform --scale`, papers.md's bands): a payload
# cannot exceed the link rate
SCALE_CAPS = {"bw_factor": 1.0}


def scaled(m, key, factor):
    """A copy of machine table m with figure key's value times factor, or None when that
    figure does not scale (text, a count that would fall below 1, a value the scale leaves
    as it is: 0, or a capped figure at its cap). Counts are rounded, as are bytes; the
    factors and figures with a unit of time or rate are not; bw_factor is held to
    SCALE_CAPS; a torus scales its first dimension (its X); nic_bw carries the injection
    bandwidth with it (nics x nic_bw, the node's one NIC link)."""
    value = m[key].value
    unit = PARAMETER_NAMES[key][1]
    if key == "torus":
        dims = value.split(",")
        dims[0] = str(int(round(int(dims[0]) * factor)))
        new = ",".join(dims) if int(dims[0]) >= 1 else value
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    elif unit == "B":
        new = int(round(value * factor))
    elif isinstance(value, int) and not unit and not key.endswith("_factor"):
        new = int(round(value * factor))
        new = new if new >= 1 else value
    else:
        new = min(value * factor, SCALE_CAPS.get(key, float("inf")))
    if new == value:
        return None
    out = dict(m)
    out[key] = m[key]._replace(value=new)
    if key == "nic_bw":
        out["injection"] = m["injection"]._replace(value=m["nics"].value * new)
    return out
