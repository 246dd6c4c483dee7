"""The kernel parameters as a2atune declares them (A2A_PARAMS in include/a2a_registry.h),
read from `a2atune list --json`: the Python tools keep no copy of that declaration.

The a2atune binary asked: $A2ATUNE when set (the a2a of `make install` sets it), else the
first of ./a2atune (the link `make` leaves at the top of the tree), build/openmpi/a2atune and
build/mpich/a2atune that exists, else the a2atune on PATH (the `a2a` of `pip install .`).
`list` starts no MPI, so any build answers."""
import json
import os
import shutil
import subprocess

from .common import A2AError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
_BUILDS = ("a2atune", os.path.join("build", "openmpi", "a2atune"),
           os.path.join("build", "mpich", "a2atune"))
_registry = None


def binary():
    """The path of the a2atune that declares the parameters, or A2AError when none is built."""
    given = os.environ.get("A2ATUNE")
    if given:
        return given
    for rel in _BUILDS:
        path = os.path.join(ROOT, rel)
        if os.access(path, os.X_OK):
            return path
    on_path = shutil.which("a2atune")
    if on_path:
        return on_path
    raise A2AError("no a2atune binary to read the kernel parameters from (run make, or set "
                   "A2ATUNE to one)")


def registry():
    """`a2atune list --json` as a dict (params, kernels, distributions, payloads, datatypes),
    read once per process; A2AError when it cannot be read."""
    global _registry
    if _registry is None:
        path = binary()
        try:
            out = subprocess.run([path, "list", "--json"], capture_output=True, text=True,
                                 timeout=60)
            if out.returncode != 0:
                raise A2AError("%s list --json failed: %s" % (path, out.stderr.strip()))
            _registry = json.loads(out.stdout)
        except (OSError, ValueError, subprocess.SubprocessError) as e:
            raise A2AError("cannot read the kernel parameters from %s list --json: %s"
                           % (path, e))
    return _registry


def declared():
    """Every declared parameter, in declaration order: dicts with name, meaning,
    sweep_default, column (True: the results table has a column of that name) and values
    (the names of values 1..n, or None)."""
    return registry()["params"]


def selection():
    """The parameters the tools select by (--NAME LIST): those with a results column of their
    own, but radix, which is the axis of every radix study rather than a selection."""
    return [p for p in declared() if p["column"] and p["name"] != "radix"]
