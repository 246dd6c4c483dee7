# tests/parts/netmodel.sh — the network model a simulated run is timed under (sourced by
# tests/run.sh: run, check, holds, sql, pass, fail, $WORK). A tiny run (P = 4 and 8) on
# each of the papers' platforms records backend, platform and the network model with the
# source of every value; --cfg on the command line wins over the platform; a simulation
# of an older a2atune (no network_model column) counts as SimGrid's defaults; `a2a merge`
# refuses to put two models in one database (one line, exit 2); a figure over a database
# holding two models draws one and says so in one line; ranks of one node share its
# intra-node link; the dragonfly platforms are `a2a platform`'s output, and dragonfly_16k.xml
# routes its first 8 groups as dragonfly.xml does. About 10-30 s.
# Needs build/simgrid/a2atune (built here when missing).
NM="$WORK/netmodel"
mkdir -p "$NM"
SIM="scripts/a2a simulate"
TINY=tests/sweeps/simgrid_netmodel.ini
[ -x build/simgrid/a2atune ] || run netmodel/build 900 make -j2 --no-print-directory MPI=simgrid build/simgrid/a2atune
nmsql() { sql "$NM/$1" "$2"; }

# ---- a tiny run on each of the papers' machines: rows carry backend, platform, model ----
for machine in theta polaris fugaku; do
    run netmodel/$machine 120 $SIM $TINY --platform platforms/$machine.xml --db "$NM/$machine.db" --copy-model none
    check netmodel/$machine/rows [ "$(nmsql $machine.db "SELECT group_concat(kernel || P || ':' || status || ':' || (median_s > 0), ',') FROM (SELECT * FROM results ORDER BY P, kernel)")" = "tra4:ok:1,vendor4:ok:1,tra8:ok:1,vendor8:ok:1" ]
    check netmodel/$machine/provenance [ "$(nmsql $machine.db "SELECT DISTINCT backend || ',' || platform || ',' || json_extract(network_model, '$.\"smpi/os\"[1]') || ',' || json_extract(network_model, '$.\"smpi/bw-factor\"') || ',' || json_extract(network_model, '$.\"network/model\"') FROM runs")" = "simgrid,$machine.xml,platform,[\"0:0.95\",\"platform\"],[\"SMPI\",\"smpirun\"]" ]
    check netmodel/$machine/nothing-implicit [ "$(nmsql $machine.db "SELECT sum(json_extract(value, '\$[1]') LIKE 'SimGrid%') || ',' || (count(*) >= 12 * 2) FROM runs, json_each(runs.network_model)")" = "0,1" ]
done
check netmodel/intra-node-named holds 'nmsql fugaku.db "SELECT network_model FROM runs LIMIT 1" | grep -q "\"intra-node\": \[\"a memory link per node, 415GBps 0us, shared"'

# ---- the command line wins over the platform, and the run says so -----------------------
run netmodel/cfg-override 120 $SIM $TINY --platform platforms/polaris.xml --db "$NM/override.db" --copy-model none --P 4 --cfg smpi/os:0:2e-06:0
check netmodel/cfg-override/recorded [ "$(nmsql override.db "SELECT DISTINCT json_extract(network_model, '$.\"smpi/os\"') FROM runs")" = '["0:2e-06:0","command line"]' ]

# ---- merge: one database, one network model ----------------------------------------------
scripts/a2a merge "$NM/polaris.db" "$NM/fugaku.db" --into "$NM/mixed.db" > "$NM/merge.out" 2>&1; rc=$?
check netmodel/merge-refuses-two-models holds '[ $rc -eq 2 ] && [ "$(wc -l < "$NM/merge.out")" -eq 1 ] && grep -q "different network models" "$NM/merge.out" && [ ! -e "$NM/mixed.db" ]'
run netmodel/merge-one-model 60 scripts/a2a merge "$NM/polaris.db" --into "$NM/polaris-copy.db"
# a simulated database of an older a2atune: SimGrid's defaults, a model of its own
sql "$NM/old.db" < tests/data/tuner-dragonfly.sql
scripts/a2a merge "$NM/old.db" --into "$NM/polaris-copy.db" > "$NM/merge-old.out" 2>&1; rc=$?
check netmodel/merge-refuses-implicit-defaults holds '[ $rc -eq 2 ] && [ "$(wc -l < "$NM/merge-old.out")" -eq 1 ] && grep -q "SMPI defaults" "$NM/merge-old.out"'

# ---- a figure over two models draws one and says so in one line -------------------------
run netmodel/second-model 120 $SIM $TINY --platform platforms/fugaku.xml --db "$NM/polaris.db" --copy-model none
scripts/a2a curves --db "$NM/polaris.db" --kernel tra --out "$NM/fig" > /dev/null 2> "$NM/curves.err"; rc=$?
check netmodel/figure-one-model holds '[ $rc -eq 0 ] && [ "$(grep -c "other network model" "$NM/curves.err")" -eq 1 ]'

# ---- the ranks of a node share its intra-node link --------------------------------------
# 32 ranks of one node each send 16 KiB to every other: 32 x 31 x 16 KiB = 16.25 MB through
# the node's memory link (x 0.95) take at least 167 us on polaris.xml (102.4 GB/s) and 41 us
# on fugaku.xml (415 GB/s); with SimGrid's loopback (every flow alone) it took 3.4 us
for machine in polaris:102.4e9 fugaku:415e9; do
    rate=${machine#*:} machine=${machine%%:*}
    run netmodel/intra-node-$machine 120 $SIM tests/sweeps/simgrid_intranode.ini --platform platforms/$machine.xml --db "$NM/intra-$machine.db" --copy-model none
    check netmodel/intra-node-shared-$machine [ "$(nmsql intra-$machine.db "SELECT count(*) FROM results WHERE kernel = 'scattered' AND status = 'ok' AND median_s >= 32 * 31 * 16384 / ($rate * 0.95)")" = 1 ]
done
check netmodel/intra-node-named-polaris holds 'nmsql intra-polaris.db "SELECT network_model FROM runs LIMIT 1" | grep -q "\"intra-node\": \[\"a memory link per node, 102.4GBps 0.1us, shared"'

# ---- the dragonfly platforms are what `a2a platform` writes ----------------------------
for machine in polaris theta fugaku dragonfly dragonfly_16k; do
    check netmodel/platform-$machine-current holds "scripts/a2a platform $machine | cmp -s - platforms/$machine.xml"
done
# ---- every figure of the table has a source or says it is assumed; the page shows it ----
# (docs/results/platforms.md is `a2a platform --page`'s output); the check fails on a figure
# whose source is taken away, and on one that cites a document the table does not list; a
# node's injection is its NICs' bandwidth
check netmodel/platform-page-current holds "scripts/a2a platform --page | cmp -s - docs/results/platforms.md"
check netmodel/platform-figures-sourced holds '/usr/bin/python3 - <<PY
import sys
sys.path.insert(0, "scripts")
from a2a_tools.simulation.platform_page import missing_sources
from a2a_tools.simulation.platform_table import MACHINES, KIND_KEYS, Figure
assert missing_sources() == [], missing_sources()
bare = {n: dict(m) for n, m in MACHINES.items()}
bare["theta"]["nic_lat"] = Figure(0.35, (), "", "")
bare["fugaku"]["link_bw"] = Figure(6.8, ("tofu-d-spec",), "", "")
del bare["polaris"]["routing"]
assert missing_sources(bare) == [("fugaku", "link_bw", "cites a document the table does not list"),
                                 ("polaris", "routing", "no figure"),
                                 ("theta", "nic_lat", "neither a source nor \x27assumed\x27")], missing_sources(bare)
for name, m in MACHINES.items():
    assert abs(m["injection"].value - m["nics"].value * m["nic_bw"].value) < 1e-9, name
PY'
# dragonfly_16k.xml is dragonfly.xml grown: the same network model, and its first 128 nodes
# (8 groups) reached by routes of the same links (rates) and latency as dragonfly.xml's, so
# model rows at P <= 4096 are the same on both
check netmodel/dragonfly-16k-grows-dragonfly holds '/usr/bin/python3 - <<PY
import re, sys
sys.path.insert(0, "scripts")
from a2a_tools.simulation.platform_model import Platform
small, big = Platform("platforms/dragonfly.xml"), Platform("platforms/dragonfly_16k.xml")
assert (small.nodes, big.nodes, small.cores, big.cores) == (128, 512, 32, 32)
def shape(p, a, b):
    links, latency = p.route(a, b)
    return [bw for _, bw in links], round(latency * 1e12)
for a in (0, 17, 127):
    for b in range(128):
        if a != b:
            assert shape(small, a, b) == shape(big, a, b), (a, b)
model = lambda p: re.sub(r"(nodes|links)=[0-9]+ ", "", p.describe())
assert model(small) == model(big) and "os=0:3e-07:0" in model(big), model(big)
PY'
