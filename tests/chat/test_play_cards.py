"""Cards and curses played by the book through the conversation layer (issue 16).

A hand over its limit (the hider is prompted with buttons, may play their way back, and
the seekers are never held up), time bonuses shown with their minutes, curse bonuses
reported by a seeker and confirmed by the hider, Spotty Memory's re-rolls, Veto only
while the answer window is open, and U-Turn's condition read from the pins.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from hideseek_chat.console.table import Table
from hideseek_chat.rules.state import CardZone, QuestionStatus
from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.play import (
    HIDER_SPOT,
    SEEKERS_START,
    begin,
    give_cards,
    labels,
    new_table,
    state_of,
)

#: From near the seekers' start 1.4 km towards the hider (a thermometer of 1 km is done).
THERMOMETER_WALK = [
    (36.1380, -97.0780),
    (36.1350, -97.0750),
    (36.1320, -97.0720),
    (36.1300, -97.0700),
]


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


def seeking(table: Table, size: str = "small") -> tuple[str, list[str]]:
    """A game begun and its hiding period over: the hider and the seekers' names."""
    hider, seekers = begin(table, size)
    table.pin(hider, *HIDER_SPOT, private=True)
    for seeker in seekers:
        table.pin(seeker, *SEEKERS_START)
    table.wait(timedelta(minutes={"small": 31, "medium": 61, "large": 181}[size]))
    return hider, seekers


def found(table: Table, hider: str, seeker: str) -> str:
    """A minute on, ``seeker`` stands by the hider, starts the end game and claims the
    catch; the hider confirms: the round's result as the group read it."""
    table.wait(timedelta(minutes=1))
    table.pin(seeker, HIDER_SPOT[0] + 0.00001, HIDER_SPOT[1])
    table.send(seeker, "/endgame")
    table.send(seeker, "/found")
    table.press(hider, "Yes, they found me")
    return "\n".join(line.text for line in table.said()[-4:])


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
    # The hand and its buttons come once, with the prompt (not also under "Into your hand").
    assert [line.id for line in table.said(hider, since=mark) if line.buttons] == [prompt.id]
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


def test_time_bonuses_show_their_minutes_in_the_hand_and_the_keep_buttons(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, _s2) = seeking(table, size="large")
    give_cards(uow_factory, table, "time-bonus-6")
    top_of_deck(uow_factory, table, "time-bonus-4", "veto")  # a radar draws 2, keeps 1
    table.send(hider, "/hand", private=True)
    hand = table.said(hider)[-1]
    assert "Time bonus (+15 min)" in hand.text  # a large game: 15 minutes, not 6
    assert "🗑 Time bonus (+15 min)" in labels(hand)

    table.send(s1, "/ask radar 2km")
    table.press(hider, "No")
    offer = table.said(hider)[-1]
    assert "🃏 Time bonus (+10 min)" in labels(offer) and "🃏 Veto" in labels(offer)
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
    result = found(table, hider, s1)
    assert "Time bonuses in hand: +16 min (12 min + 4 min)" in result, result
    table.send(s1, "/score")
    score = table.said()[-1].text
    assert "time bonuses +16 min" in score, score
    # The final scores say how the best run adds up too.
    table.send("Alice", "/abort")
    table.press("Alice", "Yes, end the game")
    final = next(line.text for line in reversed(table.said()) if "Game aborted" in line.text)
    assert f"{hider}: " in final and "time bonuses +16 min" in final, final


# ----------------------------------------------------------------- 7. curse bonuses, losses


def cast_from_hand(table: Table, hider: str, curse: str, *steps: str) -> None:
    table.send(hider, "/hand", private=True)
    table.press(hider, f"▶️ {curse}")
    for step in steps:
        table.press(hider, step)


def test_a_seeker_reports_the_lemon_fell_and_the_hider_confirms_the_bonus(
    uow_factory: UnitOfWorkFactory,
) -> None:
    table = new_table(uow_factory, 2)
    hider, (s1, s2) = seeking(table)
    assert hider == "Carol" and s1 == "Alice"  # Alice, the admin, seeks
    give_cards(uow_factory, table, "lemon-phylactery", "veto")
    cast_from_hand(table, hider, "Curse of the Lemon Phylactery", "Veto")
    cast = next(line for line in reversed(table.said()) if "Lemon" in line.text)
    assert "⏱️ Report the bonus: +30 min" in labels(cast) and "✅ Curse done" in labels(cast)
    table.press(s1, "Curse done")  # the lemons are on; a lemon can still fall later

    # The hider cannot award themselves the bonus.
    table.send(hider, "/penalty")
    assert "The seekers report a curse's bonus with /penalty" in table.said()[-1].text
    assert state_of(uow_factory, table).current_round.penalty_minutes == 0  # type: ignore[union-attr]

    # A seeker reports; the group hears it is reported, the hider confirms in private.
    table.press(s2, "Report the bonus")
    assert "Reported: the Curse of the Lemon Phylactery struck" in table.said()[-1].text
    confirm = table.said(hider)[-1]
    assert f"{s2} reports that the Curse of the Lemon Phylactery struck" in confirm.text
    assert state_of(uow_factory, table).current_round.penalty_minutes == 0  # type: ignore[union-attr]
    table.press(hider, "Confirm +30 min")
    assert "a bonus of 30 min" in table.said()[-1].text
    assert state_of(uow_factory, table).current_round.penalty_minutes == 30  # type: ignore[union-attr]

    # A second press of the same confirmation counts nothing more.
    table.press_data(hider, confirm.buttons[0][0].data, confirm)
    assert state_of(uow_factory, table).current_round.penalty_minutes == 30  # type: ignore[union-attr]
    # The lemon's bonus is awarded once: nothing left to report.
    table.send(s1, "/penalty")
    assert "No curse of this run can award" in table.said()[-1].text

    # Shown in /status, the round result and /score.
    table.send(s1, "/status")
    assert "Curse bonuses for the hider so far: +30 min" in table.said()[-1].text
    result = found(table, hider, s1)
    assert "Curse bonuses: +30 min" in result, result
    table.send(s1, "/score")
    assert "curse bonuses +30 min" in table.said()[-1].text


def test_the_admin_awards_a_curse_bonus_directly(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (_s1, _s2) = seeking(table)
    assert hider == "Alice"  # the admin hides first with this seed: an override needs none
    give_cards(uow_factory, table, "endless-tumble")
    cast_from_hand(table, hider, "Curse of the Endless Tumble")
    state = state_of(uow_factory, table)
    if state.round_curses()[0].no_effect:
        pytest.skip("the die cancelled the curse with this seed")
    table.send(hider, "/penalty tumble")
    table.send(hider, "/penalty endless-tumble")  # repeatable: each strike counts
    assert state_of(uow_factory, table).current_round.penalty_minutes == 20  # type: ignore[union-attr]


def test_a_lost_hangman_game_is_confirmed_by_the_hider_then_the_lockout_runs(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, _s2) = seeking(table)
    give_cards(uow_factory, table, "hidden-hangman", "time-bonus-2", "time-bonus-4")
    cast_from_hand(table, hider, "Curse of the Hidden Hangman", "+")
    cast = next(line for line in reversed(table.said()) if "Hangman" in line.text)
    assert "💀 We lost a game" in labels(cast)
    table.press(s1, "We lost a game")
    assert "counts once the hider confirms" in table.said()[-1].text
    confirm = table.said(hider)[-1]
    assert "(1 of 1)" in confirm.text
    table.press(hider, "Yes, they lost")
    assert "sit out until" in table.said()[-1].text
    table.send(s1, "/status")
    assert "the seekers sit out until" in table.said()[-1].text
    # Pressed again, the old confirmation counts nothing.
    table.press_data(hider, confirm.buttons[0][0].data, confirm)
    assert state_of(uow_factory, table).round_curses()[0].losses == 1
    table.wait(timedelta(minutes=10))
    assert any("worn off" in line.text for line in table.said()[-3:])


# ----------------------------------------------------------------- 8. Spotty Memory


def test_spotty_memory_announces_each_new_roll_and_status_shows_it(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, _s2) = seeking(table)
    give_cards(uow_factory, table, "spotty-memory", "time-bonus-2")
    cast_from_hand(table, hider, "Curse of the Spotty Memory", "Time bonus")
    closed = state_of(uow_factory, table).current_round.spotty_category  # type: ignore[union-attr]
    assert closed is not None
    table.send(s1, "/status")
    status = table.said()[-1].text
    assert "Spotty Memory:" in status and "questions are closed" in status
    assert "/cleared" not in status  # it lasts the run; nothing to clear
    question = "/ask radar 1km" if closed.value != "radar" else "/ask thermometer 1km"
    table.send(s1, question)
    if "thermometer" in question:
        walk(table, [s1], THERMOMETER_WALK)
    mark = table.mark()
    table.press(hider, "No" if "radar" in question else "Colder")
    rolled = [line.text for line in table.said(since=mark) if "Spotty Memory" in line.text]
    assert len(rolled) == 1 and "the die was rolled again. Closed now:" in rolled[0]
    now_closed = state_of(uow_factory, table).current_round.spotty_category  # type: ignore[union-attr]
    assert now_closed is not None
    table.send(s1, "/status")
    assert table.said()[-1].text.count("Spotty Memory:") == 1


# ----------------------------------------------------------------- 10. Veto's window, U-Turn


def test_a_veto_is_refused_before_a_thermometer_arrives_and_after_the_window(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, _s2) = seeking(table)
    give_cards(uow_factory, table, "veto")
    table.send(s1, "/ask thermometer 1km")
    table.send(hider, "/hand", private=True)
    table.press(hider, "▶️ Veto")
    assert "still travelling for their thermometer" in table.toasts[-1][1]
    walk(table, [s1], THERMOMETER_WALK)  # the thermometer reaches the hider
    table.press(hider, "Hotter")
    table.press(hider, "🃏")

    table.send(s1, "/ask radar 2km")
    table.wait(timedelta(minutes=6))  # the 5-minute window closes
    table.press(hider, "🚫 Veto")
    assert "Too late to veto" in table.toasts[-1][1]
    state = state_of(uow_factory, table)
    assert state.pending_question() is not None
    assert state.questions[-1].status == QuestionStatus.PENDING


def walk(table: Table, seekers: list[str], path: list[tuple[float, float]]) -> None:
    """The seekers' live locations move along ``path``, a point every two minutes."""
    for lat, lon in path:
        table.wait(timedelta(minutes=2))
        for i, seeker in enumerate(seekers):
            table.pin(seeker, lat + 0.0001 * i, lon, edited=True)


def test_the_u_turn_is_checked_from_the_seekers_pins(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, seekers = seeking(table)
    give_cards(uow_factory, table, "u-turn")
    # Towards the hider: refused with a clear reason, the card stays in the hand.
    walk(table, seekers, [(36.1380, -97.0780), (36.1350, -97.0750), (36.1320, -97.0720)])
    cast_from_hand(table, hider, "Curse of the U-Turn")
    assert "travelling towards you" in table.toasts[-1][1]
    assert not state_of(uow_factory, table).round_curses()
    # Away from the hider: cast at once, no confirmation asked.
    walk(table, seekers, [(36.1350, -97.0750), (36.1400, -97.0800), (36.1450, -97.0850)])
    cast_from_hand(table, hider, "Curse of the U-Turn")
    assert any("Curse of the U-Turn" in line.text for line in table.said()[-2:])
    assert state_of(uow_factory, table).round_curses()[0].def_id == "u-turn"


def test_the_u_turn_falls_back_to_the_hiders_word_when_pins_cannot_tell(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, _seekers = seeking(table)  # the seekers' only pins are half an hour old
    give_cards(uow_factory, table, "u-turn")
    cast_from_hand(table, hider, "Curse of the U-Turn")
    assert "confirm that you meet its casting condition" in table.said(hider)[-1].text
    table.press(hider, "Condition met")
    assert state_of(uow_factory, table).round_curses()[0].def_id == "u-turn"
