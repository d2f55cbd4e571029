"""Replacement reports (engramdb.swaps): a thing in use replaced by another or dropped ("We moved
from Poetry to uv", "We replaced black, flake8 and isort with ruff", "I switched my editor to
Helix", "we're dropping pytest-xdist") is linked contradicts to the earlier statements that say
the old one is in use; recall puts it first when the question asks for what they said."""
from __future__ import annotations

import contextlib
import doctest

import pytest

import engramdb
from engramdb import swaps
from engramdb.changes import changes_value
from engramdb.swaps import replaced_sentences, replaces, swap_report

REPORTS = [
    ("While at it we moved from Poetry to uv, so the lockfile is uv.lock now.", [("poetry",)], ("uv",)),
    ("I switched from oat milk to almond milk because of the taste.", [("oat", "milk")], ("almond", "milk")),
    ("I switched from coffee to green tea.", [("coffee",)], ("green", "tea")),
    ("We replaced black, flake8 and isort with ruff this week.", [("black",), ("flake8",), ("isort",)], ("ruff",)),
    ("user: We swapped out Redis for Valkey last sprint.", [("redis",)], ("valkey",)),
    ("We ditched Jenkins in favour of GitHub Actions.", [("jenkins",)], ("github", "actions")),
    ("I switched my notes from Notion to Obsidian.", [("notion",)], ("obsidian",)),
    ("Decision from today's sync: we're dropping pytest-xdist.", [("pytest-xdist",)], ()),
    ("I stopped using Evernote.", [("evernote",)], ()),
    ("We got rid of Jenkins and Travis.", [("jenkins",), ("travis",)], ()),
    ("I switched my editor to Helix over the weekend.", [], ("helix",)),
    # a hostile pass (helper163): other word orders, the passive, "instead of", a plural thing
    ("We switched to uv from Poetry last week.", [("poetry",)], ("uv",)),
    ("We've migrated off Jenkins onto GitHub Actions.", [("jenkins",)], ("github", "actions")),
    ("Moved our CI off Travis to CircleCI.", [("travis",)], ("circleci",)),
    ("Jenkins was replaced by GitHub Actions this sprint.", [("jenkins",)], ("github", "actions")),
    ("We now use Podman instead of Docker.", [("docker",)], ("podman",)),
    ("I changed dentists from Dr. Patel to Dr. Kim.", [("dr.", "patel")], ("dr.", "kim")),
    ("I left Verizon for T-Mobile.", [("verizon",)], ("t-mobile",)),
    ("We finally retired Jenkins.", [("jenkins",)], ()),
    ("I canceled my Notion subscription.", [("notion",)], ()),
    ("I don't use Evernote anymore.", [("evernote",)], ()),
    ("We moved from Django to FastAPI.", [("django",)], ("fastapi",)),
    # a second hostile pass (helper164): what changed without "my", a capitalised common word or a
    # digit as the new name, a drop then a take-up
    ("Heads up: we migrated CI from CircleCI to GitHub Actions last week.", [("circleci",)], ("github", "actions")),
    ("I switched car insurance from Geico to Progressive.", [("geico",)], ("progressive",)),
    ("I've switched from Todoist to Things 3.", [("todoist",)], ("things", "3")),
    ("After the breach we replaced LastPass with 1Password.", [("lastpass",)], ("1password",)),
    ("I cancelled Spotify and switched to Apple Music.", [("spotify",)], ("apple", "music")),
    ("I gave up Lightroom and moved to Capture One.", [("lightroom",)], ("capture", "one")),
    ("I stopped seeing Dr. Okafor and started with Dr. Reyes.", [("dr.", "okafor")], ("dr.", "reyes")),
    # a fresh user (helper165): more words for what moved; "started using"; the old name again as why
    ("We migrated all the client sites from Netlify to Vercel this week.", [("netlify",)], ("vercel",)),
    ("I've started using Linear instead of Notion for tracking, Notion got too slow.", [("notion",)], ("linear",)),
    ("Also, I've moved everything out of Trello, I'm using Notion now.", [("trello",)], ()),
    # a last fresh user (helper166): why, after a drop
    ("And we're dropping pytest-xdist, it made the tests flaky.", [("pytest-xdist",)], ()),
    ("We're dropping pytest-xdist because it made the tests flaky.", [("pytest-xdist",)], ()),
    # a move forced by the old one's end (helper165)
    ("Since Mint shut down I switched to YNAB.", [("mint",)], ("ynab",)),
    ("After Evernote got acquired, we moved everything to Obsidian.", [("evernote",)], ("obsidian",)),
    ("Because Mint is shutting down, I switched to YNAB.", [("mint",)], ("ynab",)),
    # helper168: a price after the new one, "I've been using"
    ("I cancelled PureGym and joined The Gym Group in Chorlton, it's only £24.99.", [("puregym",)], ("gym", "group")),
    ("I've been using Things 3 instead of Todoist this week.", [("todoist",)], ("things", "3")),
]
NOT_REPORTS = [
    "Things went from bad to worse.",
    # helper-229: no thing in use, an occasion, a place in the house
    "I went from zero to hero this year.",
    "I switched from slow cooker to instant pot for tonight's chili.",
    "I moved from the living room to the kitchen.",
    "I moved from first base to second base.",
    "I switched from oat milk to almond milk cartons for the bake sale.",   # the new thing's phrase goes on
    "Since Mint shut down my friend switched to YNAB.",     # another's
    "Since Mint shut down I might switch to YNAB.",         # a plan
    "We might move from Poetry to uv.",                 # a plan
    "We need to switch from Poetry to uv.",
    "Should we move from Poetry to uv?",                # a question
    "assistant: You could replace black with ruff.",    # advice
    "In 2019 we moved from Jenkins to Travis.",         # history
    "We didn't replace black with ruff.",               # negated
    "Moved standup from 9am to 10am.",                  # a time: engramdb.changes
    "Also switched my mum call to Saturdays at 5pm.",   # a day: engramdb.changes
    "I dropped the kids off at school.",
    "I changed my mind.",
    "In my dream we replaced Python with Rust.",        # a story
    # a hostile pass (helper163): another's switch, a plan, history, undone or partial, someone's
    # words, a question without its mark, an object or part dropped, an occasion
    "My friend switched from Poetry to uv.",
    "Maria moved from Jira to Linear last week.",
    "The other team migrated from Jenkins to Buildkite.",
    "They switched from Slack to Teams.",
    "He dropped Vim for Emacs.",
    "Next sprint we're migrating from Poetry to uv.",
    "We'll be moving from Heroku to Render soon.",
    "Let's switch from npm to pnpm.",
    "Back at my old job we moved from SVN to Git.",
    "Years ago we switched from Perl to Python.",
    "We moved from Poetry to uv, then back to Poetry.",
    "We moved from Poetry to uv in the docs, but the app still uses Poetry.",
    "We moved from Jenkins to Buildkite for one repo only.",
    "The article says everyone moved from Poetry to uv.",
    "How do I migrate from Poetry to uv",
    "Write a guide on migrating from Webpack to Vite.",
    "I dropped my phone in the sink.",
    "I removed Docker images to free some disk space.",
    "We stopped using Notion templates.",
    "I switched from French to English for the presentation.",
    "I switched my Spotify to Premium.",
    # a second hostile pass (helper164): a time of life, a scope, an occasion
    "In college I switched from Notion to paper journals.",
    "For analytics we use ClickHouse instead of Postgres.",
    "In the pancake recipe I swapped Oatly for regular milk.",
    "We're dropping Slack for the hackathon weekend and using Discord.",
]


def test_the_module_examples_hold():
    assert doctest.testmod(swaps).failed == 0


@pytest.mark.parametrize("text,old,new", REPORTS)
def test_a_report_reads_what_was_replaced_and_by_what(text, old, new):
    got = swap_report(text)
    assert got is not None and list(got.old) == old and got.new == new


@pytest.mark.parametrize("text", NOT_REPORTS)
def test_what_is_no_replacement(text):
    assert swap_report(text) is None


REPLACED = [
    ("We moved from Poetry to uv.", "Quick context: it's a FastAPI app on Python 3.11. We use Poetry for dependencies."),
    ("We replaced black, flake8 and isort with ruff.", "Formatting: black with line length 100, flake8 for linting."),
    ("We replaced black, flake8 and isort with ruff.", "assistant: Noted: black (100 columns), flake8, isort."),
    ("Decision from today's sync: we're dropping pytest-xdist.",
     "Tests live in tests/unit, and we run them in parallel with pytest-xdist (-n auto)."),
    ("I switched my editor to Helix.", "I use VS Code as my editor."),
    ("We moved from uv to pdm.", "While at it we moved from Poetry to uv."),   # a report before
    ("We swapped out Redis for Valkey.", "We run Redis for the rate limiter and my team loves it."),
    ("Moved our CI off Travis to CircleCI.", "Our CI runs on Travis."),
    ("We've migrated off Heroku onto Fly.io.", "We deploy on Heroku."),
    ("I changed dentists from Dr. Patel to Dr. Kim.", "My dentist is Dr. Patel."),
    ("I left Verizon for T-Mobile.", "I'm with Verizon."),
    ("We moved from Django to FastAPI.", "We use Django for the backend."),
    # a second hostile pass (helper164): more ways to say a thing is in use
    ("We replaced Sentry with Rollbar.", "Sentry handles our error tracking."),
    ("We moved off Jira onto Linear this sprint.", "Jira: our issue tracker."),
    ("I switched my browser to Firefox.", "I use Chrome as my main browser."),
    ("We've migrated from Heroku to Fly.io.", "We deploy everything on Heroku."),
    ("I stopped using Evernote.", "I take notes in Evernote."),
    ("We've retired SonarQube.", "We use Jenkins, SonarQube and Nexus in the pipeline."),
    ("We replaced Prettier with Biome.", "Formatting is handled by Prettier."),
    ("I stopped seeing Dr. Okafor and started with Dr. Reyes.", "My therapist is Dr. Okafor."),
    ("We migrated all the client sites from Netlify to Vercel.", "My hosting for client sites is Netlify, by the way."),
    ("Also, I've moved everything out of Trello, I'm using Notion now.", "I track tasks in Trello and invoice with FreeAgent."),
    ("Since Mint shut down I switched to YNAB.", "I use Mint to track my budget."),
    # helper168: where the speaker keeps things, what the speaker pays for; an aside after a comma
    ("I finally ditched LastPass, everything's in 1Password now.",
     "All my passwords are in LastPass, which I'm not thrilled about after their breach."),
    ("I've been using Things 3 instead of Todoist this week.",
     "I keep my to-do list in Todoist, so if you suggest tasks, phrase them so I can paste them in."),
    ("I moved my notes from Notion to Obsidian.", "My notes live in Notion."),
    ("Also I'm cancelling Netflix, we never watch it.", "Netflix standard is £10.99, and Audible is £7.99."),
    ("I cancelled Netflix.", "I pay for Netflix standard, £10.99 a month."),
    ("I cancelled PureGym and joined The Gym Group in Chorlton, it's only £24.99.", "PureGym membership, £38 a month."),
    # helper-227: a thing of two lower-case words, and what the speaker prefers, drinks, eats or takes
    ("I switched from oat milk to almond milk.", "I prefer oat milk in my coffee."),
    ("I switched from whole milk to oat milk in my latte.", "I drink whole milk with breakfast."),
    ("I've switched from coffee to green tea in the mornings.", "I drink coffee every morning."),
    ("I switched from Adderall to Vyvanse.", "I take Adderall in the morning."),
    ("We switched from night shifts to day shifts.", "I like night shifts, the ward is quiet."),
    # helper-229: an employer left, as engramdb.standing reads the employer
    ("I quit Hooli yesterday.", "I work at Hooli."),
    ("I got laid off from Hooli last week.", "I'm a designer at Hooli."),
    ("I resigned from Hooli.", "I work at Hooli as a PM."),
    ("I quit my job at Hooli.", "I started a new job at Hooli."),
    # helper-230: a quantity before the thing
    ("I switched from flat whites to green tea.", "I drink two flat whites every morning."),
    # helper-231: what the speaker puts in or adds
    ("I switched from oat milk to almond milk.", "I always put oat milk in my coffee."),
    ("I switched from oat milk to almond milk.", "I add oat milk to my coffee."),
    # helper-230: a thing consumed given up, named in lower case; notice handed in; "my job" quit
    ("I've quit coffee. Green tea only from now on.", "I drink coffee every morning."),
    ("I gave up sugar.", "I take sugar in my tea."),
    ("I stopped drinking soda.", "I drink soda with lunch."),
    ("I stopped taking metformin.", "I take metformin 500 mg every morning."),
    # several things given up at once
    ("I quit coffee and sugar.", "I drink coffee and eat sugar every day."),
    ("I quit coffee and sugar.", "I eat sugar every day."),
    ("I gave up coffee, tea and soda.", "I drink tea every evening."),
    ("I handed in my notice at Northwind today.", "I work at Northwind as an analyst."),
    ("Gave my notice to Northwind on Monday.", "I work at Northwind as an analyst."),
    ("I quit my job today!", "I'm an analyst at Northwind."),
    # helper-232: a version upgraded to, or moved from and to
    ("We upgraded to Python 3.12.", "We use Python 3.10."),
    # a version the speaker is on now: the upgrade said as the state after it
    ("We're on Python 3.12 now.", "We use Python 3.11 for the backend."),
    ("We're now on Python 3.12.", "We use Python 3.11."),
    ("I'm now using Node 20.11", "I use Node 18.2 for the API."),
    ("We bumped React to 18.3 last week.", "We use React 17.0.2 for the frontend."),
    ("We upgraded Node to 20.", "We run Node 18 in production."),
    ("We moved from Python 3.10 to 3.12.", "We use Python 3.10."),
]
NOT_REPLACED = [
    ("We moved from Boston to Denver.", "My sister is in Boston."),                      # no thing of the speaker's
    ("I cancelled Netflix.", "Netflix raised prices again, the news says $15.49 a month."),  # someone's words
    ("I cancelled Netflix.", "My sister pays for Netflix, £10.99 a month."),              # another's
    ("We moved from Poetry to uv.", "We don't use Poetry, which is fine."),               # negated before the aside
    ("We moved from Poetry to uv.", "My sister's team uses Poetry."),            # another's
    ("We moved from Poetry to uv.", "My sister uses Poetry at work."),
    ("We moved from Poetry to uv.", "She swears by Poetry."),
    ("We moved from Poetry to uv.", "I used to use Poetry years ago."),          # history already
    ("We moved from Poetry to uv.", "We don't use Poetry."),                     # negated
    ("We moved from Poetry to uv.", "Is Poetry any good?"),                      # a question
    ("We moved from Poetry to uv.", "I love poetry readings."),                  # a word of it, not the name
    ("I switched my editor to Helix.", "Helix is my editor now."),               # the new one
    ("I switched my editor to Helix.", "My brother's editor is Vim."),
    ("We moved from Poetry to uv.", "We moved from Poetry to uv."),              # the same report
    # a hostile pass (helper163): a name that is no thing in use there, a common word, a longer name
    ("We finally retired Jenkins.", "Jenkins is a CI server written in Java."),
    ("We finally retired Jenkins.", "Mr. Jenkins is my kid's teacher."),
    ("We moved from Poetry to uv.", "I'm writing a talk on Poetry vs uv for PyCon."),
    ("We replaced black, flake8 and isort with ruff.", "My car is black."),
    ("We replaced black, flake8 and isort with ruff.", "I always wear black to the office."),
    ("We switched from yarn to pnpm.", "I have a yarn collection for knitting."),
    ("I switched from Chase to Ally for checking.", "I use Chase Sapphire for travel points."),
    ("We replaced Teams with Slack.", "I prefer Slack over Teams."),
    ("I switched from oat milk to almond milk.", "My sister prefers oat milk."),       # another's
    ("I switched from oat milk to almond milk.", "I tried oat milk once."),            # no use of it
    ("I switched from oat milk to almond milk.", "Do you like oat milk?"),             # a question
    ("I switched from oat milk to almond milk.", "I don't drink oat milk."),           # negated
    ("I switched from oat milk to almond milk.", "I put the oat milk back in the fridge."),   # no use of it
    # a thing given up: only what the speaker consumed, and only the speaker's giving up
    ("I quit coffee.", "The kids drink coffee."),
    ("I quit coffee.", "Coffee is great."),
    ("I quit coffee ads.", "I like coffee."),
    ("I quit coffee and sugar.", "My kids eat sugar every day."),
    ("I quit smoking and drinking.", "I drink wine on Fridays."),
    # (helper-238) a give-up undone or unsaid after it
    ("I quit coffee and sugar and then relapsed.", "I drink coffee and eat sugar every day."),
    ("I quit coffee and sugar, didn't last.", "I drink coffee and eat sugar every day."),
    ("I quit coffee and sugar, lol jk.", "I drink coffee and eat sugar every day."),
    ("I quit coffee and sugar last year but I'm back on both.", "I drink coffee and eat sugar every day."),
    ("My sister quit coffee.", "I drink coffee every morning."),
    ("I quit the gym.", "I go to the gym daily."),
    ("I quit my job.", "I drink coffee every morning."),
    ("My sister quit her job.", "I work at Northwind."),
    ("I might hand in my notice at Northwind.", "I work at Northwind as an analyst."),
    ("I gave notice to the landlord.", "I live in Boston."),
    # an upgrade replaces only another version of the thing, the speaker's
    ("We upgraded to Python 3.12.", "We use Python 3.12 already."),
    ("We upgraded to Python 3.12.", "We use Python."),
    ("We upgraded to Python 3.12.", "My sister uses Python 3.10."),
    ("We're on Python 3.12.", "We use Python 3.11."),            # no "now": a state, no change said
    ("We're on Python 3.12 now.", "We use Python 3.12."),
    ("They're on Python 3.12 now.", "We use Python 3.11."),
    ("Are we on Python 3.12 now?", "We use Python 3.11."),
    ("We might upgrade to Python 3.12.", "We use Python 3.10."),
    ("I moved to Denver 2 weeks ago.", "I use Denver 1."),
    ("We moved standup to 10.", "We run standup 9."),
    ("We moved from Python 3.10 to 3.12.", "We use Python 3.12."),
    # helper-233: hedged, scoped, partial or undone
    ("I almost quit my job today.", "I work at Northwind."),
    ("I quit my job as treasurer of the PTA.", "I work at Northwind."),
    ("I stopped drinking coffee after 3pm.", "I drink coffee every morning."),
    ("I quit coffee on weekdays.", "I drink coffee every morning."),
    ("We upgraded to Python 3.12 for the new service.", "We use Python 3.10."),
    ("We upgraded to Python 3.12 last week and reverted.", "We use Python 3.10."),
    # helper-229: another's use, a longer phrase, a thing of another verb's subject
    ("I switched from oat milk to almond milk.", "The kids drink oat milk."),
    ("I switched from oat milk to almond milk.", "Our toddler drinks oat milk."),
    ("I switched from oat milk to almond milk.", "I like oat milk ads, they're funny."),
    ("I switched from black coffee to green tea.", "I like black coffee jokes."),
    ("I switched from white rice to brown rice.", "Sushi uses white rice, I love it."),
    ("I quit Hooli yesterday.", "My brother works at Hooli."),
    ("I got laid off from Hooli last week.", "I work at Initech."),
    ("I might quit Hooli.", "I work at Hooli."),
    ("My sister quit Hooli.", "I work at Hooli."),
]


def test_a_models_notes_in_the_third_person_are_the_users(tmp_path):
    """helper-230: a memory tool's "User switched from Todoist to TickTick." changed nothing of
    "User keeps to-dos in Todoist." (the first-person pair was linked); as notes, in either order."""
    assert replaces("User switched from Todoist to TickTick.", "User keeps to-dos in Todoist.")
    assert replaces("The user switched from oat milk to almond milk.", "User prefers oat milk in coffee.")
    assert not replaces("User switched from Todoist to TickTick.", "User's sister keeps to-dos in Todoist.")
    for order in (1, -1):
        with engramdb.open(tmp_path / f"s{order}", embedder="hashing") as mem:
            for id_, text, day in [("old", "User keeps to-dos in Todoist.", "2025-01-10"),
                                   ("new", "User switched from Todoist to TickTick.", "2025-03-01")][::order]:
                mem.add(text, id=id_, created_at=day)
            assert [e.relation.value for e in mem.edges("new") if e.relation.value == "contradicts"] == ["contradicts"]


@pytest.mark.parametrize("new,old", REPLACED)
def test_a_statement_of_the_old_thing_in_use_is_replaced(new, old):
    assert replaces(new, old)


@pytest.mark.parametrize("new,old", NOT_REPLACED)
def test_what_does_not_say_the_old_thing_is_in_use_is_not_replaced(new, old):
    assert not replaces(new, old)


def test_the_replaced_sentences_are_those_naming_the_old_thing():
    earlier = "user: It's a FastAPI app on Python 3.11. We use Poetry for dependencies. Can you help?"
    assert replaced_sentences(earlier, "We moved from Poetry to uv.") == ("We use Poetry for dependencies.",)
    assert replaced_sentences(earlier, "Standup moved to 10am.") == ()


@contextlib.contextmanager
def _chat(tmp_path, *messages: tuple[str, str], embedder: str = "hashing"):
    """A store holding the user's messages ((date, text) pairs) as one chat, and what
    add_conversation returned."""
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        yield mem, mem.add_conversation([{"role": "user", "content": t, "created_at": at} for at, t in messages],
                                        session="s")


@pytest.mark.parametrize("new,old", REPLACED[:5])
def test_the_write_path_links_a_replacement_to_the_statement_it_replaces(tmp_path, new, old):
    """A fresh user (helper72): "moved from Poetry to uv", "replaced black, flake8 and isort with
    ruff" and "we're dropping pytest-xdist" were linked to nothing; the old tool came first."""
    with _chat(tmp_path, ("2025-01-10", old), ("2025-04-10", new)) as (mem, out):
        assert out["changed"] == [["s:2", "s:1"]]
        assert mem.get("s:1").state.value == "active"   # never superseded: the rules may misread


@pytest.mark.parametrize("new,old", NOT_REPLACED)
def test_the_write_path_leaves_other_statements_alone(tmp_path, new, old):
    with _chat(tmp_path, ("2025-01-10", old), ("2025-04-10", new)) as (_mem, out):
        assert out["changed"] == []


def test_a_replacement_stored_later_finds_the_statement_among_many(tmp_path):
    """The statement is found by the old name's words, however many memories lie between."""
    filler = [("2025-02-01", f"Note {i}: the staging deploy took {i + 3} minutes today.") for i in range(40)]
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_conversation([{"role": "user", "content": t, "created_at": at} for at, t in
                              [("2025-01-10", "We use Poetry for dependencies."), *filler]], session="a")
        out = mem.add_conversation([{"role": "user", "content": "We moved from Poetry to uv.",
                                     "created_at": "2025-04-10"}], session="b")
        assert out["changed"] == [["b:1", "a:1"]]


def _stored_in_reverse(tmp_path, new, old):
    """The change links of a store where the report (said in April) was stored before the
    statement it replaces (said in January): sessions imported out of date order."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_conversation([{"role": "user", "content": new, "created_at": "2025-04-10"}], session="b")
        mem.add_batch([{"text": f"Note {i}: the staging deploy took {i + 3} minutes today.",
                        "created_at": "2025-02-01"} for i in range(6)])
        mem.add_conversation([{"role": "user", "content": old, "created_at": "2025-01-10"}], session="a")
        return {e.relation.value for e in mem.edges("b:1") if {e.source, e.target} == {"a:1", "b:1"}
                and e.relation.value != "related_to"}


@pytest.mark.parametrize("new,old", REPLACED)
def test_a_statement_stored_after_a_replacement_said_later_is_linked_to_it(tmp_path, new, old):
    """The link does not depend on the order of storing: an older session imported after a newer
    one. Before, a replacement was compared with the statements stored before it only."""
    assert _stored_in_reverse(tmp_path, new, old) == {"contradicts"}


@pytest.mark.parametrize("new,old", NOT_REPLACED)
def test_other_statements_stored_after_a_replacement_are_left_alone(tmp_path, new, old):
    assert _stored_in_reverse(tmp_path, new, old) == set()


def test_a_statement_stored_after_the_replacement_said_after_it_is_not_replaced(tmp_path):
    """Said after the report, "We use Poetry for the docs build." may be a second use: no link."""
    with _chat(tmp_path, ("2025-01-10", "We moved from Poetry to uv."),
               ("2025-04-10", "We use Poetry for the docs build.")) as (_mem, out):
        assert out["changed"] == []


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
@pytest.mark.parametrize("question", ["What do we use for formatting?", "How do we run the tests in parallel?",
                                      "Which editor do I use?"])
def test_recall_puts_the_replacement_first_and_warns(tmp_path, embedder, question):
    """helper72's chat: the replaced tool came first for these questions at k=1."""
    chat = [("2025-01-10", "Formatting: black with line length 100, flake8 for linting, isort for imports."),
            ("2025-01-10", "Tests live in tests/unit, and we run them in parallel with pytest-xdist (-n auto)."),
            ("2025-01-10", "I use VS Code as my editor."),
            ("2025-01-12", "Can you suggest a lunch place near the office?"),
            ("2025-03-01", "Decision from today's sync: we're dropping pytest-xdist. CI now splits the suite across "
                           "4 runners with pytest-split."),
            ("2025-03-05", "I switched my editor to Helix over the weekend."),
            ("2025-03-09", "We replaced black, flake8 and isort with ruff this week.")]
    first = {"What do we use for formatting?": "s:7", "How do we run the tests in parallel?": "s:5",
             "Which editor do I use?": "s:6"}[question]
    with _chat(tmp_path, *chat, embedder=embedder) as (mem, out):
        assert sorted(map(tuple, out["changed"])) == [("s:5", "s:2"), ("s:6", "s:3"), ("s:7", "s:1")]
        r = mem.recall(question, k=1, now="2025-04-01", reinforce=False)
        assert r.hits[0].id == first
        ids = {(w.source, w.target) for w in mem.recall(question, k=3, now="2025-04-01", reinforce=False).warnings}
        assert any(first in pair for pair in ids)


_FILLER = ["Can you suggest a quick dinner?", "The weather was lovely today.", "I finished a great book last night.",
           "My sister visited over the weekend.", "Remind me to buy milk.", "We watched a movie on Friday.",
           "I need a birthday gift idea for my nephew.", "The traffic was awful this morning."]


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
@pytest.mark.parametrize("earlier, later, question, now_question", [
    ("I'm an RN at St. Mary's, mostly on the cardiac ward.",
     "I accepted an offer from Leeds General Infirmary! I'll be a clinical nurse educator.",
     "Where did I work before Leeds General Infirmary?", "Where do I work?"),
    ("We use Poetry for dependencies.", "While at it we moved from Poetry to uv.",
     "What did we use for dependencies before uv?", "What do we use for dependencies?"),
    ("I use VS Code as my editor.", "I switched my editor to Helix over the weekend.",
     "What editor did I use before Helix?", "What editor do I use?"),
    ("Book club is every Thursday at 7pm at the library.", "Book club has changed too: it's now on Wednesdays at 6:30pm.",
     "When was book club before it changed?", "When is book club?"),
])
def test_a_question_for_the_value_before_a_change_gets_the_earlier_one_first(tmp_path, embedder, earlier, later, question,
                                                                             now_question):
    """The earlier statement often shares no word with a question that names the new value
    ("before Leeds General Infirmary", "before uv"): reached through the change's link, it comes
    first (with hashing "I'm an RN at St. Mary's" was not among the hits, the offer first)."""
    chat = [("2025-01-10", earlier), *(("2025-02-01", t) for t in _FILLER), ("2025-04-10", later)]
    with _chat(tmp_path, *chat, embedder=embedder) as (mem, out):
        assert out["changed"] == [[f"s:{len(chat)}", "s:1"]]
        hits = mem.recall(question, k=2, now="2025-06-01", reinforce=False).hits
        assert hits[0].id == "s:1"
        assert mem.recall(now_question, k=1, now="2025-06-01", reinforce=False).hits[0].id == f"s:{len(chat)}"


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_a_word_of_using_a_thing_puts_no_change_of_another_thing_first(tmp_path, embedder):
    """A fresh user (helper165): "What do I use for invoicing?" got "I've started using Linear
    instead of Notion for project tracking" first (MiniLM): it shares "use" with the question,
    and the chain Trello -> Notion -> Linear runs through the message that named FreeAgent."""
    chat = [("2025-01-08", "I track tasks in Trello and send invoices with FreeAgent."),
            ("2025-02-04", "Also, I've moved everything out of Trello, I'm using Notion for project tracking now."),
            ("2025-04-01", "I cancelled FreeAgent and switched to Xero for invoicing, Gareth prefers it."),
            ("2025-06-10", "I've started using Linear instead of Notion for project tracking, Notion got too slow.")]
    with _chat(tmp_path, *chat, embedder=embedder) as (mem, out):
        assert sorted(map(tuple, out["changed"])) == [("s:2", "s:1"), ("s:3", "s:1"), ("s:4", "s:2")]
        for question, first in [("What do I use for invoicing?", "s:3"), ("What do I use for project tracking?", "s:4")]:
            assert mem.recall(question, k=1, now="2025-07-01", reinforce=False).hits[0].id == first, question


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_two_things_of_one_statement_replaced_apart_answer_each_their_question(tmp_path, embedder):
    """A last fresh user (helper166): "what do we use for CI?" got "we moved from Poetry to uv"
    first (the sentence that named Poetry named CI too: the clause that names it counts), and
    "what did we use before uv?" got the assistant's "uv is very fast, good call." first (a
    question that names the new value asks for the one it replaced, as relevant as the new one)."""
    chat = [("user", "We use Poetry for dependencies and Jenkins for CI at work.", "2025-01-10"),
            ("assistant", "Got it: Poetry for dependencies, Jenkins for CI.", "2025-01-10"),
            ("user", "Can you suggest a quick dinner?", "2025-02-15"),
            ("user", "Quick update: we moved from Poetry to uv.", "2025-03-20"),
            ("assistant", "uv is very fast, good call.", "2025-03-20"),
            ("user", "Also, Jenkins was replaced by GitHub Actions last week.", "2025-03-20")]
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        mem.add_conversation([{"role": r, "content": t, "created_at": f"{at}T10:{i:02d}:00Z"}
                              for i, (r, t, at) in enumerate(chat)], session="s")
        for question, first in [("what do we use for CI?", "s:6"), ("what do we use for dependencies?", "s:4"),
                                ("what did we use before uv?", "s:1")]:
            hit = mem.recall(question, k=1, now="2025-06-01", reinforce=False).hits[0]
            assert hit.id == first and hit.relevance >= 0.5, question


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_an_assistants_echo_of_the_old_tool_is_replaced_too(tmp_path, embedder):
    """A last fresh user (helper167): after "We run CI on Jenkins." and the assistant's "Got it:
    Jenkins for CI.", "We moved from Jenkins to GitHub Actions for CI." was linked to the first
    only (the move was read as one of home, whose rule refuses another speaker's statement), and
    "what do we use for CI?" got the echo first, with no warning. Another speaker's own use stays
    apart ("Alice: I use Jenkins for my side project.")."""
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        mem.add_conversation([{"role": "user", "content": "We run CI on Jenkins.", "created_at": "2025-02-03T09:00:00Z"},
                              {"role": "assistant", "content": "Got it: Jenkins for CI.",
                               "created_at": "2025-02-03T09:00:01Z"}], session="a")
        out = mem.add_conversation([{"role": "user", "content": "We moved from Jenkins to GitHub Actions for CI.",
                                     "created_at": "2025-05-12T10:00:00Z"}], session="b")
        assert sorted(map(tuple, out["changed"])) == [("b:1", "a:1"), ("b:1", "a:2")]
        r = mem.recall("what do we use for CI?", k=1, now="2025-05-13", reinforce=False)
        assert r.hits[0].id == "b:1" and r.warnings
    assert not changes_value("Bob: We moved from Jenkins to GitHub Actions.", "Alice: I use Jenkins for my side project.")
