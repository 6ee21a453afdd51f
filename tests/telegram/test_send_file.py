"""A document (the seekers' map as GeoJSON) is uploaded with its caption."""

from __future__ import annotations

from hideseek_chat.chat.model import SendFile
from tests.telegram.conftest import Harness
from tests.telegram.factories import GROUP, make_command

G = f"tg:{GROUP}"


async def test_a_file_is_uploaded_as_a_document_with_its_caption(harness: Harness) -> None:
    document = SendFile(
        G,
        filename="seekers-map.geojson",
        content=b'{"type":"FeatureCollection","features":[]}',
        caption="The seekers' map",
        mime_type="application/geo+json",
    )
    harness.conversation.replies.append([document])
    await harness.feed(make_command(harness.app.bot, "/status"))
    assert harness.api.methods == ["sendDocument"]
    [sent] = harness.api.sent("sendDocument")
    assert int(sent["chat_id"]) == GROUP and sent["caption"] == "The seekers' map"
    assert b'"FeatureCollection"' in sent["_uploads"]["document"]
