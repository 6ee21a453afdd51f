"""What the conversation-layer tests share: the table of three on the Stillwater map, the
game begun, stacked cards, the state read back and what the group and seekers read.

The ``table`` fixture itself is in ``conftest.py`` (built by ``new_table``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from sqlalchemy import func, select

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.drive import Capabilities
from hideseek_chat.console.table import CAPABILITIES, Line, Table
from hideseek_chat.rules.state import CardZone, GameState
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.models import EventRow

START = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)
NAMES = ("Alice", "Bob", "Carol")
STATION = "Gallagher-Iba"  # 36.1267339, -97.0643939
HIDER_SPOT = (36.12622, -97.06401)  # 67 m from Gallagher-Iba
SEEKERS_START = (36.14000, -97.08000)  # about 2.1 km from HIDER_SPOT


def new_table(
    uow_factory: UnitOfWorkFactory,
    seed: int = 11,
    names: Iterable[str] = NAMES,
    capabilities: Capabilities = CAPABILITIES,
) -> Table:
    """``names`` at a table (on a channel with ``capabilities``), the first will be the
    admin. With seed 11 Alice hides first, with seed 2 Carol does."""
    table = Table(Conversation(uow_factory, seeds=lambda: seed), START, capabilities=capabilities)
    for name in names:
        table.person(name)
    return table


def begin(table: Table, size: str = "small", transport: str | None = None) -> tuple[str, list[str]]:
    """Alice starts a ``size`` game (with ``transport`` chosen on the settings keyboard),
    Bob and Carol join, it begins: the hider and the seekers' names."""
    table.send("Alice", f"/newgame {size} metric")
    table.press("Bob", "Join the game")
    table.send("Carol", "/join")
    if transport is not None:
        table.send("Alice", "/settings")
        table.press("Alice", transport)
    table.send("Alice", "/begin")
    hider = next(n for n in NAMES if any("You're hiding" in x.text for x in table.said(n)))
    return hider, [n for n in NAMES if n != hider]


def state_of(uow_factory: UnitOfWorkFactory, table: Table) -> GameState:
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        return loaded.state


def give_cards(uow_factory: UnitOfWorkFactory, table: Table, *def_ids: str) -> list[int]:
    """Stack the deck: move the named cards from the deck to the hider's hand."""
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
        assert loaded is not None
        state = loaded.state
        team = state.hider_team_id()
        ids = []
        for def_id in def_ids:
            card = next(c for c in state.cards_in(CardZone.DECK) if c.def_id == def_id)
            card.zone, card.holder_team_id = CardZone.HAND, team
            card.position = 100 + card.id
            ids.append(card.id)
        uow.games.save(loaded.id, state)
        uow.commit()
        return ids


def events_count(uow_factory: UnitOfWorkFactory) -> int:
    with uow_factory() as uow:
        return int(uow.session.scalar(select(func.count(EventRow.id))) or 0)


def labels(line: Line) -> list[str]:
    return [b.label for row in line.buttons for b in row]


def text_of(lines: list[Line]) -> str:
    return "\n".join(line.text for line in lines)


def public_lines(table: Table, seekers: list[str], since: int = 0) -> list[Line]:
    """What the bot said to the group and the seekers (after line ``since``)."""
    refs = {table.group} | {table.person(s).ref for s in seekers}
    return [x for x in table.lines if x.chat in refs and x.author == "bot" and x.id > since]


def public_text(table: Table, seekers: list[str], since: int = 0) -> str:
    """What the group and the seekers read (the hider's place must never be in it)."""
    return text_of(public_lines(table, seekers, since))
