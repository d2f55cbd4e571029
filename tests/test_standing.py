"""The speaker's home and employer (engramdb.standing): a later statement or report of another
one ("I moved to Seattle last month." after "I live in Boston.", "I started a new job at
Stripe." after "I work at Google.") is linked contradicts to the earlier on the write path, in
whatever words each is said; another person's move, a plan, a refinement of the same place or a
second job is not. A place said more precisely ("I live in Boston's Back Bay neighborhood."
after "I live in Boston.") is no conflict, though the two differ in the same words."""
from __future__ import annotations

import doctest
import re

import pytest
from hypothesis import given, settings, strategies as st

import engramdb
from engramdb import standing as standing_module
from engramdb.changes import changes_value
from engramdb.standing import Standing, asked_standing, standing, standings

T0 = 1_700_000_000.0
DAY = 86_400.0

CHANGES = [
    ("I moved to Seattle last month.", "I live in Boston."),
    ("We relocated to Denver in March.", "We live in Boston."),
    ("I'm living in Seattle these days.", "I live in Boston."),
    ("My wife and I just moved to Austin.", "I live in Boston with my wife."),
    ("user: I moved back to Chicago.", "user: I'm based in Berlin."),
    ("I moved from Boston to Seattle.", "I live in Boston."),
    ("We moved to the Bay Area.", "We're living in New York."),
    ("I moved to Denver.", "I moved to Seattle last month."),              # a move after a move
    ("I started a new job at Stripe.", "I work at Google."),
    ("I took a job with Shopify.", "I'm working for Google."),
    ("I was hired at Netflix!", "I work at Google as an engineer."),
    ("I'm employed by Acme Corp now.", "I work for Globex."),
    # revised on a blind set's misses: no subject, lower case, the clause's subject after an
    # opener, "my home is in", "I'm a <role> at", "new job at", an offer accepted
    ("Just moved to Lisbon, still unpacking.", "My home is in Porto."),
    ("I moved to St. Louis in the spring.", "I live in Chicago."),
    ("I started a new job at Bank of the West.", "I work at Bank of America."),
    ("We moved to Łódź.", "We live in Kraków."),
    ("I moved to New York.", "I live in Boston."),
    ("After six years in Ohio I finally moved to Texas.", "I'm a resident of Ohio."),
    ("I sold the condo and now I live in Austin.", "I'm based out of Dallas."),
    ("I left Initech and now work at Hooli.", "I'm a tester at Initech."),
    ("New job at Pied Piper! Can't wait.", "My employer is Hooli."),
    ("I took a position with Vandelay.", "I'm an accountant at Kramerica."),
    ("I accepted an offer from Umbrella Corp.", "I work for Cyberdyne."),
    ("I started a new job at Stripe.", "I work as a data analyst at Dell."),
    ("Finally settled into our new place in Denver.", "I live in Austin. Any tips for packing?"),
    ("We moved to Tucson over the winter break.", "We live in Phoenix."),
    # a fresh user's chat: an opening "Also" is news, not a second job
    ("Also I started a new job at Globex last week, the commute is shorter.", "I live in Boston and I work at Acme Corp."),
    ("Oh also, I got a job at Globex!", "I work at Acme Corp."),
    # a fresh user (helper74): a role said as its abbreviation, or with no ending of one
    ("I accepted an offer from Leeds General Infirmary!", "I'm an RN at St. Mary's, mostly on the cardiac ward."),
    ("I took a job with Kaiser.", "I'm a surgeon at Mercy Hospital."),
    ("I got a job at Gensler.", "I'm an architect with Foster + Partners."),
    # helper168: a move into a new home told with "the" or "a"
    ("We moved into the new place in Chorlton last weekend.", "I live in Levenshulme with Sam."),
    ("I moved into a flat in Didsbury on Saturday.", "I live in Levenshulme."),
    ("We moved to a new apartment in Jamaica Plain.", "We live in Somerville."),   # helper-244
    # helper-250: a lease signed on a new home
    ("Big life update #2: I signed a lease on a 2BR in St. Paul, moving June 1! Leaving Uptown after 4 years.",
     "I live in Minneapolis."),
    ("Just signed a lease on a one-bedroom in Brooklyn!", "I live in Queens."),
    # helper179: the new job's role said between "job" and its employer
    ("Big news: I started a new job as a senior analyst at Globex!", "I work as a data analyst at Initech."),
    ("I got a job as a nurse at Kaiser.", "I'm an RN at St. Mary's."),
    ("I started working as a barista at Blue Bottle.", "I work at Google."),
    # helper-211: "I" after a label of news ("user: Big news: I quit ... and started ..."), and
    # "last" before a span of time, a time ("Last week I moved ...")
    ("user: Big news: I quit the hospital and started as a UX designer at Shopify.",
     "user: Hi! I'm Priya. I work as a nurse at St. Mary's Hospital."),
    ("user: Life update: I left the hospital and now work at Shopify.", "user: I work at Mercy Hospital."),
    ("user: Last week I moved to Denver.", "user: I live in Boston."),
    ("Last month I started as a nurse at Kaiser.", "I work at Google."),
    ("Big news: just moved to Tacoma!", "I live in Boston."),
    # the sentence's subject holds for a verb joined later, whatever the clauses between say (five
    # hostile passes, helper-212 to helper-216: each reading of those clauses that was tried lost
    # as many of these as it mended)
    ("I quit because the hours were bad and started as a nurse at Kaiser.", "I work at Google."),
    ("Moved to Tacoma and started as a nurse at Kaiser.", "I work at Google."),
    ("I quit, sold my car, and moved to Lisbon.", "I live in Boston."),
    ("I quit Google, took a month off, and started a new job at Stripe.", "I work at Google."),
    ("I texted Mom and Dad and moved to Denver.", "I live in Boston."),
    ("I quit the hospital - the hours were brutal - and started as a UX designer at Shopify.",
     "I work at Mercy Hospital."),
    ("I might be crazy but quit and moved to Denver.", "I live in Boston."),
    ("I didn't renew my lease and moved to Denver.", "I live in Boston."),
    ("I wrote my last exam in May and moved to Denver.", "I live in Boston."),
    ("ok so update i quit the hospital, my manager cried lol, and started as a UX designer at Shopify",
     "I work at Mercy Hospital."),
    ("I left Johnson and Johnson last month and started at Pfizer as a scientist.", "I work at Johnson and Johnson."),
    ("I quit my job because NYC was killing me and moved to Denver.", "I live in Boston."),
    ("I got laid off in march but I’ve always loved the coast and moved to San Diego.", "I live in Boston."),
    ("i moved in with my gf and her parents and got a job at Costco", "I work at Google."),
    # helper-227: a home said as the place the speaker rents
    ("We moved to Berkeley last week.", "I rent an apartment in Oakland."),
    ("I'm renting a studio in Queens now.", "I live in Jersey City."),
    # helper-229: renting without "an apartment", and a sentence that opens with its verb
    ("I rent in Somerville now.", "I live in Boston."),
    ("Still renting a cheap place in Austin, it's fine.", "I live in Boston."),
    ("I moved to Denver.", "We rent a small flat in Leeds with two cats."),
    ("I moved to Ottawa.", "I rent a basement apartment in Toronto."),
    ("I moved to Dallas.", "We have been renting a townhouse in Austin for three years."),
    # helper-230: a start with its day before the role
    ("I start at Fabrikam on March 10 as a senior analyst.", "I work at Northwind Logistics."),
    ("I'm starting at Fabrikam next week as an analyst.", "I work at Northwind Logistics."),
    # helper-239: a street address with its town
    ("We moved! My new address is 3 Avenue Foch, Paris.", "I live at 14 Rue des Lilas, Lyon."),
    ("My address is 40 Pine Road, Shelbyville.", "I live in Springfield."),
    ("I moved to Lyon.", "My address is Flat 2, 12 Oak Street, Leeds."),
]
NOT_CHANGES = [
    ("My sister rents a flat in Leeds.", "I live in York."),               # another person's
    ("We rent a car in Denver every summer.", "I live in Boston."),        # no home rented
    ("I used to rent an apartment in Oakland.", "I live in Berkeley."),   # history
    # helper-229: a place rented out, for a purpose, an occasion or a season
    ("We rent our house in Asheville to tourists in the summer.", "I live in Boston."),
    ("I rent the house in Asheville on Airbnb.", "I live in Boston."),
    ("I rent a studio in Brooklyn for my pottery.", "I live in Queens."),
    ("I rent a room in Paris for the conference.", "I live in Boston."),
    ("For our anniversary we're renting a place in Napa.", "I live in Boston."),
    ("I rent a house in Tahoe for ski season.", "I live in Boston."),
    ("Every summer I rent a house in Cape Cod.", "I live in Boston."),
    ("I start at Stanford in September as a freshman.", "I work at Google."),
    ("My sister moved to Seattle.", "I live in Boston."),                  # another person
    ("I might move to Seattle next year.", "I live in Boston."),           # a plan
    ("I'd love to live in Paris.", "I live in Boston."),
    ("I don't live in Boston anymore, I moved.", "I live in Denver."),     # no new place named
    ("When I moved to Boston, I hated the winters.", "I live in Seattle."),
    ("I moved to Boston in 2019.", "I live in Seattle."),                  # history, in a named year
    ("I moved to Portland, Oregon.", "I live in Portland."),               # the same place, refined
    ("I moved to Boston's Back Bay.", "I live in Boston."),
    ("I moved from Chicago to Seattle.", "I live in Boston."),             # not from this place
    ("I also work at a bakery on weekends.", "I work at Google."),         # lower case, and a second job
    ("I also work at Tartine on weekends.", "I work at Google."),
    ("I work at Google Zurich.", "I work at Google."),
    ("I moved to Seattle last month.", "I work at Google."),               # another relation
    ("I moved to Seattle last month.", "Do I live in Boston?"),            # no statement
    ("Did you move to Seattle?", "I live in Boston."),
    ("assistant: You could move to Seattle.", "I live in Boston."),
    ("I moved to a bigger apartment.", "I live in Boston."),               # no name
    ('My roommate said, "I moved to Seattle last month."', "I live in Boston."),   # someone's words
    ("I moved to Seattle when I was a kid.", "I live in Boston."),         # childhood
    ("I moved to Tahoe for the winter.", "I live in Boston."),             # a stay
    ("I'm living in Tahoe for the weekend.", "I live in Boston."),
    # a hostile pass: a flat, a home or a house somewhere is no statement of where one lives
    ("I lost the keys to our flat in Leeds.", "I live in Boston."),
    ("We spent the weekend at our house in Tahoe.", "I live in Boston."),
    ("I'm in my apartment in New York this week for work, back to Boston on Friday.", "I live in Boston."),
    ("My husband's new job at Stripe starts Monday.", "I work at Google."),
    ("I'm a regular at Blue Bottle.", "I work at Google."),               # a place one goes to
    ("My first day at Disneyland was magical.", "I work at Google."),
    ("I live in Boston's Back Bay neighborhood.", "I live in Boston."),    # refined
    ("just moved to town", "i live in seattle"),
    ("My sister moved into a new flat in Leeds.", "I live in Boston."),   # another person's move
    ("My sister moved to a new flat in Leeds.", "I live in Boston."),
    ("We moved to the new office in Leeds.", "I live in Boston."),      # no home
    ("We moved into the new office in Leeds.", "I live in Boston."),      # no home
    ("We're moving into the new place in Chorlton next week.", "I live in Boston."),   # a plan
    ("I signed a lease for an office in Denver.", "I live in Boston."),   # no home
    ("My sister signed a lease on a house in Leeds.", "I live in Boston."),   # another person's
    ("I might sign a lease on a flat in Leeds.", "I live in Boston."),   # a plan
    # a hostile pass: no place, someone else's words, an exercise, a joke, an offer that is no
    # job, a place one goes to, a past role, another speaker, a question without its mark, a stay
    ("i live in denial", "I live in Boston."),
    ("I moved to Linux last month.", "I live in Boston."),
    ("I moved to the Platform Team.", "I live in Boston."),
    ("My mom thinks I live in Paris.", "I live in Boston."),
    ("Translate to Spanish: I live in Madrid.", "I live in Boston."),
    ("I moved to Seattle. Just kidding!", "I live in Boston."),
    ("I accepted an offer from Meta but then declined it.", "I work at Google."),
    ("We accepted an offer from Zillow on our house.", "I work at Google."),
    ("I joined Netflix as a subscriber.", "I work at Google."),
    ("I'm a sucker for Pixar movies.", "I work at Google."),
    ("I'm a former engineer at Hooli.", "I work at Google."),
    ("I was hired at Hooli in 2015 and left in 2018.", "I work at Google."),
    ("Mom: I moved to Seattle.", "I live in Boston."),
    ("Do I live in Seattle.", "I live in Boston."),
    ("I moved to Seattle for six months.", "I live in Boston."),
    ("I live in Austin, Texas.", "I live in Texas."),
    ("Also I work at Globex too.", "I work at Acme Corp."),                # a second job
    ("I also work at Globex.", "I work at Acme Corp."),
    ("If I get the offer, I work at Google from March.", "I work at Acme Corp."),   # a condition
    ("Besides Acme I work at Globex.", "I work at Acme Corp."),                    # a second job
    ("In addition to Acme, I work at Globex.", "I work at Acme Corp."),
    ("I work at Globex in addition to Acme.", "I work at Acme Corp."),
    ("My wife started a new job as a nurse at Kaiser.", "I work at Google."),      # another person
    ("I took a job as a favor for Dana at Acme.", "I work at Google."),             # no role
    ("I started a new job as a regular member at Globex Gym.", "I work at Google."),
    # helper-211 and the hostile passes on its first versions: a label that is no news of the
    # speaker's, a sentence that does not open with the speaker, "the last" year
    ("Big news: my sister quit the hospital and started as a nurse at Kaiser.", "I work at Google."),
    ("Big news: Jake quit and moved to Denver.", "I live in Boston."),
    ("Quick question: should I quit and move to Denver.", "I live in Boston."),
    ("The last time I moved to Denver it rained.", "I live in Boston."),
    ("user: The last year I moved to Denver, it snowed.", "user: I live in Boston."),
    ("user: Jake: moved to Denver!", "user: I live in Boston."),
    ("user: Sister update: moved to Denver, she loves it.", "user: I live in Boston."),
    ("Mom update - moved to Florida last week.", "I live in Boston."),
    ("user: News about Jake: started a new job at Stripe.", "user: I work at Google."),
    ("user: Second job: started as a barista at Starbucks.", "user: I work at Google."),
    ("user: The guy I dated quit and moved to Denver.", "user: I live in Boston."),
    ("user: My roommate, who I love, quit and moved to Austin.", "user: I live in Boston."),
    ("user: The girl I like quit and started as a nurse at Kaiser.", "user: I work at Google."),
    ("user: The company I work for closed the office and moved to Denver.", "user: I live in Boston."),
    ("user: Years ago I quit and moved to Denver.", "user: I live in Boston."),
    # helper-229/233: renting without "an apartment", and a place rented that is no home
    ("I rent in Somerville for the summer.", "I live in Boston."),
    ("My sister wants to rent in Denver.", "I live in Boston."),
    ("Prices to rent in Boston are insane.", "I live in Cambridge."),
    ("I rent in bulk from Costco.", "I live in Boston."),
    ("I rent a room in Cambridge with my band for practice.", "I live in Boston."),
    ("I rent in Somerville now, my primary home is still Boston.", "I live in Boston."),
    ("Still renting a cheap place in Austin, my sister says.", "I live in Boston."),
    ("I rent a house in Asheville and Airbnb it out.", "I live in Boston."),
    ("user: Back in college I quit and moved to Denver.", "user: I live in Boston."),
    ("user: Apparently I quit and moved to Denver.", "user: I live in Boston."),
    ("user: Fake news: I quit my job and moved to Bali lol", "user: I live in Boston."),
    ("called my mom and i found out she quit and moved to Florida", "I live in Boston."),
    ("user: Me and Jake broke up, Jake kept the apartment and moved to Boston", "user: I live in Denver."),
    ("He left me and the kids and moved to Denver.", "I live in Boston."),
    ("user: After ten years, my sister quit and moved to Denver.", "user: I live in Boston."),
    # an address without its town, another person's, no street address
    ("I live at 14 Rue des Lilas.", "I live in Boston."),
    ("My sister lives at 4 Elm St, Denver.", "I live in Boston."),
    ("I live at the beach in Malibu.", "I live in Boston."),
]


def test_the_module_examples_hold():
    assert doctest.testmod(standing_module).failed == 0


@pytest.mark.parametrize("new,old", CHANGES)
def test_another_home_or_employer_changes_the_earlier(new, old):
    assert changes_value(new, old)


@pytest.mark.parametrize("new,old", NOT_CHANGES)
def test_what_is_no_change_of_home_or_employer(new, old):
    assert not changes_value(new, old)


def test_the_reading_gives_relation_value_and_old_value():
    assert standing("I moved from Boston to Seattle.") == Standing("home", ("seattle",), ("boston",))
    assert standing("We moved to the Bay Area.") == Standing("home", ("bay", "area"))
    assert standing("I got a new job at Stripe.") == Standing("employer", ("stripe",))
    assert standing("I work at Google. My sister moved to Seattle.") == Standing("employer", ("google",))
    assert standing("I used to live in Boston.") is None
    assert standing("I live in a small town.") is None
    assert standing("I'm a nurse at Mass General.") == Standing("employer", ("mass", "general"))
    assert standing("moved to phoenix last week lol") is None   # (a lower-case word may be no place)
    assert standing("I moved to St. Louis.") == Standing("home", ("st.", "louis"))
    assert standing("I work at Bank of the West.") == Standing("employer", ("bank", "of", "the", "west"))
    nfd, nfc = "I live in Zu\u0308rich.", "I live in Z\u00fcrich."
    assert standing(nfd) == standing(nfc) == Standing("home", ("z\u00fcrich",))
    # the one said last, of each relation
    assert standings("I live in Boston and work at Google.") == (Standing("home", ("boston",)),
                                                               Standing("employer", ("google",)))
    assert standing("I moved to Seattle last year but now I live in Portland.") == Standing("home", ("portland",))
    assert standing("I moved to Seattle, then back to Boston.") == Standing("home", ("boston",))


@pytest.fixture
def mem(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        yield m


@pytest.mark.parametrize("new,old", CHANGES[:4] + CHANGES[8:10] + CHANGES[-3:])
def test_the_write_path_links_the_later_home_or_employer(mem, new, old):
    a = mem.add(old, created_at=T0)
    b = mem.add(new, created_at=T0 + DAY)
    assert [e.relation.value for e in mem.edges(b) if a in (e.source, e.target)] == ["contradicts"]
    assert mem.get(a).state.value == "active"   # contradicted, never superseded


@pytest.mark.parametrize("new,old", NOT_CHANGES[:4] + NOT_CHANGES[6:8] + NOT_CHANGES[10:12] + NOT_CHANGES[-7:])
def test_the_write_path_leaves_other_places_alone(mem, new, old):
    a = mem.add(old, created_at=T0)
    b = mem.add(new, created_at=T0 + DAY)
    assert [e for e in mem.edges(b) if e.relation.value == "contradicts" and a in (e.source, e.target)] == []


def test_recall_of_the_old_home_warns_of_the_move(mem):
    a = mem.add("I live in Boston.", created_at=T0)
    b = mem.add("I moved to Seattle last month.", created_at=T0 + 30 * DAY)
    res = mem.recall("Boston", k=5, now=T0 + 31 * DAY)
    assert res.hits[0].id == a
    assert {(w.source, w.target) for w in res.warnings} <= {(a, b), (b, a)} and res.warnings


@pytest.mark.parametrize("old,new,question", [
    ("I live in Boston.", "I moved to Seattle last month.", "where do I live?"),
    ("I'm based in Berlin.", "Just relocated to Munich, still unpacking.", "what city am I based in?"),
    ("I work at Google.", "I started a new job at Stripe.", "where do I work?"),
    ("My employer is Hooli.", "I was hired at Pied Piper!", "which company employs me?"),
])
def test_a_question_for_home_or_employer_is_answered_by_the_later_one_at_k_1(mem, old, new, question):
    """The later statement holds no word of the question ("where do I live?" / "I moved to
    Seattle"): the two give one relation of the speaker, which the question asks for."""
    a = mem.add(old, created_at=T0)
    b = mem.add(new, created_at=T0 + 30 * DAY)
    res = mem.recall(question, k=1, now=T0 + 31 * DAY, reinforce=False)
    assert [h.id for h in res.hits] == [b]
    res = mem.recall(question, k=2, now=T0 + 31 * DAY, reinforce=False)
    assert [h.id for h in res.hits] == [b, a] and res.warnings


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_a_new_street_address_answers_where_the_speaker_lives(tmp_path, embedder):
    """helper-239: "I live at 14 Rue des Lilas, Lyon." then "We moved! My new address is 3 Avenue
    Foch, Paris." linked nothing ("live at" was no home, the address more than four words), and
    "where do I live?" got Lyon first with relevance 1, Paris fourth."""
    with engramdb.open(tmp_path / "s", embedder=embedder) as m:
        m.add_conversation([
            {"role": "user", "content": "Hi, I need help with my internet bill.", "created_at": "2025-01-10T10:00:00Z"},
            {"role": "assistant", "content": "Hello! How can I help you today?", "created_at": "2025-01-10T10:00:05Z"},
            {"role": "user", "content": "I live at 14 Rue des Lilas, Lyon.", "created_at": "2025-01-10T10:01:00Z"},
        ], namespace="alice", session="s1")
        out = m.add_conversation([
            {"role": "user", "content": "We moved! My new address is 3 Avenue Foch, Paris. Please update it for billing.",
             "created_at": "2025-02-15T10:00:00Z"},
            {"role": "assistant", "content": "Sorry to hear that! What can I help you with?",
             "created_at": "2025-02-15T10:00:05Z"},
        ], namespace="alice", session="s2")
        assert out["changed"] == [["s2:1", "s1:3"]]
        for question, first in [("where do I live?", "s2:1"), ("what is my address?", "s2:1"),
                                ("what's my current address?", "s2:1"), ("what is my old address?", "s1:3")]:
            res = m.recall(question, namespace="alice", k=3, now="2025-05-01")
            assert res.hits[0].id == first and res.warnings, (question, [h.text for h in res.hits])


def test_a_question_for_the_home_is_not_answered_by_a_new_employer(mem):
    """The earlier memory says both; the later changes the employer: a question for the home
    keeps the memory that names it first."""
    a = mem.add("I live in Boston and I work at Google.", created_at=T0)
    b = mem.add("I started a new job at Stripe.", created_at=T0 + 30 * DAY)
    assert [e.relation.value for e in mem.edges(b) if a in (e.source, e.target)] == ["contradicts"]
    res = mem.recall("where do I live?", k=1, now=T0 + 31 * DAY, reinforce=False)
    assert [h.id for h in res.hits] == [a]


def test_the_later_statement_is_explained_by_the_earlier_one(mem):
    """Brought in by the earlier statement it changes: its path is that statement and the
    contradicts edge, its relevance that statement's (no weak-evidence gap at k=1), and the
    context block says why it is there."""
    a = mem.add("I live in Boston.", created_at=T0)
    b = mem.add("I moved to Seattle last month.", created_at=T0 + 30 * DAY)
    res = mem.recall("where do I live?", k=1, now=T0 + 31 * DAY, reinforce=False)
    (hit,) = res.hits
    assert [(s.id, s.relation and s.relation.value, s.forward) for s in hit.path] == [
        (a, None, True), (b, "contradicts", False)]
    assert hit.relevance >= 0.5 and res.gaps == []
    block = mem.context("where do I live?", now=T0 + 31 * DAY)
    assert f"I moved to Seattle last month. (recalled: changes `{a}`, which matched" in block.text


def test_a_question_naming_a_time_or_another_relation_brings_nothing_in(mem):
    a = mem.add("I live in Boston.", created_at=T0)
    mem.add("I moved to Seattle last month.", created_at=T0 + 30 * DAY)
    for question in ("where did I live in November 2023?", "what is Boston like?"):
        res = mem.recall(question, k=1, now=T0 + 31 * DAY, reinforce=False)
        assert [h.id for h in res.hits] == [a]


def test_a_number_changed_beside_the_same_home_still_supersedes(mem):
    """Naming the same place in both texts is no reason to leave a changed rent alone."""
    a = mem.add("I live in Boston and pay $2,000 a month in rent.", created_at=T0)
    b = mem.add("I live in Boston and pay $2,500 a month in rent.", created_at=T0 + DAY)
    assert mem.get(a).state.value == "superseded" and mem.get(a).superseded_by == b


def test_the_earlier_statement_is_found_however_many_memories_lie_between(mem):
    """The move is like nothing the old statement says: it is found by its relation's words,
    not among the move's nearest neighbours only."""
    a = mem.add("I live in Boston.", created_at=T0)
    mem.add_batch([{"text": f"I {verb} the {thing} on day {i}.", "created_at": T0 + i * 3600}
                   for i, (verb, thing) in enumerate([("cleaned", "garage"), ("painted", "fence"), ("fixed", "bike"),
                                                      ("washed", "car"), ("baked", "bread"), ("read", "novel"),
                                                      ("walked", "dog"), ("watered", "plants"), ("called", "bank"),
                                                      ("cooked", "dinner"), ("visited", "museum"), ("planted", "roses"),
                                                      ("sold", "desk"), ("booked", "flights"), ("paid", "bills")], 1)])
    b = mem.add("I moved to Seattle last month.", created_at=T0 + 30 * DAY)
    assert [e.relation.value for e in mem.edges(b) if a in (e.source, e.target)] == ["contradicts"]
    assert [h.id for h in mem.recall("where do I live?", k=1, now=T0 + 31 * DAY, reinforce=False).hits] == [b]


def test_each_move_of_a_chain_ranks_above_the_one_before(mem):
    a = mem.add("I live in Boston.", created_at=T0)
    b = mem.add("I moved to Seattle last month.", created_at=T0 + 30 * DAY)
    c = mem.add("I moved back to Boston.", created_at=T0 + 60 * DAY)
    res = mem.recall("where do I live?", k=3, now=T0 + 61 * DAY, reinforce=False)
    assert [h.id for h in res.hits] == [c, b, a]
    assert [s.id for s in res.hits[0].path] == [a, b, c]
    assert f"(recalled: changes `{b}`, which changed `{a}`, which matched" in mem.context(
        "where do I live?", now=T0 + 61 * DAY).text


def test_the_earlier_statements_come_next_above_what_states_none(tmp_path):
    """helper-228: in a chat stored with add_conversation, "where do I live?" ranked the
    assistant's "Congrats on the move to Austin!" (relevance 0.00, lifted by its `next` edge to
    the move) above "I live in Boston." (relevance 1.00). The current home comes first, then the
    earlier one, then what states neither; at a past time, the home then, then the later one."""
    day = DAY
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        ids = m.add_conversation([
            {"role": "user", "content": "I live in Boston, near the Common.", "created_at": T0},
            {"role": "assistant", "content": "Nice, Boston is lovely in the fall.", "created_at": T0 + 5},
            {"role": "user", "content": "Big news: I just moved to Austin!", "created_at": T0 + 60 * day},
            {"role": "assistant", "content": "Congrats on the move to Austin! How is the new place?",
             "created_at": T0 + 60 * day + 5},
            {"role": "user", "content": "My rent is $1,900 a month here.", "created_at": T0 + 62 * day}])["message_ids"]
        texts = {i: m.get(i).text for i in ids}
        now = T0 + 90 * day

        def first(q, n):
            return [texts[h.id] for h in m.recall(q, k=5, now=now, reinforce=False).hits if h.id in texts][:n]
        assert first("where do I live?", 2) == ["user: Big news: I just moved to Austin!",
                                                "user: I live in Boston, near the Common."]
        assert first("where do I live now?", 2)[1] == "user: I live in Boston, near the Common."
        assert first("where did I live in December 2023?", 2) == [   # (T0 is 14 November 2023)
            "user: I live in Boston, near the Common.", "user: Big news: I just moved to Austin!"]


def test_an_employer_left_answers_where_do_i_work(tmp_path):
    """helper-229: "I got laid off from Hooli last week." (relevance 0.01) ranked below "I work at
    Hooli." for "Where do I work?": it names no new employer, so it was no statement of the
    relation. It is linked to the statement it ends (engramdb.swaps) and answers now; at a past
    time before it, the employer then answers."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        initech = m.add("I work at Initech.", created_at=T0)
        hooli = m.add("I started a new job at Hooli.", created_at=T0 + 200 * DAY)
        m.add("My office is in the Hooli tower downtown.", created_at=T0 + 205 * DAY)
        laid_off = m.add("I got laid off from Hooli last week.", created_at=T0 + 240 * DAY)
        res = m.recall("Where do I work?", k=3, now=T0 + 245 * DAY, reinforce=False)
        assert [h.id for h in res.hits] == [laid_off, hooli, initech]
        assert res.hits[0].relevance == 1.0
        then = m.recall("Where do I work?", k=1, now=T0 + 245 * DAY, valid_at=T0 + 220 * DAY, reinforce=False)
        assert [h.id for h in then.hits] == [hooli]
        assert m.recall("Where does my brother work?", k=3, now=T0 + 245 * DAY).hits[0].id != laid_off


@pytest.mark.parametrize("left", ["I quit my job today.", "I handed in my notice at Hooli today."])
def test_a_job_quit_unnamed_or_notice_handed_in_answers_where_do_i_work(tmp_path, left):
    """helper-230: "I handed in my notice at Northwind" changed nothing; "I quit my job." names no
    employer, and its word "job" ended the statement's span, so no current statement was left to
    end. Both now end the employer's statement and answer; at a past time before, the employer."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        hooli = m.add("I started a new job at Hooli.", created_at=T0)
        m.add("My cat is named Miso.", created_at=T0 + DAY)
        m.add("I like hiking on weekends.", created_at=T0 + 2 * DAY)
        gone = m.add(left, created_at=T0 + 100 * DAY)
        res = m.recall("Where do I work?", k=2, now=T0 + 101 * DAY, reinforce=False)
        assert [h.id for h in res.hits] == [gone, hooli]
        assert res.hits[0].relevance == 1.0
        then = m.recall("Where do I work?", k=1, now=T0 + 101 * DAY, valid_at=T0 + 50 * DAY, reinforce=False)
        assert [h.id for h in then.hits] == [hooli]


def test_work_in_another_sense_is_no_answer(tmp_path):
    """helper-229: "Where do I work?" gave relevance 1.0 to "I work out at the Highlands climbing
    gym." and "I work best in the mornings at the coffee shop.", and "Where do I work out?" 0.94
    to "I work at Initech."."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        for text in ("I work at Initech.", "I work out at the Highlands climbing gym.",
                     "I work best in the mornings at the coffee shop.", "I work from home on Fridays."):
            m.add(text, created_at=T0)

        def rel(q):
            return {h.text: h.relevance for h in m.recall(q, k=4, now=T0 + DAY, reinforce=False).hits}
        job = rel("Where do I work?")
        assert job["I work at Initech."] == 1.0 and job["I work from home on Fridays."] >= 0.5
        assert job["I work out at the Highlands climbing gym."] < 0.5
        assert job["I work best in the mornings at the coffee shop."] < 0.5
        gym = rel("Where do I work out?")
        assert gym["I work out at the Highlands climbing gym."] >= 0.5
        assert gym["I work at Initech."] < 0.5 and gym["I work best in the mornings at the coffee shop."] < 0.5


@pytest.mark.parametrize("question", ["Did I ever work at Google?", "where did I used to work?",
                                      "How long did I work at Google?", "What do I work on at Google?"])
def test_a_question_about_the_past_or_another_thing_brings_nothing_in(mem, question):
    a = mem.add("I work at Google.", created_at=T0)
    mem.add("I started a new job at Stripe.", created_at=T0 + 30 * DAY)
    assert [h.id for h in mem.recall(question, k=1, now=T0 + 31 * DAY, reinforce=False).hits] == [a]


def test_a_question_naming_the_present_is_answered_by_the_later_one(mem):
    mem.add("I live in Boston.", created_at=T0)
    b = mem.add("I moved to Seattle last month.", created_at=T0 + 30 * DAY)
    for question in ("where do I live today?", "where do I live this year?"):
        assert [h.id for h in mem.recall(question, k=1, now=T0 + 31 * DAY, reinforce=False).hits] == [b]


def test_a_forgotten_later_statement_is_no_answer_and_ends_the_chain(mem):
    a = mem.add("I live in Boston.", created_at=T0)
    b = mem.add("I moved to Seattle last month.", created_at=T0 + 30 * DAY)
    mem.forget(b)
    res = mem.recall("where do I live?", k=2, now=T0 + 31 * DAY, reinforce=False)
    assert [h.id for h in res.hits] == [a] and res.warnings == []


def test_the_readme_chat_agent_gets_the_current_home_and_dose(mem):
    """The README's chat-agent example: messages stored with add_conversation, a first message
    of two facts, another of a fact and a request."""
    mem.add_conversation([
        {"role": "user", "content": "I live in Boston and I work at Google.", "created_at": "2025-03-01T09:00:00Z"},
        {"role": "assistant", "content": "Noted!", "created_at": "2025-03-01T09:00:05Z"},
        {"role": "user", "content": "I take 10 mg of lisinopril every morning. Can you remind me to refill it?",
         "created_at": "2025-03-01T09:01:00Z"},
    ], namespace="user-42", session="2025-03-01")
    mem.add_conversation([
        {"role": "user", "content": "Big news: I moved to Seattle last month.", "created_at": "2025-06-02T18:00:00Z"},
        {"role": "user", "content": "My doctor raised my lisinopril to 20 mg.", "created_at": "2025-06-02T18:01:00Z"},
    ], namespace="user-42", session="2025-06-02")
    now = "2025-06-03T00:00:00Z"
    answers = {q: mem.recall(q, namespace="user-42", k=1, now=now, reinforce=False).hits[0].text
               for q in ("where do I live?", "what dose of lisinopril do I take?", "where do I work?")}
    assert answers == {"where do I live?": "user: Big news: I moved to Seattle last month.",
                       "what dose of lisinopril do I take?": "user: My doctor raised my lisinopril to 20 mg.",
                       "where do I work?": "user: I live in Boston and I work at Google."}
    block = mem.context("where do I live?", namespace="user-42", now=now)
    assert "contradicts `2025-03-01:1`, said earlier" in block.text


def test_of_two_statements_of_one_time_the_one_stored_later_is_current(mem):
    """add_batch without times gives both one valid time: the batch order says which is later."""
    a, b = mem.add_batch([{"text": "I live in Boston."}, {"text": "I moved to Seattle last month."}])
    assert [h.id for h in mem.recall("where do I live?", k=2, reinforce=False).hits] == [b, a]


@pytest.mark.parametrize("text,relations", [
    ("I was hired at Initech and I also live in Boston.", ("employer",)),
    ("I live in Boston and I also work at Globex.", ("home",)),
    # "also" before a change is more news, not a second value (helper186: "I also started a new job at Dell")
    ("We moved to Denver, and I also got a job at Initech.", ("home", "employer")),
])
def test_a_sentence_of_a_home_and_a_second_value_is_stored_and_read(mem, text, relations):
    """A hostile pass: a sentence stating a home and, with "also", an employer crashed every write
    (UnboundLocalError in the reading of the second relation). The clause with "also" adds a
    value (a second job, a second home) and is left out, unless it reports a change; the other
    is read."""
    mem.add(text, id="x")
    assert mem.get("x").text == text
    assert tuple(s.relation for s in standings(text)) == relations


@pytest.mark.parametrize("question", ["what city am I in these days?", "which country am I in?"])
def test_a_question_for_the_home_in_other_words_is_answered_by_the_current_one(mem, question):
    """A fresh user asked "what city am I in these days?": small talk sharing "days" came first,
    with a weak_evidence gap; the statements of the home share no word with the question."""
    a = mem.add("I live in Boston.", created_at=T0)
    mem.add("Brr, it's freezing these days. How's your day going?", created_at=T0 + 10 * DAY)
    mem.add("Which city has the best museums in the country?", created_at=T0 + 12 * DAY)
    b = mem.add("We relocated again, we're now living in Portland.", created_at=T0 + 30 * DAY)
    res = mem.recall(question, k=3, now=T0 + 31 * DAY, reinforce=False)
    assert res.hits[0].id == b and a in [h.id for h in res.hits]
    assert res.hits[0].relevance >= 0.9 and res.gaps == []
    assert next(h for h in res.hits if h.id == a).relevance < 0.5   # the home it changed is no answer now


def test_a_question_for_the_employer_in_other_words_is_answered_by_the_only_one(mem):
    mem.add("The company picnic got rained out, what a mess.", created_at=T0)
    a = mem.add("user: I work as a data analyst at Acme Corp.", created_at=T0 + DAY)
    res = mem.recall("who is my employer?", k=1, now=T0 + 2 * DAY, reinforce=False)
    assert [h.id for h in res.hits] == [a] and res.hits[0].relevance >= 0.9


def test_another_persons_home_is_no_answer_for_the_speakers(mem):
    """The statements of a relation asked for are the speaker's: a sister's home, holding the
    relation's words, is not lifted to the top nor reported relevant."""
    mem.add("Brr, it's freezing these days. How's your day going?", created_at=T0)
    sister = mem.add("My sister lives in Denver.", created_at=T0 + DAY)
    res = mem.recall("what city am I in these days?", k=2, now=T0 + 3 * DAY, reinforce=False)
    assert res.hits[0].id != sister
    assert all(h.relevance < 0.5 for h in res.hits if h.id == sister)


def test_a_question_of_events_is_not_answered_by_a_value_that_held_then(mem):
    """A hostile pass: every value a later one changed lay in every later time (the latest one's
    time never ends), so "What did I do yesterday?" answered "I started a new job at Stripe."
    (three months old) with relevance 1, and a month with nothing stored lost its empty_window
    gap; a time to come too."""
    mem.add("I work at Google.", created_at="2025-01-10")
    mem.add("I started a new job at Stripe.", created_at="2025-03-10")
    dentist = mem.add("I went to the dentist.", created_at="2025-06-09")
    res = mem.recall("What did I do yesterday?", now="2025-06-10", reinforce=False)
    assert res.hits[0].id == dentist
    for question in ("What happened in April 2025?", "What's planned for July 2025?"):
        res = mem.recall(question, now="2025-06-10", reinforce=False)
        assert "empty_window" in [g.reason for g in res.gaps]
        assert all(h.relevance < 0.5 for h in res.hits)


@pytest.mark.parametrize("how", ["soft", "as_of"])
def test_a_change_the_recall_cannot_see_leaves_the_earlier_value_current(mem, how):
    """A hostile pass: a forgotten move (or one recorded after ``as_of``) still ended "I live in
    Boston": "what city am I in these days?" gave it relevance 0.006 and a weak_evidence gap,
    and "where did I live in May?" an empty_window gap."""
    a = mem.add("I live in Boston.", created_at="2025-01-10", recorded_at="2025-01-10")
    b = mem.add("We moved to Denver.", created_at="2025-03-10", recorded_at="2025-03-10")
    kw = {"as_of": "2025-02-01"} if how == "as_of" else {}
    if how == "soft":
        mem.forget(b)
    for question in ("what city am I in these days?", "where did I live in May 2025?"):
        res = mem.recall(question, k=1, now="2025-06-01", reinforce=False, **kw)
        assert res.hits[0].id == a and res.hits[0].relevance >= 0.9
        assert [g.reason for g in res.gaps] == []


def test_of_two_homes_no_edge_joins_the_later_is_current(mem):
    """A hostile pass: "I live in Boston." and a long message ending "we moved to Denver last
    month." (not linked by the write path) were both current, and Boston came first."""
    a = mem.add_conversation([{"role": "user", "content": "I live in Boston.", "created_at": "2025-01-10"}])
    filler = " ".join(f"Sentence number {i} talks about gardening and tomatoes." for i in range(80))
    b = mem.add_conversation([{"role": "user", "content": filler + " Anyway, we moved to Denver last month.",
                               "created_at": "2025-03-10"}])
    res = mem.recall("What city am I in these days?", k=2, now="2025-06-01", reinforce=False)
    assert [h.id for h in res.hits] == b["message_ids"] + a["message_ids"]
    assert res.hits[0].relevance >= 0.9 and res.hits[1].relevance < 0.5


@pytest.mark.parametrize("question,answer", [
    ("Which company makes the iPhone?", "Apple makes the iPhone."),
    ("What bus do I take to work?", "I take the 42 bus to work."),
    ("What's my home Wi-Fi password?", "The Wi-Fi password at home is tiger42."),
])
def test_a_question_about_something_else_is_not_taken_by_the_home_or_employer(mem, question, answer):
    """A hostile pass: any question with "company", "my home" or "I ... work" in it took the
    current employer or home as its answer, relevance 1 (the statements of a relation join the
    seeds only for a question asking for nothing else)."""
    for text, when in (("I work at Acme.", "2025-01-05"), ("I started a new job at Globex.", "2025-05-02"),
                       ("Apple makes the iPhone.", "2025-02-01"), ("I take the 42 bus to work.", "2025-05-23"),
                       ("I live in Boston.", "2025-01-04"), ("We moved to Denver last week!", "2025-03-08"),
                       ("The Wi-Fi password at home is tiger42.", "2025-01-20")):
        mem.add(text, created_at=when)
    assert mem.recall(question, k=1, now="2025-09-01", reinforce=False).hits[0].text == answer


@pytest.mark.parametrize("question,asked", [
    ("What city am I in these days?", {"home"}), ("Which company do I work for?", {"employer"}),
    ("Who am I employed by?", {"employer"}), ("What bus do I take to work?", set()),
    ("Who is the CEO of my company?", set()), ("Which company employs Alice?", set()),
    ("Where don't I live anymore?", set()), ("Who do I work with?", set()), ("What's my job title?", set()),
    ("What do I do at work?", set()), ("What do I usually do at work?", set()), ("where do I work now?", {"employer"}),
])
def test_a_question_asking_for_the_home_or_employer_and_nothing_else(question, asked):
    from engramdb.standing import asks_only_standing

    assert asks_only_standing(question) == asked


def test_a_question_of_what_happened_then_is_not_answered_by_a_value_that_held_then(mem):
    """A hostile pass: "What happened with my rent in July?" gave January's "My rent is $1,400"
    (valid through July) over July's "Paid the rent late this month"."""
    mem.add("I live in Oakland. My rent is $1,400 a month.", created_at="2025-01-05")
    mem.add("We moved to Denver last week!", created_at="2025-03-08")
    late = mem.add("Paid the rent late this month, oops.", created_at="2025-07-03")
    mem.add("Played tennis.", created_at="2025-07-02")
    assert mem.recall("What happened with my rent in July?", k=1, now="2025-09-01",
                      reinforce=False).hits[0].id == late


@pytest.mark.parametrize("first", ["I work at Finlytics as a backend engineer.",
                                   "I'm Maya, I'm a backend engineer at Finlytics, a small fintech. I'm based in Leeds."])
@pytest.mark.parametrize("question", ["Who was my employer in February?", "Where did I work in February?"])
def test_the_employer_at_a_past_time_comes_before_what_was_said_then(tmp_path, first, question):
    """A fresh user: a February message holding "work" ("Work stuff: our daily standup is at
    9:15am") and even "Valentine's day alone with my cat" took the time cue's weight and came
    before January's statement of the employer, valid until April's new job; a statement of the
    employer without the relation's words was not read at all."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_conversation([{"role": "user", "content": first, "created_at": "2025-01-06T09:00:00Z"}], session="a")
        mem.add_conversation([
            {"role": "user", "content": "Work stuff: our daily standup is at 9:15am, so don't book me before 9:30.",
             "created_at": "2025-02-03T09:00:00Z"},
            {"role": "user", "content": "Valentine's day alone with my cat and a pizza.", "created_at": "2025-02-14T18:00:00Z"},
        ], session="b")
        out = mem.add_conversation([{"role": "user", "content": "Big news. I accepted an offer from Northwind Robotics, "
                                     "I'm joining as a platform engineer.", "created_at": "2025-04-02T17:45:00Z"}], session="c")
        assert out["changed"] == [["c:1", "a:1"]]
        res = mem.recall(question, k=3, now="2025-07-01", reinforce=False)
        assert res.hits[0].id == "a:1" and res.hits[0].relevance == 1.0
        assert mem.recall("Who is my employer?", k=1, now="2025-07-01", reinforce=False).hits[0].id == "c:1"


def test_a_stay_at_a_past_time_is_not_answered_by_the_home_then(tmp_path):
    """A hostile pass: "Where was I staying in February?" got January's "I live in Boston and I
    work at Acme." above February's hotel in Tokyo."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_conversation([{"role": "user", "content": "I live in Boston and I work at Acme.",
                               "created_at": "2025-01-06T09:00:00Z"}], session="a")
        mem.add_conversation([{"role": "user", "content": "I'm staying at a hotel in Tokyo near Shibuya this week.",
                               "created_at": "2025-02-10T09:00:00Z"}], session="b")
        mem.add_conversation([{"role": "user", "content": "We moved to Denver last weekend.",
                               "created_at": "2025-05-06T09:00:00Z"}], session="c")
        hits = mem.recall("Where was I staying in February?", k=3, now="2025-07-01", reinforce=False).hits
        assert hits[0].id == "b:1" and hits[1].relevance < 1.0


def test_a_past_time_no_home_statement_holds_is_left_to_recall(tmp_path):
    """A hostile pass: in a chat stored without times, "Where did I live in 2023?" got "I live in
    Denver." (said now) first: no statement of the home held in 2023, and one that holds none
    then is no answer."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_conversation([{"role": "user", "content": c} for c in [
            "I worked at Initech from 2019 to 2023.", "In 2023 I was a barista at Blue Bottle.", "I work at Hooli now.",
            "Work at Hooli is fine.", "Last year I lived in Austin.", "I live in Denver."]], session="u")
        hits = mem.recall("Where did I live in 2023?", k=3, reinforce=False).hits
        assert hits[0].id != "u:6"


@pytest.mark.parametrize("text,value", [
    ("I accepted a job offer from Stripe, I start on June 1.", ("stripe",)),
    ("I work at Stripe, I love it.", ("stripe",)),
    ("I live in Boston, I think.", ("boston",)),
    ("I live in Washington, D.C.", ("washington", "d.c.")),
])
def test_a_name_ends_before_i(text, value):
    """A fresh user's "... at Stripe, I start on June 1." was read as the employer "Stripe, I"."""
    assert standings(text)[-1].value == value


@pytest.mark.parametrize("text,want", [
    ("I started at Globex as a data engineer.", ("employer", ("globex",))),
    ("Big news: we moved to Denver and I started at Globex as a data engineer.", ("employer", ("globex",))),
    ("I started at 9am as usual.", None),
    ("The meeting started at Noon as planned.", None),
])
def test_a_start_at_an_employer_in_a_role_is_a_new_employer(text, want):
    """helper185: "... and I started at Globex as a data engineer." was no change of "I work at
    Initech": "Where do I work?" put Initech first (after consolidation, a summary quoting both
    had hidden it)."""
    got = [(x.relation, x.value) for x in standings(text) if x.relation == "employer"]
    assert got == ([want] if want else [])


@pytest.mark.parametrize("text", ["I accepted an offer at Target for 20% off my next order.",
                                  "I accepted an offer at Carvana for my old Honda, $9,000.",
                                  "We accepted an offer at $500k for the house."])
def test_an_offer_at_a_shop_is_no_employer(text):
    """A hostile pass on a rule that read "accepted an offer at <Name>" as a new employer
    (withdrawn): Target's discount replaced Google as the employer."""
    assert not standings(text)


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_a_statement_without_the_relation_s_words_answers_and_none_gives_an_unstated_gap(tmp_path, embedder):
    """helper71: "Where do I work?" (never said) got "My commute to work is 30 minutes." with
    relevance 1 and no gap; and a statement in other words ("I'm a nurse at Mass General.") was no
    seed: the relation's words found the statements, and it holds none of them."""
    with engramdb.open(tmp_path / "s", embedder=embedder) as m:
        for i, text in enumerate(["I live in Denver.", "My commute to work is 30 minutes by train.",
                                  "Long time no talk! Busy summer.", "I take 10 mg of lisinopril every morning."]):
            m.add(f"user: {text}", created_at=T0 + i * 60)
        for question in ("Where do I work?", "Who is my employer?", "What company do I work for?"):
            res = m.recall(question, k=3, now=T0 + DAY, reinforce=False)
            assert [(g.reason, g.detail) for g in res.gaps if g.reason == "unstated"] == [
                ("unstated", "no memory says where the user works")], question
        assert "No memory says where the user works." in m.context("Where do I work?", now=T0 + DAY).text
        home = m.recall("Where do I live?", k=3, now=T0 + DAY, reinforce=False)
        assert home.hits[0].text == "user: I live in Denver." and not home.gaps
        nurse = m.add("user: I'm a nurse at Mass General.", created_at=T0 + DAY)
        for question in ("Where do I work?", "Who is my employer?"):
            res = m.recall(question, k=3, now=T0 + 2 * DAY, reinforce=False)
            assert res.hits[0].id == nurse and not res.gaps, question
        # a filter that leaves the statement out: the gap says so
        res = m.recall("Where do I work?", k=3, now=T0 + 2 * DAY, until=T0 + 3600, reinforce=False)
        assert nurse not in [h.id for h in res.hits]
        assert [g.detail for g in res.gaps if g.reason == "unstated"] == [
            "no memory that passes the filters says where the user works"]


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_the_hits_of_an_unstated_relation_are_weak_evidence(tmp_path, embedder):
    """helper-201, a fresh user: "where do I work?" gave "I ran 5 km before work." at relevance
    0.93 and "what is my name?" gave "Our dog is named Biscuit." at 1.0, each beside an
    ``unstated`` gap that said no memory gives it. When that gap holds, each hit only mentions
    the relation's words: its relevance is under the threshold, with a weak_evidence gap."""
    with engramdb.open(tmp_path / "s", embedder=embedder) as m:
        for i, text in enumerate(["I ran 5 km before work.", "Our dog is named Biscuit.", "I bought a new bike."]):
            m.add(f"user: {text}", created_at=T0 + i * 60)
        for question in ("Where do I work?", "What is my name?"):
            res = m.recall(question, k=3, now=T0 + DAY, reinforce=False)
            reasons = [g.reason for g in res.gaps]
            assert "unstated" in reasons and "weak_evidence" in reasons, question
            assert res.hits and max(h.relevance for h in res.hits) < res.stats["relevance_threshold"], question
        m.add("user: I work at Northwind as a designer.", created_at=T0 + DAY)
        res = m.recall("Where do I work?", k=3, now=T0 + 2 * DAY, reinforce=False)
        assert "Northwind" in res.hits[0].text and res.hits[0].relevance >= res.stats["relevance_threshold"]
        assert not res.gaps


def test_a_store_without_the_standing_column_reads_it_from_its_records(tmp_path):
    from engramdb.testing import cache_status, damage_snapshot

    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add("user: My commute to work is 30 minutes by train.", created_at=T0)
        nurse = m.add("user: I'm a nurse at Mass General.", created_at=T0 + 60)
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:   # from the column snapshot
        assert cache_status(m)["columns"] == "current"
        damage_snapshot(m, "columns", array="standing")   # as a store written before the column
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        res = m.recall("Where do I work?", k=1, now=T0 + DAY, reinforce=False)
        assert res.hits[0].id == nurse and not res.gaps


@pytest.mark.parametrize("text, value", [
    ("user: Our compliance people here at Brightwell Payments want an audit log.", ("brightwell", "payments")),
    ("My team here at Acme ships on Fridays.", ("acme",)),
    ("We here at Globex love Python.", ("globex",)),
    ("My boss here at Initech said no.", ("initech",)),
])
def test_the_speaker_s_colleagues_here_at_a_place_name_the_employer(text, value):
    """helper72: "Our compliance people here at Brightwell Payments ..." was the only place a
    coding assistant's user named their employer, and "Where do I work?" got an unstated gap."""
    assert standings(text) == (Standing("employer", value),)


@pytest.mark.parametrize("text", [
    "I am here at Heathrow waiting.", "We are staying here at the Marriott.", "Our hotel room here at the Marriott is tiny.",
    "My sister's team here at Acme is great.", "Our friends here at the park are fun.", "If our team here at Acme ships, great.",
    "Do our engineers here at Acme use Go?",
])
def test_being_here_at_a_place_names_no_employer(text):
    assert standings(text) == ()


@pytest.mark.parametrize("text, question", [
    ("I work full-time at Acme.", "Who is my employer?"), ("I work remotely for Acme.", "Where do I work?"),
    ("I've been at Google for 3 years.", "Who is my employer?"), ("Today was my first day at Stripe.", "Where do I work?"),
    ("I'm with Deloitte.", "Where do I work?"), ("i work at google lol", "Where do I work?"),
    ("I'm a nurse at Mass General, and I declined the overtime shift.", "Where do I work?"),
    ("User is a nurse at Mass General.", "Who is my employer?"), ("I've lived in Berlin for 10 years.", "Where do I live?"),
    ("I'm in Berlin these days.", "What city do I live in?"), ("My address is 12 Oak St, Springfield.", "Where do I live?"),
    # helper74: a place named after "at" in a sentence of the speaker's
    ("I nurse on the cardiac ward at St. Mary's.", "Where do I work?"),
    ("Just finished my first week at Leeds General Infirmary!", "Where do I work?"),
    ("Long time no talk! Our flat in Edinburgh has a leak in the bathroom.", "Which city do I live in?"),
])
def test_a_memory_that_may_state_the_relation_keeps_the_unstated_gap_away(mem, text, question):
    """helper73: the statements' reader knows few wordings, and each it missed gave a false
    unstated gap, even at k=1 with the statement below a filler; a loose reading of every memory
    (the column's may-state bits) now keeps the gap for stores where nothing may say it."""
    for i, filler in enumerate(["My commute to work is 30 minutes by train.", "My favorite food is ramen.",
                                "My sister works at Google.", "I take 10 mg of lisinopril every morning."]):
        mem.add(f"user: {filler}", created_at=T0 + i * 60)
    mem.add(f"user: {text}", created_at=T0 + DAY)
    res = mem.recall(question, k=1, now=T0 + 2 * DAY, reinforce=False)
    assert not [g for g in res.gaps if g.reason == "unstated"], (question, res.hits[0].text)


def test_what_says_another_persons_work_or_a_job_gives_the_unstated_gap_or_none(mem):
    mem.add("user: My sister works at Google.", created_at=T0)
    mem.add("user: I'm a nurse.", created_at=T0 + 60)
    mem.add("user: My commute to work is 30 minutes by train.", created_at=T0 + 120)
    res = mem.recall("Where do I work?", k=3, now=T0 + DAY, reinforce=False)
    assert [g.detail for g in res.gaps if g.reason == "unstated"] == ["no memory says where the user works"]
    # a question for the job, a stay or an address asks for no place the gap could name
    for question in ("What's my job?", "Where am I staying?", "What's my address?"):
        res = mem.recall(question, k=3, now=T0 + DAY, reinforce=False)
        assert not [g for g in res.gaps if g.reason == "unstated"], question


def test_a_slot_of_the_users_keeps_the_unstated_gap_away(mem):
    mem.add("user: My commute to work is 30 minutes by train.", created_at=T0)
    mem.add("Employer: Acme", subject="user", attribute="employer", value="Acme", created_at=T0 + 60)
    res = mem.recall("Where do I work?", k=3, now=T0 + DAY, reinforce=False)
    assert not [g for g in res.gaps if g.reason == "unstated"]


@pytest.mark.parametrize("text, bits", [
    ("I live in Boston and work at Acme.", 15), ("I'm a nurse at Mass General.", 10), ("I work remotely for Acme.", 8),
    ("i live in berlin", 4), ("My sister works at Google.", 0), ("My commute to work is 30 minutes by train.", 0),
    ("Tests live in tests/unit.", 0),
])
def test_the_column_holds_what_a_text_states_and_what_it_may_state(text, bits):
    assert standing_module.standing_bits(text) == bits


@pytest.mark.parametrize("question", ["Where did I work before?", "Where was I working previously?"])
def test_the_employer_before_a_change_is_relevant_for_a_question_about_before(tmp_path, question):
    """A fresh user (helper74): "Where did I work before?" put "I'm an RN at St. Mary's" first,
    but with relevance 0.014 and a weak_evidence gap (no word of the question in it)."""
    chat = [("2025-03-03", "I'm an RN at St. Mary's, mostly on the cardiac ward."),
            ("2025-03-03", "Can you suggest a quick dinner?"),
            ("2025-04-02", "I accepted an offer from Leeds General Infirmary! I'll be a clinical nurse educator.")]
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_conversation([{"role": "user", "content": t, "created_at": at} for at, t in chat], session="s")
        r = mem.recall(question, k=2, now="2025-06-01", reinforce=False)
        assert r.hits[0].id == "s:1" and r.hits[0].relevance >= 0.9 and not r.gaps


@pytest.mark.parametrize("new,changes", [
    ("I live in the Back Bay area of Boston now.", False), ("I live in Jamaica Plain in Boston.", False),
    ("We moved to the Back Bay neighborhood of Boston.", False), ("I moved from Boston to Denver.", True),
    ("I moved to Denver.", True), ("I moved to Cambridge, near Boston.", True),
])
def test_a_part_of_the_same_city_is_no_change_of_home(new, changes):
    """helper182: "I live in the Back Bay area of Boston now." was read as a move away from Boston
    (its home read as "back bay"), linked contradicts and outdated the fact "I live in Boston"."""
    from engramdb.standing import changes_standing

    assert changes_standing(new, "I live in Boston.") is changes


# helper104: a long first-person text as the question ("context(user's latest message)" with a
# pasted diary) froze recall: the question reading's regex, wh-word [^?]*? speaker [^?]*? verb,
# backtracked cubically (12 KB took a minute, 100 KB did not end in ten). It reads the words in
# one pass now, as the regex read them.
_IN_ORDER_REFERENCE = {  # the regex form, as a reference on short texts
    "home": re.compile(r"\b(?:where|what|which)\b[^?]*?\b(?:i|we)\b[^?]*?\b(?:live|living|based|staying|reside)\b", re.I),
    "employer": re.compile(r"\b(?:where|what|which|who)\b[^?]*?\b(?:i|we)\b[^?]*?\b(?:work|working|employed)\b"
                           r"(?!\s+(?:on|out)\b)", re.I),
}
_QUESTION_WORDS = ("where what which who I i we We live living based work working employed reside on out onto "
                   "the my sister ? , . I'm we're somewhere").split()


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_QUESTION_WORDS), max_size=14), st.sampled_from([" ", "  ", "\t"]))
def test_a_question_is_read_in_order_as_the_regex_read_it(words, gap):
    question = gap.join(words)
    for relation, pattern in _IN_ORDER_REFERENCE.items():   # (no word of the other forms, of a past or a wish)
        assert (relation in asked_standing(question)) == (pattern.search(question) is not None), question


def test_a_long_text_as_the_question_is_read_in_one_pass(tmp_path):
    diary = ("Today I told my sister what I thought about the trip. We walked to where we had parked, "
             "and I wondered which road we took. She asked who I had called. ")
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        home = m.add("user: I live in Boston.", created_at=T0)
        res = m.recall(diary * 1000 + "Where do I live?", k=3, now=T0 + DAY, reinforce=False)   # 120 KB
        assert home in [h.id for h in res.hits]
        assert "No memory" not in m.context(diary * 1000, now=T0 + DAY).text



@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_a_job_the_speaker_is_starting_answers_where_do_i_work(tmp_path, embedder):
    """helper109: "I got the job! I'm starting at Skyscanner as a senior analyst in May." was no
    statement of the employer, so "where do I work?" put Northwind first with relevance 1 and no
    warning of the change. ("started at <name> as <role>" was read; "starting" was not, nor a
    role followed by "in May".)"""
    msgs = [("user", "Hi! I live in Manchester and I work as a data analyst at Northwind Analytics."),
            ("assistant", "Nice to meet you!"), ("user", "My commute to work is 40 minutes by tram."),
            ("assistant", "Podcasts help."),
            ("user", "I got the job! I'm starting at Skyscanner as a senior analyst in May."),
            ("assistant", "Congratulations!"), ("user", "First week at Skyscanner went well."), ("assistant", "Great!")]
    with engramdb.open(tmp_path / "s", embedder=embedder) as m:
        m.add_conversation([{"role": role, "content": text, "created_at": T0 + i * 20 * DAY}
                            for i, (role, text) in enumerate(msgs)], namespace="u")
        res = m.recall("where do I work?", namespace="u", k=3, now=T0 + 200 * DAY, reinforce=False)
        assert res.hits[0].text.startswith("user: I got the job! I'm starting at Skyscanner")
        assert res.hits[0].relevance == 1.0
        assert any(c.later == res.hits[0].id for c in res.warnings)


#: A chat whose last message changes the employer of its first in words the reading missed, the
#: question, the employer the answer names, and the time asked (days after the first message).
NEW_JOBS = [
    # helper-203: the role before the company
    ([("I work as a nurse at Northwestern Memorial Hospital.", 0), ("We walked Biscuit by the lake.", 7),
      ("Big news: I got a new job! I'm starting as a clinical research coordinator at Abbott in April.", 17)],
     "where do I work?", "Abbott", 45),
    # helper-211: a verb joined after the news label's "I" ("Big news: I quit ... and started ...")
    ([("Hi! I'm Priya. I work as a nurse at St. Mary's Hospital.", 0),
      ("I ran my first 10k this weekend in 58 minutes!", 30),
      ("Big news: I quit the hospital and started as a UX designer at Shopify.", 90)],
     "where do I work now?", "Shopify", 91),
]


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
@pytest.mark.parametrize("chat, question, employer, day", NEW_JOBS)
def test_a_new_job_said_in_other_words_answers_where_do_i_work(tmp_path, embedder, chat, question, employer, day):
    """helper-203: "I'm starting as a clinical research coordinator at Abbott in April." after "I
    work as a nurse at Northwestern Memorial Hospital." was no change (`changed` empty): "where do
    I work?" ranked the nurse message first at relevance 1.0, with no warning. helper-211: so did
    "Big news: I quit the hospital and started as a UX designer at Shopify." (the verb after
    "and" took its subject from the sentence's first word, "Big")."""
    with engramdb.open(tmp_path / "s", embedder=embedder) as m:
        out = m.add_conversation([{"role": "user", "content": t, "created_at": T0 + d * DAY} for t, d in chat],
                                 namespace="u")
        (later, earlier), = out["changed"]
        res = m.recall(question, namespace="u", k=2, now=T0 + day * DAY, reinforce=False)
        assert res.hits[0].id == later and employer in res.hits[0].text
        assert any(w.later == later and {w.source, w.target} == {later, earlier} for w in res.warnings)


@pytest.mark.parametrize("text, employer", [
    ("I'm starting at Skyscanner as a senior analyst in May.", ("skyscanner",)),
    ("I started at Globex as a data engineer.", ("globex",)),
    ("I started at Globex as a data engineer last spring.", ("globex",)),
    ("The movie is starting at 8 as planned.", None),
    ("I might start at Google as an intern.", None),
    ("I started at Globex as a data engineer three years ago and left last month.", None),
    ("I start at Stripe as a data engineer on Monday.", ("stripe",)),
    ("Next month I start at Shopify as a designer.", ("shopify",)),
    # (helper110: what follows the role says the job is over)
    ("I started at Google as an engineer but I left last year.", None),
    ("I started at Google as an engineer before moving to Meta.", None),
    ("I started at Acme as an intern and quit after a week.", None),
    ("My brother starts at Google as an engineer.", None),
    # helper-203: the role before the company
    ("Big news: I got a new job! I'm starting as a clinical research coordinator at Abbott in April.", ("abbott",)),
    ("I started as a junior designer at Figma last week.", ("figma",)),
    ("I'm starting at Monday's standup.", None),
    ("I started at 9am today.", None),
    ("The race started at Central Park.", None),
    ("My sister is starting as a nurse at Mercy in May.", None),
    ("I might start as an intern at Google.", None),
    # helper-204: without a role, or as a student, member or volunteer, a place is no employer
    ("I start at Stanford in the fall.", None),
    ("I'm starting as a freshman at Stanford in the fall.", None),
    ("I'm starting at Planet Fitness tomorrow.", None),
    ("I'm starting at Christmas.", None),
    ("I'm starting at Stanford as a student.", None),
    ("I'm starting as a volunteer at the Red Cross.", None),
])
def test_starting_at_a_company_as_a_role(text, employer):
    got = [s.value for s in standings(text) if s.relation == "employer"]
    assert got == ([employer] if employer else [])



@pytest.mark.parametrize("text,value", [
    ("I work night shifts as an ER nurse at Denver Health.", ("denver", "health")),
    ("I work nights as a nurse at Denver Health.", ("denver", "health")),
    ("I work part-time as a barista at Blue Bottle.", ("blue", "bottle")),
    ("I work weekends as a cashier at Target.", ("target",))])
def test_shifts_between_work_and_as_hide_no_employer(text, value):
    """helper-224: "I work night shifts as an ER nurse at Denver Health" named no employer, so the
    new job at Kaiser Permanente changed nothing and both answered "where do I work?"."""
    assert standings(text) == (Standing("employer", value),)
    assert standings("My wife " + text[2:].replace("work", "works", 1)) == ()
