# Spack recipe of a2atune (docs/install.md: `spack repo add spack` in a checkout, then
# `spack develop` and `spack install` in an environment). Its variants are the Makefile's
# optional libraries and its version the file VERSION: tests/spack_check.py, in
# `tests/run.sh cluster`, keeps them in step.
from spack.package import *


class A2atune(MakefilePackage):
    """Autotuning benchmark harness for MPI all-to-all collectives: liba2a (the algorithms
    of the literature with MPI's signatures), a2atune (sweeps checked and timed into
    SQLite) and the a2a tools (heatmaps, curves, tuning files, cluster jobs)."""

    version("0.1.0")

    # the Makefile's optional libraries (PAPI=, FFTW=, HWLOC=)
    variant("papi", default=True, description="hardware counters through PAPI")
    variant("fftw", default=True, description="the FFT application (a2atune app fft)")
    variant("hwloc", default=True, description="cache sizes through hwloc (else sysconf's)")

    depends_on("c", type="build")
    depends_on("gmake", type="build")
    depends_on("mpi")
    depends_on("sqlite")
    depends_on("jansson")
    depends_on("papi", when="+papi")
    depends_on("fftw@3:", when="+fftw")
    depends_on("hwloc", when="+hwloc")
    depends_on("python@3.8:", type="run")
    depends_on("py-numpy", type="run")
    depends_on("py-matplotlib", type="run")

    # variant: (Makefile variable, the dependency's name in the spec)
    OPTIONAL = {"papi": ("PAPI", "papi"), "fftw": ("FFTW", "fftw"), "hwloc": ("HWLOC", "hwloc")}

    def make_variables(self):
        """The Makefile's variables: the MPI's wrapper, a build folder of its own, the prefix,
        and each library's flags given by hand (no pkg-config needed), or VAR=no."""
        spec = self.spec
        args = [
            "MPICC={0}".format(spec["mpi"].mpicc),
            "BUILD=build/spack",
            "PREFIX={0}".format(self.prefix),
            "PYTHON={0}".format(spec["python"].command.path),
        ]
        given = [("SQLITE3", "sqlite"), ("JANSSON", "jansson")]
        for name, (var, dep) in sorted(self.OPTIONAL.items()):
            if spec.satisfies("+" + name):
                given.append((var, dep))
            else:
                args.append("{0}=no".format(var))
        for var, dep in given:
            args.append("{0}_CFLAGS=-I{1}".format(var, spec[dep].prefix.include))
            args.append("{0}_LIBS={1}".format(var, spec[dep].libs.ld_flags))
        return args

    @property
    def build_targets(self):
        return self.make_variables()

    @property
    def install_targets(self):
        return ["install"] + self.make_variables()
