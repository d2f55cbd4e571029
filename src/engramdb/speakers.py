"""Who said a memory (source attribution), and whom a question is about.

A memory of a conversation has a speaker: ``add_conversation`` stores a message as
``"<speaker>: <content>"`` tagged with the speaker's name and role, and a chat stored line by
line with ``add_batch`` often carries the same ``"Name: ..."`` form or a role tag. A question that
names one of the speakers ("Which cars does Dave like?", "What did the user say about ...") is
almost always answered by what that speaker said, not by what was said *to* them: on LoCoMo, of
the evidence turns of the questions that name exactly one of the two speakers, 95-98 % are that
speaker's own (the adversarial questions, which name the wrong person on purpose, apart), while
about half of recall's first ten hits were the other speaker's turns addressing them by name.
Recall weighs a memory by its source accordingly (``RecallConfig.w_speaker``,
:mod:`engramdb.recall.ranking`): source monitoring (Johnson, Hashtroudi & Lindsay 1993) applied
to retrieval.

- :func:`speaker_of`: a record's speaker: the ``"<speaker>: "`` prefix of its text when a tag
  names it or it is a capitalized name of one to three words or a chat role, else its chat role
  tag, else none;
- :func:`named_speaker`: the one speaker a question names, by any word of its name or by its
  role word ("the user", "the assistant"), with first-person words ("I", "my", "me") naming
  ``user`` (the agent's user asks); None when it names none or several.
"""
from __future__ import annotations

import re
from typing import Mapping

__all__ = ["speaker_of", "speaker_keys", "named_speaker", "CHAT_ROLES", "FIRST_PERSON"]

#: Chat roles (OpenAI's, as :data:`engramdb.conversation.ROLES`): a role tag or prefix is a speaker.
CHAT_ROLES = frozenset({"user", "assistant", "system", "developer", "tool", "function"})
#: Words by which a question's asker names themself: the ``user`` speaker.
FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "i'm", "i've", "i'd", "i'll"})

_PREFIX = re.compile(r"([^\W\d_][\w'.\-]*(?: [^\W\d_][\w'.\-]*){0,2}): ")
_WORD = re.compile(r"[^\W\d_][\w'\-]*")
_MAX_PREFIX = 64
_ASKED_ROLES = frozenset({"user", "assistant"})   # roles a question names by their word


def speaker_of(rec: Mapping) -> str | None:
    """The speaker of a stored record (``text``, ``tags``), or None.

    The ``"<speaker>: "`` prefix of the text counts when one of the record's tags is that
    speaker (a message ``add_conversation`` stored), when it is a chat role, or when it is a
    capitalized name of one to three words (``"Dave: ..."``, ``"Dr Maya Chen: ..."``); failing
    that, a chat-role tag (``"user"``, ``"assistant"``, ...) names the speaker.

    Parameters
    ----------
    rec : mapping
        A stored record: ``text`` (str) and ``tags`` (sequence of str).

    Returns
    -------
    str or None
        The speaker as written (the role in lower case).
    """
    text, tags = rec.get("text") or "", rec.get("tags") or ()
    m = _PREFIX.match(text[:_MAX_PREFIX])
    if m is not None:
        name = m.group(1)
        if name in tags or name.lower() in CHAT_ROLES:
            return name.lower() if name.lower() in CHAT_ROLES else name
        if all(w[0].isupper() for w in name.split(" ")):
            return name
    for tag in tags:
        if tag in CHAT_ROLES:
            return tag
    return None


def speaker_keys(name: str) -> list[str]:
    """The words a question may name speaker ``name`` by: each word of a name as written
    (matched case-sensitively: "Will" names a speaker, "will" does not), or the role itself
    for the ``user`` and ``assistant`` roles (matched in any case; "tool" or "system" in a
    question names no speaker)."""
    if name in CHAT_ROLES:
        return [name] if name in _ASKED_ROLES else []
    return _WORD.findall(name)


def named_speaker(query: str | None, codes: Mapping[str, int], user_code: int | None) -> int | None:
    """The code of the one speaker ``query`` names, or None.

    Parameters
    ----------
    query : str or None
        The question.
    codes : mapping of str to int
        Word -> speaker code (:func:`speaker_keys` of every known speaker; a word two speakers
        share maps to -1: it names neither).
    user_code : int or None
        The code of the ``user`` speaker, which first-person words name; None when no memory
        has that speaker.

    Returns
    -------
    int or None
        The speaker's code when the question names exactly one speaker, else None.
    """
    if not query or (not codes and user_code is None):
        return None
    found = set()
    for w in _WORD.findall(query):
        code = codes.get(w)
        if code is None:
            lw = w.lower()
            code = user_code if lw in FIRST_PERSON else codes.get(lw) if lw in _ASKED_ROLES else None
        if code is not None:
            if code < 0:
                return None
            found.add(code)
            if len(found) > 1:
                return None
    return found.pop() if found else None
