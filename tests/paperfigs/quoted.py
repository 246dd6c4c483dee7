"""tests/parts/paperfigs.sh: do the platform figures a page quotes match the platform table?

usage: quoted.py FILE.md...
Every per-message pair "A + B us" a page quotes must be some generated machine's smpi/ois +
smpi/or (scripts/a2a_tools/simulation/platform_table.py), and every bandwidth "X GB/s" one of its link,
NIC, injection or memory figures. Prints one line per figure the table does not hold
(file:line: ...) and, last, "quoted: N, problems: M"; exit 1 if M > 0."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from a2a_tools.simulation.platform_table import MACHINES  # noqa: E402

PAIR = re.compile(r"\b(\d+(?:\.\d+)?) \+ (\d+(?:\.\d+)?) us\b")
RATE = re.compile(r"\b(\d+(?:\.\d+)?) GB/s\b")


def main(paths):
    pairs = {(m["ois"].value, m["or"].value) for m in MACHINES.values()}
    rates = {m[k].value for m in MACHINES.values()
             for k in ("link_bw", "nic_bw", "injection", "mem_bw")}
    quoted = problems = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                for a, b in PAIR.findall(line):
                    quoted += 1
                    if (float(a), float(b)) not in pairs:
                        problems += 1
                        print("%s:%d: %s + %s us is no machine's smpi/ois + smpi/or"
                              % (path, n, a, b))
                for rate in RATE.findall(line):
                    quoted += 1
                    if float(rate) not in rates:
                        problems += 1
                        print("%s:%d: %s GB/s is no machine's link, NIC, injection or memory "
                              "figure" % (path, n, rate))
    print("quoted: %d, problems: %d" % (quoted, problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
