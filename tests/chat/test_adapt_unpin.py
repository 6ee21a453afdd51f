"""``Unpin`` (the final status) reaches only a channel that can pin."""

from __future__ import annotations

from hideseek_chat.chat.drive import Capabilities, adapt
from hideseek_chat.chat.model import SendText, Unpin


def test_unpin_is_left_out_where_nothing_is_pinned() -> None:
    actions = [SendText("tg:-1", text="Final status", slot="status"), Unpin("tg:-1")]
    assert adapt(actions, Capabilities()) == actions
    assert adapt(actions, Capabilities(pin_messages=False)) == actions[:1]
