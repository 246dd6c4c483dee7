"""Launch templates without a cluster: a2a submit --launch (the named templates as
docs/clusters.md lists them, run by stand-in launchers that record their argv; a template
of one's own through hostile paths; every refusal one line, exit 2; PBS jobs; each default
and its named template write the same script), a2a launch-template, the two jobs of
docs/clusters.md regenerated, and scripts/run-sweep.sh --launch on 2 real ranks."""
import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import tempfile
import unittest

from a2a_test_support import A2ATUNE, REPO, call, run, write_program

from a2a_tools.cluster import launch  # noqa: E402
from test_slurm import SubmitFixture, bad_call, fake_program, load_json, read, write

CLUSTERS = os.path.join(REPO, "docs", "clusters.md")
RUN_SWEEP = os.path.join(REPO, "scripts", "run-sweep.sh")
# a stand-in launcher: records its argv, PBS_NODEFILE and A2A_T; exits 3 on its first call
# when A2A_FIRST_EXIT says so (a configuration timed out), else 0
RECORDING = (
    "path = os.environ['A2A_CALLS']\n"
    "calls = json.load(open(path)) if os.path.exists(path) else []\n"
    "calls.append({'argv': sys.argv[1:], 'cwd': os.getcwd(),\n"
    "              'env': {k: os.environ.get(k) for k in ('PBS_NODEFILE', 'A2A_T')}})\n"
    "json.dump(calls, open(path, 'w'))\n"
    "sys.exit(int(os.environ.get('A2A_FIRST_EXIT', '0')) if len(calls) == 1 else 0)\n")


def doc_rows(columns):
    """The rows of docs/clusters.md's tables with this many columns whose first cell is
    code, each a list of its cells without the backquotes."""
    rows = []
    with open(CLUSTERS, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.startswith("| `") and len(cells) == columns:
                rows.append([re.sub(r"^`(.*)`$", r"\1", c) for c in cells])
    return rows


class Named(unittest.TestCase):
    """The named templates and placeholders: one declaration, documented as declared."""

    def test_tables_are_the_declaration(self):
        self.assertEqual(doc_rows(3), [[n, t, what] for n, t, _, _, what in launch.NAMED])
        self.assertEqual([r[0] for r in doc_rows(2)],
                         ["{%s}" % p for p in launch.PLACEHOLDERS])
        rc, out, err = call("launch-template", "--format", "json")
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual([(r["name"], r["template"]) for r in json.loads(out)],
                         [(n[0], n[1]) for n in launch.NAMED])
        for name, template, _, _, _ in launch.NAMED:
            self.assertEqual(call("launch-template", name), (0, template + "\n", ""))

    def test_rendered(self):
        want = {
            "srun": 'srun --mpi=pmix --kill-on-bad-exit=1 --nodes=2 --ntasks=5 '
                    '--ntasks-per-node=3 "$@"',
            "srun-plain": 'srun --kill-on-bad-exit=1 --nodes=2 --ntasks=5 --ntasks-per-node=3 "$@"',
            "mpirun-openmpi": '\'my run\' -x -n 5 --map-by ppr:3:node "$@"',
            "mpirun-mpich": '\'my run\' -x -n 5 -ppn 3 "$@"',
            "mpirun-openmpi-pbs": '\'my run\' -x --hostfile "$PBS_NODEFILE" -n 5 '
                                  '--map-by ppr:3:node "$@"',
            "mpirun-mpich-pbs": '\'my run\' -x -f "$PBS_NODEFILE" -n 5 -ppn 3 "$@"',
            "mpiexec-pals": 'mpiexec -n 5 --ppn 3 "$@"',
        }
        self.assertEqual(sorted(want), sorted(n[0] for n in launch.NAMED))
        for name, line in want.items():
            extra = ["--mpirun", "'my run' -x"] if "{mpirun}" in launch.parse(name)["words"] else []
            self.assertEqual(call("launch-template", name, "--ranks", "5", "--nodes", "2", *extra),
                             (0, line + "\n", ""), name)
        self.assertEqual(call("launch-template", "srun", "--ranks", "4", "--mpi", "mpich"),
                         (0, 'srun --mpi=pmi2 --kill-on-bad-exit=1 --nodes=1 --ntasks=4 '
                             '--ntasks-per-node=4 "$@"\n', ""))
        self.assertEqual(call("launch-template", "srun", "--ranks", "4", "--nodes", "2", "--ppn",
                              "8", "--srun-mpi", "cray_shasta")[1],
                         'srun --mpi=cray_shasta --kill-on-bad-exit=1 --nodes=2 --ntasks=4 '
                         '--ntasks-per-node=8 "$@"\n')
        # a template of one's own: its words as written, ${NAME} the shell's
        self.assertEqual(call("launch-template", "env X=\"${HOME} 1\"  run-it -n {ranks} {cmd} "
                              "--tail '{a b}'", "--ranks", "3")[1],
                         'env X="${HOME} 1" run-it -n 3 "$@" --tail \'{a b}\'\n')

    def test_bad_templates(self):
        cases = [
            ("mpiexec -n {rank} {cmd}", "unknown placeholder {rank}"),
            ("mpiexec -n {ranks}", "needs {cmd}"),
            ("mpiexec {cmd} {cmd}", "needs {cmd}"),
            ('sh -c "{cmd}"', "as a word of its own"),
            ("mpiexec 'a {cmd}", "unclosed ' quote"),
            ("mpiexec {cmd} \\", "ends with a backslash"),
            ("mpirun-openmp", "no such launch template (names: srun, srun-plain,"),
        ]
        for text, want in cases:
            with self.subTest(text=text):
                bad_call(self, "launch-template", text, want=want)
                bad_call(self, "launch-template", text, "--ranks", "2", want=want)
        bad_call(self, "launch-template", "mpirun-mpich", "--mpi", "openmpi",
                 want="--launch mpirun-mpich: MPICH's launcher, but --mpi openmpi")
        bad_call(self, "launch-template", "mpiexec-pals", "--srun-mpi", "pmi2",
                 want="--srun-mpi: the launch template has no {srun_mpi}")
        bad_call(self, "launch-template", "srun", "--ranks", "2", "--srun-mpi", "a;b",
                 want="--srun-mpi 'a;b': a plugin name")
        rc, _, err = call("launch-template", "srun", "--ranks", "0")
        self.assertEqual(rc, 2, err)


class Submit(SubmitFixture, unittest.TestCase):
    """a2a submit --launch: the scripts, run with stand-in launchers."""
    prefix = "a2a-launch."

    def submit(self, *extra):
        rc, out, err = call("submit", self.sweep, "--nodes", "1,2", "--ppn", "2", "--binary",
                            self.binary, "--out", self.out, "--dry-run", *extra)
        self.assertEqual(rc, 0, err)
        return out

    def run_script(self, name, **env_extra):
        """Runs OUT/name as its scheduler would (task 0; under PBS from another folder,
        with a host file under a hostile path): (CompletedProcess, recorded calls)."""
        calls = os.path.join(self.tmp, "calls.json")
        if os.path.exists(calls):
            os.remove(calls)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PBS_", "SLURM_"))}
        env.update(PATH=self.bin + ":" + os.environ["PATH"], A2A_CALLS=calls,
                   SLURM_ARRAY_TASK_ID="0", SLURM_JOB_ID="5", PBS_O_WORKDIR=self.out,
                   PBS_NODEFILE=self.nodefile, PBS_JOBID="6.srv", **env_extra)
        p = subprocess.run(["bash", os.path.join(self.out, name)], env=env, cwd=self.tmp,
                           capture_output=True, text=True, timeout=60)
        return p, (load_json(calls) if os.path.exists(calls) else [])

    def setUp(self):
        super().setUp()
        self.nodefile = write(os.path.join(self.tmp, "it's nodes $(x)", "nodefile"), "n1\nn2\n")
        for program in ("srun", "mpiexec", "my-mpirun", "launcher-x"):
            fake_program(self.bin, program, RECORDING)

    def job1(self):
        """The a2atune command of job 1 (the 2-node job), after the program."""
        return [self.binary, "run", os.path.join(self.out, "sweeps", "job-1.ini"), "--db",
                os.path.join(self.out, "shards", "job-1-n2.db"), "--section",
                "uniform,nonuniform"]

    def test_named_templates_run_as_documented(self):
        # every row of the page's table: the template as documented, filled in for 2 nodes
        # x 2 ranks, is what the launcher gets
        rows = doc_rows(3)
        self.assertEqual(len(rows), len(launch.NAMED))
        for name, template, _ in rows:
            with self.subTest(name=name):
                shutil.rmtree(self.out, True)
                pbs = name.endswith("-pbs") or name == "mpiexec-pals"
                extra = ["--launch", name] + (["--scheduler", "pbs"] if pbs else [])
                if "{mpirun}" in template:
                    extra += ["--mpirun", os.path.join(self.bin, "my-mpirun")]
                self.submit(*extra)
                p, calls = self.run_script("a2a-small-n2." + ("pbs" if pbs else "sbatch"))
                self.assertEqual(p.returncode, 0, p.stderr)
                values = {"{ranks}": "4", "{ppn}": "2", "{nodes}": "2", "{srun_mpi}":
                          "pmi2" if "mpich" in name else "pmix",
                          '"$PBS_NODEFILE"': self.nodefile}
                words = template.split()
                want = [re.sub(r"\{(?!cmd\})\w+\}", lambda m: values[m.group(0)],
                               values.get(w, w)) for w in words[1:]]
                cmd = want.index("{cmd}")
                self.assertEqual([c["argv"] for c in calls], [want[:cmd] + self.job1()])
                manifest = load_json(os.path.join(self.out, "a2a-submit.json"))
                self.assertEqual((manifest["launcher"], manifest["launch"]), (name, template))
                self.assertEqual(manifest["mpi"], "mpich" if "mpich" in name else "openmpi")

    def test_template_of_ones_own(self):
        template = ("env A2A_T='x y' launcher-x -np {ranks} --per-node={ppn} -N {nodes} "
                    "{mpirun} {cmd} --after \"a b\" '$HOME'")
        self.submit("--launch", template, "--mpirun", "inner 'q r'", "--mpi", "mpich")
        text = read(os.path.join(self.out, "a2a-small-n2.sbatch"))
        self.assertIn(", MPICH via the launch template %s\n" % template, text)
        p, calls = self.run_script("a2a-small-n2.sbatch", A2A_FIRST_EXIT="3")
        self.assertEqual(p.returncode, 0, p.stderr)
        head = ["-np", "4", "--per-node=2", "-N", "2", "inner", "q r"]
        tail = ["--after", "a b", "$HOME"]
        # the resume goes with the a2atune command, before the template's words after it
        self.assertEqual([c["argv"] for c in calls],
                         [head + self.job1() + tail, head + self.job1() + ["--resume"] + tail])
        self.assertEqual({c["env"]["A2A_T"] for c in calls}, {"x y"})
        manifest = load_json(os.path.join(self.out, "a2a-submit.json"))
        self.assertEqual((manifest["launcher"], manifest["launch"]), ("template", template))

    def test_pbs_job_with_a_template(self):
        template = 'mpiexec -n {ranks} --ppn {ppn} --hostfile "$PBS_NODEFILE" {cmd}'
        self.submit("--scheduler", "pbs", "--launch", template, "--mpi", "mpich",
                    "--time", "90", "--account", "acc")
        text = read(os.path.join(self.out, "a2a-small-n2.pbs"))
        self.assertEqual([ln for ln in text.splitlines() if ln.startswith("#PBS")], [
            "#PBS -N a2a-small-n2", "#PBS -S /bin/bash", "#PBS -l select=2:ncpus=2:mpiprocs=2",
            "#PBS -j oe", "#PBS -o logs/", "#PBS -l walltime=01:30:00", "#PBS -A acc"])
        self.assertIn('\n        mpiexec -n 4 --ppn 2 --hostfile "$PBS_NODEFILE" %s \\\n'
                      % self.binary, text)
        p, calls = self.run_script("a2a-small-n2.pbs", A2A_FIRST_EXIT="3")
        self.assertEqual(p.returncode, 0, p.stderr)
        argv = ["-n", "4", "--ppn", "2", "--hostfile", self.nodefile] + self.job1()
        self.assertEqual([c["argv"] for c in calls], [argv, argv + ["--resume"]])
        self.assertEqual({os.path.realpath(c["cwd"]) for c in calls}, {os.path.realpath(self.out)})
        self.assertEqual(read(os.path.join(self.out, "state", "job-1")).split()[:2], ["done", "0"])
        shutil.rmtree(self.out)
        self.submit("--scheduler", "pbs", "--launch", "mpiexec-pals", "--pbs-dialect", "torque")
        self.assertIn("        mpiexec -n 4 --ppn 2 ",
                      read(os.path.join(self.out, "a2a-small-n2.pbs")))

    def test_defaults_are_their_named_templates(self):
        pairs = [
            ([], ["--launch", "srun"]),
            (["--mpi", "mpich", "--srun-mpi", "pmix"], ["--launch", "srun", "--mpi", "mpich",
                                                        "--srun-mpi", "pmix"]),
            (["--launcher", "mpirun"], ["--launch", "mpirun-openmpi"]),
            (["--launcher", "mpirun", "--mpi", "mpich", "--mpirun", "mpiexec -v"],
             ["--launch", "mpirun-mpich", "--mpirun", "mpiexec -v"]),
            (["--scheduler", "pbs"], ["--scheduler", "pbs", "--launch", "mpirun-openmpi-pbs"]),
            (["--scheduler", "pbs", "--mpi", "mpich", "--pbs-dialect", "torque"],
             ["--scheduler", "pbs", "--launch", "mpirun-mpich-pbs", "--pbs-dialect", "torque"]),
        ]
        for default, named in pairs:
            with self.subTest(default=default):
                texts = []
                for extra in (default, named):
                    shutil.rmtree(self.out, True)
                    self.submit("--per-section", *extra)
                    texts.append({n: read(os.path.join(self.out, n)) for n in os.listdir(self.out)
                                  if n.endswith((".sbatch", ".pbs"))})
                self.assertEqual(len(texts[0]), 2)
                self.assertEqual(texts[0], texts[1])

    def test_refused(self):
        base = ("submit", self.sweep, "--nodes", "1", "--ppn", "2", "--binary", self.binary,
                "--out", self.out, "--dry-run")
        cases = [
            (["--launch", "mpiexec -n {rank} {cmd}"], "--launch: unknown placeholder {rank}"),
            (["--launch", "no-such"], "--launch no-such: no such launch template"),
            (["--launch", "mpiexec -n {ranks}"], "needs {cmd}"),
            (["--launch", "srun", "--launcher", "srun"], "--launch and --launcher: give one"),
            (["--launch", "srun-plain", "--scheduler", "pbs"],
             "--launch srun-plain: a Slurm launcher, but --scheduler pbs"),
            (["--launch", "mpirun-mpich-pbs"],
             "--launch mpirun-mpich-pbs: a PBS launcher, but --scheduler slurm"),
            (["--launch", "mpirun-openmpi", "--mpi", "mpich"],
             "--launch mpirun-openmpi: Open MPI's launcher, but --mpi mpich"),
            (["--launch", "srun-plain", "--srun-mpi", "pmix"],
             "--srun-mpi: the launch template has no {srun_mpi}"),
            (["--launch", "mpiexec-pals", "--mpirun", "mpirun"],
             "--mpirun: the launch template has no {mpirun}"),
            (["--launch", "mpiexec-pals", "--scheduler", "pbs", "--srun-mpi", "pmix"],
             "--srun-mpi: the launch template has no {srun_mpi}"),
            (["--launch", "a\tb {cmd}\x01"], "without control characters"),
        ]
        for extra, want in cases:
            with self.subTest(extra=extra):
                bad_call(self, *base, *extra, want=want)
                self.assertFalse(os.path.exists(self.out))


class ClusterPage(unittest.TestCase):
    """The two jobs of docs/clusters.md ("Two cluster jobs"), regenerated: each ```sh block
    holding one `scripts/a2a submit ... --dry-run` and the ```bash block after it."""
    SCRATCH = "/scratch/project/me"       # the page's folder; the test's has the same length

    def pairs(self):
        with open(CLUSTERS, encoding="utf-8") as f:
            blocks = re.findall(r"^```(\w*)\n(.*?)^```$", f.read(), re.M | re.S)
        pairs = []
        for (kind, text), (next_kind, script) in zip(blocks, blocks[1:]):
            line = text.replace("\\\n", " ").strip()
            if kind == "sh" and "\n" not in line and line.startswith("scripts/a2a submit ") \
                    and line.endswith(" --dry-run"):
                self.assertEqual(next_kind, "bash", line)
                pairs.append((shlex.split(line)[1:], script))
        return pairs

    def test_jobs_as_written(self):
        pairs = self.pairs()
        self.assertEqual(len(pairs), 2)
        pbs, cray = (args for args, _ in pairs)
        self.assertIn("mpiexec-pals", pbs)
        self.assertEqual(pbs[pbs.index("--scheduler") + 1], "pbs")
        self.assertIn("srun-plain", cray)
        self.assertNotIn("--scheduler", cray)
        tmp = tempfile.mkdtemp(dir="/tmp", prefix="a2adoc")
        try:
            self.assertEqual(len(tmp), len(self.SCRATCH))   # the same line breaks
            os.makedirs(os.path.join(tmp, "bin"))
            write_program(os.path.join(tmp, "bin", "a2atune"), "#!/bin/sh\nexit 0\n")
            for args, page in pairs:
                args = [a.replace(self.SCRATCH, tmp) for a in args]
                out = args[args.index("--out") + 1]
                p = run(*args)
                self.assertEqual(p.returncode, 0, p.stderr)
                names = [n for n in os.listdir(out) if n.endswith((".pbs", ".sbatch"))]
                self.assertEqual(len(names), 1)
                self.assertEqual(read(os.path.join(out, names[0])).replace(tmp, self.SCRATCH),
                                 page)
        finally:
            shutil.rmtree(tmp, True)


@unittest.skipUnless(os.access(A2ATUNE, os.X_OK), "./a2atune is not built")
class RunSweep(unittest.TestCase):
    """scripts/run-sweep.sh --launch with wrappers of mpirun.openmpi, on 2 real ranks."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="a2a-run-sweep.")
        self.args = os.path.join(self.tmp, "args")
        # a wrapper that logs its argv and starts mpirun.openmpi; A2A_AS_SRUN reports a
        # timeout (exit 3) as 137, as srun reports the ranks it ended
        write_program(os.path.join(self.tmp, "logged-mpirun"), (
            "#!/bin/bash\n"
            "printf '%s\\n' \"$@\" >> \"$LOGGED_ARGS\"; echo >> \"$LOGGED_ARGS\"\n"
            "mpirun.openmpi \"$@\"; rc=$?\n"
            "[ -n \"${A2A_AS_SRUN:-}\" ] && [ $rc -eq 3 ] && rc=137\n"
            "exit $rc\n"))

    def tearDown(self):
        shutil.rmtree(self.tmp, True)

    def run_sweep(self, *args, **env_extra):
        env = dict(os.environ, PATH=self.tmp + ":" + os.environ["PATH"], LOGGED_ARGS=self.args,
                   **env_extra)
        return subprocess.run([RUN_SWEEP] + list(args), cwd=REPO, env=env, capture_output=True,
                              text=True, timeout=300)

    def launches(self):
        """The argv of every launch the wrapper saw."""
        return [chunk.split("\n") for chunk in read(self.args).strip("\n").split("\n\n")]

    def test_template_wrapping_mpirun(self):
        db = os.path.join(self.tmp, "it's a.db")
        p = self.run_sweep("--launch", "logged-mpirun --oversubscribe -n {ranks} --map-by "
                           "ppr:{ppn}:node {cmd}", "2", "tests/sweeps/honest.ini", db,
                           "--section", "two", "--quiet")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr.splitlines()[-1],
                         "run-sweep: 1 launch(es): 4 ok, 0 wrong, 0 error, 0 skipped, 0 timeout; "
                         "exit 0")
        self.assertEqual(self.launches(), [[
            "--oversubscribe", "-n", "2", "--map-by", "ppr:2:node", "./a2atune", "run",
            "tests/sweeps/honest.ini", "--db", db, "--section", "two", "--quiet"]])
        conn = sqlite3.connect(db)
        try:
            self.assertEqual(conn.execute("SELECT world_size, status FROM runs").fetchall(),
                             [(2, "done")])
            self.assertEqual(conn.execute("SELECT count(*), sum(status = 'ok'), min(P) "
                                          "FROM results").fetchone(), (4, 4, 2))
        finally:
            conn.close()

    def test_timeout_resumed_through_the_template(self):
        # the wrapper turns exit 3 into 137: the driver's TIMEOUT line makes it a timeout,
        # and the resume goes through the template too
        db = os.path.join(self.tmp, "t.db")
        p = self.run_sweep("--launch", "logged-mpirun --oversubscribe -n {ranks} {cmd}", "2",
                           "tests/sweeps/timeout.ini", db, "--quiet", A2A_AS_SRUN="1")
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertEqual(p.stderr.splitlines()[-1],
                         "run-sweep: 2 launch(es): 4 ok, 0 wrong, 0 error, 0 skipped, 1 timeout; "
                         "exit 3")
        first = ["--oversubscribe", "-n", "2", "./a2atune", "run", "tests/sweeps/timeout.ini",
                 "--db", db, "--quiet"]
        self.assertEqual(self.launches(), [first, first[:-1] + ["--resume", "--quiet"]])

    def test_refused(self):
        db = os.path.join(self.tmp, "bad.db")
        for args, want in (
                (["--launch", "x -n {rank} {cmd}"], "a2a: --launch: unknown placeholder {rank}"),
                (["--launch", "nonesuch"], "a2a: --launch nonesuch: no such launch template"),
                (["--nodes", "2"], "run-sweep: --nodes goes with --launch"),
                (["--launch", "srun", "--nodes", "x"], "run-sweep: --nodes needs a positive")):
            with self.subTest(args=args):
                p = self.run_sweep(*args, "2", "tests/sweeps/honest.ini", db)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
                self.assertTrue(p.stderr.startswith(want), p.stderr)
                self.assertFalse(os.path.exists(db))
                self.assertFalse(os.path.exists(self.args))


if __name__ == "__main__":
    unittest.main()
