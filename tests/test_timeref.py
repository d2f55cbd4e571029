"""Time-expression resolver: exact windows for each supported form (expected values computed
with ``datetime``), the verb "may", resolution against the anchor or a date in the text, bad
arguments, and hypothesis properties (never raises; relative windows never pass the anchor's
day; the word-anchored scanner equals a plain scan of the whole grammar)."""
import math
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from engramdb.errors import InvalidInputError, NonFiniteError
from engramdb.locomo import default_locomo_path, load_locomo
from engramdb.timeref import (
    DAY_SLACK_S,
    PRECISIONS,
    TimeWindow,
    _PATTERN,
    _lower,
    _scan,
    resolve_time_refs,
)

DAY = 86_400.0


def _ts(*args):
    return datetime(*args, tzinfo=timezone.utc).timestamp()


def _day(y, m, d, slack=DAY):
    """The window of one calendar day widened by ``slack`` on each side."""
    return (_ts(y, m, d) - slack, _ts(y, m, d) + DAY + slack)


def _spans(text, anchor, **kw):
    return [(w.start, w.end) for w in resolve_time_refs(text, anchor, **kw)]


# Friday 20 October 2023, 15:00 UTC; its day ends at 2023-10-21 00:00.
ANCHOR = _ts(2023, 10, 20, 15, 0)
ANCHOR_DAY_END = _ts(2023, 10, 21)


@pytest.mark.parametrize(
    "text, expected, precision",
    [
        ("Who did Maria have dinner with on May 3, 2023?", _day(2023, 5, 3), "day"),
        ("3 May 2023", _day(2023, 5, 3), "day"),
        ("What did Gina do on 31 October, 2022?", _day(2022, 10, 31), "day"),
        ("4th October, 2023", _day(2023, 10, 4), "day"),
        ("October 13th, 2023", _day(2023, 10, 13), "day"),
        ("on 31st of October 2022", _day(2022, 10, 31), "day"),
        ("2023-05-03", _day(2023, 5, 3), "day"),
        ("shared on December 1,2023", _day(2023, 12, 1), "day"),
        ("they met on Aug 15th, 2023", _day(2023, 8, 15), "day"),
        ("ON MAY 3, 2023", _day(2023, 5, 3), "day"),
        ("in May 2023", (_ts(2023, 5, 1), _ts(2023, 6, 1)), "month"),
        ("May 2023", (_ts(2023, 5, 1), _ts(2023, 6, 1)), "month"),
        ("as of December 2023", (_ts(2023, 12, 1), _ts(2024, 1, 1)), "month"),
        ("mid-August 2023", (_ts(2023, 8, 10), _ts(2023, 8, 21)), "part_month"),
        ("early May 2023", (_ts(2023, 5, 1), _ts(2023, 5, 11)), "part_month"),
        ("late May 2023", (_ts(2023, 5, 20), _ts(2023, 6, 1)), "part_month"),
        ("in the beginning of November 2022", (_ts(2022, 11, 1), _ts(2022, 11, 11)),
         "part_month"),
        ("the first half of September 2022", (_ts(2022, 9, 1), _ts(2022, 9, 16)),
         "part_month"),
        ("in the last week of October 2023", (_ts(2023, 10, 25), _ts(2023, 11, 1)), "week"),
        ("in the last two weeks of August 2023", (_ts(2023, 8, 18), _ts(2023, 9, 1)),
         "part_month"),
        # 1 August 2023 is a Tuesday: the first Saturday is the 5th.
        ("during the first weekend of August 2023",
         (_ts(2023, 8, 5) - DAY, _ts(2023, 8, 7) + DAY), "weekend"),
        ("in summer 2021", (_ts(2021, 6, 1), _ts(2021, 9, 1)), "season"),
        ("the summer of 2021", (_ts(2021, 6, 1), _ts(2021, 9, 1)), "season"),
        ("winter 2022", (_ts(2022, 12, 1), _ts(2023, 3, 1)), "season"),
        ("towards the end of summer 2023", (_ts(2023, 8, 1), _ts(2023, 9, 1)), "month"),
        ("in 2021", (_ts(2021, 1, 1), _ts(2022, 1, 1)), "year"),
        ("during 2022", (_ts(2022, 1, 1), _ts(2023, 1, 1)), "year"),
        ("mid-2022", (_ts(2022, 5, 1), _ts(2022, 9, 1)), "part_year"),
    ],
)
def test_absolute(text, expected, precision):
    (w,) = resolve_time_refs(text, ANCHOR)
    assert (w.start, w.end) == expected
    assert w.precision == precision
    assert w.text.lower() in text.lower()


@pytest.mark.parametrize(
    "text, expected, precision",
    [
        ("What did he do yesterday?", (_ts(2023, 10, 18), ANCHOR_DAY_END), "day"),
        ("last night", (_ts(2023, 10, 18), ANCHOR_DAY_END), "day"),
        ("today", (_ts(2023, 10, 19), ANCHOR_DAY_END), "day"),
        # Weeks start on Monday: this week is 16-22 October, last week 9-15 October.
        ("last week", (_ts(2023, 10, 9) - DAY, _ts(2023, 10, 16) + DAY), "week"),
        ("this week", (_ts(2023, 10, 16) - DAY, ANCHOR_DAY_END), "week"),
        ("last weekend", (_ts(2023, 10, 14) - DAY, _ts(2023, 10, 16) + DAY), "weekend"),
        ("last Friday", _day(2023, 10, 13), "day"),
        ("last month", (_ts(2023, 9, 1), _ts(2023, 10, 1)), "month"),
        ("this month", (_ts(2023, 10, 1), ANCHOR_DAY_END), "month"),
        ("last year", (_ts(2022, 1, 1), _ts(2023, 1, 1)), "year"),
        ("this year", (_ts(2023, 1, 1), ANCHOR_DAY_END), "year"),
        ("3 days ago", _day(2023, 10, 17), "day"),
        ("a month ago", (_ts(2023, 9, 1), _ts(2023, 10, 1)), "month"),
        ("Where did Caroline move from 4 years ago?", (_ts(2019, 1, 1), _ts(2020, 1, 1)),
         "year"),
        ("a few years back", (_ts(2020, 1, 1), _ts(2021, 1, 1)), "year"),
        ("What did Melanie paint recently?", (_ts(2023, 10, 6), ANCHOR_DAY_END), "recent"),
        ("What has Jolene been doing lately?", (_ts(2023, 10, 6), ANCHOR_DAY_END), "recent"),
        ("in the last year", (_ts(2022, 10, 21), ANCHOR_DAY_END), "year"),
        ("the past two weeks", (_ts(2023, 10, 7), ANCHOR_DAY_END), "week"),
        ("last summer", (_ts(2023, 6, 1), _ts(2023, 9, 1)), "season"),
        ("this summer", (_ts(2023, 6, 1), _ts(2023, 9, 1)), "season"),
        ("during the winter", (_ts(2022, 12, 1), _ts(2023, 3, 1)), "season"),
    ],
)
def test_relative_to_anchor(text, expected, precision):
    (w,) = resolve_time_refs(text, ANCHOR)
    assert (w.start, w.end) == expected
    assert w.precision == precision


@pytest.mark.parametrize("n, word", [(1, "a"), (2, "2"), (2, "two"), (3, "a few"), (12, "twelve")])
def test_weeks_ago(n, word):
    # A 7-day window centred on the day n weeks before the anchor's day, plus the slack.
    centre = datetime(2023, 10, 20, tzinfo=timezone.utc) - timedelta(weeks=n)
    start = (centre - timedelta(days=3)).timestamp() - DAY
    end = (centre + timedelta(days=4)).timestamp() + DAY
    (w,) = resolve_time_refs(f"What did Jon do {word} week{'s' if n > 1 else ''} ago?", ANCHOR)
    assert (w.start, w.end, w.precision) == (start, end, "week")


@pytest.mark.parametrize(
    "text",
    [
        "What may Caroline do next?",
        "Caroline may go to the park.",
        "she may 3D print it",
        "in may",                     # lowercase "may" without a year is never a month
        "he will mar the view",       # nor a lowercase abbreviation
        "When did Caroline go to the LGBTQ support group?",
        "When did Melanie run a charity race?",
        "05/03/2023",                 # numeric slashed dates are ambiguous: skipped
        "What did she buy for 1500 dollars?",
        "the 2022 World Cup",
        "summer camp on cold winter days",
        "her 18th birthday",
        "How long ago was Caroline's 18th birthday?",
        "What city did Tim suggest for the team trip next month?",
        "Which pet did Jolene adopt more recently - Susie or Seraphim?",
        "",
        "   ",
        "February 30, 2023",          # no such day
    ],
)
def test_no_time_expression(text):
    assert resolve_time_refs(text, ANCHOR) == []


def test_may_the_month_next_to_may_the_verb():
    (w,) = resolve_time_refs("What may Caroline do in May?", ANCHOR)
    assert (w.text, w.start, w.end) == ("in May", _ts(2023, 5, 1), _ts(2023, 6, 1))
    (w,) = resolve_time_refs("what happened in may 2023", ANCHOR)
    assert (w.start, w.end) == (_ts(2023, 5, 1), _ts(2023, 6, 1))


@pytest.mark.parametrize(
    "text, expected",
    [
        # Anchor in March 2023: May has not come yet, so it is May 2022.
        ("Which outdoor spot did Joanna visit in May?", (_ts(2022, 5, 1), _ts(2022, 6, 1))),
        ("during December", (_ts(2022, 12, 1), _ts(2023, 1, 1))),
        ("early May", (_ts(2022, 5, 1), _ts(2022, 5, 11))),
        # The anchor's own month counts, clipped at the end of the anchor's day ...
        ("in March", (_ts(2023, 3, 1), _ts(2023, 3, 16))),
        # ... but "last March" is the one before it ...
        ("last March", (_ts(2022, 3, 1), _ts(2022, 4, 1))),
        # ... and "late March" has not started yet on the 15th, so it is last year's.
        ("late March", (_ts(2022, 3, 20), _ts(2022, 4, 1))),
        ("in the second week of November", (_ts(2022, 11, 8), _ts(2022, 11, 15))),
        ("May 3", _day(2022, 5, 3)),
        ("on 3 March", _day(2023, 3, 3)),
    ],
)
def test_month_without_year_is_latest_at_or_before_anchor(text, expected):
    anchor = _ts(2023, 3, 15, 12, 0)
    (w,) = resolve_time_refs(text, anchor)
    assert (w.start, w.end) == expected
    assert w.start <= anchor


def test_this_month_name_in_the_future_is_dropped():
    assert resolve_time_refs("this May", _ts(2023, 3, 15)) == []


@pytest.mark.parametrize(
    "text, shifted, precision",
    [
        # 4 October 2023 is a Wednesday: the weekend before is 30 Sep - 1 Oct.
        ("What did Audrey do over the weekend before 4th October, 2023?",
         (_ts(2023, 9, 30) - DAY, _ts(2023, 10, 2) + DAY), "weekend"),
        ("What did Maria participate in last weekend before April 10, 2023?",
         (_ts(2023, 4, 8) - DAY, _ts(2023, 4, 10) + DAY), "weekend"),
        ("What did John do the week before August 3, 2023?",
         (_ts(2023, 7, 27) - DAY, _ts(2023, 8, 3) + DAY), "week"),
        ("the week after August 3, 2023",
         (_ts(2023, 8, 4) - DAY, _ts(2023, 8, 11) + DAY), "week"),
        ("the day before August 3, 2023", _day(2023, 8, 2), "day"),
        ("the day after August 3, 2023", _day(2023, 8, 4), "day"),
        # 25 October 2022 is a Tuesday; 24 July 2023 is a Monday; 28 October 2023 a Saturday.
        ("on the Sunday before October 25, 2022", _day(2022, 10, 23), "day"),
        ("on the Monday before July 24, 2023", _day(2023, 7, 17), "day"),
        ("on the Saturday after October 28, 2023", _day(2023, 11, 4), "day"),
        ("the puppy she got two weeks before August 11, 2023",
         (_ts(2023, 7, 28) - 3 * DAY - DAY, _ts(2023, 7, 28) + 4 * DAY + DAY), "week"),
        ("3 days after 2023-08-03", _day(2023, 8, 6), "day"),
        ("the month before May 3, 2023", (_ts(2023, 4, 1), _ts(2023, 5, 1)), "month"),
    ],
)
def test_shift_from_a_date_reports_both(text, shifted, precision):
    ws = resolve_time_refs(text, ANCHOR)
    assert len(ws) == 2
    assert (ws[0].start, ws[0].end, ws[0].precision) == (*shifted, precision)
    assert ws[1].precision == "day" and ws[1].text in ws[0].text  # the date itself


def test_relative_words_use_the_date_in_the_text():
    # 23 January 2022 is a Sunday; "last Friday" is the 21st, not a Friday before the anchor.
    ws = resolve_time_refs("What did Joanna just finish last Friday on 23 January, 2022?", ANCHOR)
    assert [(w.text, w.start, w.end) for w in ws] == [
        ("last Friday", *_day(2022, 1, 21)),
        ("23 January, 2022", *_day(2022, 1, 23)),
    ]
    ws = resolve_time_refs("a few years back, as mentioned on June 26, 2023", ANCHOR)
    assert (ws[0].start, ws[0].end) == (_ts(2020, 1, 1), _ts(2021, 1, 1))
    ws = resolve_time_refs("What did Audrey start recently on 4 August, 2023?", ANCHOR)
    assert (ws[0].text, ws[0].start, ws[0].end) == ("recently", _ts(2023, 7, 21),
                                                    _ts(2023, 8, 5))
    # A yearless date takes its year from that date, not from the anchor.
    ws = resolve_time_refs("Where was John between August 11 and August 15 2023?", _ts(2025, 1, 1))
    assert [(w.start, w.end) for w in ws] == [_day(2023, 8, 11), _day(2023, 8, 15)]


def test_recently_is_dropped_next_to_an_explicit_month():
    ws = resolve_time_refs("What cake did Joanna make recently in May 2022?", ANCHOR)
    assert [(w.text, w.precision) for w in ws] == [("in May 2022", "month")]


def test_several_expressions_in_order_and_deduplicated():
    ws = resolve_time_refs("in 2021 and last week, then in 2021 again, and yesterday", ANCHOR)
    assert [w.text for w in ws] == ["in 2021", "last week", "yesterday"]


@pytest.mark.parametrize("slack", [0.0, 3600.0, 2 * DAY])
def test_day_slack(slack):
    assert _spans("May 3, 2023", ANCHOR, day_slack_s=slack) == [_day(2023, 5, 3, slack)]
    # Months are calendar spans: never widened.
    assert _spans("in May 2023", ANCHOR, day_slack_s=slack) == [(_ts(2023, 5, 1), _ts(2023, 6, 1))]


def test_default_slack_is_one_day():
    assert DAY_SLACK_S == DAY


@pytest.mark.parametrize("anchor", [ANCHOR, int(ANCHOR), np.float64(ANCHOR), np.int64(ANCHOR)])
def test_anchor_types(anchor):
    assert _spans("yesterday", anchor) == [(_ts(2023, 10, 18), ANCHOR_DAY_END)]


@pytest.mark.parametrize("text", [None, b"May 3, 2023", 3, ["May 3, 2023"]])
def test_text_must_be_str(text):
    with pytest.raises(InvalidInputError, match="text"):
        resolve_time_refs(text, ANCHOR)


@pytest.mark.parametrize("anchor", [math.nan, math.inf, -math.inf, np.float64("nan")])
def test_anchor_must_be_finite(anchor):
    with pytest.raises(NonFiniteError, match="anchor"):
        resolve_time_refs("yesterday", anchor)


@pytest.mark.parametrize("anchor", [True, "1700000000", None, 1e12, -1e12, 10**400])
def test_anchor_must_be_seconds_in_range(anchor):
    with pytest.raises(InvalidInputError, match="anchor"):
        resolve_time_refs("yesterday", anchor)


@pytest.mark.parametrize("slack", [-1.0, math.nan, 400 * DAY, "1"])
def test_bad_slack(slack):
    with pytest.raises(InvalidInputError, match="day_slack_s"):
        resolve_time_refs("yesterday", ANCHOR, day_slack_s=slack)


def test_extreme_anchors_and_years_stay_in_range():
    lo, hi = _ts(1, 1, 1), _ts(9999, 12, 31) + DAY  # what datetime can represent
    ws = resolve_time_refs("10 years ago, yesterday, in early 0001", _ts(1, 1, 1, 12))
    assert [(w.text, w.start, w.end) for w in ws] == [("yesterday", lo, _ts(1, 1, 2))]
    ws = resolve_time_refs("May 3, 9999 and the week after December 31, 9999",
                           _ts(9999, 12, 31, 12))
    assert [w.text for w in ws] == ["May 3, 9999", "the week after December 31, 9999",
                                    "December 31, 9999"]
    assert all(lo <= w.start < w.end <= hi for w in ws)


def test_length_changing_lowercase_keeps_spans():
    # "İ".lower() is two characters; the matched text must still come from the right place.
    (w,) = resolve_time_refs("İİİ on May 3, 2023", ANCHOR)
    assert w.text == "May 3, 2023"


# ---- properties ---------------------------------------------------------------------------

def _check(windows):
    for w in windows:
        assert isinstance(w, TimeWindow)
        assert math.isfinite(w.start) and math.isfinite(w.end)
        assert w.start < w.end
        assert w.precision in PRECISIONS
        assert w.text


ANCHORS = st.floats(min_value=_ts(1990, 1, 1), max_value=_ts(2060, 1, 1))


@settings(max_examples=300, deadline=None)
@given(text=st.text(), anchor=ANCHORS)
def test_never_raises_on_any_text(text, anchor):
    _check(resolve_time_refs(text, anchor))


WORDS = [
    "the", "in", "on", "during", "last", "this", "past", "over", "early", "mid", "late",
    "first", "second", "a", "few", "couple", "of", "two", "3", "12", "2023", "1999", "31",
    "4th", "may", "May", "march", "Sept.", "October", "day", "days", "week", "weeks",
    "weekend", "month", "months", "year", "years", "ago", "back", "before", "after",
    "Sunday", "friday", "summer", "fall", "yesterday", "today", "recently", "lately",
    "beginning", "end", "half", "as", "-", ",", "2023-05-03", "05/03/2023", "Caroline", "did",
]
TEXTS = st.lists(st.sampled_from(WORDS), max_size=14).map(" ".join)


@settings(max_examples=500, deadline=None)
@given(text=TEXTS, anchor=ANCHORS)
def test_never_raises_on_vocabulary_soup(text, anchor):
    _check(resolve_time_refs(text, anchor))


RELATIVE = [
    "yesterday", "last night", "today", "tonight", "this morning", "last week", "this week",
    "last weekend", "this weekend", "last month", "this month", "last year", "this year",
    "last Friday", "last Sunday", "3 days ago", "a week ago", "two weeks ago", "a few months ago",
    "5 years ago", "recently", "lately", "in the past two weeks", "the last year", "last summer",
    "this winter", "in May", "during December", "early May", "late November",
    "the second week of June", "in the fall", "this past weekend", "May 3", "on 14 February",
]


@settings(max_examples=300, deadline=None)
@given(phrases=st.lists(st.sampled_from(RELATIVE), min_size=1, max_size=4), anchor=ANCHORS)
def test_relative_windows_end_by_the_anchors_day(phrases, anchor):
    ws = resolve_time_refs("What did Caroline do " + " and ".join(phrases) + "?", anchor)
    assert ws or set(phrases) == {"this weekend"}  # only on a Saturday or Sunday
    _check(ws)
    for w in ws:
        assert w.end <= anchor + DAY
        assert w.start <= anchor


@settings(max_examples=500, deadline=None)
@given(text=TEXTS)
def test_scan_equals_a_full_scan(text):
    # The scanner tries the grammar only near core words; a plain scan of the whole grammar at
    # every position must find exactly the same matches.
    low = _lower(text)
    got = [(m.span(), m.lastgroup) for m in _scan(low)]
    assert got == [(m.span(), m.lastgroup) for m in _PATTERN.finditer(low)]


# ---- LoCoMo sanity, only when the data file is present -------------------------------------

REAL = default_locomo_path()


@pytest.mark.skipif(not REAL.is_file(), reason="LoCoMo data file not present")
def test_locomo_questions():
    hits = total = 0
    for conv in load_locomo(REAL):
        anchor = max(t.created_at for s in conv.sessions for t in s.turns)
        for q in conv.qa:
            if not q.evidence:
                continue
            ws = resolve_time_refs(q.question, anchor)
            _check(ws)
            total += 1
            hits += bool(ws)
    assert total == 1982
    assert 300 <= hits <= 500
