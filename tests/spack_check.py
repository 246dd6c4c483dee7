"""tests/parts/cluster.sh: is the Spack recipe in step with the Makefile?

usage: spack_check.py [ROOT]
Loads ROOT/spack/packages/a2atune/package.py against a stand-in for spack.package (no Spack
needed) and checks that
- its versions include the one of ROOT/VERSION;
- its variants are the Makefile's optional libraries (its `optional_dep` calls), each with a
  dependency when on;
- for every combination of the variants, the make variables it passes name only variables
  the Makefile reads, and `make -n` with them compiles with A2A_HAVE_X=1 exactly for the
  variants that are on.
Prints one line per problem and, last, "spack recipe: N variants, M problems"; exit 1 if
M > 0."""
import importlib.util
import itertools
import os
import re
import subprocess
import sys
import tempfile
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Recorder:
    """The directives of a recipe, recorded: version, variant, depends_on."""

    def __init__(self):
        self.versions, self.variants, self.depends = [], [], []

    def module(self):
        """A stand-in for spack.package whose directives record into self."""
        m = types.ModuleType("spack.package")

        class MakefilePackage:
            pass

        m.MakefilePackage = MakefilePackage
        m.version = lambda v, *a, **k: self.versions.append(v)
        m.variant = lambda name, *a, **k: self.variants.append(name)
        m.depends_on = lambda spec, *a, **k: self.depends.append((spec, k.get("when")))
        m.__all__ = ["MakefilePackage", "version", "variant", "depends_on"]
        return m


class Dependency:
    """What a recipe reads of a dependency in a spec."""

    def __init__(self, name):
        self.prefix = types.SimpleNamespace(include="/spack/%s/include" % name)
        self.libs = types.SimpleNamespace(ld_flags="-L/spack/%s/lib -l%s" % (name, name))
        self.command = types.SimpleNamespace(path="/spack/%s/bin/%s" % (name, name))
        self.mpicc = "mpicc"


class Spec:
    """A spec with the variants in `on` on."""

    def __init__(self, on):
        self.on = on

    def satisfies(self, text):
        return text.startswith("+") and text[1:] in self.on

    def __getitem__(self, name):
        return Dependency(name)


def load_recipe(root, recorder):
    sys.modules["spack"] = types.ModuleType("spack")
    sys.modules["spack.package"] = recorder.module()
    path = os.path.join(root, "spack", "packages", "a2atune", "package.py")
    spec = importlib.util.spec_from_file_location("a2atune_recipe", path)
    recipe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recipe)
    return recipe.A2atune


def make_flags(root, variables, build):
    """The -DA2A_HAVE_X=N of the compile line of counters.o that `make -n` prints with the
    recipe's variables (BUILD moved to `build`)."""
    args = [v for v in variables if not v.startswith("BUILD=")] + ["BUILD=" + build]
    done = subprocess.run(["make", "-n", "-B", "-C", root] + args +
                          [build + "/harness/measure/counters.o"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    return dict(re.findall(r"-DA2A_HAVE_(\w+)=(\d)", done.stdout)), done.stdout


def check(root):
    problems = []
    with open(os.path.join(root, "Makefile"), encoding="utf-8") as f:
        makefile = f.read()
    with open(os.path.join(root, "VERSION"), encoding="utf-8") as f:
        version = f.read().strip()
    optional = re.findall(r"\$\(call optional_dep,(\w+),", makefile)
    required = re.findall(r"\$\(call required_dep,(\w+),", makefile)
    rec = Recorder()
    package = load_recipe(root, rec)
    if version not in rec.versions:
        problems.append("versions %s lack VERSION's %s" % (rec.versions, version))
    if sorted(rec.variants) != sorted(v.lower() for v in optional):
        problems.append("variants %s, but the Makefile's optional libraries are %s"
                        % (sorted(rec.variants), sorted(optional)))
    for v in rec.variants:
        if not any(when == "+" + v for _, when in rec.depends):
            problems.append("variant %s brings no dependency" % v)
    known = {"MPICC", "BUILD", "PREFIX", "PYTHON"}
    for d in optional + required:
        known |= {d, d + "_CFLAGS", d + "_LIBS"}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(len(rec.variants) + 1):
            for on in itertools.combinations(sorted(rec.variants), n):
                pkg = package.__new__(package)
                pkg.spec, pkg.prefix = Spec(set(on)), "/spack/a2atune"
                variables = pkg.install_targets[1:]
                if pkg.install_targets[0] != "install" or pkg.build_targets != variables:
                    problems.append("+%s: build and install are not the same make variables"
                                    % ",+".join(on))
                names = {v.split("=", 1)[0] for v in variables}
                for name in sorted(names - known):
                    problems.append("+%s: passes %s, which the Makefile does not read"
                                    % (",+".join(on), name))
                have, out = make_flags(root, variables, os.path.join(tmp, "b"))
                want = {v.upper(): "1" if v in on else "0" for v in rec.variants}
                if {k: have.get(k) for k in want} != want:
                    problems.append("+%s: make compiles with %s, not %s (make -n said: %s)"
                                    % (",+".join(on), have, want, out.strip()[-300:]))
    for p in problems:
        print(p)
    print("spack recipe: %d variants, %d problems" % (len(rec.variants), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(check(sys.argv[1] if len(sys.argv) > 1 else ROOT))
