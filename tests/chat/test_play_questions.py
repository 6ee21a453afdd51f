"""Asking and answering, played through the conversation layer on the Stillwater map.

The /ask menu (categories, then a category's questions, distances of one's choice), the
Curse of the Urban Explorer at a station, a photo answer keeping its caption, and two map
rows of one place never making a truthful answer look contradicted.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from hideseek_chat.chat import ask_menu, checking, keyboards, referee
from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.drive import Capabilities
from hideseek_chat.chat.model import Button
from hideseek_chat.console.steps import parse_line, perform, script_step
from hideseek_chat.console.table import Line, Table
from hideseek_chat.rules.state import CardZone
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.checks import CheckVerdict
from hideseek_chat.store.models import EventRow
from tests.chat.play import (
    HIDER_SPOT,
    SEEKERS_START,
    START,
    begin,
    events_count,
    give_cards,
    state_of,
)

#: A Stillwater bus stop and a spot about 20 m from its pole.
STOP = "University Estates Apts"
AT_STOP = (36.14518, -97.08133)
#: About 150 m south of the stop: outside the station.
OFF_STOP = (36.14366, -97.08133)


def seeking(table: Table) -> tuple[str, str, str]:
    """Begin a small game, hide at Gallagher-Iba and start seeking: (hider, s1, s2)."""
    hider, (s1, s2) = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True)
    table.wait(timedelta(minutes=31))
    table.pin(hider, *HIDER_SPOT, private=True, edited=True)
    return hider, s1, s2


def asked_events(uow_factory: UnitOfWorkFactory) -> int:
    with uow_factory() as uow:
        rows = uow.session.scalars(select(EventRow.type)).all()
    return sum(1 for row in rows if row == "QuestionAsked")


# ----------------------------------------------------------------- Urban Explorer


def cast_urban_explorer(table: Table, uow_factory: UnitOfWorkFactory, hider: str) -> None:
    state = state_of(uow_factory, table)
    bonuses = [c.def_id for c in state.cards_in(CardZone.DECK) if c.def_id.startswith("time")]
    give_cards(uow_factory, table, "urban-explorer", *bonuses[:2])
    table.send(hider, "/hand", private=True)
    table.press(hider, "▶️ Curse of the Urban Explorer")
    table.press(hider, "Time bonus + Time bonus")
    assert state_of(uow_factory, table).current_round.urban_explorer  # type: ignore[union-attr]


def test_urban_explorer_refuses_a_question_asked_from_a_station(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1, _s2 = seeking(table)
    cast_urban_explorer(table, uow_factory, hider)
    table.pin(s1, *AT_STOP, live=False)  # standing still at the stop: not riding
    before = asked_events(uow_factory)
    table.send(s1, "/ask radar 1km")
    refusal = table.last()
    assert "Urban Explorer" in refusal and STOP in refusal, refusal
    assert "station" in refusal.lower()
    assert asked_events(uow_factory) == before
    # The same seeker a couple of minutes' walk away may ask.
    table.wait(timedelta(minutes=2))
    table.pin(s1, *OFF_STOP, live=False)
    table.send(s1, "/ask radar 1km")
    assert asked_events(uow_factory) == before + 1
    assert any("asks: Radar 1 km" in line.text for line in table.said()[-3:])


def test_a_station_alone_does_not_stop_a_question(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    _hider, s1, _s2 = seeking(table)
    table.pin(s1, *AT_STOP, live=False)
    before = asked_events(uow_factory)
    table.send(s1, "/ask radar 1km")  # no curse: asking from a station is fine
    assert asked_events(uow_factory) == before + 1


def test_urban_explorer_ignores_an_old_pin_at_a_station(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1, _s2 = seeking(table)
    table.pin(s1, *AT_STOP, live=False)
    table.wait(timedelta(minutes=20))  # a one-off pin counts for 15 minutes
    cast_urban_explorer(table, uow_factory, hider)
    before = asked_events(uow_factory)
    table.send(s1, "/ask radar 1km")
    assert asked_events(uow_factory) == before + 1


# ----------------------------------------------------------------- photos


def test_a_photo_answer_reaches_the_seekers_with_its_caption(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1, _s2 = seeking(table)
    table.pin(s1, *SEEKERS_START)
    table.send(s1, "/ask photo tree")
    before = events_count(uow_factory)
    table.photo(hider, "tg-file-oak", caption="The oak by the bench, as asked")
    assert events_count(uow_factory) > before
    relayed = [line for line in table.said() if line.photo_ref == "tg-file-oak"]
    assert len(relayed) == 1, "the photo reaches the group once"
    assert "The oak by the bench, as asked" in relayed[0].text
    assert "Photo" in relayed[0].text


def test_a_photo_without_a_caption_says_nothing_more(table: Table) -> None:
    hider, s1, _s2 = seeking(table)
    table.pin(s1, *SEEKERS_START)
    table.send(s1, "/ask photo tree")
    table.photo(hider, "tg-file-elm", caption="   ")
    relayed = [line for line in table.said() if line.photo_ref == "tg-file-elm"]
    assert relayed and "wrote" not in relayed[0].text


# ----------------------------------------------------------------- two rows of one place

#: 10 m beyond each of the two rows of Myers Park (191 m apart), away from the other row.
MYERS_SOUTH_SIDE = (36.110327, -97.084635)
MYERS_NORTH_SIDE = (36.112022, -97.083594)


def test_a_truthful_yes_about_a_park_with_two_rows_is_not_held(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, _s2) = begin(table)
    table.pin(hider, *MYERS_SOUTH_SIDE, private=True)
    table.wait(timedelta(minutes=31))
    table.pin(hider, *MYERS_SOUTH_SIDE, private=True, edited=True)
    table.pin(s1, *MYERS_NORTH_SIDE, live=False)
    table.send(s1, "/ask matching park")
    incoming = table.said(hider)[-1]
    assert "Suggested answer: Yes" in incoming.text, incoming.text
    assert "Myers Park" in incoming.text
    mark = table.mark()
    table.press(hider, "Yes")
    answered = [line.text for line in table.said(since=mark)]
    assert any("Matching: Park: Yes" in text for text in answered), answered
    assert any("✓" in text or "checked" in text.lower() for text in answered), answered
    assert not any("disagree" in line.text.lower() for line in table.said(hider, since=mark))


def test_a_tentacle_answer_naming_another_row_of_the_place_agrees() -> None:
    suggestion = referee.Suggestion(
        "named",
        "Highland Park Elementary",
        "ok",
        facts={"aliases": ["Highland Park Elementary", "Highland Park Elementary School"]},
    )
    named = checking.verdict_for(suggestion, "named", "highland park elementary school ")
    assert named == CheckVerdict.AGREED
    other = checking.verdict_for(suggestion, "named", "Stillwater High School")
    assert other == CheckVerdict.DISAGREED


# ----------------------------------------------------------------- the /ask menu


def labels(line: Line) -> list[list[str]]:
    return [[b.label for b in row] for row in line.buttons]


def menu_line(table: Table, name: str) -> Line:
    """The newest bot message in the group with buttons ``name`` can press."""
    return next(line for line, _ in table.buttons(name, chat=table.group))


def test_ask_shows_the_categories_then_a_categorys_questions(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    _hider, s1, _s2 = seeking(table)
    table.send(s1, "/ask")
    menu = table.said()[-1]
    rows = labels(menu)
    assert all(len(row) == 1 for row in rows), "one row per category"
    names = [row[0].split(" (")[0] for row in rows]
    assert names == ["Matching", "Measuring", "Radar", "Thermometer", "Photo"]  # small: no tentacle
    assert "draw 2, keep 1" in rows[2][0]  # radar's cost
    total = sum(len(row) for row in rows)

    table.press(s1, "Matching")
    screen = table.said()[-1]
    assert screen.edit_of == menu.id and not menu.buttons, "the menu was edited in place"
    assert screen.text.startswith("❓ Matching: which one?") and "draws 3" in screen.text
    rows = labels(screen)
    assert any(len(row) > 1 for row in rows), "short labels share a row"
    assert rows[-1] == ["⬅️ Back"]
    assert any("Zoo" in label for row in rows for label in row)
    assert len(rows) < sum(len(row) for row in rows) - 5  # 19 questions in 13 rows
    total += sum(len(row) for row in rows)  # 19 questions in 13 rows

    table.press(s1, "Back")
    back = table.said()[-1]
    assert back.edit_of == screen.id and [r[0].split(" (")[0] for r in labels(back)] == names

    table.press(s1, "Radar")
    radar = table.said()[-1]
    assert [r for r in labels(radar) if "1 km" in r], labels(radar)
    assert any("Distance of your choice" in label for row in labels(radar) for label in row)
    total += sum(len(row) for row in labels(radar))
    assert total < 57

    before = asked_events(uow_factory)
    table.press(s1, "1 km")
    assert asked_events(uow_factory) == before + 1
    done = table.said()[-3:]
    assert any(line.edit_of == radar.id and "Asked: Radar 1 km" in line.text for line in done)
    assert any("asks: Radar 1 km" in line.text for line in done)


def test_a_distance_of_ones_choice_is_named_once_chosen(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1, _s2 = seeking(table)
    table.pin(s1, *SEEKERS_START)
    table.send(s1, "/ask")
    table.press(s1, "Radar")
    table.press(s1, "Distance of your choice")
    table.press(s1, "Back")
    assert table.said()[-1].text.startswith("❓ Radar: which one?")
    table.press(s1, "Distance of your choice")
    screen = table.said()[-1]
    assert "/ask radar 3km" in screen.text  # any other distance can be typed
    offered = [label for row in labels(screen) for label in row]
    assert "750 m" in offered and "1 km" not in offered  # between the fixed ones, not them
    table.press(s1, "750 m")
    state = state_of(uow_factory, table)
    asked = state.round_questions()[-1]
    assert (asked.question_id, asked.distance_m) == ("radar-custom", 750.0)
    group = [line.text for line in table.said()[-3:]]
    assert any("Asked: Radar 750 m" in text for text in group), group
    assert any("asks: Radar 750 m" in text for text in group), group
    assert "Radar 750 m" in table.said(hider)[-1].text
    assert not any("Distance of your choice" in text for text in group)

    # Every later word about it names the distance chosen.
    table.send(s1, "/ask radar 1km")
    assert "Radar 750 m" in table.last(), table.last()
    table.send(s1, "/ask")
    assert "⏳ Radar 750 m is still waiting for its answer" in table.last(), table.last()
    table.press(hider, "No")
    assert any("Radar 750 m: No" in line.text for line in table.said()[-3:])
    table.press(hider, "🃏")
    table.send(s1, "/ask")
    table.press(s1, "Radar")
    table.press(s1, "Distance of your choice")
    again = table.said()[-1]
    assert any("✔ 750 m ×2" in label for row in labels(again) for label in row), labels(again)
    assert "asked before" in again.text
    table.press(s1, "✔ 750 m")
    assert any("asked before" in line.text.lower() for line in table.said()[-3:])
    assert state_of(uow_factory, table).round_questions()[-1].times_asked == 2
    table.wait(timedelta(minutes=6))
    assert any("Radar 750 m is overdue" in line.text for line in table.said()[-4:])


def test_a_question_asked_before_is_marked_on_its_categorys_screen(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1, _s2 = seeking(table)
    table.pin(s1, *SEEKERS_START)
    table.send(s1, "/ask radar 1km")
    table.press(hider, "No")
    table.press(hider, "🃏")
    table.send(s1, "/ask")
    table.press(s1, "Radar")
    rows = labels(table.said()[-1])
    assert ["✔ 1 km ×2"] in [[label for label in row if "1 km" in label] for row in rows]
    assert "asked before" in table.said()[-1].text


def test_a_medium_game_offers_tentacles(table: Table) -> None:
    table.send("Alice", "/newgame medium metric")
    table.press("Bob", "Join the game")
    table.send("Alice", "/begin")
    seeker = next(
        name
        for name in ("Alice", "Bob")
        if not any("You're hiding" in line.text for line in table.said(name))
    )
    table.wait(timedelta(minutes=61))
    table.send(seeker, "/ask")
    names = [row[0].split(" (")[0] for row in labels(table.said()[-1])]
    assert names[-1] == "Tentacle" and len(names) == 6


def test_the_hider_cannot_work_the_seekers_menu(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1, _s2 = seeking(table)
    table.send(s1, "/ask")
    menu = table.said()[-1]
    table.press(hider, "Radar", chat=table.group)
    assert "seekers" in table.toasts[-1][1].lower()
    assert menu.buttons and table.said()[-1].id == menu.id, "the menu is left as it was"


def test_without_editing_each_screen_is_a_new_message(uow_factory: UnitOfWorkFactory) -> None:
    table = Table(
        Conversation(uow_factory, seeds=lambda: 11),
        START,
        capabilities=Capabilities(pictures=False, edit_messages=False),
    )
    for name in ("Alice", "Bob", "Carol"):
        table.person(name)
    _hider, s1, _s2 = seeking(table)
    table.send(s1, "/ask")
    menu = table.said()[-1]
    table.press(s1, "Photo")
    screen = table.said()[-1]
    assert screen.id != menu.id and screen.edit_of is None
    assert screen.text.startswith("❓ Photo: which one?")
    assert ["⬅️ Back"] in labels(screen)


def test_a_category_closed_by_a_curse_is_not_offered(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1, _s2 = seeking(table)
    table.send(s1, "/ask")
    old_menu = table.said()[-1]
    state = state_of(uow_factory, table)
    bonus = next(c.def_id for c in state.cards_in(CardZone.DECK) if c.def_id.startswith("time"))
    give_cards(uow_factory, table, "spotty-memory", bonus)
    table.send(hider, "/hand", private=True)
    table.press(hider, "▶️ Curse of the Spotty Memory")
    table.press(hider, "Time bonus")
    current = state_of(uow_factory, table).current_round
    assert current is not None and current.spotty_category is not None
    closed = current.spotty_category.value.capitalize()
    table.send(s1, "/ask")
    names = [row[0].split(" (")[0] for row in labels(table.said()[-1])]
    assert closed not in names and len(names) == 4
    # A button of the closed category in an older menu says why nothing happens.
    button = next(b for row in old_menu.buttons for b in row if b.label.startswith(closed))
    table.press_data(s1, button.data, old_menu)
    assert f"No {closed} question can be asked right now" in table.toasts[-1][1]


def test_the_distances_of_ones_choice_lie_between_the_fixed_ones() -> None:
    metric = [500.0, 1000.0, 2000.0, 5000.0, 10_000.0, 15_000.0, 40_000.0]
    assert ask_menu.presets(metric, "metric") == [250, 750, 1500, 3000, 7500, 12_000, 25_000]
    mile = 1609.344
    miles = [m * mile for m in (0.2, 0.5, 1, 3, 5)]
    chosen = [round(m / mile, 6) for m in ask_menu.presets(miles, "imperial")]
    assert chosen == [0.1, 0.3, 0.75, 1.5, 4]
    assert ask_menu.presets([], "metric") == []
    assert ask_menu.round_number(0.316) == 0.3 and ask_menu.round_number(56.6) == 60


def test_short_labels_share_a_row_and_long_ones_stand_alone() -> None:
    def b(label: str) -> Button:
        return Button(label, "x")

    rows = keyboards.flow(
        [
            b("Zoo"),
            b("Park"),
            b("Museum"),
            b("A very long label indeed, yes"),
            b("Golf course"),
            b("Hospital"),
        ]
    )
    assert [[x.label for x in row] for row in rows] == [
        ["Zoo", "Park", "Museum"],
        ["A very long label indeed, yes"],
        ["Golf course", "Hospital"],
    ]


def test_the_console_sends_a_photo_with_its_caption(table: Table) -> None:
    hider, s1, _s2 = seeking(table)
    table.send(s1, "/ask photo tree")
    step = parse_line(f"@{hider} photo oak.jpg The big oak, as asked")
    assert (step.text, step.caption) == ("oak.jpg", "The big oak, as asked")
    perform(table, step)
    relayed = [line for line in table.said() if line.photo_ref == "oak.jpg"]
    assert relayed and "The big oak, as asked" in relayed[0].text
    assert script_step({"who": hider, "photo": "a.jpg", "caption": "x"}).caption == "x"


def test_the_menu_says_which_curse_stands_in_the_way(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1, _s2 = seeking(table)
    give_cards(uow_factory, table, "zoologist")
    table.send(hider, "/hand", private=True)
    table.press(hider, "▶️ Curse of the Zoologist")
    table.press(hider, "Condition met")
    table.send(s1, "/ask")
    menu = table.said()[-1]
    assert "🔮 The Curse of the Zoologist has to be cleared" in menu.text, menu.text
    assert menu.buttons, "the questions can still be looked at"
    table.press(s1, "Curse done")
    table.send(s1, "/ask")
    assert "🔮" not in table.said()[-1].text
