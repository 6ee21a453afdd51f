"""An update of a kind the game does not read (a sticker, an edited text, a kind newer
than the library) that was stored before it was applied, as a polled batch is, is settled
once: it does not stay pending, to be handed out again by every resume and to stand first
in its chat's lane forever."""

from __future__ import annotations

import json
from typing import Any

from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.models import InboxRow, InboxStatus
from hideseek_chat.telegram.bot import CHANNEL, lane_of
from tests.telegram.e2e import telegram
from tests.telegram.factories import message

STICKER = {
    "file_id": "s",
    "file_unique_id": "s",
    "type": "regular",
    "width": 1,
    "height": 1,
    "is_animated": False,
    "is_video": False,
}


def unread_kinds() -> list[dict[str, Any]]:
    return [
        {"update_id": 501, "message": message(sticker=STICKER)},
        {"update_id": 502, "edited_message": {**message(text="typo"), "edit_date": 1}},
        {"update_id": 504, "something_new": {"x": 1}},
    ]


async def test_a_stored_update_the_game_does_not_read_is_settled(
    uow_factory: UnitOfWorkFactory,
) -> None:
    async with telegram(uow_factory) as tg:
        channel = tg.app.bot_data[CHANNEL]
        conversation = channel.driver(tg.bot).conversation
        raws = unread_kinds()
        batch = [(f"tg:{r['update_id']}", lane_of(r), json.dumps(r)) for r in raws]
        assert len(conversation.store_updates(batch, tg.clock.now())) == len(raws)
        for _ in range(len(raws)):  # each resume hands out the first of each lane
            await channel.resume(tg.bot)
            await channel.lanes.join()
        assert conversation.pending_updates() == []
        with uow_factory() as uow:
            statuses = {row.update_id: row.status for row in uow.session.query(InboxRow)}
        assert statuses == {ref: InboxStatus.APPLIED for ref, _, _ in batch}
