"""Answers checked against the pins, on the Stillwater map, on both databases.

The hider's answers are compared with what the pins say: a contradicted one is held and the
hider asked privately (with the numbers) to send it anyway or to send the pins' answer; the
group reads whether each answer was checked, never the numbers. Also: automatic answers,
end-game claims by hand (/endgame) and /review after the round.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from sqlalchemy import select

from hideseek_chat.chat.model import Button
from hideseek_chat.console.table import Line, Table
from hideseek_chat.rules.state import GameState, Phase, QuestionStatus
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.models import AnswerCheckRow, EndGameClaimRow
from tests.chat.play import (
    HIDER_SPOT,
    SEEKERS_START,
    STATION,
    begin,
    events_count,
    public_lines,
    state_of,
)

#: A distance as the bot writes it (metric: "440 m", "2.1 km", "1.58 km").
DISTANCE = re.compile(r"\d[\d.,]*\s(?:m|km)\b")
#: Lines in which the bot tells the hider the numbers behind an answer or a claim.
NUMBER_LINES = ("The seeker was", "The seekers went", "Nearest to you", "outside your zone")


def seeking(table: Table, *, live: bool = True) -> tuple[str, str, str]:
    """Begin, hide at Gallagher-Iba, set the seekers off 2.1 km away; (hider, s1, s2)."""
    hider, (s1, s2) = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True, live=live)
    table.pin(s1, *SEEKERS_START)
    table.pin(s2, SEEKERS_START[0] + 0.0001, SEEKERS_START[1])
    table.wait(timedelta(minutes=29))
    table.pin(hider, *HIDER_SPOT, private=True, live=live, edited=live)
    table.wait(timedelta(minutes=2))
    assert state_of_table(table).phase == Phase.SEEKING
    return hider, s1, s2


def state_of_table(table: Table) -> GameState:
    return state_of(table.conversation.uow_factory, table)


def checks(uow_factory: UnitOfWorkFactory) -> list[AnswerCheckRow]:
    with uow_factory() as uow:
        rows = uow.session.scalars(
            select(AnswerCheckRow).order_by(AnswerCheckRow.question_record_id)
        ).all()
        uow.session.expunge_all()
        return list(rows)


def group_text(table: Table, since: int) -> str:
    return "\n".join(line.text for line in table.said(since=since))


def button(table: Table, chat: str | None, label: str) -> tuple[Line, Button]:
    """The newest button in ``chat`` (a person's name, or the group) labelled ``label``."""
    for line in reversed(table.said(chat)):
        for row in line.buttons:
            for found in row:
                if label in found.label:
                    return line, found
    raise LookupError(label)


def suggested(table: Table, hider: str) -> str:
    """The answer the bot suggests in the hider's newest question."""
    found = re.search(r"Suggested answer: (\w+)", table.said(hider)[-1].text)
    assert found, table.said(hider)[-1].text
    return found.group(1)


def assert_numbers_stay_private(table: Table, hider: str, seekers: list[str]) -> None:
    """No distance the bot told the hider behind an answer or a claim, no station name and
    no hider coordinates reach the group or a seeker while the round runs."""
    secret = {
        match
        for line in table.said(hider)
        for row in line.text.splitlines()
        if row.startswith(NUMBER_LINES) or "outside your zone" in row
        for match in DISTANCE.findall(
            row.split(";")[0] if row.startswith("The seeker was") else row
        )
    }
    assert secret, "the hider was shown numbers"
    lines = public_lines(table, seekers)
    ended = next((i for i, line in enumerate(lines) if "Round 1 is over" in line.text), len(lines))
    for line in lines[:ended]:
        for number in secret:
            assert number not in line.text, (number, line.text)
        assert STATION not in line.text, line.text
        assert "36.126" not in line.text and "97.064" not in line.text, line.text


# ----------------------------------------------------------------- contradicting answers


def test_a_contradicted_radar_answer_is_held_until_the_hider_sends_it_anyway(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1, s2 = seeking(table)
    table.send(s1, "/ask radar 1km")
    before, mark = events_count(uow_factory), table.mark()
    table.press(hider, "Yes")  # the pins say No: the seeker is 2.1 km away
    held = table.said(hider)[-1]
    assert "the pins say “No”, not “Yes”" in held.text
    assert "2.1 km" in held.text and "1 km" in held.text
    assert "disagree" in table.toasts[-1][1]
    assert events_count(uow_factory) == before, "nothing is sent yet"
    assert "Radar 1 km: Yes" not in group_text(table, mark)
    [pending] = [q for q in state_of_table(table).questions]
    assert pending.status == QuestionStatus.PENDING

    table.press(hider, "anyway")
    group = group_text(table, mark)
    assert "Radar 1 km: Yes" in group
    assert "Sent by the hider although the pins disagreed" in group
    [row] = checks(uow_factory)
    assert (row.computed_answer, row.answer_sent, row.verdict) == ("no", "yes", "disagreed")
    assert row.confirmed_anyway and not row.automatic
    assert row.distance_m is not None and 2000 < row.distance_m < 2200
    assert row.radius_m == 1000
    assert row.answered_by == state_of_table(table).player_by_ref(table.person(hider).ref).id
    assert_numbers_stay_private(table, hider, [s1, s2])


def test_the_hider_may_send_the_pins_answer_instead(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1, _s2 = seeking(table)
    table.send(s1, "/ask radar 1km")
    mark = table.mark()
    table.press(hider, "Yes")
    [(held, anyway)] = [(line, b) for line, b in table.buttons(hider) if "anyway" in b.label]
    table.press(hider, "instead")
    group = group_text(table, mark)
    assert "Radar 1 km: No" in group and "Checked against the pins ✓" in group
    [row] = checks(uow_factory)
    assert (row.verdict, row.proposed_answer, row.answer_sent) == ("agreed", "yes", "no")
    assert not row.confirmed_anyway
    # The held choice is gone: its buttons were removed, and pressed anyway they do nothing.
    assert held.buttons == ()
    table.press_data(hider, anyway.data, held)
    assert "no longer works" in table.toasts[-1][1]
    assert "Radar 1 km: Yes" not in group_text(table, mark)


def test_an_answer_the_pins_agree_with_goes_out_at_once(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1, _s2 = seeking(table)
    table.send(s1, "/ask radar 1km")
    mark = table.mark()
    table.send(hider, "/answer no", private=True)
    group = group_text(table, mark)
    assert "Radar 1 km: No" in group and "Checked against the pins ✓" in group
    [row] = checks(uow_factory)
    assert (row.verdict, row.answer_sent, row.proposed_answer) == ("agreed", "no", None)


def test_a_typed_answer_is_checked_too(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    hider, s1, _s2 = seeking(table)
    table.send(s1, "/ask radar 1km")
    table.send(hider, "/answer yes", private=True)
    assert "the pins say “No”, not “Yes”" in table.said(hider)[-1].text
    assert checks(uow_factory)[0].verdict == "confirming"


def test_a_contradicted_thermometer(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    hider, s1, s2 = seeking(table)
    table.send(s1, "/ask thermometer 1km")
    path = [(36.1380, -97.0780), (36.1350, -97.0750), (36.1320, -97.0720), (36.1300, -97.0700)]
    for lat, lon in path:
        table.wait(timedelta(minutes=2))
        table.pin(s1, lat, lon, edited=True)
    incoming = table.said(hider)[-1].text
    assert "Suggested answer: Hotter" in incoming
    numbers = next(row for row in incoming.splitlines() if row.startswith("The seekers went"))
    table.wait(timedelta(minutes=1))
    table.pin(s1, 36.1250, -97.0600, edited=True)  # walking on does not move the thermometer
    mark = table.mark()
    table.press(hider, "Colder")
    held = table.said(hider)[-1].text
    assert "the pins say “Hotter”, not “Colder”" in held
    assert numbers in held and "from 2.1 km to 964 m away from you" in numbers
    table.press(hider, "anyway")
    group = group_text(table, mark)
    assert "Thermometer 1 km: Colder" in group and "although the pins disagreed" in group
    [row] = checks(uow_factory)
    assert (row.computed_answer, row.answer_sent, row.verdict) == ("hotter", "colder", "disagreed")
    assert row.start_m is not None and row.end_m is not None and row.end_m < row.start_m
    assert_numbers_stay_private(table, hider, [s1, s2])


@pytest.mark.parametrize(
    ("question", "answers"),
    [("measuring park", ("Closer", "Further")), ("matching park", ("Yes", "No"))],
)
def test_contradicted_map_answers(
    table: Table, uow_factory: UnitOfWorkFactory, question: str, answers: tuple[str, str]
) -> None:
    hider, s1, s2 = seeking(table)
    table.send(s1, f"/ask {question}")
    pins = suggested(table, hider)
    other = next(a for a in answers if a != pins)
    mark = table.mark()
    table.press(hider, other)
    held = table.said(hider)[-1].text
    assert f"the pins say “{pins}”, not “{other}”" in held
    assert "Boomer Lake Playground (1.58 km)" in held
    table.press(hider, "instead")
    group = group_text(table, mark)
    assert f": {pins}" in group and "Checked against the pins ✓" in group
    [row] = checks(uow_factory)
    assert row.verdict == "agreed" and row.proposed_answer == other.lower()
    assert row.seeker_place == "Boomer Lake Playground"
    assert row.hider_m is not None and row.seeker_m is not None
    assert_numbers_stay_private(table, hider, [s1, s2])


# ----------------------------------------------------------------- could not be checked


def test_a_stale_pin_cannot_check_the_answer(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    hider, s1, _s2 = seeking(table, live=False)  # one-off pins count for 15 minutes
    table.wait(timedelta(minutes=20))
    table.send(s1, "/ask radar 1km")
    assert "your last location is too old" in table.said(hider)[-1].text
    mark = table.mark()
    table.press(hider, "Yes")  # not held: the pins cannot contradict it
    group = group_text(table, mark)
    assert "Radar 1 km: Yes" in group
    assert "Could not be checked against the pins (no fresh location)" in group
    [row] = checks(uow_factory)
    assert (row.verdict, row.reason, row.computed_answer) == ("unchecked", "stale_pin", None)


def test_too_close_to_call_is_not_held(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    hider, s1, _s2 = seeking(table)
    # About 1 km north of the hider, with GPS accuracy that could put them either side.
    table.pin(s1, HIDER_SPOT[0] + 0.0090, HIDER_SPOT[1], accuracy_m=150.0, edited=True)
    table.send(s1, "/ask radar 1km")
    assert "Too close to call" in table.said(hider)[-1].text
    mark = table.mark()
    table.press(hider, "Yes")
    group = group_text(table, mark)
    assert "Radar 1 km: Yes" in group
    assert "Could not be checked against the pins (too close to call)" in group
    [row] = checks(uow_factory)
    assert row.verdict == "unchecked" and row.too_close


# ----------------------------------------------------------------- automatic answers


def test_automatic_answers(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    hider, s1, s2 = seeking(table)
    table.send("Alice", "/settings")
    table.press("Alice", "Turn automatic answers on")
    assert "Automatic answers are on" in table.said()[-1].text
    with uow_factory() as uow:
        assert uow.chats.prefs(table.group).auto_answer

    mark = table.mark()
    table.send(s1, "/ask radar 1km")
    group = group_text(table, mark)
    assert "Radar 1 km: No" in group and "Answered automatically from the pins" in group
    told = "\n".join(line.text for line in table.said(hider, since=mark))
    assert "automatic answers are on, so I answered “No” for you" in told
    assert "The seeker was 2.1 km from you" in told
    assert not any(
        b.label == "Yes"
        for line in table.said(hider, since=mark)
        for row in line.buttons
        for b in row
    )
    table.press(hider, "🃏")  # the hider still draws and keeps cards
    [row] = checks(uow_factory)
    assert (row.verdict, row.automatic, row.answer_sent) == ("agreed", True, "no")
    assert state_of_table(table).questions[0].status == QuestionStatus.ANSWERED

    # A question too close to call is left to the hider.
    table.pin(s1, HIDER_SPOT[0] + 0.0090, HIDER_SPOT[1], accuracy_m=150.0, edited=True)
    table.send(s1, "/ask radar 1km")  # asked again, so it costs more; no matter
    incoming = table.said(hider)[-1]
    assert "Too close to call" in incoming.text
    assert any(b.label.endswith("Yes") for row in incoming.buttons for b in row)
    assert state_of_table(table).questions[-1].status == QuestionStatus.PENDING

    table.send("Alice", "/settings")
    table.press("Alice", "Turn automatic answers off")
    assert "Automatic answers are off" in table.said()[-1].text
    assert_numbers_stay_private(table, hider, [s1, s2])


def test_only_the_admin_turns_automatic_answers_on(table: Table) -> None:
    seeking(table)
    table.send("Alice", "/settings")
    line, toggle = button(table, None, "automatic")
    table.press_data("Bob", toggle.data, line)
    assert "admin" in table.toasts[-1][1]
    with table.conversation.uow_factory() as uow:
        assert not uow.chats.prefs(table.group).auto_answer


# ----------------------------------------------------------------- end-game claims


def test_an_end_game_claim_the_pins_agree_with(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, (s1, _s2) = begin(table)
    table.pin(s1, *SEEKERS_START)
    table.wait(timedelta(minutes=31))  # the hider shared no location: no zone yet
    table.pin(s1, 36.1275, -97.0645, edited=True)
    table.wait(timedelta(minutes=3))
    table.pin(s1, 36.12751, -97.0645, edited=True)
    table.pin(hider, *HIDER_SPOT, private=True)  # now the zone is fixed
    assert state_of_table(table).phase == Phase.SEEKING
    mark = table.mark()
    table.send(s1, "/endgame")
    assert state_of_table(table).phase == Phase.END_GAME
    group = group_text(table, mark)
    assert f"{s1} says the seekers are in the hider's zone" in group
    assert "Checked against the pins ✓" in group
    with uow_factory() as uow:
        [claim] = uow.session.scalars(select(EndGameClaimRow)).all()
        assert (claim.verdict, claim.reason, claim.accepted) == ("agreed", "inside_zone", None)


def test_an_end_game_claim_the_pins_contradict_is_the_hiders_call(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, s1, s2 = seeking(table)
    mark = table.mark()
    table.send(s1, "/endgame")  # 2.1 km from the hider: far outside the 500 m zone
    assert state_of_table(table).phase == Phase.SEEKING
    group = group_text(table, mark)
    assert "the pins don't put them inside the zone" in group and "hider decides" in group
    assert not DISTANCE.findall(group)
    told = table.said(hider)[-1]
    assert f"{s1} claims the end game, but their last pin" in told.text
    assert "1.53 km outside your zone" in told.text
    table.press(hider, "Refuse")
    assert f"The hider refused {s1}'s end-game claim" in table.said()[-1].text
    assert state_of_table(table).phase == Phase.SEEKING

    table.send(s2, "/endgame")
    mark = table.mark()
    table.press(hider, "Accept")
    assert state_of_table(table).phase == Phase.END_GAME
    group = group_text(table, mark)
    assert f"{s2} says the seekers are in the hider's zone" in group
    assert "The pins disagreed, but the hider accepted the claim." in group
    with uow_factory() as uow:
        claims = uow.session.scalars(select(EndGameClaimRow).order_by(EndGameClaimRow.id)).all()
        assert [(c.verdict, c.reason, c.accepted) for c in claims] == [
            ("disagreed", "outside_zone", False),
            ("disagreed", "outside_zone", True),
        ]
        assert claims[0].outside_m is not None and 1500 < claims[0].outside_m < 1600
    assert_numbers_stay_private(table, hider, [s1, s2])


def test_only_seekers_claim_the_end_game_and_only_the_hider_decides(table: Table) -> None:
    hider, s1, s2 = seeking(table)
    table.send(hider, "/endgame")
    assert "seekers" in table.last().lower()
    table.send(s1, "/endgame")
    _, accept = button(table, hider, "Accept")
    table.press_data(s2, accept.data)
    assert "not for you" in table.toasts[-1][1]
    assert state_of_table(table).phase == Phase.SEEKING


# ----------------------------------------------------------------- /review


def test_review_after_the_round(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    hider, s1, s2 = seeking(table)
    table.send(s1, "/ask radar 1km")
    table.press(hider, "Yes")
    table.press(hider, "anyway")
    table.press(hider, "🃏")
    table.send(s2, "/ask radar 5km")
    table.press(hider, "👉")
    table.press(hider, "🃏")

    table.send(s1, "/review")
    assert "No round is over yet" in table.last()
    table.send(s1, "/review 1")
    assert "still running" in table.last()

    # End game and catch.
    table.wait(timedelta(minutes=1))
    table.pin(s1, 36.1285, -97.0650, edited=True)
    table.wait(timedelta(minutes=1))
    table.pin(s1, 36.1275, -97.0645, edited=True)
    table.wait(timedelta(minutes=3))
    table.pin(s1, HIDER_SPOT[0] + 0.00001, HIDER_SPOT[1], edited=True)
    table.send(s1, "/found")
    table.press(hider, "Yes, they found me")
    assert state_of_table(table).rounds[0].ended_at is not None

    table.send(s2, "/review")
    review = table.last()
    assert review.startswith(f"🔍 Round 1: {hider} hid around {STATION}.")
    assert f"1. Radar 1 km, asked by {s1}" in review and "answered “Yes”" in review
    assert "The pins said “No”; the hider sent “Yes” anyway." in review
    assert "The seeker was 2.1 km from the hider; the radar reached 1 km." in review
    assert f"2. Radar 5 km, asked by {s2}" in review and "The pins agreed ✓" in review

    # The admin reviews privately too.
    table.send("Alice", "/review 1", private=True)
    assert table.last("Alice").startswith("🔍 Round 1")
    other = next(name for name in ("Bob", "Carol") if name != hider)
    table.send(other, "/review", private=True)
    assert "admin" in table.last(other)
