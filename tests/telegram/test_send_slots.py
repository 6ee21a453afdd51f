"""A map job's one message on Telegram (``SendText.slot`` "map-job-N"): sent unpinned and
remembered, then edited with its buttons; progress for a message that is gone is skipped;
the job's first message never replaces what the job already said."""

from __future__ import annotations

from hideseek_chat.chat.model import Button, SendText
from tests.telegram.conftest import Harness
from tests.telegram.test_send import G, reply_with

SLOT = "map-job-7"


async def test_a_job_message_is_sent_unpinned_then_edited_with_its_buttons(
    harness: Harness,
) -> None:
    await reply_with(harness, SendText(G, text="🔎 Looking up", slot=SLOT, opens_slot=True))
    assert harness.api.methods == ["sendMessage"]  # not pinned: only the status is
    ref = harness.conversation.statuses[f"{G} {SLOT}"]
    place = Button("Stillwater · city", data="mplace:1:7:0")
    await reply_with(harness, SendText(G, text="Choose", buttons=((place,),), slot=SLOT))
    [edit] = harness.api.sent("editMessageText")
    assert (edit["message_id"], edit["text"]) == (int(ref), "Choose")
    assert edit["reply_markup"] == {
        "inline_keyboard": [[{"text": "Stillwater · city", "callback_data": "mplace:1:7:0"}]]
    }


async def test_progress_without_its_message_is_skipped_and_a_late_opener_too(
    harness: Harness,
) -> None:
    await reply_with(harness, SendText(G, text="⏳ 1/5", slot=SLOT, transient=True))
    assert harness.api.methods == []
    await reply_with(harness, SendText(G, text="✅ ready", slot=SLOT))
    assert harness.api.methods == ["sendMessage"]
    await reply_with(harness, SendText(G, text="⏳ Fetching", slot=SLOT, opens_slot=True))
    assert harness.api.methods == ["sendMessage"]  # the summary stays
