"""Languages: the catalogues are complete and match the source, a whole game speaks each
language without an English sentence, /language works in groups and in private, and
distances are read in any unit and shown in the chat's.

When a text is added to the code, ``hideseek-chat i18n extract`` puts it into the template
and the catalogues (untranslated), and these tests fail until it is translated.
"""

from __future__ import annotations

import gettext
import io
import string
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from hideseek_chat.chat import catalogue, i18n
from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.i18n import LANGUAGES, Formatter, compile_po
from hideseek_chat.chat.model import ChatKind, CommandIn, Sender
from hideseek_chat.chat.parsing import parse_ask
from hideseek_chat.chat.texts import say
from hideseek_chat.console.table import Table
from hideseek_chat.rules.ruleset import Size
from hideseek_chat.rules.ruleset_loader import load_ruleset
from hideseek_chat.rules.state import CardZone, GameState, Phase
from hideseek_chat.store import UnitOfWorkFactory

SHIPPED = [language for language in LANGUAGES if language != "en"]
START = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)
HIDER_SPOT = (36.12622, -97.06401)  # by the Gallagher-Iba station of the Stillwater map
SEEKERS_START = (36.14000, -97.08000)


# ------------------------------------------------------------------ the catalogues


def test_the_template_holds_exactly_the_texts_of_the_source() -> None:
    problems = catalogue.check_template()
    assert problems == [], "run `hideseek-chat i18n extract`:\n" + "\n".join(map(str, problems))


@pytest.mark.parametrize("language", SHIPPED)
def test_every_text_is_translated_with_the_same_placeholders(language: str) -> None:
    problems = catalogue.check_language(language)
    assert problems == [], "\n".join(map(str, problems))


def _write(path: Path, catalog: Catalog) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    write_po(buffer, catalog)
    path.write_bytes(buffer.getvalue())


def test_the_check_finds_missing_fuzzy_and_mismatched_entries(tmp_path: Path) -> None:
    template = Catalog(project="hideseek_chat")
    for msgid in ("Hello {name}", "Bye", "Later", ("{count} card", "{count} cards"), "{h} h"):
        template.add(msgid)
    _write(tmp_path / "hideseek_chat.pot", template)
    german = Catalog(locale="de", project="hideseek_chat")
    german.add("Hello {name}", "Hallo {nam}")  # a misspelt placeholder
    german.add("Bye", "Tschüss", flags=("fuzzy",))
    # "Later" is missing
    german.add(("{count} card", "{count} cards"), ("eine Karte", "{count} Karten"))  # fine
    german.add("{h} h", "{h:02d} Std.")  # another format spec is another placeholder
    _write(tmp_path / "de" / "LC_MESSAGES" / "hideseek_chat.po", german)
    spanish = Catalog(locale="es", project="hideseek_chat")
    spanish.add(("{count} card", "{count} cards"), ("{count} carta", "cartas", "cartas"))  # plural lost it (2 or 3 forms: CLDR 46 gave Spanish a "many")
    _write(tmp_path / "es" / "LC_MESSAGES" / "hideseek_chat.po", spanish)

    found = {(p.msgid, p.what) for p in catalogue.check_language("de", tmp_path)}
    assert found == {
        ("Hello {name}", "placeholders ['nam'] instead of ['name']"),
        ("Bye", "fuzzy"),
        ("Later", "not translated"),
        ("{h} h", "placeholders ['h:02d'] instead of ['h']"),
    }
    spanish_problems = [p.what for p in catalogue.check_language("es", tmp_path)]
    assert any(what.startswith("plural form 1") for what in spanish_problems)


def test_plural_forms_follow_each_language() -> None:
    german, spanish = Formatter("de"), Formatter("es")
    one, many = "{count} point", "{count} points"
    assert (german.n(one, many, 1), german.n(one, many, 3)) == ("1 Punkt", "3 Punkte")
    assert (spanish.n(one, many, 1), spanish.n(one, many, 3)) == ("1 punto", "3 puntos")


def test_an_installed_package_reads_the_compiled_catalogue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside a checkout there are no .po files, only the .mo the build compiled."""
    target = tmp_path / "de" / "LC_MESSAGES"
    target.mkdir(parents=True)
    (target / "hideseek_chat.mo").write_bytes(compile_po(catalogue.po_path("de")))
    monkeypatch.setattr(i18n, "checkout_locales", lambda: None)
    monkeypatch.setattr(i18n, "package_locales", lambda: tmp_path)
    i18n.translations.cache_clear()
    try:
        assert isinstance(i18n.translations("de"), gettext.GNUTranslations)
        assert Formatter("de").t("Yes") == "Ja"
        assert Formatter("es").t("Yes") == "Yes"  # no Spanish .mo in this package
    finally:
        i18n.translations.cache_clear()


# ------------------------------------------------------------------ values


def test_distances_and_durations_follow_the_locale_and_the_units() -> None:
    assert Formatter("de").distance(1234) == "1,23 km"
    assert Formatter("es", "imperial").distance(1609.344 * 2.5) == "2,5 mi"
    assert Formatter("de").distance(1) == "1 m"  # not CLDR's "1 Meter" beside "2 m"
    assert Formatter("en", "imperial").distance(100) == "328 ft"
    assert Formatter("de").duration(3900) == "1 h 05 min"
    assert Formatter("de").duration(2 * 86400 + 3 * 3600) == "2 Tg. 3 h"
    assert Formatter("es").duration(2 * 86400 + 3 * 3600) == "2 d 3 h"
    assert Formatter("de").names(["A", "B", "C"]) == "A, B und C"


@pytest.mark.parametrize(
    ("ruleset", "typed", "question", "custom_m"),
    [
        ("metric", ("radar", "1km"), "radar-1km", None),
        ("metric", ("radar", "1000", "m"), "radar-1km", None),
        ("metric", ("radar", "0.5mi"), "radar-custom", 804.672),
        ("metric", ("radar", "3", "millas"), "radar-custom", 4828.032),
        ("metric", ("radar", "1000yd"), "radar-custom", 914.4),
        ("us", ("radar", "1mi"), "radar-1mi", None),
        ("us", ("radar", "1,5", "km"), "radar-custom", 1500.0),
        ("us", ("radar", "2640ft"), "radar-0.5mi", None),
        ("us", ("radar", "500", "Meter"), "radar-custom", 500.0),
    ],
)
def test_distances_are_read_in_any_unit_in_every_ruleset(
    ruleset: str, typed: tuple[str, ...], question: str, custom_m: float | None
) -> None:
    asked = parse_ask(typed, load_ruleset(ruleset), Size.LARGE)
    assert asked.question_id == question
    assert asked.distance_m == pytest.approx(custom_m) if custom_m else asked.distance_m is None


# ------------------------------------------------------------------ /language


@pytest.fixture
def table(uow_factory: UnitOfWorkFactory) -> Table:
    table = Table(Conversation(uow_factory, seeds=lambda: 11), START)
    for name in ("Alice", "Bob"):
        table.person(name)
    return table


def test_the_admin_sets_the_group_language(table: Table) -> None:
    table.send("Bob", "/language de")  # no game yet: anyone may choose
    assert table.last() == "Ich spreche hier ab jetzt Deutsch."
    table.send("Alice", "/newgame")
    assert "Hide+Seek-Spiel" in table.said()[-1].text
    table.send("Bob", "/language es")  # now the game's admin decides
    assert table.last() == "Das kann nur der Admin des Spiels."
    table.send("Alice", "/language Español")
    assert table.last() == "A partir de ahora hablaré español aquí."
    table.send("Alice", "/language klingon")
    assert table.last().startswith("No hablo «klingon». Idiomas: /language en (English)")
    table.send("Alice", "/language")
    assert table.last().startswith("Aquí hablo español. Idiomas:")
    table.send("Alice", "/language en-GB")
    assert table.last() == "I will speak English here."


def test_a_new_group_speaks_its_admins_app_language(table: Table) -> None:
    def newgame(chat: str, language: str | None) -> None:
        table.deliver(
            CommandIn(
                chat=chat,
                kind=ChatKind.GROUP,
                sender=Sender("console:alice", "Alice", language),
                at=START,
                name="newgame",
            )
        )

    newgame("console:viennese", "de-AT")
    assert "Hide+Seek-Spiel" in table.said("console:viennese")[-1].text
    newgame("console:tokyo", "ja")  # not shipped: English
    assert "new game of Hide+Seek" in table.said("console:tokyo")[-1].text
    table.deliver(  # a group that chose a language keeps it
        CommandIn(
            chat=table.group,
            kind=ChatKind.GROUP,
            sender=Sender("console:alice", "Alice", "en"),
            at=START,
            name="language",
            args=("es",),
        )
    )
    newgame(table.group, "de")
    assert "nueva partida" in table.said()[-1].text


def test_a_person_reads_private_messages_in_their_own_language(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    table.send("Bob", "/language de", private=True)
    assert table.last("Bob") == "Ich spreche mit dir in unserem privaten Chat ab jetzt Deutsch."
    table.send("Alice", "/newgame small metric")
    table.send("Bob", "/join")
    table.send("Alice", "/begin")
    hider, seeker = hider_and_seeker(table, uow_factory)
    table.send(hider, "/hand", private=True)
    table.send(seeker, "/hand", private=True)
    bob, alice = table.last("Bob"), table.last("Alice")
    assert bob.startswith("🃏 Deine Hand") and alice.startswith("🃏 Your hand")
    group = "\n".join(line.text for line in table.said())
    assert "The game is on!" in group and "Das Spiel läuft" not in group
    secret = "Du versteckst dich" if hider == "Bob" else "You're hiding"
    assert any(secret in line.text for line in table.said(hider))
    table.send("Bob", "/help", private=True)
    assert table.last("Bob").startswith("🕵️ Hide+Seek-Schiedsrichter")
    table.send("Bob", "/help")
    assert table.last().startswith("🕵️ Hide+Seek referee")


# ------------------------------------------------------------------ a whole game


def state_of(uow_factory: UnitOfWorkFactory, table: Table) -> GameState:
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        return loaded.state


def hider_and_seeker(table: Table, uow_factory: UnitOfWorkFactory) -> tuple[str, str]:
    state = state_of(uow_factory, table)
    names = {person.ref: person.name for person in table.people.values()}
    hider = state.hider_team_id()
    assert hider is not None
    (hiding,) = [names[p.ref] for p in state.team_players(hider)]
    (seeking,) = [names[p.ref] for p in state.players if names[p.ref] != hiding]
    return hiding, seeking


def press(table: Table, name: str, verb: str, suffix: str = "", mark: str = "") -> None:
    """``name`` presses their newest button of ``verb`` (its data and label, not its words)."""
    chats = (table.person(name).ref, table.group)
    for line in reversed(table.lines):
        if line.chat not in chats or line.deleted or line.author != "bot":
            continue
        for button in (b for row in line.buttons for b in row):
            data = button.data
            if (
                data.startswith(f"{verb}:")
                and data.endswith(suffix)
                and button.label.startswith(mark)
            ):
                table.press_data(name, data, line)
                return
    raise AssertionError(f"{name} has no {verb!r} button")


def give_cards(uow_factory: UnitOfWorkFactory, table: Table, team_id: int, *def_ids: str) -> None:
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        state = loaded.state
        for def_id in def_ids:
            card = next(c for c in state.cards_in(CardZone.DECK) if c.def_id == def_id)
            card.zone, card.holder_team_id = CardZone.HAND, team_id
            card.position = 100 + card.id
        uow.games.save(loaded.id, state)
        uow.commit()


def hide(table: Table, hider: str, seeker: str) -> None:
    """The hiding period: the hider reaches the station, the seeker waits at the start."""
    table.pin(hider, 36.1300, -97.0700, private=True)
    table.pin(seeker, *SEEKERS_START)
    table.wait(timedelta(minutes=20))
    table.pin(hider, *HIDER_SPOT, private=True, edited=True)
    table.wait(timedelta(minutes=10, seconds=30))


def answer(table: Table, hider: str) -> None:
    """The hider sends the suggested answer and keeps the first card offered."""
    press(table, hider, "ans", mark="👉")
    press(table, hider, "keep")


def catch(table: Table, hider: str, seeker: str) -> None:
    """The seeker walks into the zone (the end game), up to the hider, and claims the catch."""
    for lat, lon in ((36.1285, -97.0650), (36.1275, -97.0645)):
        table.wait(timedelta(minutes=1))
        table.pin(seeker, lat, lon, edited=True)
    table.wait(timedelta(minutes=3))
    table.pin(seeker, HIDER_SPOT[0] + 0.00001, HIDER_SPOT[1], edited=True)
    table.send(seeker, "/found")
    press(table, hider, "catch", suffix=":y")


def play_a_game(table: Table, uow_factory: UnitOfWorkFactory, language: str) -> list[str]:
    """Two players, two rounds: every kind of question, a veto, a late answer, a curse cast
    and cleared, the end game and the catch, the scores; the group speaks ``language`` from
    the game's second message on: return what the bot showed since."""
    table.send("Alice", "/newgame small metric")
    table.send("Alice", f"/language {language}")
    lines, toasts = len(table.lines), len(table.toasts)
    press(table, "Bob", "join")
    table.send("Alice", "/settings")
    table.send("Alice", "/begin")
    table.send("Alice", "/help")
    hider, seeker = hider_and_seeker(table, uow_factory)
    team = state_of(uow_factory, table).hider_team_id()
    assert team is not None
    give_cards(uow_factory, table, team, "veto", "zoologist")
    hide(table, hider, seeker)
    table.send(seeker, "/ask")
    table.send(seeker, "/ask radar 1km")
    answer(table, hider)
    table.send(seeker, "/ask thermometer 1km")
    for lat, lon in ((36.1380, -97.0780), (36.1350, -97.0750), (36.1320, -97.0720)):
        table.wait(timedelta(minutes=2))
        table.pin(seeker, lat, lon, edited=True)
    table.wait(timedelta(minutes=2))
    table.pin(seeker, 36.1300, -97.0700, edited=True)
    answer(table, hider)
    table.send(seeker, "/ask matching park")
    answer(table, hider)
    table.send(seeker, "/ask radar 2km")
    press(table, hider, "veto")
    table.send(seeker, "/ask radar 5km")
    table.wait(timedelta(minutes=6))
    press(table, hider, "ans", mark="👉")  # late: no cards to keep
    table.send(hider, "/hand", private=True)
    table.send(hider, "/track", private=True)
    zoologist = next(
        c.id
        for c in state_of(uow_factory, table).cards_in(CardZone.HAND, team)
        if c.def_id == "zoologist"
    )
    press(table, hider, "play", suffix=f":{zoologist}")
    press(table, hider, "play", suffix=":c")
    table.send(seeker, "/status")
    press(table, seeker, "clear")
    catch(table, hider, seeker)
    table.send(seeker, "/score")
    # Round two: the other player hides, starting at once.
    press(table, seeker, "next")
    hider, seeker = seeker, hider
    hide(table, hider, seeker)
    catch(table, hider, seeker)
    assert state_of(uow_factory, table).phase == Phase.GAME_OVER
    shown = [line for line in table.lines[lines:] if line.author == "bot"]
    texts = [line.text for line in shown]
    texts += [b.label for line in shown for row in line.buttons for b in row]
    return texts + [toast for _, toast in table.toasts[toasts:]]


def english_sentences(language: str) -> set[str]:
    """The English word groups of every msgid that its ``language`` translation changes."""
    translated = catalogue.read_catalog(catalogue.po_path(language), language)
    found = set()
    for message in catalogue.read_catalog(catalogue.template_path()):
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = translated.get(message.id)
        forms = "\n".join(catalogue._strings(strings)) if strings else ""
        for msgid in ids:
            for literal, *_ in string.Formatter().parse(msgid):
                words = literal.strip(" .,:;()—–-")
                if len(words.split()) >= 2 and words not in forms:
                    found.add(words)
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_whole_game_speaks_the_groups_language(
    table: Table, uow_factory: UnitOfWorkFactory, language: str
) -> None:
    texts = play_a_game(table, uow_factory, language)
    said = "\n".join(texts)
    untranslated = sorted({s for s in english_sentences("de") if s in said})
    if language == "en":
        assert len(untranslated) > 100  # the check sees English when there is some
        return
    untranslated = sorted({s for s in english_sentences(language) if s in said})
    assert untranslated == [], [next(t for t in texts if s in t) for s in untranslated]
    words = {"de": ("Ja", "Nein", "Fluch des Zoologen"), "es": ("Sí", "No", "Maldición")}
    assert all(word in said for word in words[language])


@pytest.mark.parametrize("language", SHIPPED)
def test_the_demo_game_speaks_the_language_it_is_given(language: str) -> None:
    """``hideseek-chat demo --lang``: from the admin's choice on, no English sentence."""
    from hideseek_chat.console.demo import run_demo

    result = run_demo(seed=1, lang=language, write=lambda line: None)
    said = [line for line in result.chats if line.author == "bot"]
    chosen = say("chat.language_set", {}, Formatter(language))
    start = next(i for i, line in enumerate(said) if line.text == chosen)
    texts = [line.text for line in said[start:]]
    texts += [b.label for line in said[start:] for row in line.buttons for b in row]
    shown = "\n".join(texts)
    assert result.winner is not None and len(result.rounds) == 2
    untranslated = sorted(s for s in english_sentences(language) if s in shown)
    assert untranslated == [], [next(t for t in texts if s in t) for s in untranslated]


def test_the_card_and_curse_names_match_across_messages() -> None:
    """A curse is named the same in its own name, in the texts that embed it and in refusals."""
    for language, curse in (("de", "Fluch des Stadterkunders"), ("es", "Maldición del Explorador")):
        fmt = Formatter(language, ruleset=load_ruleset("metric"))
        assert fmt.card("urban-explorer").startswith(curse)
        refusal = fmt.t(
            "The Curse of the Urban Explorer is on you: no questions while riding transit or "
            "inside a station. Ask once you're out."
        )
        assert curse in refusal
    assert Formatter("de", ruleset=load_ruleset("us")).card("move") == "Umzug"
    assert Formatter("es", ruleset=load_ruleset("stillwater")).card("move") == "Mudanza"
