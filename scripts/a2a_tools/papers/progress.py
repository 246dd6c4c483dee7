"""Progress of the papers' long commands (`a2a paper-night`, `a2a paper-bands`): a line per
step on stderr, and child launches whose output is passed on with a label."""
import os
import subprocess
import sys
import time

from ..core.common import A2AError, fmt_clock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def say(t0, text, prog="paper-night"):
    """One progress line on stderr: the command, the time since t0, text."""
    sys.stderr.write("a2a %s [+%s] %s\n" % (prog, fmt_clock(time.time() - t0), text))
    sys.stderr.flush()


def launch(cmd, t0, label, usage=False, prog="paper-night"):
    """Runs cmd from the checkout, its output lines passed on with label; returns (wall
    seconds, peak MB of it and its children), with usage (wall, peak, CPU seconds). A2AError
    if it fails."""
    start = time.time()
    child = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
    last = ""
    for line in child.stdout:
        last = line.strip() or last
        say(t0, "%s: %s" % (label, line.rstrip()), prog)
    _, status, used = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise A2AError("%s failed: %s" % (" ".join(cmd[1:3]), last))
    wall, peak = time.time() - start, used.ru_maxrss / 1024.0
    return (wall, peak, used.ru_utime + used.ru_stime) if usage else (wall, peak)
