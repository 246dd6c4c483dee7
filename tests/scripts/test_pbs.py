"""a2a submit --scheduler pbs and a2a status of a PBS submission, without a cluster: the
PBS Pro and Torque headers, the generated scripts run with a stand-in mpirun (argv and
the PBS variables recorded exactly, through hostile paths), the exit-3 resume loop,
submission through a stand-in qsub, and status from markers and a stand-in qstat."""
import json
import os
import shutil
import subprocess
import unittest

from a2a_test_support import A2A, call

from a2a_tools.core.common import A2AError  # noqa: E402
from a2a_tools.cluster.submit import pbs_walltime  # noqa: E402
from test_slurm import (HOSTILE, SubmitFixture, bad_call, fake_program, load_json, read,
                        recording_program, write)

# a stand-in mpirun: records argv, cwd and the variables PBS sets; exits 3 on its first
# call (a configuration timed out), then 0
RECORDING_MPIRUN = (
    "path = os.environ['A2A_CALLS']\n"
    "calls = json.load(open(path)) if os.path.exists(path) else []\n"
    "keys = ('PBS_ARRAY_INDEX', 'PBS_ARRAYID', 'PBS_O_WORKDIR', 'PBS_NODEFILE', 'PBS_JOBID',\n"
    "        'X_NASTY')\n"
    "calls.append({'argv': sys.argv[1:], 'cwd': os.getcwd(),\n"
    "              'env': {k: os.environ.get(k) for k in keys}})\n"
    "json.dump(calls, open(path, 'w'))\n"
    "sys.exit(3 if len(calls) == 1 else 0)\n")


class Pbs(SubmitFixture, unittest.TestCase):
    prefix = "a2a-pbs."

    def submit(self, *extra, nodes="1,2"):
        rc, out, err = call("submit", self.sweep, "--nodes", nodes, "--ppn", "2", "--binary",
                            self.binary, "--out", self.out, "--scheduler", "pbs", *extra)
        self.assertEqual(rc, 0, err)
        return out, err

    def scripts(self):
        """Every generated script, each checked with bash -n."""
        names = sorted(n for n in os.listdir(self.out) if n.endswith(".pbs"))
        self.assertTrue(names)
        for name in names:
            p = subprocess.run(["bash", "-n", os.path.join(self.out, name)],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, "%s: %s" % (name, p.stderr))
        self.assertFalse([n for n in os.listdir(self.out) if n.endswith(".sbatch")])
        return names

    @staticmethod
    def directives(text):
        """The #PBS lines of a script, in order."""
        return [ln for ln in text.splitlines() if ln.startswith("#PBS")]

    def run_script(self, script, **env_extra):
        """Runs a generated script as PBS would: the stand-in mpirun first on PATH, the
        PBS variables set, started in another directory (PBS starts jobs in $HOME)."""
        calls = os.path.join(self.tmp, "calls.json")
        if os.path.exists(calls):
            os.remove(calls)
        fake_program(self.bin, "mpirun", RECORDING_MPIRUN)
        nodefile = write(os.path.join(self.tmp, HOSTILE, "node file $(x)"), "n1\nn1\nn2\nn2\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PBS_")}
        env.update(PATH=self.bin + ":" + os.environ["PATH"], A2A_CALLS=calls,
                   PBS_O_WORKDIR=self.out, PBS_NODEFILE=nodefile, **env_extra)
        p = subprocess.run(["bash", os.path.join(self.out, script)], env=env, cwd=self.tmp,
                           capture_output=True, text=True, timeout=60)
        return p, (load_json(calls) if os.path.exists(calls) else []), nodefile

    def test_pro_script(self):
        out, err = self.submit("--per-section", "--mpi", "mpich", "--mpirun", "mpirun",
                               "--dry-run", "--time", "90", "--partition", "q1", "--account",
                               "acc", "--array-limit", "3")
        self.assertIn(" && qsub a2a-small-n1.pbs)", out)
        self.assertEqual(self.scripts(), ["a2a-small-n1.pbs", "a2a-small-n2.pbs"])
        text = read(os.path.join(self.out, "a2a-small-n1.pbs"))
        self.assertEqual(self.directives(text), [
            "#PBS -N a2a-small-n1", "#PBS -S /bin/bash", "#PBS -l select=1:ncpus=2:mpiprocs=2",
            "#PBS -J 0-1", "#PBS -W max_run_subjobs=3", "#PBS -j oe", "#PBS -o logs/",
            "#PBS -l walltime=01:30:00", "#PBS -q q1", "#PBS -A acc"])
        self.assertEqual(self.directives(read(os.path.join(self.out, "a2a-small-n2.pbs")))[2],
                         "#PBS -l select=2:ncpus=2:mpiprocs=2")
        # the directives come before the first command (qsub stops reading them there)
        lines = text.splitlines()
        first = next(i for i, ln in enumerate(lines) if ln and not ln.startswith("#"))
        self.assertGreater(first, lines.index("#PBS -A acc"))
        self.assertIn('cd "$PBS_O_WORKDIR" || exit 2', lines)
        self.assertIn('case "${PBS_ARRAY_INDEX:-}" in', lines)
        self.assertIn('        mpirun -f "$PBS_NODEFILE" -n 2 -ppn 2 %s run \\' % self.binary,
                      lines)
        self.assertNotIn("SLURM", text)
        self.assertNotIn("srun", text)
        manifest = load_json(os.path.join(self.out, "a2a-submit.json"))
        self.assertEqual((manifest["scheduler"], manifest["pbs_dialect"], manifest["launcher"]),
                         ("pbs", "pro", "mpirun"))
        self.assertEqual([j["pbs_id"] for j in manifest["jobs"]], [None] * 4)
        self.assertEqual([a["script"] for a in manifest["arrays"]],
                         ["a2a-small-n1.pbs", "a2a-small-n2.pbs"])

    def test_torque_script(self):
        self.submit("--per-section", "--pbs-dialect", "torque", "--mpirun", "mpirun",
                    "--dry-run", "--time", "1-00:00:05", "--array-limit", "3")
        self.scripts()
        text = read(os.path.join(self.out, "a2a-small-n2.pbs"))
        self.assertEqual(self.directives(text), [
            "#PBS -N a2a-small-n2", "#PBS -S /bin/bash", "#PBS -l nodes=2:ppn=2",
            "#PBS -t 0-1%3", "#PBS -j oe", "#PBS -o logs/", "#PBS -l walltime=24:00:05"])
        lines = text.splitlines()
        self.assertIn('case "${PBS_ARRAYID:-}" in', lines)
        self.assertIn('        mpirun --hostfile "$PBS_NODEFILE" -n 4 --map-by ppr:2:node \\',
                      lines)
        self.assertIn("export OMPI_MCA_mpi_yield_when_idle=1", lines)
        manifest = load_json(os.path.join(self.out, "a2a-submit.json"))
        self.assertEqual((manifest["scheduler"], manifest["pbs_dialect"]), ("pbs", "torque"))

    def test_hostile_paths_and_resume(self):
        # both dialects, both libraries: the exact argv through the hostile paths, the PBS
        # variables seen by the launcher, the resume after exit 3, the marker
        nasty = "a b'c\"$HOME`true`;&"
        for dialect, mpi, index in (("pro", "mpich", "PBS_ARRAY_INDEX"),
                                    ("torque", "openmpi", "PBS_ARRAYID")):
            with self.subTest(dialect=dialect, mpi=mpi):
                shutil.rmtree(self.out, True)
                self.submit("--per-section", "--pbs-dialect", dialect, "--mpi", mpi,
                            "--mpirun", "mpirun", "--env", "X_NASTY=" + nasty, "--dry-run")
                self.scripts()
                p, calls, nodefile = self.run_script("a2a-small-n2.pbs", PBS_JOBID="12[1].srv",
                                                     **{index: "1"})
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIn("a2a: job 3: a configuration timed out; resuming after it (1 of 5)",
                              p.stderr)
                hosts = (["-f", nodefile, "-n", "4", "-ppn", "2"] if mpi == "mpich"
                         else ["--hostfile", nodefile, "-n", "4", "--map-by", "ppr:2:node"])
                want = hosts + [self.binary, "run", os.path.join(self.out, "sweeps", "job-3.ini"),
                                "--db", os.path.join(self.out, "shards", "job-3-n2.db"),
                                "--section", "nonuniform"]
                self.assertEqual([c["argv"] for c in calls], [want, want + ["--resume"]])
                self.assertEqual(os.path.realpath(calls[0]["cwd"]), os.path.realpath(self.out))
                self.assertEqual(calls[0]["env"], {
                    "PBS_ARRAY_INDEX": "1" if index == "PBS_ARRAY_INDEX" else None,
                    "PBS_ARRAYID": "1" if index == "PBS_ARRAYID" else None,
                    "PBS_O_WORKDIR": self.out, "PBS_NODEFILE": nodefile, "PBS_JOBID": "12[1].srv",
                    "X_NASTY": nasty})
                marker = read(os.path.join(self.out, "state", "job-3")).split()
                self.assertEqual(marker[:2] + marker[3:], ["done", "0", "12[1].srv"])
                self.assertFalse(os.path.exists(os.path.join(self.out, "state", "job-2")))
                # the other dialect's variable is not this script's index: nothing runs
                other = "PBS_ARRAYID" if index == "PBS_ARRAY_INDEX" else "PBS_ARRAY_INDEX"
                p, calls, _ = self.run_script("a2a-small-n2.pbs", **{other: "0"})
                self.assertEqual(p.returncode, 2)
                self.assertIn("a2a: array task '' is not a job of this script", p.stderr)
                self.assertEqual(calls, [])

    def test_failure_is_marked(self):
        self.submit("--mpirun", "mpirun", "--dry-run", nodes="1")
        self.scripts()
        fake_program(self.bin, "mpirun", "sys.exit(5)\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PBS_")}
        env.update(PATH=self.bin + ":" + os.environ["PATH"], PBS_O_WORKDIR=self.out,
                   PBS_NODEFILE="/dev/null", PBS_JOBID="7.srv")
        p = subprocess.run(["bash", os.path.join(self.out, "a2a-small-n1.pbs")], env=env,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 5, p.stderr)
        marker = read(os.path.join(self.out, "state", "job-0")).split()
        self.assertEqual(marker[:2] + marker[3:], ["failed", "5", "7.srv"])
        rows = json.loads(call("status", self.out, "--format", "json")[1])
        self.assertEqual([(r["state"], r["detail"]) for r in rows], [("failed", "exit 5")])

    def test_one_task_is_no_array(self):
        # one job of one node count: no -J/-t (PBS Pro refuses a one-element range) and
        # the script runs task 0 without an array index
        self.submit("--mpirun", "mpirun", "--dry-run", nodes="1")
        self.scripts()
        text = read(os.path.join(self.out, "a2a-small-n1.pbs"))
        self.assertFalse([d for d in self.directives(text) if d.startswith(("#PBS -J", "#PBS -t"))])
        self.assertIn('case "${PBS_ARRAY_INDEX:-0}" in', text)
        p, calls, _ = self.run_script("a2a-small-n1.pbs", PBS_JOBID="8.srv")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(calls), 2)
        self.assertEqual(calls[0]["argv"][-2:], ["--section", "uniform,nonuniform"])

    def test_walltime(self):
        cases = {"30": "00:30:00", "90": "01:30:00", "5:07": "00:05:07", "1:00:00": "01:00:00",
                 "100:00:00": "100:00:00", "2-3": "51:00:00", "1-2:30": "26:30:00",
                 "1-00:00:01": "24:00:01", "0": "00:00:00"}
        for text, want in cases.items():
            self.assertEqual(pbs_walltime(text), want, text)
        for text in ("UNLIMITED", "infinite", "1:2:3:4", "", "x"):
            with self.assertRaises(A2AError):
                pbs_walltime(text)

    def test_refused(self):
        base = ("submit", self.sweep, "--nodes", "1", "--ppn", "2", "--binary", self.binary,
                "--out", self.out, "--dry-run", "--scheduler", "pbs")
        bad_call(self, *base, "--launcher", "srun", want="--launcher srun: PBS has no srun")
        bad_call(self, *base, "--srun-mpi", "pmi2", want="--srun-mpi")
        bad_call(self, *base, "--time", "UNLIMITED", want="PBS needs a walltime")
        bad_call(self, *base, "--pbs-dialect", "sge", want="--pbs-dialect")
        bad_call(self, *base, "--job-name", "9lives", want="starts with a letter")
        self.assertFalse(os.path.exists(self.out))

    def test_qsub_missing(self):
        env = dict(os.environ, PATH=self.bin)
        p = subprocess.run([A2A, "submit", self.sweep, "--nodes", "1", "--ppn", "2", "--binary",
                            self.binary, "--out", self.out, "--scheduler", "pbs"], env=env,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.count("\n"), 1, p.stderr)
        self.assertIn("a2a: qsub not found", p.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_submission_and_status(self):
        seen_path = os.path.join(self.tmp, "qsub.json")
        qstat_argv = os.path.join(self.tmp, "qstat.json")
        # a stand-in qsub: '<n>[].pbs1' for an array script, '<n>.pbs1' for a plain one
        recording_program(self.bin, "qsub", "A2A_QSUB",
                          "{'argv': sys.argv[1:], 'cwd': os.getcwd()}", (
                              "array = any(l.startswith('#PBS -J') for l in open(sys.argv[-1]))\n"
                              "print('%d%s.pbs1' % (4241 + len(calls), '[]' if array else ''))\n"))
        os.environ["PATH"] = self.bin + ":" + self.saved_path
        os.environ["A2A_QSUB"] = seen_path
        try:
            out, err = self.submit("--section", "uniform", "--per-section", "--mpirun", "mpirun",
                                   nodes="1,2,4")
        finally:
            del os.environ["A2A_QSUB"]
        # one job per node count: plain scripts (no arrays), the ids as qsub printed them
        seen = load_json(seen_path)
        self.assertEqual([s["argv"] for s in seen], [["a2a-small-n1.pbs"], ["a2a-small-n2.pbs"],
                                                     ["a2a-small-n4.pbs"]])
        self.assertEqual({os.path.realpath(s["cwd"]) for s in seen}, {os.path.realpath(self.out)})
        self.assertIn("-> PBS job 4242.pbs1", out)
        manifest = load_json(os.path.join(self.out, "a2a-submit.json"))
        self.assertEqual([j["pbs_id"] for j in manifest["jobs"]],
                         ["4242.pbs1", "4243.pbs1", "4244.pbs1"])
        self.assertEqual([a["pbs_job"] for a in manifest["arrays"]],
                         ["4242.pbs1", "4243.pbs1", "4244.pbs1"])

        # arrays: two sections per node count
        shutil.rmtree(self.out)
        os.remove(seen_path)
        os.environ["A2A_QSUB"] = seen_path
        try:
            self.submit("--per-section", "--mpirun", "mpirun")
        finally:
            del os.environ["A2A_QSUB"]
        manifest = load_json(os.path.join(self.out, "a2a-submit.json"))
        self.assertEqual([j["pbs_id"] for j in manifest["jobs"]],
                         ["4242[0].pbs1", "4242[1].pbs1", "4243[0].pbs1", "4243[1].pbs1"])

        # no qstat on PATH: the markers alone, no error
        self.assertIsNone(shutil.which("qstat"))
        write(os.path.join(self.out, "state", "job-0"),
              "done 0 2025-01-01T00:00:00Z 4242[0].pbs1\n")
        write(os.path.join(self.out, "state", "job-1"),
              "running 2025-01-01T00:00:00Z 4242[1].pbs1 node7\n")
        write(os.path.join(self.out, "state", "job-2"),
              "failed signal 2025-01-01T00:00:00Z 4243[0].pbs1\n")
        rc, out, err = call("status", self.out)
        self.assertEqual((rc, err), (0, ""))
        self.assertIn("pbs id", out.splitlines()[0])
        self.assertIn("4 job(s): 1 done, 1 failed, 1 running, 1 unknown", out)
        rows = json.loads(call("status", self.out, "--format", "json")[1])
        self.assertEqual([(r["pbs_id"], r["state"], r["detail"]) for r in rows], [
            ("4242[0].pbs1", "done", "exit 0"), ("4242[1].pbs1", "running", "marker only (node7)"),
            ("4243[0].pbs1", "failed", "signal (time limit or scancel)"),
            ("4243[1].pbs1", "unknown", "not in qstat, no marker")])

        # a stand-in qstat (server names printed longer than qsub's): 4242[1] still
        # running, 4243[1] finished with exit 1 and no marker; it fails for one id, as
        # qstat does, and still prints what it knows
        fake_program(self.bin, "qstat", (
            "json.dump(sys.argv[1:], open(os.environ['A2A_QSTAT'], 'w'))\n"
            "print('Job Id: 4242[].pbs1.example.org\\n    job_state = B\\n')\n"
            "print('Job Id: 4242[1].pbs1.example.org\\n    Job_Name = a2a-small-n1\\n'\n"
            "      '    job_state = R\\n    exec_host = node7/0*2\\n')\n"
            "print('Job Id: 4243[1].pbs1.example.org\\n    job_state = F\\n'\n"
            "      '    Exit_status = 1\\n')\n"
            "sys.stderr.write('qstat: Unknown Job Id 4243[0].pbs1\\n')\n"
            "sys.exit(35)\n"))
        os.environ["A2A_QSTAT"] = qstat_argv
        try:
            rows = json.loads(call("status", self.out, "--format", "json")[1])
        finally:
            del os.environ["A2A_QSTAT"]
        self.assertEqual(load_json(qstat_argv), ["-f", "-t", "-x", "4242[].pbs1", "4243[].pbs1"])
        self.assertEqual([(r["state"], r["detail"]) for r in rows], [
            ("done", "exit 0"), ("running", ""), ("failed", "signal (time limit or scancel)"),
            ("failed", "PBS: finished exit 1, no success marker")])
        self.assertEqual([r["shard_exists"] for r in rows], [False] * 4)


if __name__ == "__main__":
    unittest.main()
