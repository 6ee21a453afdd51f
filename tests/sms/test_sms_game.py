"""A whole game played by text only, through the real web server and twilio's client
against a fake gateway on 127.0.0.1, on SQLite and PostgreSQL: NEW, JOIN, numbered choices,
typed pins, STATUS, the catch; nothing a seeker's number receives gives the hider away."""

from __future__ import annotations

import re
from datetime import timedelta

from sqlalchemy import func, select

from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.models import InboxRow, SmsMessageRow
from tests.chat.play import HIDER_SPOT, SEEKERS_START, STATION
from tests.sms.conftest import SmsBot, sms_bot
from tests.sms.fakes import PHOTO, FakeGateway

ALICE, BOB, CAROL = "+41791234561", "+41791234562", "+41791234563"
#: The secrets: the station, the hider's coordinates, the hider's number.
SECRETS = (STATION, "36.126", "97.064", ALICE, "1234561")


def choice(text: str, label: str) -> str:
    """The number in front of ``label`` in a text's numbered choices."""
    match = re.search(rf"(\d+) {re.escape(label)}", text)
    assert match is not None, f"no choice {label!r} in {text!r}"
    return match.group(1)


async def start_game(bot: SmsBot) -> str:
    """Alice makes a small game, Bob and Carol join by its code, Alice begins it."""
    phones = bot.phones
    for number, name in ((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol")):
        await phones.text(number, f"NAME {name}")
        assert f"see you as {name}" in phones.last(number)
    await phones.text(ALICE, "NEW small metric")
    found = re.search(r"code is ([A-Z0-9]{4})", "\n".join(phones.said(ALICE)))
    assert found is not None
    code = found.group(1)
    await phones.text(BOB, f"join {code.lower()}")
    await phones.text(CAROL, f"/JOIN {code}")
    assert "Carol joined" in phones.since(BOB, 0)
    await phones.text(ALICE, "begin")
    assert "You're hiding" in phones.since(ALICE, 0)
    return code


async def seek(bot: SmsBot) -> None:
    """The seekers text where they are, the hider hers near the end of hiding; then
    seeking starts and the hider learns her zone."""
    phones = bot.phones
    marks = {n: len(phones.said(n)) for n in (ALICE, BOB, CAROL)}
    await phones.text(BOB, f"{SEEKERS_START[0]}, {SEEKERS_START[1]}")
    await phones.text(CAROL, f"{SEEKERS_START[0] + 0.0001}, {SEEKERS_START[1]}")
    await bot.wait(timedelta(minutes=25))
    await phones.text(ALICE, f"{HIDER_SPOT[0]}, {HIDER_SPOT[1]}")
    await bot.wait(timedelta(minutes=5, seconds=30))
    assert "off you go" in phones.since(BOB, marks[BOB])
    assert STATION in phones.since(ALICE, marks[ALICE]), "the hider learns her zone"


async def test_a_whole_game_by_text_only(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        phones = bot.phones
        code = await start_game(bot)
        await seek(bot)

        # A question: the hider answers with the number of her choice.
        await phones.text(BOB, "ask radar 1km")
        question = phones.last(ALICE)
        assert "Radar 1 km" in question
        await phones.text(ALICE, choice(question, "No"))
        assert any("Radar 1 km: No" in t for t in phones.said(CAROL)[-3:])
        cards = phones.last(ALICE)
        assert "Keep 1" in cards and "1 " in cards
        await phones.text(ALICE, "1")  # keep the first card
        assert "keep" not in phones.last(ALICE).lower() or phones.last(ALICE) != cards

        # A photo question answered by MMS: the seekers get the photo forwarded, with its
        # caption; the hider keeps a card.
        await phones.text(BOB, "ask photo tree")
        photo = f"{gateway.url}/media/photo.jpg"  # behind the gateway's credentials
        await phones.text(
            ALICE, "The oak", NumMedia="1", MediaUrl0=photo, MediaContentType0="image/jpeg"
        )
        relayed = [s for s in gateway.sent if s.to == CAROL and s.media is not None]
        assert len(relayed) == 1 and "The oak" in relayed[0].body
        # Forwarded from the bot's own server (the gateway's URL wants its credentials).
        media = relayed[0].media
        assert media is not None and media.startswith(f"{bot.public_url}/sms/media/")
        served = await phones.client.get(media.removeprefix(bot.public_url))
        assert served.status_code == 200 and served.content == PHOTO
        assert served.headers["content-type"] == "image/jpeg"
        await phones.text(ALICE, "1")

        # A number with no choice behind it is refused, and changes nothing.
        await phones.text(ALICE, "7")
        assert "no choice 7" in phones.last(ALICE)

        # STATUS replies to the one who asked, not to everyone.
        before = len(phones.said(CAROL))
        await phones.text(BOB, "STATUS")
        assert "Seeking" in phones.last(BOB)
        assert len(phones.said(CAROL)) == before

        # The admin's STATUS also counts the texts the game sent; a player's does not.
        await phones.text(ALICE, "status")
        assert "Texts sent for this game" in phones.last(ALICE)
        assert "Texts sent" not in phones.said(BOB)[-1]

        # The catch: Bob stands next to the hider and claims it; she confirms.
        await phones.text(BOB, f"{HIDER_SPOT[0] + 0.00001}, {HIDER_SPOT[1]}")
        await phones.text(BOB, "found")
        claim = phones.last(ALICE)
        await phones.text(ALICE, choice(claim, "Yes, they found me"))
        assert any("Round 1 is over" in t for t in phones.said(CAROL))

        # Nothing a seeker read before the result names the station or her spot.
        for seeker in (BOB, CAROL):
            for text in phones.said(seeker):
                if "Round 1 is over" in text:
                    break
                assert not any(secret in text for secret in SECRETS), text
        # No text to anyone carries another player's number.
        for sent in gateway.sent:
            others = {ALICE, BOB, CAROL} - {sent.to}
            assert not any(n in sent.body or n[1:] in sent.body for n in others), sent.body

        # Every text is counted for the game, and each carries the status callback.
        with uow_factory() as uow:
            texts, segments = uow.sms.counts(f"sms:@{code}")
            assert texts == len(gateway.sent) - 3  # the three NAME replies are no game's
            assert segments >= texts
            handled = uow.session.scalar(select(func.count(InboxRow.id)))
            assert handled == phones.count
        assert all(s.status_callback == f"{bot.public_url}/sms/status" for s in gateway.sent)

        # A delivery status callback is recorded.
        sid = gateway.sent[-1].sid
        form = {"MessageSid": sid, "MessageStatus": "delivered", "AccountSid": "AC1"}
        from tests.sms.fakes import signed

        url = f"{bot.public_url}/sms/status"
        response = await phones.client.post("/sms/status", data=form, headers=signed(url, form))
        assert response.status_code == 204
        with uow_factory() as uow:
            row = uow.session.scalars(select(SmsMessageRow).where(SmsMessageRow.sid == sid)).one()
            assert row.status == "delivered"


async def test_stop_start_help_and_a_redelivered_text(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        phones = bot.phones
        await start_game(bot)

        await phones.text(CAROL, "STOP")
        assert "no more texts" in phones.last(CAROL)
        quiet = len(phones.said(CAROL))
        await phones.text(BOB, f"{SEEKERS_START[0]}, {SEEKERS_START[1]}")
        await bot.wait(timedelta(minutes=31))
        assert len(phones.said(CAROL)) == quiet, "an opted-out number gets nothing"
        assert "off you go" in phones.since(BOB, 0), "the game goes on"

        await phones.text(CAROL, "status")  # opted out: STATUS gets no answer
        assert len(phones.said(CAROL)) == quiet
        await phones.text(CAROL, "start")
        assert "again" in phones.last(CAROL)
        await phones.text(CAROL, "Help")
        assert "JOIN" in phones.last(CAROL) and "STOP" in phones.last(CAROL)

        # The gateway posts the same text twice: it is applied once.
        form = {
            "MessageSid": "SMdup0000000000000000000000000000",
            "From": BOB,
            "To": "+41790000000",
            "Body": "ask radar 2km",
            "NumMedia": "0",
        }
        from tests.sms.fakes import signed

        for _ in range(2):
            response = await phones.client.post("/sms", data=form, headers=signed(phones.url, form))
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/xml")
            await phones.settle()  # type: ignore[misc]
        asked = [t for t in phones.said(CAROL) if "asks: Radar 2 km" in t]
        assert len(asked) == 1


async def test_erasing_a_number_leaves_nothing_of_it(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    from hideseek_chat.sms.erasure import erase_number
    from hideseek_chat.store.models import PersonRow, PlayerRow, SmsNumberRow

    async with sms_bot(uow_factory, gateway) as bot:
        code = await start_game(bot)
    assert erase_number(uow_factory, "+41 79 123 45 62") is not None
    assert erase_number(uow_factory, "+41 79 123 45 62") is None  # gone already
    with uow_factory() as uow:
        numbers = uow.session.scalars(select(SmsNumberRow.number)).all()
        assert BOB not in numbers and ALICE in numbers
        assert uow.session.get(PersonRow, "sms:2") is None
        names = uow.session.scalars(select(PlayerRow.name)).all()
        assert "Bob" not in names
        assert uow.sms.counts(f"sms:@{code}")[0] > 0  # the game's count stays


async def test_a_digest_gathers_the_news_and_lets_choices_through(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        phones = bot.phones
        await phones.text(ALICE, "NAME Alice")
        await phones.text(ALICE, "DIGEST 10")
        assert "every 10 min" in phones.last(ALICE)
        await phones.text(ALICE, "digest 1000")
        assert "DIGEST 15" in phones.last(ALICE)  # the usage
        await phones.text(ALICE, "NEW small metric")
        code = re.search(r"code is ([A-Z0-9]{4})", "\n".join(phones.said(ALICE)))
        assert code is not None
        mark = len(phones.said(ALICE))
        await phones.text(BOB, f"JOIN {code.group(1)}")
        await phones.text(CAROL, f"JOIN {code.group(1)}")
        assert len(phones.said(ALICE)) == mark, "the news wait for the digest"
        assert any("joined" in t for t in phones.said(BOB)), "others get them at once"

        await bot.wait(timedelta(minutes=9))
        await bot.channel.flush_digests()
        assert len(phones.said(ALICE)) == mark
        await bot.wait(timedelta(minutes=1, seconds=30))
        await bot.channel.flush_digests()
        [digest] = phones.said(ALICE)[mark:]
        assert "2 teams" in digest and "3 teams" in digest
        assert digest.index("2 teams") < digest.index("3 teams")

        # Something to choose goes at once, after what waited.
        await phones.text(BOB, "leave")
        held = len(phones.said(ALICE))
        await phones.text(ALICE, "abort")  # asks first, with a button: at once
        assert "1 " in phones.last(ALICE)
        assert "left" in phones.said(ALICE)[held], "what waited came first"
        await phones.text(ALICE, "digest off")
        assert "one by one" in phones.last(ALICE)
