"""A handle bound to one namespace: ``db.namespace("user-42")`` (``Engram.namespace``).

The handle's verbs are generated from the engine class, not written out: every public method
of :class:`engramdb.Engram` with a keyword-only ``namespace`` parameter becomes a method of the
handle with the same name, docstring and signature less ``namespace``, which calls the
engine's with ``namespace=`` filled in. A verb added to the engine later is on the handle
without a change here (``tests/test_namespace_handle.py`` checks that none is missing).

Passing another namespace is an error, explicitly (``namespace="other"``) or through a batch
item (``add_batch`` items and ``admit_batch`` candidates may carry their own ``namespace``).
This module does not import the engine (it is handed the class), so imports keep flowing one
way.
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from typing import Any, Callable

from .errors import NamespaceError
from .validate import check_iterable

__all__ = ["NamespaceHandle", "handle_class", "namespaced_verbs"]

#: verbs whose argument of that name is an iterable of memory mappings that may name a namespace
ITEM_ARGUMENTS = {"add_batch": "items", "admit_batch": "candidates"}


class NamespaceHandle:
    """The verbs of an :class:`engramdb.Engram` bound to one namespace (made by
    ``Engram.namespace(name)``; the generated subclass carries the verbs).

    Attributes
    ----------
    name : str
        The namespace.
    engram : Engram
        The engine it calls; the handle is valid while the engine is open.
    """

    __slots__ = ("engram", "name")

    def __init__(self, engram: Any, name: str):
        self.engram = engram
        self.name = name

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    def _bound(self, namespace: Any) -> str:
        if namespace != self.name:
            raise NamespaceError(
                f"this handle is bound to namespace {self.name!r}, got namespace={namespace!r}: "
                f"use engine.namespace({namespace!r}) for that one", namespace=self.name)
        return self.name

    def _checked_items(self, items: Any) -> Any:
        """``items`` as a list, after checking that no item names another namespace."""
        items = list(check_iterable(items, "items", "memory mappings"))
        for item in items:
            if isinstance(item, Mapping) and item.get("namespace") is not None:
                self._bound(item["namespace"])
        return items


def namespaced_verbs(engine_cls: type) -> dict[str, inspect.Signature]:
    """The public methods of ``engine_cls`` that take a ``namespace`` argument, with their
    signatures (through the concurrency guard's wrapper, to the method itself).

    Raises
    ------
    TypeError
        A verb takes ``namespace`` other than as a keyword-only argument (the handle could not
        fill it in safely).
    """
    out = {}
    for name, fn in vars(engine_cls).items():
        if name.startswith("_") or not inspect.isfunction(fn):
            continue
        sig = inspect.signature(fn)
        param = sig.parameters.get("namespace")
        if param is None:
            continue
        if param.kind is not inspect.Parameter.KEYWORD_ONLY:
            raise TypeError(f"{engine_cls.__name__}.{name} takes namespace as a {param.kind.description} "
                            "argument; a namespace handle needs it keyword-only")
        out[name] = sig
    return out


def _verb(engine_cls: type, verb: str, sig: inspect.Signature) -> Callable:
    """The handle's method ``verb``: the engine's, with ``namespace`` bound."""
    item_arg = ITEM_ARGUMENTS.get(verb)
    params = [p for n, p in sig.parameters.items() if n != "namespace"]
    item_pos = None
    if item_arg is not None:
        item_pos = [p.name for p in params].index(item_arg) - 1   # without self

    @functools.wraps(getattr(engine_cls, verb))
    def call(self: NamespaceHandle, *args: Any, **kwargs: Any) -> Any:
        namespace = self._bound(kwargs.pop("namespace", self.name))
        if item_arg is not None:
            if item_arg in kwargs:
                kwargs[item_arg] = self._checked_items(kwargs[item_arg])
            elif len(args) > item_pos:
                args = (*args[:item_pos], self._checked_items(args[item_pos]), *args[item_pos + 1:])
        return getattr(self.engram, verb)(*args, namespace=namespace, **kwargs)

    call.__qualname__ = f"NamespaceHandle.{verb}"
    call.__signature__ = sig.replace(parameters=params)
    call.__doc__ = (f"{(call.__doc__ or '').rstrip()}\n\n        On a namespace handle ({engine_cls.__name__}"
                    f".namespace): ``namespace`` is the handle's; another one raises NamespaceError.\n")
    return call


@functools.lru_cache(maxsize=None)
def handle_class(engine_cls: type) -> type:
    """The :class:`NamespaceHandle` subclass carrying the verbs of ``engine_cls`` (built once)."""
    verbs = {verb: _verb(engine_cls, verb, sig) for verb, sig in namespaced_verbs(engine_cls).items()}
    return type("NamespaceHandle", (NamespaceHandle,),
                {"__slots__": (), "__module__": __name__, "__doc__": NamespaceHandle.__doc__, **verbs})
