"""Cards and curses played by the book through the conversation layer (issue 16).

A hand over its limit (the hider is prompted with buttons, may play their way back, and
the seekers are never held up), time bonuses shown with their minutes, curse bonuses
reported by a seeker and confirmed by the hider, Spotty Memory's re-rolls, Veto only
while the answer window is open, and U-Turn's condition read from the pins.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.console.table import Line, Table
from hideseek_chat.rules.state import CardZone, GameState, QuestionStatus
from hideseek_chat.store import UnitOfWorkFactory

START = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)
HIDER_SPOT = (36.12622, -97.06401)  # by Gallagher-Iba, Stillwater
SEEKERS_START = (36.14000, -97.08000)


def state_of(uow_factory: UnitOfWorkFactory, table: Table) -> GameState:
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        return loaded.state


def give_cards(uow_factory: UnitOfWorkFactory, table: Table, *def_ids: str) -> list[int]:
    """Stack the deck: move the named cards from the deck to the hider's hand."""
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        state = loaded.state
        team = state.hider_team_id()
        ids = []
        for def_id in def_ids:
            card = next(c for c in state.cards_in(CardZone.DECK) if c.def_id == def_id)
            card.zone, card.holder_team_id = CardZone.HAND, team
            card.position = 100 + card.id
            ids.append(card.id)
        uow.games.save(loaded.id, state)
        uow.commit()
        return ids


def top_of_deck(uow_factory: UnitOfWorkFactory, table: Table, *def_ids: str) -> None:
    """Stack the deck: the named cards are drawn next, in this order."""
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        state = loaded.state
        deck = state.cards_in(CardZone.DECK)
        chosen = []
        for def_id in def_ids:
            card = next(c for c in deck if c.def_id == def_id and c not in chosen)
            chosen.append(card)
        rest = [c for c in deck if c not in chosen]
        for position, card in enumerate(chosen + rest):
            card.position = position
        uow.games.save(loaded.id, state)
        uow.commit()


@pytest.fixture
def table(uow_factory: UnitOfWorkFactory) -> Table:
    table = Table(Conversation(uow_factory, seeds=lambda: 11), START)
    for name in ("Alice", "Bob", "Carol"):
        table.person(name)
    return table


def seeking(table: Table, size: str = "small") -> tuple[str, list[str]]:
    """A game begun and its hiding period over: the hider and the seekers' names."""
    table.send("Alice", f"/newgame {size} metric")
    table.press("Bob", "Join the game")
    table.send("Carol", "/join")
    table.send("Alice", "/begin")
    hider = next(
        name
        for name in ("Alice", "Bob", "Carol")
        if any("You're hiding" in line.text for line in table.said(name))
    )
    seekers = [n for n in ("Alice", "Bob", "Carol") if n != hider]
    table.pin(hider, *HIDER_SPOT, private=True)
    for seeker in seekers:
        table.pin(seeker, *SEEKERS_START)
    table.wait(timedelta(minutes={"small": 31, "medium": 61, "large": 181}[size]))
    return hider, seekers


def labels(line: Line) -> list[str]:
    return [b.label for row in line.buttons for b in row]


def public_text(table: Table, seekers: list[str], since: int = 0) -> str:
    refs = {table.group} | {table.person(s).ref for s in seekers}
    return "\n".join(
        line.text
        for line in table.lines
        if line.chat in refs and line.author == "bot" and line.id > since
    )


# ----------------------------------------------------------------- 1. the hand limit


def test_over_the_limit_the_hider_is_prompted_and_nobody_waits(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, s2) = seeking(table)
    give_cards(
        uow_factory,
        table,
        "zoologist",
        "time-bonus-2",
        "time-bonus-2",
        "time-bonus-4",
        "time-bonus-4",
        "time-bonus-6",
    )
    top_of_deck(uow_factory, table, "time-bonus-12", "time-bonus-8")
    table.send(s1, "/ask radar 1km")
    table.press(hider, "No")
    mark = table.mark()
    table.press(hider, "Time bonus (+12 min)")  # the seventh card

    # The hider is prompted at once: a message with a play and a discard button per card.
    prompt = next(line for line in table.said(hider, since=mark) if "✋" in line.text)
    assert "play or discard 1 card now" in prompt.text
    buttons = labels(prompt)
    assert "▶️ Curse of the Zoologist" in buttons
    assert sum(label.startswith("🗑") for label in buttons) == 7
    # The group hears only that the hider is sorting cards.
    group = "\n".join(line.text for line in table.said(since=mark))
    assert "The hider is sorting their cards" in group
    assert "Time bonus" not in group and "Zoologist" not in group

    # The seekers are not held up: the next question goes to the hider at once.
    table.send(s2, "/ask radar 2km")
    assert any("Radar 2 km" in line.text for line in table.said(hider)[-2:])
    assert state_of(uow_factory, table).pending_question() is not None

    # Playing a card is a way back under the limit (the curse is cast, no refusal).
    table.press(hider, "▶️ Curse of the Zoologist")
    table.press(hider, "Condition met")
    assert any("Zoologist" in line.text for line in table.said()[-3:])
    state = state_of(uow_factory, table)
    assert len(state.cards_in(CardZone.HAND, state.hider_team_id())) == 6


def test_the_draw_earned_while_over_the_limit_waits_for_the_discard(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, _s2) = seeking(table)
    give_cards(uow_factory, table, *["time-bonus-2"] * 6)
    table.send(s1, "/ask radar 1km")
    table.press(hider, "No")
    table.press(hider, "🃏")
    table.send(s1, "/ask radar 2km")
    mark = table.mark()
    table.press(hider, "No")  # answering is not refused while over the limit
    assert not any("drew" in line.text for line in table.said(hider, since=mark))
    table.press(hider, "🗑")
    offer = table.said(hider)[-1]
    assert "You drew" in offer.text and any(label.startswith("🃏") for label in labels(offer))


# ----------------------------------------------------------------- 5. time bonus minutes


def test_time_bonuses_show_their_minutes_and_twins_are_numbered(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, _s2) = seeking(table, size="large")
    give_cards(uow_factory, table, "time-bonus-6")
    # Tentacles: draw 4, keep 2; two identical time bonuses among them.
    top_of_deck(uow_factory, table, "time-bonus-4", "time-bonus-4", "veto", "time-bonus-2")
    table.send(s1, "/hand")  # a seeker holds no cards, but the hider's /hand:
    table.send(hider, "/hand", private=True)
    hand = table.said(hider)[-1]
    assert "Time bonus (+15 min)" in hand.text  # large game: 15 minutes
    assert "🗑 Time bonus (+15 min)" in labels(hand)

    table.send(s1, "/ask radar 2km")
    table.press(hider, "No")
    offer = table.said(hider)[-1]
    keep = labels(offer)
    assert any("Time bonus (+10 min)" in label for label in keep), keep
    table.press(hider, "🃏 Time bonus (+10 min)")
    hand = table.said(hider)[-1]
    assert "Time bonus (+10 min)" in hand.text and "Time bonus (+15 min)" in hand.text


def test_identical_cards_in_a_keep_two_choice_are_numbered(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, _s2) = seeking(table, size="large")
    top_of_deck(
        uow_factory, table, "time-bonus-4", "time-bonus-4", "veto", "time-bonus-2", "randomize"
    )
    table.send(s1, "/ask tentacle-museum")
    table.press(hider, "Not in reach")
    offer = table.said(hider)[-1]
    keep = labels(offer)
    assert "🃏 Time bonus (+10 min) (1) + Time bonus (+10 min) (2)" in keep, keep
    assert "🃏 Time bonus (+10 min) (1) + Veto" in keep
    assert "🃏 Time bonus (+10 min) (2) + Veto" in keep


def test_the_round_result_and_the_score_show_the_bonus_minutes(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, _s2) = seeking(table)
    give_cards(uow_factory, table, "time-bonus-12", "time-bonus-4")
    table.wait(timedelta(minutes=1))
    table.pin(s1, HIDER_SPOT[0] + 0.00001, HIDER_SPOT[1])
    table.send(s1, "/endgame")
    table.send(s1, "/found")
    table.press(hider, "Yes, they found me")
    result = "\n".join(line.text for line in table.said()[-4:])
    assert "Time bonuses in hand: +16 min (12 min + 4 min)" in result, result
    table.send(s1, "/score")
    score = table.said()[-1].text
    assert "time bonuses +16 min" in score, score
