"""Erasing an SMS player by their phone number: the store's erasure of the person ``sms:<id>``
(``store.privacy``: their games' data as any player's, their name, then their number,
memberships, pending choices and stored texts). The texts sent stay counted for their games,
no longer tied to anyone."""

from __future__ import annotations

from datetime import UTC, datetime

from hideseek_chat.chat.parsing import phone_number
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.privacy import Erasure, delete_player_data


def erase_number(
    uow_factory: UnitOfWorkFactory, raw: str, region: str | None = None
) -> Erasure | None:
    """Erase everything kept about the phone number ``raw``; None when it is unknown."""
    number = phone_number(raw, region)
    if number is None:
        return None
    with uow_factory() as uow:
        known = uow.sms.number(number, datetime.now(UTC), create=False)
    if known is None:
        return None
    return delete_player_data(uow_factory, known.ref)
