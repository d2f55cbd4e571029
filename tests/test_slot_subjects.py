"""The user's slots are one slot whatever the caller calls the user ("user", "me", "I", "the
user"): helper-221 and helper-224 found an agent's notes in two slots with a current value each,
and ``profile("user")`` blind to the slots stored under "me"."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import engramdb
from engramdb.errors import InvalidInputError

#: A store written by the code before subjects were canonical (commit 4bf3873): "I live in
#: Boston." (id home-1) under subject "me", "I work at Mass General." (job-1) under "the user",
#: "Bob lives in Paris." (bob-1) under "Bob", and the semantic "I like green tea." (tea-1) under
#: "me" in the multi-valued slot likes, and "My dog is called Biscuit." (dog-1) under "my dog",
#: attribute name, all created 2024-01-01, in the default namespace.
OLD_STORE = Path(__file__).parent / "data" / "store_before_canonical_subjects.mdb"

JAN, MAY = 1704067200, 1714521600   # 2024-01-01, 2024-05-01


@pytest.mark.parametrize("first,second", [("me", "user"), ("user", "the user"), ("I", "Me"), ("myself", "User ")])
def test_the_users_names_fill_one_slot(tmp_path, first, second):
    with engramdb.open(tmp_path / "s", embedder="hashing") as db:
        a = db.add("I live in Boston.", subject=first, attribute="home_city", value="Boston", created_at=JAN)
        b = db.add("I moved to Cambridge.", subject=second, attribute="home_city", value="Cambridge", created_at=MAY)
        assert db.get(a).state is engramdb.MemoryState.SUPERSEDED and db.get(a).superseded_by == b
        assert db.get(b).subject == "user"
        for name in ("user", "me", "the user", "I"):
            assert db.current(name, "home_city").id == b
            assert db.profile(name)["home_city"].id == b
        assert [m.id for m in db.query(subject=first, attribute="home_city", include_superseded=True)] == [b, a]


def test_other_subjects_keep_their_own_slots(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as db:
        mine = db.add("I live in Boston.", subject="me", attribute="home_city", created_at=JAN)
        bobs = db.add("Bob lives in Paris.", subject="Bob", attribute="home_city", created_at=MAY)
        users = db.add("Our users live in Europe.", subject="users", attribute="home_city", created_at=MAY)
        assert db.current("user", "home_city").id == mine
        assert db.current("bob", "home_city").id == bobs
        assert db.current("users", "home_city").id == users
        assert db.get(bobs).subject == "bob"


def test_supersede_keeps_the_users_slot_under_any_name(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as db:
        a = db.add("I live in Boston.", subject="the user", attribute="home_city", created_at=JAN)
        b = db.supersede(a, "I live in Cambridge.", subject="me", attribute="home_city", created_at=MAY)
        assert db.current("user", "home_city").id == b
        with pytest.raises(InvalidInputError, match="same slot"):
            db.supersede(b, "Bob lives in Paris.", subject="bob", attribute="home_city", created_at=MAY + 1)


def _old_store(tmp_path) -> Path:
    path = tmp_path / "old"
    path.mkdir()
    shutil.copyfile(OLD_STORE, path / "data.mdb")
    return path


def test_a_store_written_before_reads_the_users_names_as_one(tmp_path):
    with engramdb.open(_old_store(tmp_path), embedder="hashing") as db:
        for name in ("user", "me", "the user", "Me"):
            got = db.profile(name)
            assert [m.id for m in got.pop("likes")] == ["tea-1"]
            assert {k: m.id for k, m in got.items()} == {"home_city": "home-1", "employer": "job-1"}
        assert db.current("bob", "home_city").id == "bob-1"
        assert db.profile("bob")["home_city"].id == "bob-1"
        assert sorted(m.id for m in db.query(subject="i")) == ["home-1", "job-1", "tea-1"]
        hits = db.recall("where do I live?", k=3, subject="user")
        assert [h.id for h in hits.hits][0] == "home-1" and "bob-1" not in [h.id for h in hits.hits]


def test_a_store_written_before_retires_its_users_value_under_another_name(tmp_path):
    path = _old_store(tmp_path)
    with engramdb.open(path, embedder="hashing") as db:
        new = db.add("I moved to Cambridge.", subject="user", attribute="home_city", value="Cambridge", created_at=MAY)
        old = db.get("home-1")
        assert old.state is engramdb.MemoryState.SUPERSEDED and old.superseded_by == new
        assert db.current("me", "home_city").id == new
        assert db.current("user", "employer").id == "job-1"
        # a late report of an older home is stored superseded by the current one, whichever name
        late = db.add("I lived in Somerville.", subject="the user", attribute="home_city", created_at=JAN - 86400)
        assert db.get(late).superseded_by is not None
    with engramdb.open(path, embedder="hashing") as db:   # the same after a reopen (slot table read again)
        got = db.profile("user")
        assert [m.id for m in got.pop("likes")] == ["tea-1"]
        assert {k: m.id for k, m in got.items()} == {"home_city": new, "employer": "job-1"}
        assert [m.id for m in db.query(subject="user", attribute="home_city")] == [new]


def test_an_import_stores_the_users_names_as_user_and_settles_the_slot(tmp_path):
    with engramdb.open(_old_store(tmp_path), embedder="hashing") as old:
        old.export(tmp_path / "export")
    with engramdb.open(tmp_path / "s", embedder="hashing") as db:
        here = db.add("I moved to Cambridge.", subject="user", attribute="home_city", created_at=MAY)
        db.import_from(tmp_path / "export")
        assert db.get("home-1").subject == "user" and db.get("job-1").subject == "user"
        assert db.get("bob-1").subject == "bob"
        assert db.current("user", "home_city").id == here
        assert db.get("home-1").state is engramdb.MemoryState.SUPERSEDED
        assert db.current("me", "employer").id == "job-1"


def test_a_successor_given_by_id_takes_the_users_slot_as_stored_now(tmp_path):
    """helper-226: supersede(by=) on a store written before joined the successor to the slot
    under the old name ("me")."""
    with engramdb.open(_old_store(tmp_path), embedder="hashing") as db:
        new = db.add("I live in Cambridge now.", created_at=MAY)   # no slot of its own
        db.supersede("home-1", by=new)
        assert (db.get(new).subject, db.get(new).attribute) == ("user", "home_city")
        assert db.current("me", "home_city").id == new


def test_consolidation_merges_the_users_duplicates_stored_under_two_names(tmp_path):
    """helper-226: consolidation compared the stored subjects, so "I like green tea." under "me"
    (a store written before) and under "user" (now) were not merged."""
    with engramdb.open(_old_store(tmp_path), embedder="hashing") as db:
        db.add("I like green tea.", id="tea-2", kind="semantic", subject="user", attribute="likes",
               value="green tea", single_valued=False, created_at=JAN + 60)
        assert db.consolidate(now=JAN + 400 * 86400)["merged"] == 1
        assert {db.get("tea-1").state, db.get("tea-2").state} == {engramdb.MemoryState.ACTIVE,
                                                                  engramdb.MemoryState.SUPERSEDED}


def test_the_users_own_things_are_one_subject_however_owned(tmp_path):
    """helper-226: "my dog", "the user's dog" and the rule extractor's "user's dog" were three
    slots with a current name each."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as db:
        a = db.add("My dog is called Biscuit.", subject="my dog", attribute="name", value="Biscuit", created_at=JAN)
        b = db.add("We renamed the dog Max.", subject="The user's dog", attribute="name", value="Max", created_at=MAY)
        bobs = db.add("Bob's dog is Rex.", subject="Bob's dog", attribute="name", value="Rex", created_at=MAY)
        assert db.get(a).superseded_by == b and db.get(b).subject == "user's dog"
        for name in ("my dog", "user's dog", "the user’s dog", "My Dog"):
            assert db.current(name, "name").id == b
        assert db.current("bob's dog", "name").id == bobs
        assert db.current("users dog", "name") is None   # no owner's word: another subject


def test_a_store_written_before_retires_the_users_own_thing_under_another_owner(tmp_path):
    path = _old_store(tmp_path)
    with engramdb.open(path, embedder="hashing") as db:
        assert db.profile("user's dog")["name"].id == "dog-1"
        new = db.add("We renamed the dog Max.", subject="user's dog", attribute="name", value="Max", created_at=MAY)
        assert db.get("dog-1").superseded_by == new
    with engramdb.open(path, embedder="hashing") as db:
        assert [m.id for m in db.query(subject="my dog", attribute="name")] == [new]
