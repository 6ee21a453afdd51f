"""The zone at the end of the hiding period and the live locations the referee reads,
played through the conversation layer on the Stillwater map, on both databases.

- The zone comes from the pin the hider had when the hiding period ended, not a later one.
- Without one, the seekers hear the zone is pending, the hider is asked for a location,
  and the first pin after the end fixes it (the seekers hear it is set, not where).
- A hider far from every station hears, privately and before the hiding period ends,
  which station is nearest and how far it is.
- Every player is asked for a live location when a round starts (with a one-tap button
  where the channel has one); a live location that stops or goes quiet is asked for again,
  once per quiet spell, and the hider's /track names the silent seekers.
"""

from __future__ import annotations

from datetime import timedelta

from hideseek_chat.chat.drive import Capabilities, adapt
from hideseek_chat.chat.model import Button, ChatKind, LocationIn, Sender, SendText
from hideseek_chat.console.table import Line, Table
from hideseek_chat.rules.state import Phase
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.telegram.send import keyboard, location_keyboard
from tests.chat.play import (
    HIDER_SPOT,
    NAMES,
    SEEKERS_START,
    START,
    STATION,
    begin,
    new_table,
    public_text,
    state_of,
    text_of,
)
from tests.telegram.conftest import Harness, harness  # noqa: F401 (the fixture)
from tests.telegram.factories import GROUP, make_command

OTHER_STATION = "Stillwater Medical Center"
OTHER_SPOT = (36.1146243, -97.0740291)  # 1.6 km from Gallagher-Iba
FAR = (36.084, -97.112)  # inside the map, 2 km from its nearest station
FAR_NEAREST = "19th & Shalamar"


def zone_station(uow_factory: UnitOfWorkFactory, table: Table) -> str | None:
    current = state_of(uow_factory, table).current_round
    assert current is not None
    return current.zone.station_name if current.zone else None


# ----- the zone at the end of the hiding period -----


def test_the_zone_comes_from_the_pin_the_hider_had_when_hiding_ended(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, seekers = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True)  # a live location, still at 0:00
    table.wait(timedelta(minutes=29, seconds=30))
    # The hiding period is over; before the referee's timer fires, the hider, on the way
    # elsewhere, drops a pin at another station. It must not move the zone.
    table.now = START + timedelta(minutes=30, seconds=20)
    table.pin(hider, *OTHER_SPOT, private=True, live=False)
    table.wait(timedelta(seconds=30))
    assert state_of(uow_factory, table).phase == Phase.SEEKING
    assert zone_station(uow_factory, table) == STATION
    assert f"within 500 m of {STATION}" in text_of(table.said(hider))
    assert OTHER_STATION not in text_of(table.said(hider))
    public = public_text(table, seekers)
    assert "seekers, off you go" in public
    assert "isn't fixed yet" not in public and "now fixed" not in public
    assert STATION not in public and OTHER_STATION not in public


def test_without_a_pin_at_the_end_the_zone_is_pending_until_the_hider_sends_one(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, seekers = begin(table)
    # A one-off pin at the start: 25 minutes later it says nothing of where the hider is.
    table.pin(hider, *OTHER_SPOT, private=True, live=False)
    mark = table.mark()
    table.wait(timedelta(minutes=25, seconds=30))
    asked = text_of(table.said(hider, since=mark))
    assert "I don't know where you are yet" in asked, "the reminder asks for a location"
    mark = table.mark()
    table.wait(timedelta(minutes=5))
    assert zone_station(uow_factory, table) is None
    public = public_text(table, seekers, since=mark)
    assert "seekers, off you go" in public
    assert "The hider's zone isn't fixed yet" in public, "the seekers are not left guessing"
    private = text_of(table.said(hider, since=mark))
    assert "no recent location of yours" in private and "Your zone is set" not in private
    # Four minutes on, the hider sends a pin: the first pin after the end fixes the zone.
    table.wait(timedelta(minutes=4))
    mark = table.mark()
    table.pin(hider, *HIDER_SPOT, private=True, live=False)
    assert zone_station(uow_factory, table) == STATION
    assert f"within 500 m of {STATION}" in text_of(table.said(hider, since=mark))
    public = public_text(table, seekers, since=mark)
    assert "The hider's zone is now fixed: it reaches 500 m around a station." in public
    # A later pin elsewhere changes nothing.
    table.wait(timedelta(minutes=1))
    table.pin(hider, *OTHER_SPOT, private=True, live=False)
    assert zone_station(uow_factory, table) == STATION
    for secret in (STATION, OTHER_STATION, f"{HIDER_SPOT[0]:.3f}"):
        assert secret not in public_text(table, seekers)


def test_a_hider_far_from_every_station_hears_the_nearest_before_hiding_ends(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, seekers = begin(table)
    mark = table.mark()
    table.pin(hider, *FAR, private=True)  # a live location, 2 km from any stop
    told = text_of(table.said(hider, since=mark))
    assert "You're not near any station of the map" in told
    assert f"the nearest is {FAR_NEAREST}, 1.96 km away" in told
    assert "be within 500 m of a station" in told
    # An edit of the live location does not repeat it; the reminder does.
    table.wait(timedelta(minutes=10))
    mark = table.mark()
    table.pin(hider, FAR[0] + 0.0002, FAR[1], private=True)
    assert "not near any station" not in text_of(table.said(hider, since=mark))
    table.wait(timedelta(minutes=15, seconds=30))
    reminded = text_of(table.said(hider, since=mark))
    assert "of hiding time left" in reminded
    assert reminded.count("You're not near any station of the map") == 1
    assert FAR_NEAREST in reminded
    # The hider makes it to a station in time: the zone is there, and nothing was public.
    table.pin(hider, *HIDER_SPOT, private=True)
    table.wait(timedelta(minutes=5))
    assert zone_station(uow_factory, table) == STATION
    public = public_text(table, seekers)
    assert FAR_NEAREST not in public and STATION not in public
    assert "not near any station" not in public


def test_a_hider_at_a_station_hears_no_warning(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    hider, _ = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True)
    table.wait(timedelta(minutes=31))
    said = text_of(table.said(hider))
    assert "not near any station" not in said and "don't know where you are" not in said
    assert zone_station(uow_factory, table) == STATION


# ----- live locations -----


def test_every_player_is_asked_for_a_live_location_when_a_round_starts(
    uow_factory: UnitOfWorkFactory,
) -> None:
    # A channel with a button that sends the location (Telegram's reply keyboard).
    capable = Capabilities(pictures=False, location_button=True)
    table = new_table(uow_factory, capabilities=capable)
    hider, _ = begin(table)
    for name in NAMES:
        asks = [x for x in table.said(name) if "Share My Live Location → 8 hours" in x.text]
        assert len(asks) == 1, name
        buttons = [b for row in asks[0].buttons for b in row]
        assert [b.share_location for b in buttons] == [True]
        assert buttons[0].label == "📍 Send my location now"
        assert ("Only I see it" in asks[0].text) == (name == hider)
    assert "Share My Live Location" not in text_of(table.said()), "privately, not in the group"


def test_the_console_asks_with_the_steps_and_no_button(table: Table) -> None:
    begin(table)
    asks = [x for x in table.said("Bob") if "Share My Live Location → 8 hours" in x.text]
    assert len(asks) == 1 and asks[0].buttons == ()


def stop_sharing(table: Table, name: str, lat: float, lon: float) -> None:
    """``name``'s live location in the group ends (Telegram's last edit)."""
    who = table.person(name)
    table.deliver(
        LocationIn(
            chat=table.group,
            kind=ChatKind.GROUP,
            sender=Sender(who.ref, who.name),
            at=table.now,
            update_id=f"console:stop:{name}:{table.now.isoformat()}",
            lat=lat,
            lon=lon,
            live=True,
            live_ended=True,
            edited=True,
        )
    )


def asked_again(table: Table, name: str, since: int = 0) -> list[Line]:
    return [
        x
        for x in table.said(name, since=since)
        if "Your live location stopped" in x.text or "has been silent for" in x.text
    ]


def test_a_live_location_that_stops_or_goes_quiet_is_asked_for_again_once(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    table.tick_every = timedelta(minutes=5)
    hider, (s1, s2) = begin(table)
    table.pin(hider, *HIDER_SPOT, private=True)
    table.pin(s1, *SEEKERS_START)
    table.pin(s2, SEEKERS_START[0] + 0.0001, SEEKERS_START[1])
    table.wait(timedelta(minutes=40))
    assert not asked_again(table, s1) and not asked_again(table, s2)

    # s1 stops sharing: asked at once, privately, and only s1.
    stop_sharing(table, s1, *SEEKERS_START)
    stopped = asked_again(table, s1)
    assert len(stopped) == 1 and "Your live location stopped" in stopped[0].text
    assert not asked_again(table, s2) and "stopped" not in table.last()

    # s2's live location sends nothing for more than two hours (a phone off, say): it no
    # longer counts, so s2 is asked once; s1, asked already this spell, is not asked again.
    table.wait(timedelta(hours=1, minutes=15))
    mark = table.mark()
    table.wait(timedelta(minutes=15))
    quiet = asked_again(table, s2, since=mark)
    assert len(quiet) == 1 and "has been silent for 2 h" in quiet[0].text
    assert len(asked_again(table, s1)) == 1
    table.wait(timedelta(hours=1))
    assert len(asked_again(table, s2)) == 1, "once per quiet spell"

    # The hider's /track names the seekers whose location no longer counts.
    table.send(hider, "/track", private=True)
    track = table.last(hider)
    assert "Silent, their location too old to count" in track
    assert s1 in track.split("Silent")[1] and s2 in track.split("Silent")[1]
    # So does the hider's /status; a seeker's does not.
    table.send(hider, "/status", private=True)
    assert s1 in table.last(hider).split("Silent")[1]
    table.send(s1, "/status", private=True)
    assert "Silent" not in table.last(s1)

    # s2 shares again: a new spell, asked again when it goes quiet again.
    table.pin(s2, *SEEKERS_START, edited=False)
    table.send(hider, "/track", private=True)
    assert s2 not in table.last(hider).split("Silent")[1]
    table.wait(timedelta(hours=2, minutes=10))
    assert len(asked_again(table, s2)) == 2
    # The hider had a live location all along and went quiet too: asked as well.
    assert len(asked_again(table, hider)) == 1


def test_no_one_is_asked_once_the_game_is_over(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    _, (s1, _) = begin(table)
    table.pin(s1, *SEEKERS_START)
    table.send("Alice", "/abort")
    table.press("Alice", "Yes, end the game")
    assert state_of(uow_factory, table).phase == Phase.GAME_OVER
    stop_sharing(table, s1, *SEEKERS_START)
    table.wait(timedelta(hours=3))
    assert not asked_again(table, s1)


# ----- the channels -----


def test_telegram_sends_a_location_button_as_a_reply_keyboard() -> None:
    rows = ((Button("📍 Send my location now", share_location=True),),)
    markup = location_keyboard(rows)
    assert markup is not None and markup.one_time_keyboard and markup.resize_keyboard
    assert [[b.request_location for b in row] for row in markup.keyboard] == [[True]]
    assert location_keyboard(((Button("Yes", data="x"),),)) is None
    assert keyboard(((Button("Yes", data="x"),),), "bot") is not None
    assert keyboard(rows, "bot") is None, "never an inline button (nor an empty row)"


async def test_telegram_asks_privately_with_a_location_button_never_in_a_group(
    harness: Harness,  # noqa: F811 (the fixture)
) -> None:
    share = Button("📍 Send my location now", share_location=True)
    ask = SendText("tg:42", text="Share your live location", buttons=((share,),), private=True)
    in_group = SendText(f"tg:{GROUP}", text="Share", buttons=((share,), (Button("OK", "ok"),)))
    harness.conversation.replies.append([ask, in_group])
    await harness.feed(make_command(harness.app.bot, "/status"))
    private, group = harness.api.sent("sendMessage")
    assert private["chat_id"] == 42 and private["reply_markup"] == {
        "keyboard": [[{"text": "📍 Send my location now", "request_location": True}]],
        "resize_keyboard": True,
        "one_time_keyboard": True,
    }
    assert group["reply_markup"] == {"inline_keyboard": [[{"text": "OK", "callback_data": "ok"}]]}


def test_a_channel_without_location_buttons_keeps_the_rest() -> None:
    send = SendText(
        "tg:1",
        text="share",
        buttons=((Button("📍", share_location=True),), (Button("Yes", data="y"),)),
    )
    (without,) = adapt([send], Capabilities(location_button=False))
    assert isinstance(without, SendText)
    assert without.buttons == ((Button("Yes", data="y"),),) and without.text == "share"
    assert adapt([send], Capabilities()) == [send]
