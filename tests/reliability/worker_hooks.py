"""What the crash workers (``*_worker.py``, run as scripts) share: the hook that tells the test
where a worker stopped, a trigger that fires after the first ``skip`` calls, and a notes file
whose every line is on disk before the worker goes on."""
from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from typing import Callable, Iterator


def stop_here(tag: str = "") -> None:
    """Print ``HOOK [tag]`` (what ``kill.run_and_kill_worker`` waits for) and wait to be killed."""
    sys.stdout.write(f"HOOK {tag}".rstrip() + "\n")
    sys.stdout.flush()
    time.sleep(120)


def after(skip: int) -> Callable[[], bool]:
    """A trigger: each call counts one, and it is True from call ``skip + 1`` on."""
    hits = {"n": 0}

    def fire() -> bool:
        hits["n"] += 1
        return hits["n"] > skip

    return fire


@contextmanager
def durable_notes(path: str) -> Iterator[Callable[[str], None]]:
    """``note(line)``: append the line to ``path`` and fsync it (the test reads what the worker
    had done before the kill)."""
    with open(path, "a", encoding="utf-8") as log:
        def note(line: str) -> None:
            log.write(line + "\n")
            log.flush()
            os.fsync(log.fileno())

        yield note
