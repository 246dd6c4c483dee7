#!/usr/bin/python3
"""registry_check.py — is every kernel in the registry's table, every parameter column in the
database, every kernel's block_count in the guide? (stdlib only; tests/parts/registry.sh
runs it.)

    tests/registry_check.py kernels HEADER_DIR REGISTRY_OBJECT
      Every public kernel function of liba2a (a declaration `int A2A_...(..., a2a_stats *...)`
      in HEADER_DIR/*.h) must be called by the kernel table: REGISTRY_OBJECT (the compiled
      kernels/registry.c, whose shims A2A_KERNELS expands) must use it (`nm -u`). The plain
      vendor calls are the exception: the table's vendor kernels call the
      *_vendor_algorithm forms, whose vendor_algorithm 0 is that call.
    tests/registry_check.py params A2ATUNE DB...
      Every parameter `A2ATUNE list --json` declares with a column must be a column of the
      results table and of the views measurement, best_radix and speedup_vs_baseline of
      each database DB.
    tests/registry_check.py block_count A2ATUNE GUIDE
      The table of GUIDE (docs/sweeps.md) headed `| family | kernel | block_count | what it
      counts |` must have one row per kernel `A2ATUNE list --json` gives a block_count, with
      that kernel's range and meaning, and no other row; a kernel whose block_count has no
      meaning is an omission too.
Prints one line per omission and a last line "N missing"; exits 1 when N > 0, 2 on bad
input."""
import glob
import json
import os
import re
import sqlite3
import subprocess
import sys

# declared with a2a_stats but reached through another function of the table (see above)
NOT_IN_TABLE = {"A2A_Alltoall_vendor", "A2A_Alltoallv_vendor"}
VIEWS = ("measurement", "best_radix", "speedup_vs_baseline")
BLOCK_COUNT_HEADER = ["family", "kernel", "block_count", "what it counts"]


def public_kernels(header_dir):
    """The names of the functions HEADER_DIR/*.h declare as `int A2A_x(..., a2a_stats *s)`."""
    names = set()
    for path in sorted(glob.glob(os.path.join(header_dir, "*.h"))):
        with open(path) as f:
            text = re.sub(r"/\*.*?\*/", " ", f.read(), flags=re.S)
        for name, args in re.findall(r"\bint\s+(A2A_\w+)\s*\(([^;{}]*)\)\s*;", text):
            if re.search(r"\ba2a_stats\s*\*", args):
                names.add(name)
    return names


def used_symbols(obj):
    """The undefined symbols of an object file (the functions it calls from elsewhere)."""
    out = subprocess.run(["nm", "-u", obj], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in out.stdout.splitlines() if line.strip()}


def check_kernels(header_dir, obj):
    """One line per public kernel function the table does not call."""
    declared = public_kernels(header_dir)
    if not declared:
        raise ValueError("%s: no kernel declarations found" % header_dir)
    used = used_symbols(obj)
    return ["kernel %s: declared in %s but not in the table of %s (add its line to "
            "A2A_KERNELS, kernels/registry.c)" % (name, header_dir, obj)
            for name in sorted(declared - used - NOT_IN_TABLE)]


def list_json(a2atune):
    """What `A2ATUNE list --json` prints, parsed."""
    out = subprocess.run([a2atune, "list", "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def check_params(a2atune, dbs):
    """One line per (database, table or view) lacking a declared parameter's column."""
    wanted = [p["name"] for p in list_json(a2atune)["params"] if p["column"]]
    if not wanted:
        raise ValueError("%s list --json declares no parameter with a column" % a2atune)
    missing = []
    for path in dbs:
        if not os.path.isfile(path):
            raise ValueError("%s: no such database" % path)
        conn = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        for table in ("results",) + VIEWS:
            have = {r[0] for r in conn.execute("SELECT name FROM pragma_table_info(?)", (table,))}
            missing += ["%s: %s has no column %s (a parameter declared with A2A_PARAM_COLUMN)"
                        % (path, table, name) for name in wanted if name not in have]
        conn.close()
    return missing


def guide_table(path, header):
    """The rows (lists of cell texts) of the Markdown table of PATH headed by `header`."""
    rows, inside = None, False
    with open(path) as f:
        for line in f:
            line = line.strip()
            cells = [c.strip() for c in line.strip("|").split("|")] if line.startswith("|") else None
            if inside and cells is not None:
                if not all(set(c) <= set("-: ") for c in cells):
                    rows.append(cells)
            elif inside:
                break
            elif cells == header:
                if rows is not None:
                    raise ValueError("%s: two tables headed %s" % (path, " | ".join(header)))
                rows, inside = [], True
    if rows is None:
        raise ValueError("%s: no table headed | %s |" % (path, " | ".join(header)))
    return rows


def check_block_count(a2atune, guide):
    """One line per kernel whose block_count the guide's table lacks or gives otherwise, per
    row of the table that is no such kernel, and per block_count declared without a
    meaning."""
    declared = {}
    for k in list_json(a2atune)["kernels"]:
        for p in k["params"]:
            if p["name"] == "block_count":
                declared[(k["family"], k["name"])] = (p["range"], p["meaning"])
    if not declared:
        raise ValueError("%s list --json: no kernel takes block_count" % a2atune)
    missing = ["kernel %s %s: block_count declared without what it counts (RANGE_MEANING, "
               "kernels/registry.c)" % key for key, (_, meaning) in sorted(declared.items())
               if not meaning]
    listed = {}
    for cells in guide_table(guide, BLOCK_COUNT_HEADER):
        if len(cells) != len(BLOCK_COUNT_HEADER):
            missing.append("%s: row '%s' has %d cells, not %d"
                           % (guide, " | ".join(cells), len(cells), len(BLOCK_COUNT_HEADER)))
            continue
        key = (cells[0], cells[1])
        if key in listed:
            missing.append("%s: kernel %s %s listed twice" % ((guide,) + key))
        listed[key] = (cells[2], cells[3])
    for key in sorted(set(declared) | set(listed)):
        if key not in listed:
            missing.append("%s: no row for kernel %s %s (block_count %s: %s)"
                           % ((guide,) + key + declared[key]))
        elif key not in declared:
            missing.append("%s: row for kernel %s %s, which takes no block_count"
                           % ((guide,) + key))
        elif listed[key] != declared[key]:
            missing.append("%s: kernel %s %s gives block_count %s: %s, the registry %s: %s"
                           % ((guide,) + key + listed[key] + declared[key]))
    return missing


def main(argv):
    try:
        if len(argv) == 3 and argv[0] == "kernels":
            missing = check_kernels(argv[1], argv[2])
        elif len(argv) >= 3 and argv[0] == "params":
            missing = check_params(argv[1], argv[2:])
        elif len(argv) == 3 and argv[0] == "block_count":
            missing = check_block_count(argv[1], argv[2])
        else:
            print(__doc__.strip(), file=sys.stderr)
            return 2
    except (OSError, ValueError, KeyError, subprocess.CalledProcessError, sqlite3.Error) as e:
        print("registry_check: %s" % e, file=sys.stderr)
        return 2
    for line in missing:
        print(line)
    print("%d missing" % len(missing))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
