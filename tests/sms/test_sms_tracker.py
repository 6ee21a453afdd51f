"""A tracker link by text: an SMS player texts TRACKER, gets a personal link and the steps for
a GPS app, and the app's pings are that player's pins in their game, through the same web
server; the prompts for a location name TRACKER when links are handed out."""

from __future__ import annotations

import re
from datetime import timedelta

from hideseek_chat.store import UnitOfWorkFactory
from tests.chat.play import SEEKERS_START
from tests.sms.conftest import sms_bot
from tests.sms.fakes import FakeGateway
from tests.sms.test_sms_game import ALICE, BOB, start_game


async def test_an_sms_player_gets_a_tracker_link_and_its_pings_are_pins(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway, trackers=True) as bot:
        phones = bot.phones
        await start_game(bot)
        mark = len(phones.said(BOB))
        await phones.text(BOB, "TRACKER")
        steps = phones.since(BOB, mark)
        link = re.search(r"(http://127\.0\.0\.1:\d+/trackers/[A-Za-z0-9_-]+)/traccar", steps)
        assert link is not None, steps
        assert "OwnTracks" in steps and "GPSLogger" in steps
        assert "owntracks:///config?inline=" in steps, "the set-up link, to open on the phone"
        assert "scan this code" not in steps, "no picture by text: no code to scan"
        assert not any(link.group(1) in text for text in phones.said(ALICE)), "Bob's alone"

        bot.clock.at += timedelta(minutes=2)
        stamp = int(bot.clock.at.timestamp())
        lat, lon = SEEKERS_START
        ping = {"id": "phone", "lat": f"{lat}", "lon": f"{lon}", "timestamp": f"{stamp}"}
        answered = await phones.client.post(f"{link.group(1)}/traccar", params=ping)
        assert answered.status_code == 200, answered.text
        await bot.driver.idle()
        with uow_factory() as uow:
            number = uow.sms.number(BOB, bot.clock.at, create=False)
            assert number is not None and number.current_chat is not None
            target = uow.pings.target(number.current_chat, number.ref)
            assert target is not None
            pins = uow.pings.last(target.game_id, target.player_id, 1)
        assert pins and pins[0].source == "tracker:traccar"
        assert (round(pins[0].lat, 5), round(pins[0].lon, 5)) == (round(lat, 5), round(lon, 5))

        mark = len(phones.said(BOB))
        await phones.text(BOB, "STATUS")
        assert "Traccar" in phones.since(BOB, mark)

        await phones.text(BOB, "TRACKER OFF")
        refused = await phones.client.post(f"{link.group(1)}/traccar", params=ping)
        assert refused.status_code == 401


async def test_the_location_prompts_by_text_name_tracker_when_links_are_handed_out(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway, trackers=True) as bot:
        await start_game(bot)
        await bot.wait(timedelta(minutes=31))  # the hiding period ends with no pin
    prompts = [b for b in gateway.sent if "47.37690, 8.54170" in b.body]
    assert prompts, "a prompt by text was sent"
    assert all("TRACKER" in p.body for p in prompts), [p.body for p in prompts]
