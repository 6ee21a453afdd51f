"""``/forgetme`` through the real python-telegram-bot stack: the private confirmation, its
two buttons, the press answered once, the keyboard removed, the person forgotten."""

from __future__ import annotations

from sqlalchemy import func, select

from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.models import PersonRow, PlayerRow
from tests.telegram.e2e import telegram, user_id
from tests.telegram.test_setup_e2e import buttons_of, markups, newest


def _rows(uow_factory: UnitOfWorkFactory, ref: str) -> tuple[int, int]:
    with uow_factory() as uow:
        people = uow.session.scalar(select(func.count()).where(PersonRow.ref == ref))
        players = uow.session.scalar(select(func.count()).where(PlayerRow.ref == ref))
    return int(people or 0), int(players or 0)


async def test_forgetme_on_telegram(uow_factory: UnitOfWorkFactory) -> None:
    bob = f"tg:{user_id('Bob')}"
    async with telegram(uow_factory) as tg:
        await tg.new_game()
        await tg.begin()
        await tg.send("Alice", "/abort")
        await tg.press("Alice", "Yes, end the game")
        assert _rows(uow_factory, bob) == (1, 1)

        await tg.send("Bob", "/forgetme", private=True)
        ask = newest(tg, "Erase what I store about you?", "Bob")
        assert [label for label, _ in ask.buttons] == ["Yes, erase", "Cancel"]
        mark = tg.mark()
        press = await tg.press("Bob", "Yes, erase")
        assert tg.answer(press) == "Done."
        [removed] = markups(tg, mark)
        assert (removed["chat_id"], removed["message_id"]) == (user_id("Bob"), ask.message_id)
        assert buttons_of(removed) == []
        assert "✅ Done: I erased what I stored about you." in tg.texts("Bob", since=mark)
        assert _rows(uow_factory, bob) == (0, 0)
