"""LoCoMo loader: date parsing, evidence quirks and session skipping on inline data, plus
counts on the real file when it is present (it is never copied into the repository)."""
import json
from datetime import datetime, timezone

import pytest

from engramdb.errors import InvalidInputError
from engramdb.locomo import (
    CATEGORY_NAMES,
    default_locomo_path,
    load_locomo,
    normalize_evidence,
    parse_session_time,
)


def _ts(*args):
    return datetime(*args, tzinfo=timezone.utc).timestamp()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1:56 pm on 8 May, 2023", _ts(2023, 5, 8, 13, 56)),
        ("12:04 am on 1 January, 2024", _ts(2024, 1, 1, 0, 4)),
        ("12:30 pm on 29 February, 2024", _ts(2024, 2, 29, 12, 30)),
        ("10:37 AM on 17 december 2022", _ts(2022, 12, 17, 10, 37)),
    ],
)
def test_parse_session_time(text, expected):
    assert parse_session_time(text) == expected


@pytest.mark.parametrize(
    "text", ["", "yesterday", "13:00 pm on 8 May, 2023", "1:56 pm on 31 June, 2023",
             "1:56 pm on 8 Mai, 2023", None]
)
def test_parse_session_time_rejects(text):
    with pytest.raises(InvalidInputError):
        parse_session_time(text)


VALID = {"D1:1", "D1:2", "D4:4", "D4:6", "D8:6", "D9:1", "D9:17", "D11:26", "D30:5"}


@pytest.mark.parametrize(
    "raw, expected",
    [
        (["D1:1"], ["D1:1"]),
        (["D8:6; D9:17"], ["D8:6", "D9:17"]),
        (["D9:1 D4:4 D4:6"], ["D9:1", "D4:4", "D4:6"]),
        (["D:11:26"], ["D11:26"]),
        (["D30:05"], ["D30:5"]),
        (["D"], []),
        (["D1:1", "D1:1", "D1:01"], ["D1:1"]),
        (["D1:2", "D99:1", "D1:3"], ["D1:2"]),  # ids that point at no turn are dropped
        (["D4:6,D4:4"], ["D4:6", "D4:4"]),
        ([], []),
        ([3, None, "D1:1"], ["D1:1"]),
    ],
)
def test_normalize_evidence(raw, expected):
    assert normalize_evidence(raw, VALID) == expected


SYNTHETIC = [
    {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ana", "dia_id": "D1:1", "text": "Hi Bo!"},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "Look at this.",
                 "img_url": ["http://example.invalid/x.jpg"], "blip_caption": "a photo of a dog",
                 "query": "dog"},
                {"speaker": "Ana", "dia_id": "D1:3", "text": "Cute!",
                 "blip_caption": "a caption without an image"},
            ],
            "session_2_date_time": "9:00 am on 10 May, 2023",
            "session_2": [],
            "session_3_date_time": "9:00 am on 12 May, 2023",
            "session_3": [{"speaker": "Bo", "dia_id": "D3:1", "text": "Back again."}],
            "session_4_date_time": "9:00 am on 14 May, 2023",
        },
        "qa": [
            {"question": "What did Bo share?", "answer": "a dog photo",
             "evidence": ["D1:2; D3:01"], "category": 4},
            {"question": "Which year?", "answer": 2023, "evidence": ["D"], "category": 2},
            {"question": "What did Ana paint?", "adversarial_answer": "a cat",
             "evidence": ["D2:1"], "category": 5},
        ],
    }
]


@pytest.fixture
def synthetic_file(tmp_path):
    p = tmp_path / "locomo_synthetic.json"
    p.write_text(json.dumps(SYNTHETIC), encoding="utf-8")
    return p


def test_load_synthetic(synthetic_file):
    (conv,) = load_locomo(synthetic_file)
    assert conv.sample_id == "conv-x" and conv.speakers == ("Ana", "Bo")
    assert [s.number for s in conv.sessions] == [1, 3]  # empty and turn-less sessions skipped
    s1 = conv.sessions[0]
    assert s1.date_text == "1:56 pm on 8 May, 2023"
    assert s1.created_at == _ts(2023, 5, 8, 13, 56)
    assert [t.created_at - s1.created_at for t in s1.turns] == [1.0, 2.0, 3.0]
    assert [(t.session, t.index) for t in conv.turns()] == [(1, 1), (1, 2), (1, 3), (3, 1)]
    assert s1.turns[1].blip_caption == "a photo of a dog"
    assert s1.turns[1].text == "Look at this."
    assert s1.turns[0].blip_caption is None and s1.turns[2].blip_caption is None
    q0, q1, q2 = conv.qa
    assert q0.evidence == ["D1:2", "D3:1"] and q0.answer == "a dog photo"
    assert q1.evidence == [] and q1.answer == "2023"
    assert q2.answer is None and q2.evidence == [] and CATEGORY_NAMES[q2.category] == "adversarial"


def test_load_rejects_bad_files(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{not json", encoding="utf-8")
    with pytest.raises(InvalidInputError):
        load_locomo(p)
    p.write_text(json.dumps({"a": 1}), encoding="utf-8")
    with pytest.raises(InvalidInputError):
        load_locomo(p)
    with pytest.raises(FileNotFoundError):
        load_locomo(tmp_path / "missing.json")


def test_category_names():
    assert CATEGORY_NAMES == {1: "multi-hop", 2: "temporal", 3: "open-domain",
                              4: "single-hop", 5: "adversarial"}


def test_default_path_env(monkeypatch, tmp_path):
    monkeypatch.setenv("ENGRAMDB_LOCOMO", str(tmp_path / "x.json"))
    assert default_locomo_path() == tmp_path / "x.json"


REAL = default_locomo_path()


@pytest.mark.skipif(not REAL.is_file(), reason="LoCoMo data file not present")
def test_real_file_counts():
    convs = load_locomo(REAL)
    assert len(convs) == 10
    assert sum(len(c.sessions) for c in convs) == 272
    assert sum(len(c.turns()) for c in convs) == 5882
    assert sum(len(c.qa) for c in convs) == 1986
    assert sum(1 for c in convs for q in c.qa if q.evidence) == 1982
    assert sum(1 for c in convs for t in c.turns() if t.blip_caption) == 910
    for c in convs:
        ids = {t.dia_id for t in c.turns()}
        assert all(e in ids for q in c.qa for e in q.evidence)
        times = [t.created_at for t in c.turns()]
        assert times == sorted(times) and len(set(times)) == len(times)
