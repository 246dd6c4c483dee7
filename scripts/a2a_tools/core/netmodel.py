"""The network model of a simulated run: every SimGrid option that sets what a message
costs, with its value and where the value came from, recorded in runs.network_model.

A platform file names its model in a <config> block (`<prop id="smpi/os" value=.../>`);
`--cfg` options on the smpirun command line override it (SimGrid keeps a value the command
line set and ignores the platform's); smpirun itself sets network/model:SMPI; whatever
nobody set is SimGrid 3.32's default, which is a model too (the Ethernet-fitted factors
and zero per-message overheads). The intra-node transport is part of the model: it comes
from the platform's clusters (loopback or limiter links) or its hosts' routes to
themselves; it names the transport, not the topology (that is the platform's, and its
sha256 is recorded beside).

Stored form (JSON object): {option: [value, source]}, source one of SOURCES. Two runs have
the same network model when every value is the same (identity()), whatever the sources."""
import json
import re
import xml.etree.ElementTree as ET

from .common import A2AError

PLATFORM, COMMAND_LINE, SMPIRUN, DEFAULT = ("platform", "command line", "smpirun",
                                             "SimGrid 3.32 default")
SOURCES = (PLATFORM, COMMAND_LINE, SMPIRUN, DEFAULT)
# SimGrid 3.32's defaults for the options that set a message's cost (its documentation,
# "Configuring SimGrid": smpi/bw-factor, smpi/lat-factor, smpi/os, smpi/or, smpi/ois,
# smpi/async-small-thresh, smpi/send-is-detached-thresh; network/weight-S, TCP-gamma and
# crosstraffic of the CM02 family the SMPI model belongs to)
DEFAULTS = {
    "network/model": "SMPI",
    "smpi/os": "0:0:0:0:0",
    "smpi/or": "0:0:0:0:0",
    "smpi/ois": "0:0:0:0:0",
    "smpi/bw-factor": "65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;"
                      "1426:0.608902;732:0.341987;257:0.338112;0:0.812084",
    "smpi/lat-factor": "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;"
                       "1426:1.61075;732:1.9503;257:1.95341;0:2.01467",
    "smpi/async-small-thresh": "0",
    "smpi/send-is-detached-thresh": "65536",
    "network/weight-S": "8775",
    "network/TCP-gamma": "4194304",
    "network/crosstraffic": "yes",
}
OPTIONS = tuple(DEFAULTS)
INTRA_NODE = "intra-node"   # the platform's intra-node transport (not a SimGrid option)
# the options SimGrid also accepts under their old names
ALIASES = {"smpi/bw_factor": "smpi/bw-factor", "smpi/lat_factor": "smpi/lat-factor",
           "smpi/async_small_thresh": "smpi/async-small-thresh",
           "smpi/send_is_detached_thresh": "smpi/send-is-detached-thresh",
           "network/weight_S": "network/weight-S", "network/TCP_gamma": "network/TCP-gamma"}


def _parse(path):
    try:
        return ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        raise A2AError("%s: cannot read the platform's network model: %s" % (path, e))


def platform_config(path):
    """{option: value} of the platform's <config> block (canonical option names)."""
    out = {}
    for config in _parse(path).iter("config"):
        for prop in config.iter("prop"):
            key = ALIASES.get(prop.get("id", ""), prop.get("id", ""))
            out[key] = prop.get("value", "")
    return out


def intra_node(path):
    """How the platform moves a message between two ranks of one node: per cluster a
    loopback link (FATPIPE in SimGrid: every flow has it alone), a limiter link (SHARED by
    every flow of the node) or the node's own network link; per kind of host with a route
    to itself (platforms/polaris.xml), the links of that route."""
    parts = []
    for el in _parse(path).iter("cluster"):
        topology = el.get("topology", "FLAT")
        node_link = "%s %s" % (el.get("bw", "?"), el.get("lat", "0s"))
        if el.get("loopback_bw") or el.get("loopback_lat"):
            how = "loopback %s %s, not shared (FATPIPE)" % (el.get("loopback_bw", "?"),
                                                           el.get("loopback_lat", "0s"))
        elif el.get("limiter_link"):
            how = "limiter %s shared by the node's flows" % el.get("limiter_link")
            if topology in ("DRAGONFLY", "FAT_TREE"):
                how += ", through the node's link (%s) both ways" % node_link
        else:
            how = "the node's link (%s) both ways" % node_link
        parts.append(how)
    root = _parse(path)
    links = {el.get("id"): el for el in root.iter("link")}
    selves = set()
    for route in root.iter("route"):
        if route.get("src") and route.get("src") == route.get("dst"):
            for ctn in route.iter("link_ctn"):
                el = links.get(ctn.get("id"))
                if el is not None:
                    selves.add((el.get("bandwidth", "?"), el.get("latency", "0s"),
                                el.get("sharing_policy", "SHARED")))
    for bw, lat, policy in sorted(selves):
        parts.append("a memory link per node, %s %s%s"
                     % (bw, lat, ", shared by the node's flows" if policy != "FATPIPE"
                        else ", not shared (FATPIPE)"))
    # the same transport on every node is named once; the topology is the platform's
    return "; ".join(sorted(set(parts), key=parts.index)) or "the platform's routes"


def effective(platform, cfg_options):
    """{option: [value, source]}: what SimGrid runs a launch with, given the platform file
    and the --cfg options of its smpirun command line ('name:value' strings)."""
    given = {}
    for opt in cfg_options:
        name, _, value = opt.partition(":")
        given[ALIASES.get(name, name)] = value
    in_platform = platform_config(platform)
    model = {}
    for key in OPTIONS:
        if key in given:
            model[key] = [given[key], COMMAND_LINE]
        elif key == "network/model":
            model[key] = ["SMPI", SMPIRUN]     # smpirun passes --cfg=network/model:SMPI
        elif key in in_platform:
            model[key] = [in_platform[key], PLATFORM]
        else:
            model[key] = [DEFAULTS[key], DEFAULT]
    model[INTRA_NODE] = [intra_node(platform), PLATFORM]
    return model


def recorded(run):
    """The network model of a run (a row of runs) as {option: [value, source]}; for a
    simulated run of an older a2atune (no network_model column or NULL) rebuilt from its
    SMPI options over SimGrid's defaults, its source saying so; None for a real run."""
    keys = run.keys()
    if "backend" not in keys or run["backend"] in (None, "mpi") \
            or str(run["backend"]).startswith("replay:"):
        return None
    text = run["network_model"] if "network_model" in keys else None
    if text:
        try:
            return json.loads(text)
        except ValueError:
            return {"unreadable": [text, ""]}
    opts = re.findall(r"--cfg=(\S+)", run["smpi_options"] if "smpi_options" in keys and
                      run["smpi_options"] else "")
    model = {}
    for key in OPTIONS:
        given = [o.partition(":")[2] for o in opts if ALIASES.get(o.partition(":")[0],
                                                                  o.partition(":")[0]) == key]
        model[key] = ([given[-1], COMMAND_LINE] if given else
                      [DEFAULTS[key], DEFAULT + " (not recorded: before schema 4)"])
    model[INTRA_NODE] = ["the platform's loopback (not recorded: before schema 4)",
                         PLATFORM]
    return model


def identity(model):
    """The values of a model, without their sources: equal for runs timed alike."""
    if model is None:
        return None
    return json.dumps({k: v[0] if isinstance(v, list) else v for k, v in sorted(model.items())},
                      sort_keys=True)


def _first(piecewise, index=1):
    """The value of the smallest-size section of a SimGrid piecewise option ('0:2.0' or
    '0:1e-6:0'), as written, or the whole text when it has several sections."""
    sections = [s for s in piecewise.split(";") if s]
    if len(sections) == 1:
        fields = sections[0].split(":")
        if len(fields) > index:
            return fields[index]
    return "%d sections" % len(sections)


def describe(model, intra=True):
    """One line naming a model, e.g. 'SMPI, os/or/ois 0.5/0.5/0.2 us, bw-factor 0.95,
    lat-factor 1; intra-node: ...' (SimGrid's defaults said as such; without the
    intra-node transport when intra is false)."""
    if model is None:
        return "measured (no model)"
    value = {k: v[0] for k, v in model.items() if isinstance(v, list)}
    source = {k: v[1] for k, v in model.items() if isinstance(v, list)}
    if "unreadable" in value:
        return "unreadable network model"
    if "recorded" in value:
        return "SMPI, not recorded (%s)" % value["recorded"]
    def overhead(key):
        text = value.get(key, "")
        first = _first(text)
        try:
            return "%g" % (float(first) * 1e6)
        except ValueError:
            return first
    def is_default(key):
        return value.get(key) == DEFAULTS[key] or source.get(key, "").startswith(DEFAULT)
    if all(is_default(k) for k in ("smpi/bw-factor", "smpi/lat-factor", "smpi/os", "smpi/or")):
        head = "SMPI defaults (Ethernet-fitted factors, no per-message overhead)"
    else:
        def factor(key):
            return "default" if is_default(key) else _first(value.get(key, ""))
        head = ("%s, os/or/ois %s/%s/%s us, bw-factor %s, lat-factor %s"
                % (value.get("network/model", "?"), overhead("smpi/os"), overhead("smpi/or"),
                   overhead("smpi/ois"), factor("smpi/bw-factor"), factor("smpi/lat-factor")))
    return "%s; intra-node: %s" % (head, value.get(INTRA_NODE, "?")) if intra else head
