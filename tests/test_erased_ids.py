"""A lookup of an erased id says when it was erased, and with what.

A companion-app user's loop hard-forgot every hit of one recall: the first forget of a turn also
erased its session summary (what the engine wrote from the turn goes with it), and the loop's
forget of that summary raised a bare "no memory 'sum:S:...'"; nothing said it had been erased a
moment before. The ledger knows: the error now says so, naming the namespace's other ids of that
erase, never another namespace's.
"""
import time

import pytest

import engramdb
from engramdb.errors import MemoryNotFoundError

TURNS = [("user", "I broke my leg skateboarding, the doctor says it is a fractured tibia."),
         ("assistant", "I'm sorry! A fractured tibia takes about six to eight weeks to heal."),
         ("user", "The cast comes off in six weeks, then physio twice a week at the clinic.")]


def test_an_erased_id_says_when_and_with_what(tmp_path):
    t = time.time() - 3 * 86400
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        msgs = [{"role": r, "content": c, "created_at": t + i} for i, (r, c) in enumerate(TURNS)]
        mem.add_conversation(msgs, namespace="ana", session="s1")
        mem.add_conversation(msgs, namespace="bob", session="s1")
        mem.consolidate(namespace="ana", now=time.time())
        mem.get("sum:S:s1", namespace="ana")
        mem.forget("s1:1", namespace="ana", hard=True)
        with pytest.raises(MemoryNotFoundError) as err:
            mem.forget("sum:S:s1", namespace="ana", hard=True)
        message = err.value.args[0]
        assert message.startswith("no memory 'sum:S:s1' in namespace 'ana'; it was erased at ")
        assert "'s1:1'" in message and "(ledger entry " in message
        with pytest.raises(MemoryNotFoundError, match="it was erased at .* with .*'sum:S:s1'"):
            mem.get("s1:1", namespace="ana")
        # never erased, or erased in another namespace only: the plain message
        with pytest.raises(MemoryNotFoundError) as err:
            mem.get("s1:9", namespace="ana")
        assert str(err.value) == "no memory 's1:9' in namespace 'ana'"
        mem.forget("s1:2", namespace="bob", hard=True)
        assert mem.get("s1:2", namespace="ana").text.startswith("assistant: I'm sorry!")
        with pytest.raises(MemoryNotFoundError) as err:
            mem.update("s1:2", namespace="bob", text="x")
        assert "erased" in str(err.value) and "sum:" not in str(err.value)   # bob's entry names bob's ids only
