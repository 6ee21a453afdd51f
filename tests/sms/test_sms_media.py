"""MMS pictures: fetched from the gateway with its credentials, size-limited, images only,
with timeouts (a fake media server on 127.0.0.1); a failure is told to the player by text;
a picture kept is shown to Telegram players as a real photo, not a URL."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hideseek_chat.chat.model import SendText
from hideseek_chat.sms.media import MediaError, fetch
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.telegram.bot import channel_of
from tests.sms.conftest import sms_bot
from tests.sms.fakes import ACCOUNT, PHOTO, TOKEN, FakeGateway
from tests.telegram.e2e import telegram

DAVE = "+41791234564"


def test_a_picture_is_fetched_with_the_gateways_credentials(gateway: FakeGateway) -> None:
    got = fetch(f"{gateway.url}/media/photo.jpg", ACCOUNT, TOKEN)
    assert (got.content_type, got.data) == ("image/jpeg", PHOTO)
    with pytest.raises(MediaError) as refused:
        fetch(f"{gateway.url}/media/photo.jpg", ACCOUNT, "wrong-token")
    assert refused.value.reason == "refused"  # the server's 401


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("page.html", "not_an_image"),
        ("declared-huge", "too_large"),
        ("streamed-huge", "too_large"),
        ("missing", "refused"),
    ],
)
def test_what_is_not_a_small_picture_is_refused(
    gateway: FakeGateway, name: str, reason: str
) -> None:
    with pytest.raises(MediaError) as refused:
        fetch(f"{gateway.url}/media/{name}", ACCOUNT, TOKEN)
    assert refused.value.reason == reason


def test_a_server_that_stalls_times_out(gateway: FakeGateway) -> None:
    with pytest.raises(MediaError) as refused:
        fetch(f"{gateway.url}/media/stall", ACCOUNT, TOKEN, timeout=0.3)
    assert refused.value.reason == "unreachable"


@pytest.mark.parametrize(
    ("name", "told"),
    [
        ("streamed-huge", "too large"),
        ("page.html", "only take photos"),
        ("missing", "could not fetch your photo"),
    ],
)
async def test_a_player_is_told_when_their_picture_cannot_be_taken(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway, name: str, told: str
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        url = f"{gateway.url}/media/{name}"
        await bot.phones.text(
            DAVE, "my photo", NumMedia="1", MediaUrl0=url, MediaContentType0="image/png"
        )
        assert told in bot.phones.last(DAVE)
        assert f"/media/{name}" in gateway.fetched
    with uow_factory() as uow:
        assert uow.sms.media(1) is None


async def test_telegram_players_see_a_texted_picture_as_a_photo(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        media_id, _ = uow.sms.add_media("image/jpeg", PHOTO, datetime.now(UTC))
        uow.commit()
    async with telegram(uow_factory) as tg:
        await tg.new_game()
        shared = channel_of(tg.app)
        shared.driver(tg.bot)
        shown = SendText(tg.chat, text="Dave's photo: the oak", photo_ref=f"sms-media:{media_id}")
        assert await shared.perform([shown], datetime.now(UTC))
        [photo] = tg.api.sent("sendPhoto")
        assert photo["_uploads"]["photo"] == PHOTO  # the picture itself, not a URL
        assert "the oak" in photo["caption"]
