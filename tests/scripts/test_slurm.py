"""a2a submit / status / merge without a cluster: sweep splitting, the generated scripts
run with stand-in srun/sbatch/squeue/sacct programs (argv recorded exactly, through
hostile paths), status from markers and Slurm answers, and merging shards made from
the fixture database (idempotency, conflicts, provenance, new child tables).
The real cluster test is tests/parts/slurm.sh."""
import json
import os
import random
import shutil
import sqlite3
import stat
import subprocess
import tempfile
import unittest

from a2a_test_support import A2A, REPO, A2ATestCase, call, fixture_db, run

from a2a_tools.cluster import status as status_mod  # noqa: E402
from a2a_tools.core import vlist  # noqa: E402
from a2a_tools.core.common import A2AError  # noqa: E402
from a2a_tools.cluster.submit import plan_jobs  # noqa: E402
from a2a_tools.core.sweepfile import Sweep, compact_list  # noqa: E402

SMALL = os.path.join(REPO, "tests", "slurm", "small.ini")
HOSTILE = "it's \"q\" $HOME `true`; & b"      # a folder name: quotes, $, backquotes, ;, &
MPICH = os.path.join(REPO, "build", "mpich", "a2atune")


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if mode:
        os.chmod(path, mode)
    return path


def read(path):
    with open(path) as f:
        return f.read()


def load_json(path):
    with open(path) as f:
        return json.load(f)


def fake_program(bindir, name, body):
    """A stand-in for a Slurm or MPI program: a Python script with the given body."""
    return write(os.path.join(bindir, name), "#!/usr/bin/python3\nimport json, os, sys\n" + body,
                 stat.S_IRWXU)


def recording_program(bindir, name, variable, record, then):
    """A stand-in program that appends `record` (a Python expression) to the JSON list in
    the file named by the environment variable `variable`, then runs `then` (Python lines;
    `calls` is the list so far)."""
    return fake_program(bindir, name, (
        "path = os.environ[%r]\n" % variable
        + "calls = json.load(open(path)) if os.path.exists(path) else []\n"
        + "calls.append(%s)\n" % record
        + "json.dump(calls, open(path, 'w'))\n" + then))


def bad_call(test, *args, want=None):
    rc, out, err = call(*args)
    test.assertEqual(rc, 2, "%s: %s %s" % (args, out, err))
    lines = err.splitlines()
    test.assertEqual(len(lines), 1, err)
    test.assertTrue(lines[0].startswith("a2a: "), lines[0])
    if want:
        test.assertIn(want, lines[0])


class SweepFiles(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="a2a-sweepfile.")

    def tearDown(self):
        shutil.rmtree(self.tmp, True)

    def test_compact_list_round_trip(self):
        self.assertEqual(compact_list([1, 2, 3, 4]), "1..4")
        self.assertEqual(compact_list([2, 4, 8, 16]), "2..16:*2")
        self.assertEqual(compact_list([3, 5, 7, 20]), "3..7:+2, 20")
        self.assertEqual(compact_list([6]), "6")
        rng = random.Random(5)
        for _ in range(300):
            values = rng.sample(range(1, 200), rng.randint(1, 30))
            if rng.random() < 0.5:
                values.sort()
            self.assertEqual(vlist.parse(compact_list(values)), values, values)

    def tricky(self):
        return write(os.path.join(self.tmp, "tricky.ini"), (
            "; comment\n# hash comment\niterations = 3 ; inline\nP: 2..world\n"
            "matrix = counts.txt\n\n"
            "[a]\nfamily = nonuniform\nkernels = vendor\ndist = matrix\n\n"
            "[b] ; after the header\nfamily = sdde\nkernels = reference\n"
            "pattern = stencil2d:4x4, mtx:m.mtx, sub/x.mtx, /abs/y.mtx\nP = world  ; full size\n"
            "\n[c]\nfamily = uniform\nkernels = vendor\n"))

    def test_reader(self):
        sw = Sweep(self.tricky())
        self.assertEqual([s.name for s in sw.sections], ["a", "b", "c"])
        self.assertEqual(sw.defaults["iterations"].value, "3")
        self.assertEqual(sw.process_counts(sw.section("a"), 4), [2, 3, 4])
        self.assertEqual(sw.process_counts(sw.section("b"), 4), [4])
        self.assertEqual(sw.section("b").settings["P"].comment, "; full size")

    def test_job_text(self):
        path = self.tricky()
        sw = Sweep(path)
        text = sw.job_text(["; header\n"], {"a": [2, 3], "b": [8]})
        lines = text.splitlines()
        self.assertEqual(lines[0], "; header")
        folder = os.path.dirname(os.path.abspath(path))
        self.assertIn("matrix = %s/counts.txt" % folder, lines)
        self.assertIn("pattern = stencil2d:4x4, mtx:%s/m.mtx, mtx:%s/sub/x.mtx, /abs/y.mtx"
                      % (folder, folder), lines)
        self.assertIn("P = 8  ; full size", lines)
        self.assertEqual(lines[lines.index("dist = matrix") + 1], "P = 2, 3")
        # every other line is kept as it was
        kept = [ln for ln in sw.lines if not ln.startswith(("matrix", "pattern", "P = world"))]
        for ln in kept:
            self.assertIn(ln.rstrip("\n"), lines)
        copy = write(os.path.join(self.tmp, "elsewhere", "job.ini"), text)
        again = Sweep(copy)
        for world in (1, 8, 64):
            self.assertEqual(again.process_counts(again.section("a"), world), [2, 3])
            self.assertEqual(again.process_counts(again.section("b"), world), [8])
        self.assertEqual(again.process_counts(again.section("c"), 5), [2, 3, 4, 5])

    def test_folder_that_cannot_stand_in_a_line(self):
        d = os.path.join(self.tmp, "x ;y")
        path = write(os.path.join(d, "s.ini"), "[a]\nfamily = nonuniform\nkernels = vendor\n"
                                               "dist = matrix\nmatrix = m.txt\n")
        with self.assertRaises(A2AError) as e:
            Sweep(path).job_text([], {"a": [2]})
        self.assertIn("absolute path", str(e.exception))
        path = write(os.path.join(d, "t.ini"), "[a]\nfamily = uniform\nkernels = vendor\n")
        Sweep(path).job_text([], {"a": [2]})        # nothing relative: fine

    def test_reader_errors(self):
        cases = {
            "continued": ("[a]\nfamily = uniform\n  kernels = vendor\n", ":3: an indented line"),
            "twice": ("[a]\nP = 2\nP = 4\n", ":3: key 'P' given twice (first at line 2)"),
            "bracket": ("[a\nP = 2\n", ":1: a section header needs ']'"),
            "novalue": ("[a]\njust words\n", ":2: expected 'key = value'"),
            "sections": ("[a]\n[a]\n", ":2: section [a] appears twice"),
        }
        for name, (text, want) in cases.items():
            path = write(os.path.join(self.tmp, name + ".ini"), text)
            with self.assertRaises(A2AError) as e:
                Sweep(path)
            self.assertIn(want, str(e.exception), name)
        path = write(os.path.join(self.tmp, "badp.ini"), "[a]\nP = 2..P\n")
        with self.assertRaises(A2AError) as e:
            Sweep(path).process_counts(Sweep(path).section("a"), 4)
        self.assertIn("badp.ini:2: P = 2..P", str(e.exception))

    @unittest.skipUnless(os.access(MPICH, os.X_OK), "build/mpich/a2atune is not built")
    def test_driver_reads_the_job_copy(self):
        # the driver's own dry run of a job copy lists exactly the job's P values
        text = Sweep(SMALL).job_text([], {"uniform": [2]})
        path = write(os.path.join(self.tmp, "job.ini"), text)
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
        p = subprocess.run([MPICH, "run", path, "--section", "uniform", "--dry-run"], env=env,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        configs = [ln for ln in p.stdout.splitlines() if "uniform/" in ln]
        self.assertTrue(configs)
        self.assertTrue(all(" P=2 " in ln for ln in configs), configs)


class Planning(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="a2a-plan.")
        self.sweep = Sweep(write(os.path.join(self.tmp, "p.ini"), (
            "[x]\nP = 2..world:*2\n[y]\nP = world\n[z]\nP = 1, 3, 5, 9, 100\n"
            "[w]\nP = world/2, world\n")))

    def tearDown(self):
        shutil.rmtree(self.tmp, True)

    def test_each_P_once_in_the_smallest_launch(self):
        jobs, notes = plan_jobs(self.sweep, ["x", "y", "z", "w"], [4, 1, 2, 2], 2, False, "smallest")
        self.assertEqual([(j["nodes"], j["ntasks"]) for j in jobs], [(1, 2), (2, 4), (4, 8)])
        self.assertEqual([j["P"] for j in jobs], [
            {"x": [2], "y": [2], "z": [1], "w": [1, 2]},
            {"x": [4], "y": [4], "z": [3], "w": [4]},
            {"x": [8], "y": [8], "z": [5], "w": [8]}])
        self.assertEqual(len(notes), 1)
        self.assertIn("section [z]: P = 9, 100 runs in no job (the largest launch has 8 ranks)",
                      notes[0])

    def test_per_section_and_all(self):
        jobs, _ = plan_jobs(self.sweep, ["x", "z"], [1, 2], 2, True, "smallest")
        self.assertEqual([(j["nodes"], j["sections"]) for j in jobs],
                         [(1, ["x"]), (1, ["z"]), (2, ["x"]), (2, ["z"])])
        jobs, _ = plan_jobs(self.sweep, ["x", "z"], [1, 2], 2, False, "all")
        self.assertEqual([j["P"] for j in jobs], [{"x": [2], "z": [1]}, {"x": [2, 4], "z": [1, 3]}])

    def test_nothing_to_run(self):
        big = Sweep(write(os.path.join(self.tmp, "big.ini"), "[a]\nP = 64\n"))
        with self.assertRaises(A2AError) as e:
            plan_jobs(big, ["a"], [1], 2, False, "smallest")
        self.assertIn("nothing to run", str(e.exception))


class SubmitFixture:
    """A temporary folder with the small sweep under a hostile path, a stand-in a2atune
    (the pre-check runs it: a one-process dry run that succeeds) and PATH restored after
    each test. Mixed into the submit tests of each scheduler."""
    prefix = "a2a-submit."

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix=self.prefix)
        self.bin = os.path.join(self.tmp, "bin")
        self.out = os.path.join(self.tmp, HOSTILE, "out")
        self.sweep = os.path.join(self.tmp, HOSTILE, "small.ini")
        os.makedirs(os.path.dirname(self.sweep))
        shutil.copy(SMALL, self.sweep)
        self.binary = fake_program(self.bin, "a2atune", "sys.exit(0)\n")
        self.saved_path = os.environ["PATH"]

    def tearDown(self):
        os.environ["PATH"] = self.saved_path
        shutil.rmtree(self.tmp, True)


class Submit(SubmitFixture, unittest.TestCase):
    """Dry runs, and submissions to stand-in sbatch/squeue/sacct programs."""

    def submit(self, *extra):
        rc, out, err = call("submit", self.sweep, "--nodes", "1,2", "--ppn", "2", "--binary",
                            self.binary, "--out", self.out, *extra)
        self.assertEqual(rc, 0, err)
        return out, err

    def test_dry_run_script_runs_the_exact_commands(self):
        out, err = self.submit("--per-section", "--mpi", "mpich", "--dry-run", "--env",
                               "UCX_TLS=self,sm 'x'", "--partition", "p1", "--time", "10",
                               "--account", "acc", "--array-limit", "3")
        self.assertIn("not submitted", out)
        manifest = load_json(os.path.join(self.out, "a2a-submit.json"))
        self.assertEqual([(j["nodes"], j["sections"], j["P"]) for j in manifest["jobs"]], [
            (1, ["uniform"], {"uniform": [1, 2]}), (1, ["nonuniform"], {"nonuniform": [1, 2]}),
            (2, ["uniform"], {"uniform": [3, 4]}), (2, ["nonuniform"], {"nonuniform": [3, 4]})])
        script = os.path.join(self.out, "a2a-small-n1.sbatch")
        text = read(script)
        self.assertEqual(subprocess.run(["bash", "-n", script]).returncode, 0)
        sbatch = [ln for ln in text.splitlines() if ln.startswith("#SBATCH")]
        self.assertEqual(sbatch, ["#SBATCH --job-name=a2a-small-n1", "#SBATCH --nodes=1",
                                  "#SBATCH --ntasks-per-node=2", "#SBATCH --array=0-1%3",
                                  "#SBATCH --output=logs/a2a-small-n1-%A_%a.out",
                                  "#SBATCH --partition=p1", "#SBATCH --time=10",
                                  "#SBATCH --account=acc"])
        first_command = next(i for i, ln in enumerate(text.splitlines())
                             if ln and not ln.startswith("#"))
        self.assertGreater(first_command, text.splitlines().index(sbatch[-1]))

        # run array task 1 with a stand-in srun: exit 3 first (a timeout), then 0
        calls = os.path.join(self.tmp, "calls.json")
        recording_program(self.bin, "srun", "A2A_CALLS",
                          "{'argv': sys.argv[1:], 'ucx': os.environ.get('UCX_TLS')}",
                          "sys.exit(3 if len(calls) == 1 else 0)\n")
        env = dict(os.environ, PATH=self.bin + ":" + os.environ["PATH"], A2A_CALLS=calls,
                   SLURM_ARRAY_TASK_ID="1", SLURM_JOB_ID="77")
        p = subprocess.run(["bash", script], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("a configuration timed out; resuming after it (1 of 5)", p.stderr)
        got = load_json(calls)
        want = ["--mpi=pmi2", "--kill-on-bad-exit=1", "--nodes=1", "--ntasks=2",
                "--ntasks-per-node=2", self.binary, "run",
                os.path.join(self.out, "sweeps", "job-1.ini"), "--db",
                os.path.join(self.out, "shards", "job-1-n1.db"), "--section", "nonuniform"]
        self.assertEqual([c["argv"] for c in got], [want, want + ["--resume"]])
        self.assertEqual(got[0]["ucx"], "self,sm 'x'")
        marker = read(os.path.join(self.out, "state", "job-1")).split()
        self.assertEqual(marker[:2] + marker[3:], ["done", "0", "77"])
        # an unknown array task: exit 2, nothing run
        p = subprocess.run(["bash", script], env=dict(env, SLURM_ARRAY_TASK_ID="9"),
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(len(load_json(calls)), 2)

        rc, out, err = call("status", self.out)
        self.assertEqual(rc, 0, err)
        self.assertIn("not submitted", out)
        rows = json.loads(call("status", self.out, "--format", "json")[1])
        self.assertEqual([r["state"] for r in rows], ["not submitted", "done", "not submitted",
                                                      "not submitted"])

    def test_tune_jobs_resume_after_the_timeout_line(self):
        """--tune: each job runs the tuner on its part with the budget and no tuning files;
        a launch that ends with another code than 3 but after the driver's TIMEOUT line is
        resumed; one without that line is not."""
        self.submit("--per-section", "--mpi", "mpich", "--dry-run", "--tune", "25%")
        manifest = load_json(os.path.join(self.out, "a2a-submit.json"))
        self.assertEqual(manifest["tune"], "25%")
        script = os.path.join(self.out, "a2a-small-n1.sbatch")
        self.assertIn("budget 25% per job", read(script))
        calls = os.path.join(self.tmp, "calls.json")
        recording_program(self.bin, "srun", "A2A_CALLS", "sys.argv[1:]", (
            "if len(calls) == 1:\n"
            "    sys.stderr.write('a2atune: TIMEOUT uniform/bruck P=2 S=16: exceeded\\n')\n"
            "sys.exit(137)\n"))
        env = dict(os.environ, PATH=self.bin + ":" + os.environ["PATH"], A2A_CALLS=calls,
                   SLURM_ARRAY_TASK_ID="1", SLURM_JOB_ID="78")
        p = subprocess.run(["bash", script], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 137, p.stderr)
        self.assertIn("a2atune: TIMEOUT uniform/bruck", p.stderr)
        self.assertEqual(p.stderr.count("resuming after it"), 1)
        want = ["--mpi=pmi2", "--kill-on-bad-exit=1", "--nodes=1", "--ntasks=2",
                "--ntasks-per-node=2", self.binary, "tune",
                os.path.join(self.out, "sweeps", "job-1.ini"), "--budget", "25%", "--db",
                os.path.join(self.out, "shards", "job-1-n1.db"), "--section", "nonuniform",
                "--no-files"]
        self.assertEqual(load_json(calls), [want, want + ["--resume"]])
        self.assertEqual(read(os.path.join(self.out, "state", "job-1")).split()[:2],
                         ["failed", "137"])

    def test_tune_with_a_platform_makes_the_prior_first(self):
        """--tune with --platform: a job lists its candidates under its launcher, prices
        them (a2a prior --keys) into the prior beside its shard, then searches with --prior;
        a prior that cannot be made fails the job (exit 2) before any search; a prior already
        made (a job run again) is kept. --platform without --tune is refused."""
        platform = os.path.join(REPO, "platforms", "local.xml")
        bad_call(self, "submit", self.sweep, "--nodes", "1", "--ppn", "2", "--binary",
                 self.binary, "--out", self.out, "--dry-run", "--platform", platform,
                 want="give --tune")
        self.submit("--per-section", "--mpi", "mpich", "--dry-run", "--tune", "25%",
                    "--platform", platform)
        script = os.path.join(self.out, "a2a-small-n1.sbatch")
        calls = os.path.join(self.tmp, "calls.json")
        # the launcher lists no candidate: the model tier prices nothing, the job fails
        recording_program(self.bin, "srun", "A2A_CALLS", "sys.argv[1:]", "sys.exit(0)\n")
        env = dict(os.environ, PATH=self.bin + ":" + os.environ["PATH"], A2A_CALLS=calls,
                   SLURM_ARRAY_TASK_ID="1", SLURM_JOB_ID="79")
        p = subprocess.run(["bash", script], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        prior = os.path.join(self.out, "shards", "job-1-n1.prior.tsv")
        want = ["--mpi=pmi2", "--kill-on-bad-exit=1", "--nodes=1", "--ntasks=2",
                "--ntasks-per-node=2", self.binary, "tune",
                os.path.join(self.out, "sweeps", "job-1.ini"), "--budget", "25%", "--db",
                os.path.join(self.out, "shards", "job-1-n1.db"), "--prior", prior,
                "--section", "nonuniform", "--no-files"]
        self.assertEqual(load_json(calls), [want + ["--candidates"]])
        self.assertEqual(read(os.path.join(self.out, "state", "job-1")).split()[:2],
                         ["failed", "2"])
        # the prior made already: the search runs with it, nothing listed again
        write(prior, "# platform: local.xml\n")
        os.remove(calls)
        p = subprocess.run(["bash", script], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(load_json(calls), [want])

    def test_mpirun_launchers(self):
        self.submit("--launcher", "mpirun", "--mpirun", "mpiexec --bind-to core", "--dry-run")
        text = read(os.path.join(self.out, "a2a-small-n2.sbatch"))
        self.assertIn("mpiexec --bind-to core -n 4 --map-by ppr:2:node", text)
        self.assertIn("export OMPI_MCA_mpi_yield_when_idle=1", text)
        shutil.rmtree(self.out)
        self.submit("--launcher", "mpirun", "--mpi", "mpich", "--mpirun", "mpiexec.hydra", "--dry-run")
        text = read(os.path.join(self.out, "a2a-small-n2.sbatch"))
        self.assertIn("mpiexec.hydra -n 4 -ppn 2", text)
        self.assertNotIn("OMPI_MCA", text)

    def test_p_split_all_runs_the_original_sweep(self):
        self.submit("--p-split", "all", "--dry-run")
        manifest = load_json(os.path.join(self.out, "a2a-submit.json"))
        self.assertEqual([j["P"] for j in manifest["jobs"]], [
            {"uniform": [1, 2], "nonuniform": [1, 2]}, {"uniform": [1, 2, 3, 4],
                                                        "nonuniform": [1, 2, 3, 4]}])
        self.assertFalse(os.listdir(os.path.join(self.out, "sweeps")))
        text = read(os.path.join(self.out, "a2a-small-n1.sbatch"))
        self.assertIn(self.sweep.replace("'", "'\"'\"'"), text)

    def test_submission_and_status(self):
        counter = os.path.join(self.tmp, "sbatch.json")
        recording_program(self.bin, "sbatch", "A2A_SBATCH",
                          "{'argv': sys.argv[1:], 'cwd': os.getcwd()}",
                          "print('%d;cluster' % (4241 + len(calls)))\n")
        os.environ["PATH"] = self.bin + ":" + self.saved_path
        os.environ["A2A_SBATCH"] = counter
        try:
            out, err = self.submit("--per-section")
        finally:
            del os.environ["A2A_SBATCH"]
        seen = load_json(counter)
        self.assertEqual([s["argv"] for s in seen], [["--parsable", "a2a-small-n1.sbatch"],
                                                     ["--parsable", "a2a-small-n2.sbatch"]])
        self.assertEqual({os.path.realpath(s["cwd"]) for s in seen}, {os.path.realpath(self.out)})
        self.assertIn("-> Slurm job 4242", out)
        self.assertIn("-> Slurm job 4243", out)
        manifest = load_json(os.path.join(self.out, "a2a-submit.json"))
        self.assertEqual([j["slurm_id"] for j in manifest["jobs"]],
                         ["4242_0", "4242_1", "4243_0", "4243_1"])
        # Slurm's view: 4242_0 running, 4242_1 pending; 4243_0 finished (marker: done);
        # 4243_1 left the queue with a running marker and sacct -c says CANCELLED
        fake_program(self.bin, "squeue", "print('4242_0|RUNNING|None\\n4242_1|PENDING|Priority\\n"
                                         "999_0|RUNNING|None')\n")
        fake_program(self.bin, "sacct", (
            "if '-c' not in sys.argv: sys.exit(1)\n"
            "print('88|CANCELLED|0:15')\n"))
        write(os.path.join(self.out, "state", "job-2"), "done 0 2025-01-01T00:00:00Z 87\n")
        write(os.path.join(self.out, "state", "job-3"), "running 2025-01-01T00:00:00Z 88 node7\n")
        rows = json.loads(call("status", self.out, "--format", "json")[1])
        self.assertEqual([(r["state"], r["detail"]) for r in rows], [
            ("running", ""), ("pending", "Priority"), ("done", "exit 0"),
            ("failed", "Slurm: CANCELLED 0:15, no success marker")])
        self.assertEqual([r["shard_exists"] for r in rows], [False] * 4)

    def test_job_state_rules(self):
        job = {"slurm_id": "5_0"}
        self.assertEqual(status_mod.job_state(job, {"5_0": ("PENDING", "None")}, None, {}),
                         ("pending", ""))
        self.assertEqual(status_mod.job_state(job, {}, {"state": "failed", "rc": "signal"}, {}),
                         ("failed", "signal (time limit or scancel)"))
        self.assertEqual(status_mod.job_state(job, {}, {"state": "running", "host": "n1"}, {}),
                         ("running", "marker only (n1)"))
        self.assertEqual(status_mod.job_state(job, {}, None, {"5_0": ("TIMEOUT", "0:0")}),
                         ("failed", "Slurm: TIMEOUT 0:0, no success marker"))
        self.assertEqual(status_mod.job_state(job, {}, None, {})[0], "unknown")
        self.assertEqual(status_mod.job_state({"slurm_id": None}, {}, None, {})[0], "not submitted")

    def test_sbatch_missing(self):
        env = dict(os.environ, PATH=self.bin)
        p = subprocess.run([A2A, "submit", self.sweep, "--nodes", "1", "--ppn", "2", "--binary",
                            self.binary, "--out", self.out], env=env, capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.count("\n"), 1)
        self.assertIn("sbatch not found", p.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_bad_input(self):
        base = ("submit", self.sweep, "--binary", self.binary, "--out", self.out, "--dry-run")
        bad_call(self, *base, "--nodes", "1", "--ppn", "2", "--time", "1:00; rm -rf /",
                 want="--time")
        bad_call(self, *base, "--nodes", "1", "--ppn", "2", "--partition", "a b", want="--partition")
        bad_call(self, *base, "--nodes", "1", "--ppn", "2", "--env", "X Y=1", want="--env")
        bad_call(self, *base, "--nodes", "0", "--ppn", "2", want="node counts start at 1")
        bad_call(self, *base, "--nodes", "1", "--ppn", "0", want="--ppn")
        bad_call(self, *base, "--nodes", "1", "--ppn", "2", "--section", "nosuch",
                 want="no section [nosuch]")
        bad_call(self, *base, "--nodes", "1", "--ppn", "2", "--srun-mpi", "pmi2;x", want="--srun-mpi")
        bad_call(self, "submit", os.path.join(self.tmp, "none.ini"), "--nodes", "1", "--ppn", "2",
                 "--dry-run", want="cannot read the sweep file")
        bad_call(self, "submit", self.sweep, "--nodes", "1", "--ppn", "2", "--dry-run",
                 "--binary", os.path.join(self.tmp, "none"), want="no a2atune program")
        self.submit("--dry-run")
        bad_call(self, *base, "--nodes", "1", "--ppn", "2", want="already holds a submission")
        bad_call(self, "status", self.tmp, want="not a submission directory")
        bad_call(self, "status", os.path.join(self.tmp, "none"), want="no such directory")

    @unittest.skipUnless(os.access(MPICH, os.X_OK), "build/mpich/a2atune is not built")
    def test_precheck_reports_the_driver_error(self):
        write(self.sweep, "[a]\nfamily = uniform\nkernels = tra\nP = 1..world\nS = 16\nradix = 4\n")
        rc, out, err = call("submit", self.sweep, "--nodes", "1,2", "--ppn", "2", "--mpi", "mpich",
                            "--dry-run", "--out", self.out)
        self.assertEqual(rc, 2, err)
        self.assertEqual(err.count("\n"), 1, err)
        self.assertIn("a2a: job 0 (2 rank(s)): ", err)
        self.assertIn("radix = 4 is out of range for every P of section [a]", err)
        self.assertNotIn("--p-split all", err)     # job 0 runs all it could: no hint

    def test_precheck_hint_and_skip(self):
        # a stand-in driver that rejects job 1's sweep as the real one does
        fake_program(self.bin, "a2atune", (
            "if any(a.endswith('job-1.ini') for a in sys.argv):\n"
            "    sys.stderr.write('a2atune: x.ini:5: radix = 4 is out of range for every P of '\n"
            "                     'section [uniform]\\n')\n"
            "    sys.exit(2)\n"))
        rc, out, err = call("submit", self.sweep, "--nodes", "1,2", "--ppn", "2", "--dry-run",
                            "--binary", self.binary, "--out", self.out, "--section", "uniform")
        self.assertEqual(rc, 2, err)
        self.assertIn("a2a: job 1 (4 rank(s)): x.ini:5: radix = 4 is out of range", err)
        self.assertIn("job 1 runs only [uniform] P = 3, 4; --p-split all", err)
        self.assertFalse(os.path.exists(self.out))      # nothing half-made left behind
        # --p-split all with P = 1..world: world = 1 would mislead the dry run; skipped
        rc, out, err = call("submit", self.sweep, "--nodes", "1,2", "--ppn", "2", "--dry-run",
                            "--binary", self.binary, "--out", self.out, "--p-split", "all")
        self.assertEqual(rc, 0, err)
        self.assertIn("a2a: note: with --p-split all, section [uniform] has P depend on 'world'", err)

    def test_help(self):
        for cmd in ("submit", "status", "merge"):
            p = run(cmd, "--help")
            self.assertEqual(p.returncode, 0)
            self.assertIn("usage: a2a " + cmd, p.stdout)


class Merge(A2ATestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="a2a-merge.")

    def tearDown(self):
        shutil.rmtree(self.tmp, True)

    def copy(self, name, *sql):
        """A copy of the fixture (checkpointed, no WAL) with these statements applied."""
        path = os.path.join(self.tmp, name)
        src = sqlite3.connect("file:%s?mode=ro" % fixture_db(), uri=True)
        dst = sqlite3.connect(path)
        src.backup(dst)
        src.close()
        dst.execute("PRAGMA foreign_keys = ON")
        for stmt in sql:
            dst.execute(stmt)
        dst.commit()
        dst.execute("PRAGMA journal_mode = DELETE")
        dst.close()
        return path

    def merge(self, *args):
        rc, out, err = call("merge", *args)
        self.assertEqual(err, "")
        return rc, out

    @staticmethod
    def counts(path):
        conn = sqlite3.connect(path)
        try:
            return tuple(conn.execute("SELECT count(*) FROM %s" % t).fetchone()[0]
                         for t in ("runs", "results", "samples", "counters", "metrics"))
        finally:
            conn.close()

    @staticmethod
    def content(path):
        """Everything but the ids: runs by provenance, results and samples by config_key."""
        conn = sqlite3.connect(path)
        try:
            return sorted(conn.execute(
                "SELECT ru.started, ru.status, r.config_key, r.median_s, r.status,"
                " (SELECT group_concat(s.seconds) FROM (SELECT seconds FROM samples"
                "  WHERE result_id = r.id ORDER BY iteration) s)"
                " FROM results r JOIN runs ru ON ru.id = r.run_id").fetchall())
        finally:
            conn.close()

    def test_merge_twice_adds_nothing(self):
        shard = self.copy("shard.db")
        into = os.path.join(self.tmp, "all.db")
        rc, out = self.merge(shard, "--into", into)
        self.assertEqual(rc, 0)
        self.assertEqual(self.counts(into), self.counts(shard))
        self.assertEqual(self.content(into), self.content(shard))
        before = subprocess.run(["sqlite3", into, ".dump"], capture_output=True).stdout
        rc, out = self.merge(shard, shard, "--into", into)
        self.assertEqual(rc, 0)
        self.assertIn("runs +0, results +0; 0 conflict(s)", out)
        self.assertEqual(subprocess.run(["sqlite3", into, ".dump"], capture_output=True).stdout, before)
        conn = sqlite3.connect(into)
        self.assertEqual(conn.execute("PRAGMA application_id").fetchone()[0], 0x61326174)
        self.assertEqual(conn.execute("PRAGMA user_version").fetchone()[0],
                         sqlite3.connect(shard).execute("PRAGMA user_version").fetchone()[0])
        conn.close()

    def test_shards_with_the_same_ids_keep_their_provenance(self):
        a = self.copy("a.db")
        b = self.copy("b.db", "UPDATE runs SET started = '2001-01-01T00:00:0' || id || 'Z',"
                              " host = 'other'")
        into = os.path.join(self.tmp, "all.db")
        rc, out = self.merge(a, b, "--into", into)
        self.assertEqual(rc, 0)
        ca, cb = self.counts(a), self.counts(b)
        self.assertEqual(self.counts(into), tuple(x + y for x, y in zip(ca, cb)))
        self.assertEqual(self.content(into), sorted(self.content(a) + self.content(b)))
        conn = sqlite3.connect(into)
        self.assertEqual(conn.execute("SELECT count(*) FROM runs WHERE host = 'other'").fetchone()[0],
                         ca[0])
        conn.close()

    def test_partial_then_full(self):
        partial = self.copy("partial.db", "DELETE FROM results WHERE id % 2 = 0",
                            "UPDATE runs SET status = 'running', ended = NULL")
        full = self.copy("full.db")
        into = os.path.join(self.tmp, "all.db")
        self.merge(partial, "--into", into)
        rc, out = self.merge(full, "--into", into)
        self.assertEqual(rc, 0)
        self.assertIn("updated", out)
        self.assertEqual(self.counts(into), self.counts(full))
        self.assertEqual(self.content(into), self.content(full))
        # the older snapshot merged again changes nothing (the later state stays)
        rc, out = self.merge(partial, "--into", into)
        self.assertEqual(self.content(into), self.content(full))

    def test_conflict_is_reported_and_the_target_kept(self):
        into = os.path.join(self.tmp, "all.db")
        self.merge(self.copy("shard.db"), "--into", into)
        before = self.content(into)
        changed = self.copy("changed.db", "UPDATE results SET median_s = median_s * 2 WHERE id = "
                                          "(SELECT min(id) FROM results WHERE status = 'ok')")
        rc, out = self.merge(changed, "--into", into)
        self.assertEqual(rc, 1)
        conflicts = [ln for ln in out.splitlines() if ln.startswith("CONFLICT")]
        self.assertEqual(len(conflicts), 1, out)
        self.assertIn("median_s", conflicts[0])
        self.assertIn("1 conflict(s)", out.splitlines()[-1])
        self.assertEqual(self.content(into), before)

    def test_new_child_tables_are_found(self):
        shard = self.copy(
            "extra.db",
            "CREATE TABLE extra(result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
            " name TEXT NOT NULL, value REAL, PRIMARY KEY (result_id, name))",
            "INSERT INTO extra SELECT id, 'key', length(config_key) FROM results",
            "CREATE TABLE run_notes(run_id INTEGER REFERENCES runs(id), note TEXT)",
            "INSERT INTO run_notes SELECT id, 'note ' || id FROM runs",
            "CREATE TABLE lonely(x)")
        into = os.path.join(self.tmp, "all.db")
        self.merge(self.copy("plain.db"), "--into", into)         # a target without the tables
        rc, out = self.merge(shard, "--into", into)
        self.assertEqual(rc, 0)
        self.assertIn("extra +", out)
        self.assertIn("not merged (no link to runs or results): lonely", out)
        conn = sqlite3.connect(into)
        bad = conn.execute("SELECT count(*) FROM extra e JOIN results r ON r.id = e.result_id"
                           " WHERE e.value != length(r.config_key)").fetchone()[0]
        n = conn.execute("SELECT count(*) FROM extra").fetchone()[0]
        notes = conn.execute("SELECT count(*) FROM run_notes n"
                             " JOIN runs r ON r.id = n.run_id").fetchone()[0]
        conn.close()
        self.assertEqual((bad, n, notes), (0, self.counts(shard)[1], self.counts(shard)[0]))
        rc, out = self.merge(shard, "--into", into)
        self.assertIn("runs +0, results +0; 0 conflict(s)", out)
        self.assertIn("extra +0", out)

    def test_dry_run_writes_nothing(self):
        into = os.path.join(self.tmp, "all.db")
        rc, out = self.merge(self.copy("shard.db"), "--into", into, "--dry-run")
        self.assertEqual(rc, 0)
        self.assertIn("would merge 1 shard(s)", out)
        self.assertFalse(os.path.exists(into))

    @unittest.skipUnless(os.access(MPICH, os.X_OK), "build/mpich/a2atune is not built")
    def test_the_driver_writes_into_a_merged_database(self):
        into = os.path.join(self.tmp, "all.db")
        self.merge(self.copy("shard.db"), "--into", into)
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
        p = subprocess.run([MPICH, "run", SMALL, "--section", "uniform", "--db", into, "--quiet"],
                           env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_bad_input(self):
        shard = self.copy("shard.db")
        text = write(os.path.join(self.tmp, "text.db"), "not a database\n")
        foreign = os.path.join(self.tmp, "foreign.db")
        conn = sqlite3.connect(foreign)
        conn.execute("CREATE TABLE accounts(x)")
        conn.commit()
        conn.close()
        into = os.path.join(self.tmp, "all.db")
        bad_call(self, "merge", os.path.join(self.tmp, "none.db"), "--into", into, want="no such shard")
        bad_call(self, "merge", text, "--into", into, want="not an a2atune database")
        bad_call(self, "merge", foreign, "--into", into, want="not an a2atune database")
        bad_call(self, "merge", shard, "--into", shard, want="merged into itself")
        bad_call(self, "merge", shard, "--into", foreign, want="holds other tables")
        bad_call(self, "merge", shard, "--into", os.path.join(self.tmp, "no", "dir.db"),
                 want="directory does not exist")
        self.assertFalse(os.path.exists(into))


if __name__ == "__main__":
    unittest.main()
