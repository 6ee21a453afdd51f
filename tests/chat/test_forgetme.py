"""``/forgetme``: a person erases what the bot stores about them, after confirming, and not
while a game that has not ended needs them."""

from __future__ import annotations

from sqlalchemy import Engine, func, select

from hideseek_chat.console.table import Table
from hideseek_chat.store.models import EventRow, PersonRow, PlayerRow
from tests.chat.play import begin


def _rows_naming(engine: Engine, ref: str) -> tuple[int, int, int]:
    """(players, people, events) rows that still name ``ref``."""
    with engine.connect() as connection:
        players = connection.scalar(select(func.count()).where(PlayerRow.ref == ref))
        people = connection.scalar(select(func.count()).where(PersonRow.ref == ref))
        events = connection.scalar(
            select(func.count()).where((EventRow.actor_ref == ref) | EventRow.payload.contains(ref))
        )
    return int(players or 0), int(people or 0), int(events or 0)


def _labels(table: Table, name: str) -> set[str]:
    return {button.label for _, button in table.buttons(name, chat=name)}


def test_forgetme_erases_after_the_yes_and_not_while_a_game_needs_the_person(
    table: Table, engine: Engine
) -> None:
    begin(table)
    bob = table.person("Bob").ref
    table.send("Bob", "/forgetme", private=True)
    assert "still in a game that has not ended" in table.last("Bob")
    assert "Yes, erase" not in _labels(table, "Bob")
    assert _rows_naming(engine, bob)[:2] == (1, 1)

    table.send("Alice", "/abort")
    table.press("Alice", "Yes, end the game")
    table.send("Bob", "/forgetme", private=True)
    assert "Erase what I store about you?" in table.last("Bob")
    assert {"Yes, erase", "Cancel"} <= _labels(table, "Bob")

    table.press("Bob", "Cancel", chat="Bob")
    assert table.last("Bob") == "Nothing was erased."
    assert "Yes, erase" not in _labels(table, "Bob")  # the keyboard went with the answer
    before = _rows_naming(engine, bob)
    assert before[0] == 1 and before[1] == 1 and before[2] > 0

    table.send("Bob", "/forgetme", private=True)
    table.press("Bob", "Yes, erase", chat="Bob")
    assert table.last("Bob").startswith("✅ Done: I erased what I stored about you.")
    assert _rows_naming(engine, bob) == (0, 0, 0)
    assert "Yes, erase" not in _labels(table, "Bob")
    with engine.connect() as connection:
        names = connection.scalars(select(PlayerRow.name)).all()
    assert "Bob" not in names and "Alice" in names  # only Bob is forgotten


def test_a_yes_pressed_after_joining_a_new_game_erases_nothing(
    table: Table, engine: Engine
) -> None:
    table.send("Bob", "/forgetme", private=True)  # in no game yet: asked at once
    assert "Erase what I store about you?" in table.last("Bob")
    table.send("Alice", "/newgame small metric")
    table.send("Bob", "/join")
    table.press("Bob", "Yes, erase", chat="Bob")
    assert "still in a game that has not ended" in table.last("Bob")
    assert "Yes, erase" not in _labels(table, "Bob")  # /forgetme again asks again
    assert _rows_naming(engine, table.person("Bob").ref)[:2] == (1, 1)


def test_forgetme_is_for_the_private_chat_and_listed_only_there(table: Table) -> None:
    table.send("Bob", "/forgetme")
    assert "private chat" in table.last()
    table.send("Bob", "/help", private=True)
    assert "/forgetme" in table.last("Bob")
    table.send("Bob", "/help")
    assert "/forgetme" not in table.last()
