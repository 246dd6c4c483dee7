"""The model tier's routing (`a2a model-run --routing`): under adaptive routing a flow between
two routers of one group is spread over its minimal route and Valiant's detours through the
group's other routers, in the share that leaves the busiest link least loaded; minimal
routing prices as SimGrid's routes do. Hand-made platforms, loads computed by hand."""
import os
import tempfile
import unittest

import numpy

import a2a_test_support  # noqa: F401  (puts scripts/ on sys.path)
from a2a_test_support import REPO
from a2a_tools.core.common import A2AError
from a2a_tools.simulation.model_run import CostModel, best_mix
from a2a_tools.simulation.platform_model import Platform

GBPS = 1e9


def four_routers(direct_bw="1GBps", cross="no"):
    """A platform of one group: routers sw0-0-0 .. sw0-0-3 all to all (1 GB/s each way,
    0.1 us; the link between routers 0 and 1 at direct_bw), one host of one core under each
    (a 100 GB/s NIC link: never the busiest). Returns its path."""
    lines = ['<?xml version="1.0"?>', '<platform version="4.1">', "  <config>",
             '    <prop id="smpi/bw-factor" value="0:1"/>',
             '    <prop id="network/crosstraffic" value="%s"/>' % cross, "  </config>",
             '  <zone id="z" routing="Full">']
    for r in range(4):
        lines += ['    <host id="h%d" speed="1Gf" core="1"/>' % r,
                  '    <router id="t-sw0-0-%d"/>' % r,
                  '    <link id="nic%d" bandwidth="100GBps" latency="0.5us" '
                  'sharing_policy="SPLITDUPLEX"/>' % r,
                  '    <route src="h%d" dst="t-sw0-0-%d"><link_ctn id="nic%d" direction="UP"/>'
                  '</route>' % (r, r, r)]
        for s in range(r + 1, 4):
            bw = direct_bw if (r, s) == (0, 1) else "1GBps"
            lines += ['    <link id="r%d%d" bandwidth="%s" latency="0.1us" '
                      'sharing_policy="SPLITDUPLEX"/>' % (r, s, bw),
                      '    <route src="t-sw0-0-%d" dst="t-sw0-0-%d"><link_ctn id="r%d%d" '
                      'direction="UP"/></route>' % (r, s, r, s)]
    lines += ["  </zone>", "</platform>"]
    fd, path = tempfile.mkstemp(suffix=".xml", prefix="a2a-adaptive-")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


class AdaptiveRouting(unittest.TestCase):
    def setUp(self):
        self.paths = []

    def tearDown(self):
        for path in self.paths:
            os.remove(path)

    def model(self, routing, **kw):
        path = four_routers(**kw)
        self.paths.append(path)
        return CostModel(Platform(path, routing=routing), 1, clocks=True)

    def loads(self, model, nodes, loads, share):
        """{link id: bytes} on the router links when every flow sends `share` of its bytes
        on its minimal route and the rest over its detours."""
        minimal, spread = model.link_seconds(nodes, loads)
        index = model._links[nodes]
        caps = numpy.array(model._capacity[nodes])
        both = (share * minimal + (1 - share) * spread) * caps
        return {link[0]: both[i] for link, i in index.items() if link[0].startswith("r")}

    def test_detours_are_the_two_hop_paths(self):
        m = self.model("adaptive")
        detours = m.p.detours(0, 1)
        self.assertEqual(sorted([l[0] for l, _ in path] for path in detours),
                         [["nic0", "r02", "r12", "nic1"], ["nic0", "r03", "r13", "nic1"]])
        self.assertEqual(self.model("minimal").p.detours(0, 1), [])

    def test_one_flow_spread_by_hand(self):
        # nodes 0 and 1 (routers 0 and 1) send each other W = 3 MB: minimal, all of it on
        # the 1 GB/s link r01 (3 ms); adaptive, share a on r01 and (1 - a) / 2 on each
        # two-hop path: a = (1 - a) / 2 gives a = 1/3, 1 MB on r01 and on each of r02, r12,
        # r03, r13 (the two directions' flows on the two directions of each link): 1 ms
        W = 3e6
        minimal, adaptive = self.model("minimal"), self.model("adaptive")
        self.assertAlmostEqual(minimal.busiest_link(2, {1: W}), 3e-3, places=12)
        self.assertAlmostEqual(adaptive.busiest_link(2, {1: W}), 1e-3, places=9)
        share, seconds = best_mix(*adaptive.link_seconds(2, {1: W}))
        self.assertAlmostEqual(share, 1 / 3, places=9)
        got = self.loads(adaptive, 2, {1: W}, share)
        for link in ("r01", "r02", "r12", "r03", "r13"):
            self.assertAlmostEqual(got[link] / 1e6, 1.0, places=6, msg=link)
        self.assertNotIn("r23", got)   # on no path from 0 to 1

    def test_share_follows_the_links_not_an_equal_split(self):
        # r01 at 2 GB/s: a W / 2 = (1 - a) W / 2 / 1 gives a = 1/2 (an equal split over the
        # three paths would be 1/3): 0.75 ms for W = 3 MB, 1.5 MB on r01, 0.75 MB on r02
        m = self.model("adaptive", direct_bw="2GBps")
        share, seconds = best_mix(*m.link_seconds(2, {1: 3e6}))
        self.assertAlmostEqual(share, 0.5, places=9)
        self.assertAlmostEqual(seconds, 0.75e-3, places=9)
        got = self.loads(m, 2, {1: 3e6}, share)
        self.assertAlmostEqual(got["r01"] / 1e6, 1.5, places=6)
        self.assertAlmostEqual(got["r02"] / 1e6, 0.75, places=6)

    def test_uniform_traffic_stays_minimal(self):
        # every node to every other (offsets 1, 2, 3 of 4 nodes): minimal, W on each link
        # direction; spread, 2 W (two hops each): the share is 1 and the time the minimal's
        W = 1e6
        loads = {1: W, 2: W, 3: W}
        m = self.model("adaptive")
        share, seconds = best_mix(*m.link_seconds(4, loads))
        self.assertEqual(share, 1.0)
        self.assertAlmostEqual(seconds, 1e-3, places=12)
        self.assertAlmostEqual(self.model("minimal").busiest_link(4, loads), 1e-3, places=12)

    def test_minimal_prices_simgrids_routes(self):
        # theta.xml at P = 2048 (32 nodes of 64): the busiest link of node offset 4 (each
        # router's four nodes to the next router's), minimal: 4 nodes' bytes on one 5.25 GB/s
        # rank-1 link, as summed over Platform.route by hand; adaptive spreads it
        theta = os.path.join(REPO, "platforms", "theta.xml")
        W = 1e6
        minimal = CostModel(Platform(theta), 64)
        self.assertAlmostEqual(minimal.busiest_link(32, {4: W}), 4 * W / 5.25e9, places=15)
        by_hand = {}
        for n in range(32):
            for link, bw in minimal.p.route(n, (n + 4) % 32)[0]:
                by_hand[link] = by_hand.get(link, 0.0) + W / bw
        self.assertEqual(minimal.busiest_link(32, {4: W}), max(by_hand.values()))
        adaptive = CostModel(Platform(theta, routing="adaptive"), 64)
        self.assertLess(adaptive.busiest_link(32, {4: W}), minimal.busiest_link(32, {4: W}) / 2)
        # no busier than a node's own 10 GB/s NIC link carrying its W
        self.assertGreaterEqual(adaptive.busiest_link(32, {4: W}), W / 10e9 * (1 - 1e-12))

    def test_recorded_and_refused(self):
        self.assertIn(" routing=adaptive", self.model("adaptive").p.describe())
        self.assertNotIn("routing", self.model("minimal").p.describe())
        with self.assertRaises(A2AError):   # a <cluster>: no routers to detour through
            Platform(os.path.join(REPO, "platforms", "fattree_ib.xml"), routing="adaptive")
        with self.assertRaises(A2AError):
            self.model("adaptive", cross="yes")
        with self.assertRaises(A2AError):
            Platform(os.path.join(REPO, "platforms", "theta.xml"), routing="valiant")


if __name__ == "__main__":
    unittest.main()
