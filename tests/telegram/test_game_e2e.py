"""A whole small game in a Telegram group, end to end, on SQLite and on PostgreSQL.

Updates go through ``Application.process_update`` of the app ``build_application`` makes,
around the real ``Conversation`` and store; the Bot API is a recorder that never touches the
network; time is a settable game clock and the app's own tick job. Three players on the
Stillwater map: a radar, a thermometer finished by live-location edits, a matching question
answered from map data, a veto, a late answer, a curse cast and cleared, the end game started
by a seeker's live location entering the zone, a catch and the round result. Nothing sent to
the group or to a seeker names the hider's station or coordinates before that result.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from hideseek_chat.rules.state import Phase
from hideseek_chat.store import UnitOfWorkFactory
from tests.telegram.e2e import (
    Secret,
    Telegram,
    assert_keeps_secret,
    chat_ids_of,
    telegram,
    user_id,
)
from tests.telegram.factories import GROUP

STATION = "Gallagher-Iba"  # 36.1267339, -97.0643939
STATION_ID = "33"
HIDER_START = (36.1300, -97.0700)
HIDER_SPOT = (36.12622, -97.06401)
SEEKERS_START = (36.14000, -97.08000)
SECRET = Secret(STATION, STATION_ID, (*HIDER_START, *HIDER_SPOT))
#: The first seeker's thermometer: about 1.1 km towards the hider, in live-location edits.
THERMOMETER_PATH = ((36.1380, -97.0780), (36.1350, -97.0750), (36.1320, -97.0720), HIDER_START)


@pytest.fixture
async def tg(uow_factory: UnitOfWorkFactory) -> AsyncIterator[Telegram]:
    async with telegram(uow_factory) as tg:
        yield tg


async def test_a_whole_round_in_a_telegram_group(tg: Telegram) -> None:
    await tg.new_game()
    assert "Alice has set up a new game" in tg.texts()
    assert "Bob joined" in tg.texts() and "Carol joined" in tg.texts()
    for name in ("Alice", "Bob", "Carol"):  # everyone opened a private chat with the bot first
        assert tg.texts(name).startswith(f"Hi {name}!")
    begun = tg.mark()
    hider, (s1, s2) = await tg.begin()
    assert "The game is on!" in tg.texts(since=begun)
    assert "open a private chat" not in tg.texts(since=begun).lower()  # all of them can be reached
    assert f"{hider} hides!" in tg.texts(since=begun)
    hider_team = tg.state().hider_team_id()
    assert hider_team is not None
    tg.give_cards(hider_team, "veto", "zoologist")

    # The pinned status: sent and pinned once, then only ever edited.
    [pinned] = tg.api.sent("pinChatMessage")
    assert pinned["chat_id"] == GROUP
    status_id = int(pinned["message_id"])

    # Hiding period. The hider forgets and shares a location in the group: it is deleted and
    # refused. Then a live location privately; the seekers share theirs in the group and
    # in private.
    mark = tg.mark()
    slip = await tg.pin(hider, *HIDER_START, live=False)
    assert {"chat_id": GROUP, "message_id": slip} in tg.api.sent("deleteMessage")
    assert "privately" in tg.texts(since=mark)
    await tg.pin(hider, *HIDER_START, private=True)
    await tg.pin(s1, *SEEKERS_START)
    await tg.pin(s2, SEEKERS_START[0] + 0.0001, SEEKERS_START[1], private=True)
    mark = tg.mark()
    await tg.wait(timedelta(minutes=20))
    await tg.pin(hider, *HIDER_SPOT, private=True)  # an edit of the private live location
    await tg.wait(timedelta(minutes=10, seconds=30))
    assert "hiding period ends in 5 min" in tg.texts(since=mark)
    assert "5 min of hiding time left" in tg.texts(hider, since=mark)
    assert "seekers, off you go" in tg.texts(since=mark)
    assert f"within 500 m of {STATION}" in tg.texts(hider, since=mark), "the hider learns the zone"
    zone = [c.params for c in tg.api.calls[mark:] if c.method == "sendPhoto"]
    assert len(zone) == 1 and int(zone[0]["chat_id"]) == user_id(hider), "their zone, drawn"
    assert zone[0]["_uploads"]["photo"].startswith(b"\x89PNG")
    assert tg.state().phase == Phase.SEEKING

    # Radar: the seeker is about 2 km away; the hider gets the suggestion and its numbers.
    mark = tg.mark()
    await tg.send(s1, "/ask radar 1km")
    assert f"{s1} asks: Radar 1 km" in tg.texts(since=mark)
    [question] = tg.said(hider, since=mark)
    assert "Suggested answer: No" in question.text and "2.1 km from you" in question.text
    assert [label for label, _ in question.buttons][:2] == ["Yes", "👉 No"]
    await tg.press(hider, "👉 No")
    assert "✅ Radar 1 km: No" in tg.texts(since=mark)
    [seekers_map] = [c.params for c in tg.api.calls[mark:] if c.method == "sendPhoto"]
    assert int(seekers_map["chat_id"]) == GROUP
    assert "stations still possible" in seekers_map["caption"]
    assert "You drew 2 cards" in tg.texts(hider, since=mark)
    await tg.press(hider, "🃏")  # keep the first card offered
    assert "Into your hand" in tg.texts(hider, since=mark)

    # Thermometer: the seeker's live-location edits carry them 1.1 km closer; the bot notices
    # they have travelled far enough without anyone pressing "We've arrived".
    mark = tg.mark()
    await tg.send(s1, "/ask thermometer 1km")
    [started] = tg.said(since=mark)
    assert [label for label, _ in started.buttons] == ["📍 We've arrived"]
    for lat, lon in THERMOMETER_PATH:
        await tg.wait(timedelta(minutes=2))
        await tg.pin(s1, lat, lon)
    assert "have finished their thermometer" in tg.texts(since=mark)
    question = tg.said(hider, since=mark)[-1]
    assert "Thermometer 1 km" in question.text and "Suggested answer: Hotter" in question.text
    await tg.press(hider, "Hotter")
    assert "✅ Thermometer 1 km: Hotter" in tg.texts(since=mark)
    await tg.press(hider, "🃏")

    # Matching from map data: the nearest parks of the hider and of the asking seeker.
    mark = tg.mark()
    await tg.send(s2, "/ask matching park")
    [question] = tg.said(hider, since=mark)
    assert "Suggested answer: No" in question.text
    assert "nearest to them: Boomer Lake Playground" in question.text
    await tg.press(hider, "👉")
    assert "✅ Matching: Park: No" in tg.texts(since=mark)
    await tg.press(hider, "🃏")

    # A veto, from the hand the deck was stacked with.
    mark = tg.mark()
    await tg.send(s1, "/ask radar 2km")
    await tg.press(hider, "🚫 Veto")
    assert "The hider vetoed Radar 2 km" in tg.texts(since=mark)

    # A late answer: a reminder, the window closes, the group is told, the answer comes late.
    mark = tg.mark()
    await tg.send(s1, "/ask radar 5km")
    await tg.wait(timedelta(minutes=6))
    assert "Reminder: answer Radar 5 km" in tg.texts(hider, since=mark)
    assert "Radar 5 km is overdue" in tg.texts(since=mark)
    await tg.press(hider, "👉")
    assert "That answer came late" in tg.texts(since=mark)
    assert "You answered Radar 5 km late" in tg.texts(hider, since=mark)

    # A curse: played from /hand in private, its condition confirmed, announced to the group
    # with a button the seekers press once it is done.
    mark = tg.mark()
    await tg.send(hider, "/hand", private=True)
    await tg.press(hider, "▶️ Curse of the Zoologist")
    await tg.press(hider, "Condition met")
    assert "A curse has been cast: Curse of the Zoologist" in tg.texts(since=mark)
    await tg.press(s2, "Curse done")
    assert f"{s2} cleared the Curse of the Zoologist" in tg.texts(since=mark)
    assert "cleared your Curse of the Zoologist" in tg.texts(hider, since=mark)
    assert tg.state().round_curses()[0].cleared_at is not None

    # End game: the first seeker's live location walks into the zone.
    mark = tg.mark()
    await tg.wait(timedelta(minutes=1))
    await tg.pin(s1, 36.1285, -97.0650)
    await tg.wait(timedelta(minutes=1))
    await tg.pin(s1, 36.1275, -97.0645)
    assert tg.state().phase == Phase.END_GAME
    assert "the end game begins" in tg.texts(since=mark)
    assert "Stay exactly where you are" in tg.texts(hider, since=mark)

    # The catch: the seeker stands next to the hider and claims it; the hider confirms.
    mark = tg.mark()
    await tg.wait(timedelta(minutes=3))
    await tg.pin(s1, HIDER_SPOT[0] + 0.00001, HIDER_SPOT[1])
    await tg.send(s1, "/found")
    assert f"{s1} says they've found the hider" in tg.texts(since=mark)
    assert "their pin is 1 m from yours" in tg.texts(hider, since=mark)
    await tg.press(hider, "Yes, they found me")
    result = next(s for s in tg.said(since=mark) if s.text.startswith("🏁 Round 1 is over"))
    assert f"{hider} has been found" in result.text
    assert f"The hiding zone was around {STATION}" in result.text  # revealed now, not before
    assert "Next to hide" in tg.texts(since=mark)
    state = tg.state()
    assert state.phase == Phase.HANDOVER and state.rounds[0].ended_at is not None

    # The pinned status was kept current by editing it, never posted again; an edit that
    # found the group's window full waited for the next tick with room, the newest only.
    await tg.wait(timedelta(minutes=1))
    assert len(tg.api.sent("pinChatMessage")) == 1
    statuses = [s for s in tg.api.messages if s.text.startswith("📋 Status")]
    assert statuses[0].method == "sendMessage" and len(statuses) > 10
    assert all(s.method == "editMessageText" for s in statuses[1:])
    assert {(s.chat_id, s.message_id) for s in statuses} == {(GROUP, status_id)}
    assert "Between rounds" in statuses[-1].text

    # Every press was answered, once.
    assert len(tg.presses) >= 12
    for _, press_id in tg.presses:
        tg.answer(press_id)

    # Nothing the group or a seeker was sent gave the hiding zone away before the result.
    checked = assert_keeps_secret(tg.api, chat_ids_of([s1, s2]), SECRET, end=result.call)
    assert checked > 40
    # ... and the check does see the secret where it is told: to the hider, and at the end.
    with pytest.raises(AssertionError, match=STATION):
        assert_keeps_secret(tg.api, [user_id(hider)], SECRET)
    with pytest.raises(AssertionError, match=STATION):
        assert_keeps_secret(tg.api, [GROUP], SECRET, start=result.call)


def test_the_secrecy_check_reads_coordinates_at_any_precision() -> None:
    secret = Secret(STATION, STATION_ID, HIDER_SPOT)
    assert secret.leaks("Seekers, the hider is at 36.12622, -97.06401") == ["36.126", "97.064"]
    assert secret.leaks("near 36.1262°N 97.0640°W") == ["36.126", "97.064"]
    assert secret.leaks("around gallagher-iba") == ["gallagher-iba"]
    assert secret.leaks("the zone is around station 33.") == ["station id 33"]
    assert secret.leaks("Answer by 10:33; the seeker was 2.33 km or 133 m away") == []
    assert secret.leaks("36.1, -97.0 is the town; 36.13 is a street") == []
