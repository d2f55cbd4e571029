"""Run a worker script and SIGKILL it: at a random moment, or when it reaches its test hook."""
import os
import selectors
import signal
import subprocess
import sys
import time

from .conftest import REPO_SRC


def read_line(proc, prefix: str, timeout: float) -> str:
    """The first line of ``proc``'s stdout starting with ``prefix``, within ``timeout`` seconds."""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sel.select(timeout=0.2):
            line = proc.stdout.readline()
            if not line:
                break
            if line.startswith(prefix):
                return line
    raise AssertionError(f"worker did not print {prefix!r}: rc={proc.poll()} stderr={proc.stderr.read()[-2000:]!r}")


def run_and_kill_worker(script: str, args: list[str], delay_s: float | None) -> None:
    """Start ``python script *args`` (engramdb from this checkout), wait for its ``READY`` line,
    then SIGKILL it after ``delay_s`` seconds, or, when ``delay_s`` is None, once it prints
    ``HOOK`` (it stops there itself)."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(REPO_SRC)}
    proc = subprocess.Popen([sys.executable, script, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        read_line(proc, "READY", 120)
        if delay_s is not None:
            time.sleep(delay_s)
        else:
            read_line(proc, "HOOK", 120)
        assert proc.poll() is None, proc.stderr.read()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
