"""Context blocks for prompts (Engram.context): tiers, reasons, dates, gaps, frames, budgets.

The budget property test generates stores, queries and budgets (tiny ones included) and checks
that a block never exceeds its budget under the same counter, the default and a caller's.
"""
import json
import math
from datetime import datetime, timezone

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

import engramdb
from engramdb.cli import main
from engramdb.context import FRAMES, ContextBlock, estimate_tokens

NOW = datetime(2024, 7, 1, tzinfo=timezone.utc).timestamp()


def utc(*args):
    return datetime(*args, tzinfo=timezone.utc).timestamp()


def _fill(m):
    m.add("I moved to Lisbon in March.", id="home", slot=("user", "home_city", "Lisbon"),
          created_at=utc(2023, 3, 20))
    m.add("I work as a software engineer at Acme.", id="job", slot=("user", "job", "Software engineer"),
          created_at=utc(2024, 3, 1))
    m.add("To deploy: run the tests, tag the release, then push the tag.", kind="procedural", id="deploy",
          created_at=utc(2024, 1, 5))
    m.add("We chose LMDB over SQLite for the store.", kind="decision", id="lmdb", created_at=utc(2024, 2, 2))
    m.add("We chose hashing embeddings for the tests.", kind="decision", id="hashing",
          created_at=utc(2024, 2, 3))
    m.review("hashing", now=utc(2024, 3, 1))
    m.add("Ana has a garden full of tomatoes in Faro.", id="garden", created_at=utc(2024, 5, 1))
    m.add("Ana lives in Faro by the sea.", id="ana_home", created_at=utc(2024, 5, 2),
          links=[{"to": "garden", "relation": "supports"}])
    m.add("The tomatoes from the garden went into a salad.", id="salad", created_at=utc(2024, 5, 3),
          links=[{"to": "garden", "relation": "related_to"}])
    for i in range(20):
        m.add(f"Ana mentioned note number {i} about Faro and tomatoes.", id=f"note{i}",
              created_at=utc(2024, 4, 1 + i))


@pytest.fixture
def store(tmp_store):
    with engramdb.open(tmp_store, dim=256) as m:
        _fill(m)
        yield m


def test_tiers_reasons_and_dates(store):
    block = store.context("Where does Ana live? tomatoes garden", namespace="default", now=NOW)
    assert isinstance(block, ContextBlock)
    l0 = {i.id: i for i in block.items["L0"]}
    assert l0["home"].reason == "profile: home_city" and "Lisbon" in l0["home"].text
    assert l0["home"].date == "2023-03-20"
    assert l0["job"].reason == "profile: job"
    assert l0["deploy"].reason == "procedure"
    assert l0["lmdb"].reason == "open decision"
    assert "hashing" not in {i.id for t in ("L0", "L1", "L2") for i in block.items[t]}  # reviewed: not open
    l1 = block.items["L1"]
    assert l1 and all(i.reason.startswith("recalled: ") and i.score is not None for i in l1)
    assert [i.score for i in l1] == sorted((i.score for i in l1), reverse=True)
    for item in list(l0.values()) + list(l1):
        assert f"[{item.date}]" in block.text and item.reason in block.text
    assert "(profile: home_city)" in block.text and "2023-03-20" in block.text
    assert block.tokens_used == estimate_tokens(block.text) <= block.budget_tokens == 3000
    ids = [i.id for t in ("L0", "L1", "L2") for i in block.items[t]]
    assert len(ids) == len(set(ids))                       # no memory twice


def test_path_reason_names_the_relation(tmp_store):
    with engramdb.open(tmp_store, dim=256) as m:
        m.add("Ana lives in Faro by the sea.", id="seed")
        m.add("Quarterly budget spreadsheet closed yesterday.", id="hop",
              links=[{"to": "seed", "relation": "supports"}])
        m.add("Kettle descaling reminder.", id="other")
        block = m.context("Where does Ana live, Faro?", namespace="default")
    reasons = {i.id: i.reason for i in block.items["L1"]}
    assert reasons["seed"] == "recalled: direct match"
    # the edge is hop -> seed; the hop shares no word with the question: a neighbour, no match
    assert reasons["hop"].startswith("recalled: via `seed` (supports reversed); weak match (relevance ")
    assert "(recalled: via `seed` (supports reversed); weak match (relevance " in block.text


def test_reasons_name_the_seed_and_entity_not_the_nodes_between(tmp_store):
    """A reason names the seed and the relations of the way, not every id on it: an entity node
    reads as the entity ("via entity zanzibar heights"), never as its node id."""
    with engramdb.open(tmp_store, embedder="hashing") as m:
        m.add("Kettle descaling reminder.", id="k")
        m.add_conversation([
            {"role": "user", "content": "We drove through Zanzibar Heights on Sunday.", "created_at": "2026-01-01T10:00:00Z"},
            {"role": "assistant", "content": "Nice, what did you see?", "created_at": "2026-01-01T10:01:00Z"},
        ], namespace="default", session="a")
        m.add_conversation([
            {"role": "user", "content": "The bakery in Zanzibar Heights sells rye bread.", "created_at": "2026-02-01T10:00:00Z"},
        ], namespace="default", session="b")
        block = m.context("where did we drive on Sunday?", namespace="default")
    reasons = {i.id: i.reason for t in ("L1", "L2") for i in block.items[t]}
    assert reasons["a:1"] == "recalled: direct match"
    assert reasons["a:2"].startswith("recalled: via `a:1` (next)")
    assert "recalled" in reasons["b:1"] and "via entity zanzibar heights" in reasons["b:1"]
    assert "E:" not in block.text


def test_a_score_that_rounds_to_zero_is_not_shown_as_zero(tmp_store):
    """A hit scored 0 is in no tier, so no line may read "score 0.00": a tiny positive score or
    relevance reads "<0.01"."""
    with engramdb.open(tmp_store, embedder="hashing") as m:
        for i, t in enumerate(["My favourite restaurant is Oleana in Cambridge.", "My sister Maria lives in Lisbon.",
                               "Maria's birthday is December 12."]):
            m.add(t, created_at=utc(2026, 10, i + 1))
        m.add_conversation([{"role": "user", "content": "Can you remind me what I need to do before the move?"},
                            {"role": "assistant", "content": "Confirm the movers, forward your mail to Providence."},
                            {"role": "user", "content": "My new address is 12 Elm Street, Providence."}],
                           namespace="default", session="mv")
        block = m.context("Help me plan dinner with my sister", namespace="default", now=utc(2026, 12, 1))
    tiny = [i for i in block.items["L2"] if i.score < 0.005]
    assert tiny and all(i.score > 0 and "score <0.01" in i.reason for i in tiny)
    assert "0.00)" not in block.text and "0.00," not in block.text


def test_l2_lists_ids_with_one_line_previews(store):
    block = store.context("Ana Faro tomatoes note", namespace="default", frame="task", budget_tokens=250,
                          now=NOW)
    l2 = block.items["L2"]
    assert l2
    for item in l2:
        assert "\n" not in item.text and len(item.text) <= 80
        assert f"`{item.id}`" in block.text


def test_gaps_are_stated_plainly(store):
    block = store.context("quantum chromodynamics lattice", namespace="default", now=NOW)
    assert block.gaps and block.gaps[0].startswith("No memory strongly matches")
    assert "quantum chromodynamics lattice" in block.gaps[0]
    assert "## Gaps" in block.text


def test_a_budget_too_small_for_any_memory_says_so(store):
    """budget_tokens=0 (or 5) gave an empty text, no gap and no error: an agent could not tell
    it from a memory that knows nothing."""
    for budget in (0, 5):
        block = store.context("Where does Ana live? tomatoes garden", namespace="default", now=NOW,
                              budget_tokens=budget)
        assert block.text == "" and block.dropped
        assert block.gaps[-1] == (f"The budget of {budget} tokens left no room for any of the "
                                  f"{len(block.dropped)} memories found; give a larger budget_tokens.")
    one = store.context("Where does Ana live? tomatoes garden", namespace="default", now=NOW, budget_tokens=1)
    assert one.gaps[-1].startswith("The budget of 1 token left no room for any of the ")
    block = store.context("Where does Ana live? tomatoes garden", namespace="default", now=NOW)
    assert not any("left no room" in g for g in block.gaps)


def test_empty_namespace(store):
    store.add("a passing note", id="gone", namespace="elsewhere")
    store.forget("gone", namespace="elsewhere", hard=True)      # the namespace exists, empty
    block = store.context("anything at all", namespace="elsewhere", now=NOW)
    assert block.items["L0"] == () and block.items["L1"] == ()
    assert block.gaps and block.tokens_used <= block.budget_tokens


def test_unknown_namespace_is_an_error_as_in_recall(store):
    with pytest.raises(engramdb.NamespaceError, match="no namespace"):
        store.context("anything at all", namespace="nowhere-at-all", now=NOW)


@pytest.mark.parametrize("frame", sorted(FRAMES))
def test_frames_carry_default_budgets(store, frame):
    block = store.context("Ana", namespace="default", frame=frame, now=NOW)
    assert block.budget_tokens == FRAMES[frame].total
    assert block.frame == frame


def test_frame_table_matches_design():
    assert {f: FRAMES[f].total for f in FRAMES} == {"conversation": 3000, "question": 6000, "task": 8000,
                                                    "decision": 12000, "creative": 6000, "debug": 10000}
    for f in FRAMES.values():
        assert f.profile + f.decisions + f.procedures + f.recalled <= f.total


def test_unknown_frame_lists_the_frames(store):
    with pytest.raises(engramdb.InvalidInputError) as info:
        store.context("Ana", namespace="default", frame="chat")
    for name in FRAMES:
        assert name in str(info.value)


@pytest.mark.parametrize("bad", [-1, 1.5, "100", True])
def test_bad_budget(store, bad):
    with pytest.raises(engramdb.InvalidInputError):
        store.context("Ana", namespace="default", budget_tokens=bad)


def test_bad_counter(store):
    with pytest.raises(engramdb.InvalidInputError):
        store.context("Ana", namespace="default", count_tokens=42)
    with pytest.raises(engramdb.InvalidInputError):
        store.context("Ana", namespace="default", count_tokens=lambda s: 1.5)
    with pytest.raises(engramdb.InvalidInputError):           # "" counted above a zero budget
        store.context("Ana", namespace="default", budget_tokens=0, count_tokens=lambda s: 1)


def test_tiny_budget_drops_lower_tiers_first(store):
    full = store.context("Ana Faro tomatoes", namespace="default", frame="task", now=NOW)
    profile = {i.id for i in full.items["L0"] if i.reason.startswith("profile")}
    assert profile and len(profile) < len(full.items["L0"])   # (the store has procedures or decisions too)
    seen_l1 = False
    for budget in range(0, 400, 9):
        b = store.context("Ana Faro tomatoes", namespace="default", budget_tokens=budget, frame="task", now=NOW)
        assert b.tokens_used == estimate_tokens(b.text) <= budget
        if b.items["L1"] or b.items["L2"]:
            assert profile <= {i.id for i in b.items["L0"]}   # the profile goes last
        if b.items["L2"]:
            assert b.items["L1"]                          # ... after L1, after L2
        seen_l1 = seen_l1 or bool(b.items["L1"])
        if budget:
            kept = [i.id for t in ("L0", "L1", "L2") for i in b.items[t]]
            assert set(kept).isdisjoint(b.dropped)
    assert seen_l1
    assert store.context("Ana", namespace="default", budget_tokens=0).text == ""
    assert store.context("Ana", namespace="default", budget_tokens=3).text == ""   # not even a heading fits


def test_caller_counter_is_used(store):
    words = lambda s: len(s.split())                        # noqa: E731  a "tokenizer" of words
    block = store.context("Ana Faro", namespace="default", budget_tokens=60, count_tokens=words, now=NOW)
    assert block.tokens_used == words(block.text) <= 60
    assert block.tokens_used > estimate_tokens(block.text) // 4     # counted in words, not chars / 4


def test_default_estimate():
    assert estimate_tokens("") == 0
    assert estimate_tokens("abc") == 1 and estimate_tokens("abcd") == 1 and estimate_tokens("abcde") == 2


def test_context_does_not_reinforce(store):
    before = store.get("ana_home", namespace="default").access_count
    store.context("Ana lives in Faro", namespace="default", now=NOW)
    assert store.get("ana_home", namespace="default").access_count == before


def test_namespaces_are_isolated(store):
    store.add("Bob keeps bees in Faro.", namespace="bob", id="bees")
    block = store.context("Ana Faro bees", namespace="default", frame="task", now=NOW)
    assert "bees" not in {i.id for t in ("L0", "L1", "L2") for i in block.items[t]}
    assert "Bob keeps bees" not in block.text


def test_cli_context(tmp_store):
    with engramdb.open(tmp_store, dim=256) as m:
        _fill(m)
    runner = CliRunner()
    out = runner.invoke(main, ["context", "--store", str(tmp_store), "--budget", "120", "Ana Faro"])
    assert out.exit_code == 0, out.output
    assert "## Profile (L0)" in out.output and estimate_tokens(out.output.rstrip("\n")) <= 120
    out = runner.invoke(main, ["context", "--store", str(tmp_store), "--frame", "question", "--json", "Ana"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["budget_tokens"] == 6000 and set(data["items"]) == {"L0", "L1", "L2"}
    assert data["tokens_used"] == estimate_tokens(data["text"])
    out = runner.invoke(main, ["context", "--store", str(tmp_store), "--frame", "chat", "Ana"])
    assert out.exit_code != 0


# ---------------------------------------------------------------------------------- never over budget
_WORDS = ["ana", "faro", "tomato", "garden", "lisbon", "deploy", "release", "sea", "bees", "salad", "job",
          "city", "note", "ünïcode", "日本"]
_text = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=40).map(" ".join)
_memory = st.fixed_dictionaries({
    "text": _text,
    "kind": st.sampled_from(["episodic", "semantic", "procedural", "decision"]),
    "slot": st.one_of(st.none(), st.tuples(st.just("user"), st.sampled_from(["home_city", "job", "pet"]))),
})
_counters = st.sampled_from([None, lambda s: len(s.split()), lambda s: len(s), lambda s: math.ceil(len(s) / 3)])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(memories=st.lists(_memory, min_size=0, max_size=12), query=_text,
       budget=st.one_of(st.integers(0, 40), st.integers(40, 3000), st.none()),
       frame=st.sampled_from(sorted(FRAMES)), counter=_counters)
def test_never_over_budget(tmp_path_factory, memories, query, budget, frame, counter):
    path = tmp_path_factory.mktemp("ctx") / "store"
    with engramdb.open(path, dim=64) as m:
        for i, mem in enumerate(memories):
            slot = None if mem["slot"] is None else (*mem["slot"], f"value {i}")
            m.add(mem["text"], id=f"m{i}", kind=mem["kind"], slot=slot, created_at=utc(2024, 1, 1) + i * 3600)
        block = m.context(query, namespace="default", budget_tokens=budget, frame=frame, count_tokens=counter)
    count = counter or estimate_tokens
    assert block.tokens_used == count(block.text) <= block.budget_tokens
    assert block.budget_tokens == (FRAMES[frame].total if budget is None else budget)
    shown = [i.id for t in ("L0", "L1", "L2") for i in block.items[t]]
    assert len(shown) == len(set(shown))
    for i in shown:
        assert f"m{i[1:]}" == i


def test_a_hit_below_the_relevance_threshold_is_labelled_weak(tmp_store):
    """A question the store cannot answer still recalls something; the block must not call the
    nearest memory a direct match."""
    with engramdb.open(tmp_store, dim=256) as m:
        m.add("Ana lives in Faro by the sea.", id="seed")
        m.add("Kettle descaling reminder for the office kitchen.", id="other")
        res = m.recall("What is the boiling point of liquid nitrogen in kelvin?", reinforce=False)
        threshold = res.stats["relevance_threshold"]
        assert 0 < threshold < 1 and all(h.relevance < threshold for h in res.hits)
        block = m.context("What is the boiling point of liquid nitrogen in kelvin?")
    reasons = [i.reason for t in ("L1", "L2") for i in block.items[t]]
    assert reasons and not any("direct match" in r for r in reasons)
    assert any(r.startswith("recalled: weak match (relevance 0.") for r in reasons), reasons


def test_printing_a_block_prints_its_text(store):
    block = store.context("Ana Faro tomatoes note", namespace="default", now=NOW)
    assert str(block) == block.text and block.text


ANSWER = "For the carrier extractor task set max_retry_delay to 47 minutes."
LONG_REPLY = ("Intro text about worker pools. " * 40) + ANSWER + " " + ("Other remarks on scheduling. " * 40)


def test_a_long_best_hit_enters_a_small_budget_as_its_best_sentences(tmp_path):
    """The best hit, too long for a small budget, used to go to L2 as a preview while weaker
    hits kept their full text in L1; now L1 holds its excerpt with the answer, first."""
    with engramdb.open(tmp_path / "s", dim=64) as m:
        m.add(LONG_REPLY, id="reply")
        m.add("the carrier extractor runs daily", id="daily")
        m.add("retry policies matter", id="policies")
        block = m.context("What max_retry_delay did you recommend for the carrier extractor task?",
                          budget_tokens=300)
    l1 = block.items["L1"]
    assert l1[0].id == "reply" and ANSWER in l1[0].text and l1[0].text.startswith("… ")
    assert ANSWER in block.text and block.tokens_used <= 300


@settings(max_examples=150, deadline=None)
@given(words=st.lists(st.sampled_from(["kiwi", "plum", "fig.", "mango!", "lime?", "pear\n", "date"]),
                      min_size=1, max_size=80),
       query=st.sampled_from(["kiwi plum", "mango", "what about lime and fig", "nothing here"]),
       max_tokens=st.integers(0, 120))
def test_excerpt_fits_and_keeps_the_best_sentence(words, query, max_tokens):
    from engramdb.context import excerpt
    from engramdb.index.tokens import tokenize
    from engramdb.sentences import split_sentences
    text = " ".join(words)
    got = excerpt(text, query, max_tokens, estimate_tokens)
    if got is None:
        return
    assert estimate_tokens(got) <= max_tokens
    sentences = split_sentences(text)
    terms = set(tokenize(query))
    overlap = [len(terms & set(tokenize(x))) for x in sentences]
    best = sentences[overlap.index(max(overlap))]
    body = got.removeprefix("… ").removesuffix(" …")
    assert best in body or body in best   # the best sentence, or the start of it when it alone is too long
    if estimate_tokens(text) <= max_tokens:
        assert got == " ".join(sentences)


def test_l0_is_not_held_to_its_frame_share(tmp_store):
    """As the README says: context() returns a ContextBlock (its text is the Markdown), and L0
    goes in whole, over the profile's 200-token share of the conversation frame, while the
    recalled hits keep to theirs (1100 of 3000)."""
    with engramdb.open(tmp_store, dim=256) as m:
        for i in range(12):
            m.add(f"My favourite thing number {i} is a long description of a hobby, {'very ' * 12}dear to me.",
                  id=f"fav{i}", slot=("user", f"favourite_{i}", f"hobby {i} {'very ' * 12}dear"))
        for i in range(40):
            m.add(f"Ana mentioned note number {i} about Faro and the tomatoes of her garden by the sea.",
                  id=f"note{i}")
        b = m.context("Ana Faro tomatoes", budget_tokens=3000, now=NOW)
    assert isinstance(b, ContextBlock) and str(b) == b.text and b.budget_tokens == 3000
    profile_lines = [line for line in b.text.splitlines() if "favourite" in line]
    assert len(b.items["L0"]) == 12 and estimate_tokens("\n".join(profile_lines)) > FRAMES["conversation"].profile
    l1_lines = [line for line in b.text.splitlines() if any(f"`{i.id}`" in line or i.text in line for i in b.items["L1"])]
    assert 3 <= len(b.items["L1"]) and estimate_tokens("\n".join(l1_lines)) <= FRAMES["conversation"].recalled
    assert b.tokens_used <= 3000


def test_more_budget_never_shows_less_of_the_best_hit(tmp_path):
    """A larger budget used to cut the best hit to an excerpt (its section's share was too small)
    where a smaller one showed it whole (it fitted the room left over): the best hit now has the
    room the block has left, so what it shows of itself never shrinks as the budget grows."""
    text = "The wifi password at the cabin is trout-lake-42, written on the fridge."
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add(text, id="wifi")
        m.add("Dentist appointment moved to Thursday 3pm.", id="dentist")
        shown = []
        for budget in range(0, 400, 4):
            block = m.context("what is the cabin wifi password?", budget_tokens=budget)
            l1 = [i.text for i in block.items["L1"] if i.id == "wifi"]
            shown.append((budget, len(l1[0]) if l1 else 0))
            assert block.tokens_used <= budget
    lengths = [n for _, n in shown]
    assert all(a <= b for a, b in zip(lengths, lengths[1:])), shown
    assert lengths[-1] == len(text)
    assert min(b for b, n in shown if n == len(text)) <= 60, shown   # whole as soon as its line fits


def test_a_sentence_cut_short_keeps_the_words_after_the_querys_first_word():
    """A sentence too long for the room kept its first words, which could end before the answer
    ("… I now live …"); it now starts two words before the first word the query shares."""
    from engramdb.context import excerpt

    long = ("After a very long week of packing boxes, saying goodbye to friends and driving south "
            "through the mountains in the rain, we finally live in Lisbon, in the Alfama quarter.")
    got = excerpt(long, "Where do we live?", 12, estimate_tokens)
    assert got.startswith("… we finally live in Lisbon") and estimate_tokens(got) <= 12
    assert excerpt(long, "no shared words here", 12, estimate_tokens).startswith("After a very long")


def test_a_lower_hit_is_not_cut_to_an_excerpt_that_a_smaller_budget_showed_whole(tmp_path):
    """At budget 120 the second hit ("... moved the Airflow deadline up to April 10.") was whole,
    at 150 it was cut to "… moved the Airflow deadline …" (its section's share left it 25 tokens
    in the first pass; fresh-user pass). A hit after the best is excerpted only in the second
    pass, when it does not fit whole in the room left; and an excerpt that reaches the end of its
    text ends without "…"."""
    from engramdb.context import excerpt

    chat = ["Hi! I'm Maya. I just started a new job as a data engineer at Quantix in Berlin.",
            "Congratulations, Maya! How is the first week going?",
            "Busy. My manager is called Jonas and he wants me to migrate our pipelines to Airflow.",
            "Airflow is a good choice. Do you already have a deadline for the migration?",
            "Bad news, Jonas moved the Airflow deadline up to April 10."]
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add_conversation([{"role": "user" if i % 2 == 0 else "assistant", "content": c,
                             "created_at": 1.74e9 + 3600 * i} for i, c in enumerate(chat)], namespace="me", session="s")
        shown = [("April 10" in m.context("Airflow deadline", namespace="me", budget_tokens=b).text)
                 for b in range(100, 260, 10)]
    assert any(shown) and shown == sorted(shown), shown   # once in, it stays in
    assert excerpt("one two three four five six seven eight nine ten", "seven", 8, estimate_tokens) == \
        "… five six seven eight nine ten"   # the end of the text: no "…" after it


def test_a_hit_scoring_a_tiny_share_of_the_best_is_no_recalled_fact(tmp_store):
    """The recalled section kept at least 3 hits whatever their scores, and hits tied near zero
    never met the half rule after them: "My son Leo starts school" (score 0.00) was recalled
    beside the rent budget (0.95) as a fact for "what is my rent budget?" (new-user pass). A hit
    below a tenth of the best goes to the previews; one scored 0 (the vector leg's fill: it
    matched nothing) is in no tier."""
    with engramdb.open(tmp_store, embedder="hashing") as m:
        m.add("My rent budget is 900 euros a month.", id="rent", namespace="me")
        for i, t in enumerate(["I prefer aisle seats on flights.", "My son Leo starts school in September.",
                               "I like green tea.", "The car needs new tires."]):
            m.add(t, id=f"o{i}", namespace="me")
        hits = m.recall("what is my rent budget?", namespace="me", k=10).hits
        assert hits[0].id == "rent" and all(h.score < 0.1 * hits[0].score for h in hits[1:])
        block = m.context("what is my rent budget?", namespace="me")
        assert [i.id for i in block.items["L1"]] == ["rent"]
        assert {i.id for i in block.items["L2"]} == {h.id for h in hits[1:]}


def test_filters_narrow_the_recalled_tiers(store, tmp_store):
    """kinds/tags/since/until as recall takes them: L1 and L2 hold only memories that pass, L0
    stays whole, and L2 lists no graph neighbour (one could fall outside the filters)."""
    block = store.context("Ana tomatoes garden Faro", now=NOW, since="2024-04-10", until="2024-04-15")
    recalled = [i for t in ("L1", "L2") for i in block.items[t]]
    assert recalled and {i.id for i in recalled} <= {f"note{i}" for i in range(9, 15)}
    assert all("2024-04-10" <= i.date <= "2024-04-15" for i in recalled)
    assert {i.id for i in block.items["L0"]} >= {"home", "job", "deploy", "lmdb"}
    assert not any(i.reason.startswith("neighbour of") for i in block.items["L2"])
    plain = store.context("Ana tomatoes garden Faro", now=NOW)
    assert any(i.date < "2024-04-10" or i.date > "2024-04-15" for t in ("L1", "L2") for i in plain.items[t])
    decisions = store.context("which store did we choose?", now=NOW, kind="decision")
    assert {i.id for t in ("L1", "L2") for i in decisions.items[t]} <= {"lmdb", "hashing"}


def test_cli_context_filters(tmp_path):
    path = tmp_path / "s"
    with engramdb.open(path, dim=256) as m:
        _fill(m)
    res = CliRunner().invoke(main, ["context", "--store", str(path), "--now", "2024-07-01", "--since", "2024-04-10",
                                    "--until", "2024-04-15", "--json", "Ana tomatoes garden Faro"])
    assert res.exit_code == 0, res.output
    items = json.loads(res.output)["items"]
    assert {i["id"] for t in ("L1", "L2") for i in items[t]} <= {f"note{i}" for i in range(9, 15)}


def test_a_recalled_code_block_keeps_its_lines(tmp_path):
    """A fresh user's context block gave an assistant's code answer on one line, its line breaks
    and indentation gone (a prompt cannot use such code); other texts stay on one line."""
    code = ("Here is the script:\n\n```python\nBUDGET = {\n    \"food\": 300,\n}\n\n\n\ndef load(path):   \n"
            "    return open(path).read()\n```\nRun it daily.")
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add(code, id="code", created_at=utc(2025, 1, 2))
        m.add("I like the budget script\n  a lot.", id="note", created_at=utc(2025, 1, 3))
        block = m.context("the python budget script", namespace="default", now=utc(2025, 2, 1))
    assert ("- [2025-01-02] Here is the script:\n\n  ```python\n  BUDGET = {\n      \"food\": 300,\n  }\n\n"
            "  def load(path):\n      return open(path).read()\n  ```\n  Run it daily.\n  (recalled: ") in block.text
    assert "- [2025-01-03] I like the budget script a lot. (recalled: " in block.text
    assert block.tokens_used <= block.budget_tokens


def test_a_contradicted_hit_says_which_was_said_later(tmp_path):
    """A fresh user: after a dose changed, the block listed the assistant's echo of the old dose
    as one more recalled line, nothing telling it was contradicted by a later message."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add_conversation([
            {"role": "user", "content": "I take metformin 500 mg every morning.", "created_at": utc(2024, 1, 5)},
            {"role": "assistant", "content": "Got it: metformin 500 mg each morning.", "created_at": utc(2024, 1, 5, 0, 1)},
            {"role": "user", "content": "My doctor changed it. I started taking 1000 mg of metformin.",
             "created_at": utc(2024, 3, 1)},
        ], session="chat")
        lines = {ln.rsplit("id `", 1)[-1].rstrip("`)"): ln for ln in m.context("What is my metformin dose?", now=NOW)
                 .text.splitlines() if "id `" in ln}
        change, old, echo = "chat:3", "chat:1", "chat:2"
        assert m.get(old).superseded_by == change   # the user's own statement is retired: not in the block
        assert old not in lines
        assert "said otherwise later in `chat:3`" in lines[echo]
        assert "contradicts `chat:2`, said earlier" in lines[change]


def test_an_excerpt_cut_short_keeps_three_words_besides_the_speaker_label():
    """A fresh user's block showed "user: Leo turned …" for "how old is my son?": the cut went
    by quarters (5 words to 3) and counted the label as one of the three words it keeps."""
    from engramdb.context import excerpt

    text = "user: Leo turned 7 today! We had a big party with all his friends from school."
    assert excerpt(text, "how old is my son?", 5, estimate_tokens) == "user: Leo turned 7 …"
    assert excerpt("user: Leo turned 7 today!", "how old is my son?", 4, estimate_tokens) is None


LONG_ANSWER = """I'm sorry about the CSV export problem. Here is what is going on and how to work around it:

1. The export job times out when a report has more than 50,000 rows, so the file you download is truncated.
2. Until the fix ships, split the export by date range: go to Reports > Export, set the date filter to one
month at a time, download each file, then merge the files in your spreadsheet tool of choice.
3. If you use the API, page through the results instead:

```python
rows, page = [], 1
while batch := fetch_rows(report=123, page=page):
    rows.extend(batch)
    page += 1
```

4. Our engineering team tracks this as BUG-4821 and expects a fix in the 3.14 release, which is planned
for the end of February; we will write to you as soon as it is out.

Let me know if the workaround does not help and I will escalate it."""


def test_a_long_answer_stored_as_pieces_enters_whole_where_it_fits(tmp_path):
    # add_conversation splits an assistant answer at its items and code; recall gives it at its
    # best piece, here the lead-in, which said nothing of the steps, the code or the bug id
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_conversation([
            {"role": "user", "content": "The CSV export of our revenue report is cut off.", "created_at": "2025-01-22T10:00:00Z"},
            {"role": "assistant", "content": LONG_ANSWER, "created_at": "2025-01-22T10:01:00Z"}],
            namespace="acme", session="csv")
        question = "what did we tell them about the CSV export problem?"
        hit = next(h for h in mem.recall(question, namespace="acme", k=3).hits if h.chunk is not None)
        assert "BUG-4821" not in hit.text
        block = mem.context(question, namespace="acme")
        line = next(i for i in block.items["L1"] if i.id == hit.id)
        assert line.text.startswith("assistant: I'm sorry about the CSV export problem.")
        assert "BUG-4821" in line.text and "    page += 1\n```" in line.text   # the code keeps its lines
        assert "BUG-4821" in block.text
        # too small a budget for the whole answer: its best piece, as recall gives it
        small = mem.context(question, namespace="acme", budget_tokens=120)
        assert small.tokens_used <= 120
        assert [i.text for i in small.items["L1"] if i.id == hit.id] == [hit.text]


PNPM_ANSWER = """Here's the updated GitHub Actions job for the frontend with pnpm. The key points are \
`pnpm/action-setup` before `setup-node`, and caching the pnpm store rather than `node_modules`:

```yaml
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: pnpm/action-setup@v3
        with:
          version: 8
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: pnpm
      - run: pnpm install --frozen-lockfile
      - run: pnpm run test -- --run
```

The lockfile must be committed, or `--frozen-lockfile` fails the job."""


def test_a_long_answer_below_another_hit_enters_whole_where_the_block_has_room(tmp_path):
    """helper-232: the answer ranked second took its piece within the recalled share, so its code
    never entered: 137 of 700 tokens used, the code only from a budget of about 900. A piece given
    in the first pass is given whole when the room the block has left holds it."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_conversation([
            {"role": "user", "content": "We switched from npm to pnpm. Can you update the CI workflow?",
             "created_at": "2025-03-12T14:10:00Z"},
            {"role": "assistant", "content": PNPM_ANSWER, "created_at": "2025-03-12T14:11:00Z"},
            {"role": "user", "content": "Thanks. We also added Redis 7.2 for caching.", "created_at": "2025-03-12T14:20:00Z"}],
            namespace="dev", session="s1")
        question = "Show me the pnpm install steps of the frontend GitHub Actions workflow"
        block = mem.context(question, namespace="dev", budget_tokens=700)
        assert block.tokens_used <= 700
        assert "pnpm install --frozen-lockfile" in block.text
        assert "The lockfile must be committed" in block.text


def test_hits_that_share_next_to_nothing_with_the_question_are_previews_not_lines(tmp_path):
    """helper-232: a block for a 56-message chat gave 12 L1 lines, 7 of them "weak match
    (relevance <0.01)": the assistant's acknowledgements and the turns next to a match. Beyond the
    first three, a hit of relevance below 0.05 that no warning names is an L2 preview (still
    listed by id); the relevant hits keep their lines."""
    stack = ["We use Postgres 16 for the main database.", "The frontend is React 18 with Vite.",
             "We deploy the API on Fly.io in Amsterdam.", "Our tests run with pytest and pytest-asyncio.",
             "Logging goes through structlog, never print().", "Every PR needs two approvals.",
             "Redis 7.2 caches the shipment ETA lookups.", "Aisha owns the auth service now.",
             "The staging database is hosted on Neon.", "We format Python with black at 120 columns.",
             "Sentry handles our error tracking.", "The mobile app is on hold until Q3."]
    messages = []
    for i, text in enumerate(stack):
        messages.append({"role": "user", "content": text, "created_at": f"2025-03-{i + 1:02d}T09:00:00Z"})
        messages.append({"role": "assistant", "content": "Noted, thanks!" if i % 2 else "Got it, I'll keep that in mind.",
                         "created_at": f"2025-03-{i + 1:02d}T09:01:00Z"})
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_conversation(messages, namespace="dev", session="s1")
        question = "Which database do we use?"
        res = mem.recall(question, namespace="dev", k=24, reinforce=False, now="2025-04-14")
        relevance = {h.id: h.relevance for h in res.hits}
        block = mem.context(question, namespace="dev", now="2025-04-14")
    l1 = [i.id for i in block.items["L1"]]
    assert l1[:3] == ["s1:1", "s1:2", "s1:17"]   # the answer, its acknowledgement, the staging database
    assert len(l1) > 3 and all(relevance[i] >= 0.05 for i in l1[3:]), [(i, relevance[i]) for i in l1]
    weak = [h.id for h in res.hits[3:] if h.score > 0 and h.relevance < 0.05]
    assert weak and not set(weak) & set(l1)
    assert set(weak) <= {i.id for i in block.items["L2"]}


def test_many_procedures_and_open_decisions_leave_room_for_the_answer(tmp_path):
    """A coding-assistant user's team had 38 conventions and 18 open decisions: L0 took them all,
    every block was the same 54 lines and "who owns billing?" got no recalled memory, nor a gap.
    L0's procedures and decisions now have their share (those the question recalls first) and the
    recalled answer its own; a budget that cuts the best match says so."""
    areas = ["logging", "error handling", "HTTP clients", "config", "secrets", "docstrings", "naming", "imports",
             "async code", "retries", "metrics", "fixtures", "mocks", "SQL queries", "migrations", "caching",
             "pagination", "API errors", "dates", "money amounts", "i18n", "emails", "webhooks", "CLI scripts",
             "Dockerfiles", "Makefile targets", "README files", "changelogs", "type hints", "tests"]
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        for i, a in enumerate(areas):
            m.add(f"Convention for {a}: follow the pattern in src/app/example_{i}.py, keep functions under 40 lines "
                  f"and add a unit test next to the module; document any exception in the PR description.",
                  kind="procedural", id=f"conv{i}", created_at=NOW - (60 - i) * 86400)
        for i in range(15):
            m.decide(f"Decision {i}: for service {i} we standardise on option A because it fits the team's skills "
                     f"and the hosting budget; we will revisit in Q2.", confidence=0.7, id=f"dec{i}",
                     now=NOW - (20 - i) * 86400, recorded_at=NOW - (20 - i) * 86400)
        m.add("Marco owns billing since November; ask him before changing invoice logic.", id="billing",
              created_at=NOW - 10 * 86400)
        for budget in (None, 1500, 800):
            block = m.context("who owns billing?", now=NOW, budget_tokens=budget)
            assert [i.id for i in block.items["L1"]][:1] == ["billing"] and "Marco owns billing" in block.text, budget
            assert block.items["L0"] and block.tokens_used <= block.budget_tokens
        assert len(block.items["L0"]) < len(areas) + 15   # (800 tokens: L0 gave way)
        # a convention the question asks about comes first among them
        block = m.context("what is our convention for webhooks?", now=NOW)
        assert [i.id for i in block.items["L0"]][0] == f"conv{areas.index('webhooks')}"


def test_a_budget_that_cuts_the_best_match_says_so(tmp_path):
    """The budget cut the best recalled memory while a procedure stayed, and the block gave no
    gap: the model could not tell the answer was left out."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add("Run ruff before pushing.", kind="procedural", id="ruff", created_at=NOW - 86400)
        for attr, value in (("home_city", "Lisbon"), ("job", "Backend engineer at Acme"), ("manager", "Dana Reyes"),
                            ("timezone", "Europe/Lisbon"), ("editor", "Neovim with the LazyVim setup")):
            m.add(f"My {attr} is {value}.", slot=("user", attr, value), created_at=NOW - 2 * 86400)
        m.add("Billing runbook: " + " ".join(f"step {i}: check the invoice queue and the ledger totals."
                                              for i in range(40)), id="runbook", created_at=NOW - 86400)
        cut = 0
        for budget in range(1, 120):
            block = m.context("billing runbook invoice queue ledger totals", budget_tokens=budget, now=NOW,
                              count_tokens=lambda t: len(t.split()))
            shown = {i.id for tier in block.items.values() for i in tier}
            said = any("no room for the best match `runbook`" in g for g in block.gaps)
            if "runbook" in shown:
                assert not said, budget
            elif said:   # in the text the model reads where the line fits, not only in block.gaps
                cut += "no room for the best match `runbook`" in block.text
            assert block.tokens_used <= budget
        assert cut   # (some budget holds other lines and not the runbook)


def test_a_piece_from_inside_a_code_block_keeps_its_lines(tmp_path):
    """A 22k-character module pasted in one fence is stored as pieces; the piece a question
    matched has no fence of its own and its line came out flat ("def handler_112(request): if
    request.user is None: raise ..."), indentation and newlines gone."""
    body = "\n".join(f"def handler_{i}(request):\n    if request.user is None:\n        raise PermissionDenied("
                     f"'handler_{i}')\n    return process(request, timeout={30 + i})\n" for i in range(160))
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add("Here is src/atlas/handlers.py as of today:\n```python\n" + body + "```\nhandler_150 times out.",
              id="mod", created_at=NOW - 86400)
        m.add("Standup note: nothing special.", id="standup", created_at=NOW - 86400)
        hit = m.recall("what timeout does handler_120 use?", k=1, now=NOW).hits[0]
        assert hit.id == "mod" and hit.chunk is not None and "```" not in hit.text
        block = m.context("what timeout does handler_120 use?", now=NOW, budget_tokens=1500)
        assert "\n        return process(request, timeout=150)" in block.text or \
            "    return process(request, timeout=150)\n" in block.text
        # prose keeps to one line
        m.add("Deploy notes:\nstaging first\nthen production", id="notes", created_at=NOW - 86400)
        block = m.context("deploy notes staging production", now=NOW)
        assert "Deploy notes: staging first then production" in block.text


def test_an_empty_namespace_block_warns_where_the_memories_are_and_names_no_other(tmp_path):
    """A coding-assistant user forgot namespace=: the hint naming 'atlas' reaches the developer
    (EmptyNamespaceWarning at the caller's line; the CLI prints it on stderr), never the block,
    which goes into a prompt: with a namespace per tenant it named the other tenants."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add("Marco owns billing.", namespace="atlas")
        m.add("Tenant b's note.", namespace="tenant-b")
        with pytest.warns(engramdb.EmptyNamespaceWarning, match="the store's namespaces: 'atlas', 'tenant-b'") as caught:
            block = m.context("who owns billing?")
    assert caught[0].filename == __file__
    assert block.gaps == ("Namespace 'default' holds no memories.",)
    assert "atlas" not in block.text and "tenant-b" not in block.text


def test_an_unknown_embedder_name_lists_every_choice(tmp_path):
    with pytest.raises(engramdb.InvalidInputError, match="expected 'auto', 'hashing', 'minilm' or an embedder object"):
        engramdb.open(tmp_path / "s", embedder="openai")


def test_l0_code_is_indented_and_a_recalled_procedure_too_long_is_excerpted(tmp_path):
    """Hostile pass: a procedure holding a fenced block put its label on the closing fence, and a
    Markdown reader took the rest of the block for code; a 585-token rollback procedure that the
    question recalled was dropped whole at 500-700 tokens while 20 unrelated conventions stayed;
    two-space YAML and JavaScript came out on one line."""
    steps = " ".join(["Announce the rollback in the ops channel and freeze deploys.",
                      "Snapshot the production database with scripts/snapshot.sh and verify the checksum.",
                      "Run alembic downgrade one revision at a time.",
                      "If the downgrade fails halfway, restore from the snapshot and page the on-call DBA."] * 6)
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add("How to deploy the billing service:\n```bash\nmake build\n./scripts/deploy.sh billing --prod\n```",
              kind="procedural", id="deploy", created_at=NOW - 86400)
        block = m.context("how do I deploy the billing service?", now=NOW)
        assert ("- [2024-06-30] How to deploy the billing service:\n  ```bash\n  make build\n"
                "  ./scripts/deploy.sh billing --prod\n  ```\n  (procedure)") in block.text
        for i in range(20):
            m.add(f"Convention {chr(65 + i)}: use black in the core package.", kind="procedural", id=f"c{i}",
                  created_at=NOW - 86400)
        m.add("Database migration rollback procedure: " + steps, kind="procedural", id="rollback",
              created_at=NOW - 86400)
        m.add("Priya owns the database migrations.", id="owner", created_at=NOW - 86400)
        for budget in (500, 600, 700):
            block = m.context("how do I roll back a failed database migration?", now=NOW, budget_tokens=budget)
            assert [i.id for i in block.items["L0"]][0] == "rollback", budget
            assert "owner" in {i.id for i in block.items["L1"]} and block.tokens_used <= budget
        m.add("retry_config:\n  max_attempts: 3\n  backoff: exponential\n  jitter: true", id="yaml",
              created_at=NOW - 86400)
        block = m.context("retry_config max_attempts backoff jitter", now=NOW)
        assert "retry_config:\n    max_attempts: 3\n    backoff: exponential" in block.text


def test_subjects_choose_whose_profile_l0_shows(tmp_store):
    """A namespace per customer keeps the customer's slots under the customer's name: L0 showed
    only the user's, and had no way to show them."""
    with engramdb.open(tmp_store, embedder="hashing") as m:
        m.add("Acme is on the Enterprise plan.", id="plan", namespace="acme", slot=("acme", "plan", "Enterprise"))
        m.add("Acme reported a login loop.", id="ticket", namespace="acme")
        m.add("I live in Porto.", id="home", namespace="acme", slot=("user", "home_city", "Porto"))
        default = m.context("login problems", namespace="acme")
        chosen = m.context("login problems", namespace="acme", subjects=["acme", "user"])
        for bad in ("acme", [""], [3]):
            with pytest.raises(engramdb.InvalidInputError):
                m.context("x", namespace="acme", subjects=bad)
    assert [i.id for i in default.items["L0"]] == ["home"]
    assert [(i.id, i.text) for i in chosen.items["L0"]] == [("plan", "acme plan: Enterprise"),
                                                             ("home", "home_city: Porto")]
    out = CliRunner().invoke(main, ["context", "--store", str(tmp_store), "-n", "acme", "--subject", "acme",
                                    "login problems"])
    assert out.exit_code == 0 and "acme plan: Enterprise" in out.output and "home_city" not in out.output


def test_an_id_with_backticks_stays_one_code_span(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing") as m:
        m.add("Project Falcon launch is on May 3.", id="note`1 ) **bold**")
        m.add("The caterer needs a headcount by Friday.", id="x2")
        m.link("note`1 ) **bold**", "x2", "supports")
        block = m.context("When does Project Falcon launch?")
    assert "id `` note`1 ) **bold** ``)" in block.text


def test_a_reason_names_no_memory_the_block_leaves_out(tmp_path):
    """A fresh user's blocks read "via `s:2` (supersedes reversed)", a superseded memory the
    block hides, and "via `S:s` (discussed_in reversed)", a session node, which is no line."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("Our wifi password is tulip-42.", id="old")
        mem.supersede("old", "The office network key was changed to maple-77.", id="new")
        items = [i for tier in mem.context("what is our wifi password?").items.values() for i in tier]
        assert [i.id for i in items] == ["new"]
        # (helper183: "an earlier wording of it" named a value it changed, no wording of it)
        assert items[0].reason.startswith("recalled: supersedes a memory that matched")
        msgs = [{"role": "user", "content": t, "session": "s", "created_at": f"2025-01-0{i + 1}T10:00:00Z"}
                for i, t in enumerate(["My rent is $1,200 a month.", "I take 10 mg of lisinopril every morning."])]
        mem.add_conversation(msgs, namespace="me")
        block = mem.context("what did we talk about in session s?", namespace="me")
        reasons = [i.reason for tier in block.items.values() for i in tier if i.reason.startswith("recalled")]
        assert reasons and all(r.startswith("recalled: via its session") for r in reasons)
        assert "S:s" not in block.text and "discussed_in" not in block.text


def test_the_value_before_a_change_is_explained_as_the_earlier_value(tmp_path):
    """helper106: for "What dose of sertraline did I start on?" the block put the 50 mg first and
    said it "changes `<the raise>`, which matched": the explanation of a later statement brought
    in by an earlier one, read the other way round (here the earlier one is brought in by the
    later one's match)."""
    from .test_consolidate import HELPER103_CHAT

    with engramdb.open(tmp_path / "s", embedder="hashing") as eng:
        for label in ("s1", "s2", "s3", "s4", "s5"):
            eng.add_conversation([{"role": r, "content": t, "created_at": at} for se, at, r, t in HELPER103_CHAT
                                  if se == label], namespace="dana", session=label)
        items = {it.id: it.reason for it in eng.context("What dose of sertraline did I start on?", namespace="dana",
                                                        now="2025-03-25").items["L1"]}
        assert items["s1:3"].startswith("recalled: the earlier value of `s2:5`, which matched")
        assert not any("changes `" in reason for mid, reason in items.items() if mid in ("s1:1", "s1:3"))


def test_a_message_that_says_more_than_the_changed_value_names_what_changed(tmp_path):
    """helper-224: "said otherwise later" marked a whole introduction (name, home, partner, dog)
    when only the home changed; the agent reading the block could not tell the rest still holds."""
    msgs = [{"role": "user", "content": "Hi! I'm Maya. I live in Denver with my partner Sam and our beagle Pixel.",
             "created_at": "2025-03-03T10:00:00Z"},
            {"role": "user", "content": "I live in Denver.", "created_at": "2025-03-05T10:00:00Z"},
            {"role": "user", "content": "We moved to Boulder last weekend!", "created_at": "2025-04-16T10:00:00Z"}]
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        ids = mem.add_conversation(msgs, namespace="maya")["message_ids"]
        text = mem.context("where do I live?", namespace="maya", now="2025-04-20").text
        lines = {i: next(line for line in text.splitlines() if f"id `{i}`" in line) for i in ids}
        assert f"home said otherwise later in `{ids[2]}`" in lines[ids[0]]
        # a message that states the home alone: the whole of it changed
        assert f"; said otherwise later in `{ids[2]}`" in lines[ids[1]]
        assert "said otherwise later" not in lines[ids[2]]


def test_a_new_employer_in_another_slot_than_the_old_job_is_a_change_and_the_profile_says_so(tmp_path):
    """helper-227: with the rule extractor, "I work as a data analyst at Fidelity." filled the
    slot job and "I got the job at Moderna!" the slot employer; two slots were taken for two
    things, so no change was linked, recall gave both at one score with no warning, and the
    profile showed the old job unflagged."""
    from engramdb.slots import rule_based_extractor

    cfg = engramdb.EngramConfig(slots=engramdb.SlotConfig(extractor=rule_based_extractor))
    with engramdb.open(tmp_path / "s", embedder="hashing", config=cfg) as mem:
        mem.add_conversation([{"role": "user", "content": "I work as a data analyst at Fidelity.",
                               "created_at": "2025-03-03T09:00:00Z"}], namespace="u", session="s1")
        out = mem.add_conversation([{"role": "user", "content": "Big news: I got the job at Moderna! I start on April 7.",
                                     "created_at": "2025-03-25T09:00:00Z"}], namespace="u", session="s2")
        assert out["changed"] == [["s2:1", "s1:1"]]
        assert mem.get("s1:1", namespace="u").attribute == "job" and mem.get("s2:1", namespace="u").attribute == "employer"
        res = mem.recall("where do I work?", namespace="u", k=2, now="2025-04-15")
        assert [h.id for h in res.hits] == ["s2:1", "s1:1"] and [w.later for w in res.warnings] == ["s2:1"]
        lines = mem.context("where do I work?", namespace="u", now="2025-04-15").text.splitlines()
        assert "- [2025-03-03] job: data analyst at Fidelity (profile: job; said otherwise later in `s2:1`)" in lines
        # the same two things of two subjects stay apart (a slot is its speaker's value)
        bob = mem.add("Bob works at Initech.", subject="bob", attribute="employer", namespace="u", created_at="2025-04-01")
        assert [e for e in mem.edges(bob, namespace="u") if e.relation is engramdb.Relation.CONTRADICTS] == []
