"""Strings a caller hands over as ``str`` subclasses are stored as plain strings: a subclass's own
``__eq__`` (or ``__hash__``) ran later, in the cache changes after the commit, and failed there (a
summarizer's answer: the summary committed, then consolidate raised RuntimeError)."""
import engramdb


class Odd(str):
    def __eq__(self, other):
        raise RuntimeError("__eq__ called")

    __hash__ = str.__hash__


def test_texts_ids_tags_namespaces_and_a_summary_are_plain(tmp_path):
    path = str(tmp_path / "s")
    with engramdb.open(path, embedder="hashing") as eng:
        eng.add(Odd("I love hiking in the Alps with Tom."), id=Odd("hike"), tags=[Odd("trips")],
                namespace=Odd("u"), source=Odd("chat"))
        eng.add_conversation([
            {"role": "user", "content": "I love hiking in the Alps every summer with my brother Tom.",
             "created_at": "2024-01-01T10:00:00Z"},
            {"role": "assistant", "content": "That sounds wonderful. Hiking in the Alps with Tom must be great.",
             "created_at": "2024-01-01T10:00:10Z"}], session="s1")
        out = eng.consolidate(summarizer=lambda texts: Odd("Zanzibar quokka summary."))
        assert out["summaries"] == 1
        m = eng.get("hike", namespace="u")
        assert [type(x) for x in (m.text, m.id, m.namespace, m.source, *m.tags)] == [str] * 5
        assert [m.id for m in eng.query(namespace="u", tags="trips")] == ["hike"]
        assert type(eng.get("sum:S:s1").text) is str
        assert eng.query(tags="summary")[0].text == "Zanzibar quokka summary."
    with engramdb.open(path) as eng:
        assert eng.query(tags="summary")[0].text == "Zanzibar quokka summary."


def test_every_verb_taking_ids_or_text_takes_a_subclass(tmp_path):
    """The ids of link, link_batch and supersede, a chat message's content and a filter's tags
    reached a comparison as the subclass (RuntimeError before anything was written)."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as eng:
        eng.add("aa bb", id="a", tags=["fam"])
        eng.add("cc dd", id="b")
        eng.link(Odd("a"), Odd("b"), "supports")
        eng.link_batch([{"source": Odd("b"), "target": Odd("a"), "relation": "evidence_for"}])
        assert eng.supersede(Odd("b"), Odd("cc dd ee"), id=Odd("b2")) == "b2"
        out = eng.add_conversation([{"role": Odd("user"), "content": Odd("I love hiking with Tom.")},
                                    {"role": "assistant", "content": Odd("Nice, Tom!")}], session=Odd("s1"))
        assert out["message_ids"] == ["s1:1", "s1:2"]
        assert [m.id for m in eng.query(tags=[Odd("fam")])] == ["a"]
        assert [h.id for h in eng.recall(Odd("aa bb"), tags=[Odd("fam")], k=1).hits] == ["a"]
        assert eng.get(Odd("a")).id == "a" and eng.history(Odd("b2"))
        eng.update(Odd("a"), text=Odd("aa bb cc"))
        eng.forget(Odd("a"))
        assert eng.get("a").state.value == "archived"
