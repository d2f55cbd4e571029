"""The command line a benchmark records in its results, without the paths of this machine."""
from __future__ import annotations


def without_options(argv: list[str], names: tuple[str, ...]) -> list[str]:
    """``argv`` without each ``NAME VALUE`` and ``NAME=VALUE`` of the options ``names``."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in names:
            skip = True
        elif not a.startswith(tuple(n + "=" for n in names)):
            out.append(a)
    return out
