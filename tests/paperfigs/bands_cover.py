"""tests/parts/paperfigs.sh: does the band data cover every assumed figure of the paper
platforms, as the platform table has them now?

usage: bands_cover.py BANDS.sql
For each paper platform (paper_bands.PLATFORMS), every figure the table calls assumed must
have, at x1/2 and at x2, a variant that was priced (results in the data) or a reason why
none; and the data's variants must be the ones `a2a paper-bands` would write now (same
figures, same variant names, same network: sha256), so a changed or newly assumed figure
fails until the bands are priced again. Prints one line per problem and, last, "figures: N,
problems: M"; exit 1 if M > 0."""
import hashlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from a2a_tools.papers import paper_bands  # noqa: E402


def problems_of(path):
    """(figures checked, [problem lines]) of the band data at path."""
    conn = paper_bands.load(path)
    seen, out = 0, []
    for platform, (machine, _, _, _) in paper_bands.PLATFORMS.items():
        figures, files = paper_bands.variants(machine)
        stored = conn.execute("SELECT figure, scale, variant, why FROM figures WHERE "
                              "platform = ? ORDER BY rowid", (platform,)).fetchall()
        have = {(f, s): (v, w) for f, s, v, w in stored}
        for key in paper_bands.assumed_figures(machine):
            for _, label in paper_bands.SCALES:
                seen += 1
                variant, why = have.get((key, label), (None, None))
                if variant is None and not why:
                    out.append("%s %s %s: assumed, but no variant and no reason" % (
                        platform, key, label))
                elif variant is not None and not conn.execute(
                        "SELECT count(*) FROM results WHERE platform = ? AND variant = ?",
                        (platform, variant)).fetchone()[0]:
                    out.append("%s %s %s: variant %s has no priced rows" % (
                        platform, key, label, variant))
        if [tuple(f) for f in stored] != [tuple(f) for f in figures]:
            out.append("%s: the data's figures are not those a2a paper-bands writes now "
                       "(price the bands again)" % platform)
        shas = dict(conn.execute("SELECT variant, platform_sha256 FROM variants WHERE "
                                 "platform = ?", (platform,)).fetchall())
        for variant, text in files.items():
            if shas.get(variant) != hashlib.sha256(text.encode()).hexdigest():
                out.append("%s %s: not priced on the network the table writes now" % (
                    platform, variant))
    return seen, out


def main(path):
    seen, problems = problems_of(path)
    for line in problems:
        print(line)
    print("figures: %d, problems: %d" % (seen, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
