"""Progress bars of long jobs (rich), on stderr and only on a terminal.

A transient bar that rich draws on stdout when stdout is no terminal (a pipe, a file, a test
runner) leaves a blank line before the command's own output; on stderr, and off where stderr
is no terminal, it shows where a person watches and nowhere else.
"""
from __future__ import annotations

from typing import Iterable, TypeVar

__all__ = ["track"]

T = TypeVar("T")


def track(items: Iterable[T], description: str, total: int | None = None) -> Iterable[T]:
    """``items``, with a transient progress bar on stderr while they are consumed (none when
    stderr is no terminal, a notebook apart). ``total``: how many there are (``len(items)`` when
    omitted)."""
    from rich.console import Console
    from rich.progress import track as rich_track

    console = Console(stderr=True)
    return rich_track(items, description=description, total=total, transient=True, console=console,
                      disable=not (console.is_terminal or console.is_jupyter))
