"""Someone in two groups' games at once: what they do in private reaches the game it is
about, played through the conversation layer on both databases.

- A button names its game: one of the older game, pressed in private, acts on that game;
  one of a game they are not in, or one that is over, is refused.
- A pin or a command goes to the one game waiting for them (a hider whose zone awaits
  their pin); else to the game they chose; else they are asked which game they mean, once
  a while for a live location's stream, and pressing a game records the choice.
- The choice lasts until that game ends; /game lists their games and switches.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from hideseek_chat.chat import routes
from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.keyboards import Verb, encode
from hideseek_chat.chat.model import Inbound, Outbound
from hideseek_chat.console.table import Line, Table
from hideseek_chat.rules.state import CardZone, GameState, Phase
from hideseek_chat.store import UnitOfWorkFactory, delete_player_data
from hideseek_chat.store.chats import Focus
from hideseek_chat.store.models import PingRow
from tests.chat.play import HIDER_SPOT, SEEKERS_START, START, events_count, labels, text_of

FIRST = ("console:group", "Stillwater crew")
SECOND = ("console:campus", "Campus league")
THIRD = ("console:cafe", "Café regulars")


@dataclass
class LoopTable(Table):
    """A table whose drive loop runs in an event loop: with two games, both outboxes are
    sent side by side (``Driver.drain``), which needs one."""

    loop: asyncio.AbstractEventLoop = field(default_factory=asyncio.new_event_loop)

    def deliver(self, msg: Inbound) -> list[Outbound]:
        return self.loop.run_until_complete(self.driver.on_message(msg))

    def flush(self) -> None:
        self.loop.run_until_complete(self.driver.drain())

    def wait(self, span: timedelta) -> None:
        end = self.now + span
        while self.now < end:
            self.now = min(end, self.now + self.tick_every)
            self.loop.run_until_complete(self.driver.on_tick())


@pytest.fixture
def table(uow_factory: UnitOfWorkFactory) -> Iterator[Table]:
    """Alice, Bob, Carol, Dave and Erin, each with a private chat open (seed 11: Alice
    hides first in the Stillwater crew, Dave in the Campus league)."""
    table = LoopTable(Conversation(uow_factory, seeds=lambda: 11), START)
    try:
        for name in ("Alice", "Bob", "Carol", "Dave", "Erin"):
            table.person(name)
        yield table
    finally:
        table.loop.close()


@contextmanager
def in_group(table: Table, group: tuple[str, str]) -> Iterator[None]:
    """Speak in ``group`` (its key and title) instead of the table's own."""
    before = table.group, table.title
    table.group, table.title = group
    try:
        yield
    finally:
        table.group, table.title = before


def state_in(uow_factory: UnitOfWorkFactory, group: tuple[str, str]) -> GameState:
    with uow_factory() as uow:
        loaded = uow.games.for_chat(group[0])
        assert loaded is not None
        return loaded.state


def game_id_in(uow_factory: UnitOfWorkFactory, group: tuple[str, str]) -> int:
    with uow_factory() as uow:
        found = uow.games.current_id(group[0])
        assert found is not None
        return found


def pings_in(uow_factory: UnitOfWorkFactory, group: tuple[str, str]) -> int:
    game_id = game_id_in(uow_factory, group)
    with uow_factory() as uow:
        query = select(func.count(PingRow.id)).where(PingRow.game_id == game_id)
        return int(uow.session.scalar(query) or 0)


def two_games(table: Table) -> None:
    """Alice, Bob and Carol play in the Stillwater crew (begun first: Alice hides); Dave,
    Alice and Erin in the Campus league, begun an hour later."""
    with in_group(table, FIRST):
        table.send("Alice", "/newgame small metric")
        table.send("Bob", "/join")
        table.send("Carol", "/join")
        table.send("Alice", "/begin")
    table.wait(timedelta(minutes=5))
    with in_group(table, SECOND):
        table.send("Dave", "/newgame small metric")
        table.send("Alice", "/join")
        table.send("Erin", "/join")
        table.send("Dave", "/begin")


def status_of(table: Table, name: str) -> str:
    """What ``name``'s /status in private answers."""
    mark = table.mark()
    table.send(name, "/status", private=True)
    return text_of(table.said(name, since=mark))


def is_question(line: Line) -> bool:
    return line.text.startswith("🎲 You play in more than one game. Which game is this about?")


def questions_to(table: Table, name: str, since: int = 0) -> list[Line]:
    return [line for line in table.said(name, since=since) if is_question(line)]


FIRST_STATUS = "Round 1 — Alice hiding"  # the Stillwater crew's /status
SECOND_STATUS = "Round 1 — Dave hiding"  # the Campus league's


# ----- buttons name their game -----


def test_a_private_button_of_the_older_game_acts_on_the_older_game(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    two_games(table)
    table.send("Alice", "/game", private=True)
    table.press("Alice", "Stillwater crew")
    table.pin("Alice", *HIDER_SPOT, private=True)  # her zone in the Stillwater crew
    table.wait(timedelta(minutes=31))
    assert state_in(uow_factory, FIRST).phase == Phase.SEEKING
    table.send("Alice", "/game", private=True)
    table.press("Alice", "Campus league")  # her private messages are about the newer game
    with in_group(table, FIRST):
        table.pin("Bob", *SEEKERS_START)
        table.send("Bob", "/ask radar 1km")
    mark = table.mark()
    table.press("Alice", "No", chat="Alice")
    assert table.toasts[-1][1] == "Done."
    asked = state_in(uow_factory, FIRST).questions
    assert [q.answer for q in asked] == ["no"], "answered in the game the button names"
    assert state_in(uow_factory, SECOND).questions == []
    # The answer earned cards: nothing in the Stillwater crew waits for her any more, her
    # private messages are about the Campus league, and the buttons still reach their game.
    table.press("Alice", "🃏", chat="Alice")
    assert table.toasts[-1][1] == "Done."
    first = state_in(uow_factory, FIRST)
    assert len(first.cards_in(CardZone.HAND, first.hider_team_id())) == 1
    assert not questions_to(table, "Alice", since=mark)


def test_a_private_button_of_a_game_the_presser_is_not_in_or_that_is_over_is_refused(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    two_games(table)
    with in_group(table, THIRD):
        table.send("Bob", "/newgame")
    others = game_id_in(uow_factory, THIRD)
    table.press_data("Alice", encode(Verb.SHOW_HAND, others))
    assert table.toasts[-1][1] == "That button belongs to an earlier game."
    table.press_data("Alice", encode(Verb.SHOW_HAND, 2**31 - 1))
    assert table.toasts[-1][1] == "That button belongs to an earlier game."
    table.press_data("Alice", "hand:99999999999999")
    assert table.toasts[-1][1] == "That button no longer works."
    mark = table.mark()
    table.press_data("Alice", encode(Verb.SHOW_HAND, game_id_in(uow_factory, FIRST)))
    assert "hand" in text_of(table.said("Alice", since=mark)).lower()


# ----- pins and commands -----


def test_a_pin_goes_to_the_game_waiting_for_it_whatever_was_chosen(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    two_games(table)
    table.send("Alice", "/game", private=True)
    table.press("Alice", "Campus league")
    table.wait(timedelta(minutes=26))  # the Stillwater crew's hiding period is over
    first = state_in(uow_factory, FIRST)
    assert first.phase == Phase.SEEKING
    assert first.current_round is not None and first.current_round.zone is None
    assert state_in(uow_factory, SECOND).phase == Phase.HIDING
    listed = text_of(table.said("Alice", since=table.mark()))
    table.send("Alice", "/game", private=True)
    listed = table.last("Alice")
    assert "Stillwater crew — Seeking — ⏳ waiting for you" in listed
    assert "Stillwater crew is waiting for you" in listed
    assert FIRST_STATUS in status_of(table, "Alice")

    mark = table.mark()
    table.pin("Alice", *HIDER_SPOT, private=True)
    first = state_in(uow_factory, FIRST)
    assert first.current_round is not None and first.current_round.zone is not None
    assert pings_in(uow_factory, FIRST) == 1 and pings_in(uow_factory, SECOND) == 0
    assert not questions_to(table, "Alice", since=mark)
    # The zone is fixed: nothing waits for her, her choice holds again.
    assert SECOND_STATUS in status_of(table, "Alice")


def test_an_unclear_command_asks_and_the_choice_holds_until_its_game_ends(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    two_games(table)
    events = events_count(uow_factory)
    mark = table.mark()
    table.send("Alice", "/status", private=True)
    (asked,) = table.said("Alice", since=mark)
    assert is_question(asked) and "send it again" in asked.text
    assert labels(asked) == ["Campus league", "Stillwater crew"]
    assert events_count(uow_factory) == events, "asking changes no game"

    table.press("Alice", "Stillwater crew")
    chosen = table.last("Alice")
    assert chosen.startswith("✅ Your private messages are about Stillwater crew now")
    assert "send your message again" in chosen
    assert labels(asked) == ["Campus league", "✓ Stillwater crew"]
    assert FIRST_STATUS in status_of(table, "Alice")

    table.send("Alice", "/game", private=True)
    listed = table.said("Alice")[-1]
    assert "Your private messages are about Stillwater crew." in listed.text
    assert labels(listed) == ["Campus league", "✓ Stillwater crew"]
    table.press("Alice", "Campus league")
    assert SECOND_STATUS in status_of(table, "Alice")

    with in_group(table, SECOND):  # the chosen game ends
        table.send("Dave", "/abort")
        table.press("Dave", "Yes, end the game")
    assert state_in(uow_factory, SECOND).phase == Phase.GAME_OVER
    assert FIRST_STATUS in status_of(table, "Alice"), "her one game now"
    with in_group(table, SECOND):  # a new game in the same group: a new question
        table.send("Dave", "/newgame")
        table.send("Alice", "/join")
    mark = table.mark()
    table.send("Alice", "/status", private=True)
    assert len(questions_to(table, "Alice", since=mark)) == 1

    # The old keyboard's Campus league button names the game that ended.
    table.press_data("Alice", asked.buttons[0][0].data, asked)
    assert table.toasts[-1][1] == "That game is over, or you no longer play in it."


def test_a_forged_choice_is_refused_clearly(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    two_games(table)
    with in_group(table, THIRD):
        table.send("Bob", "/newgame")
    for game_id in (game_id_in(uow_factory, THIRD), 0, -5, 2**31 - 1):
        table.press_data("Alice", encode(Verb.CHOOSE_GAME, game_id))
        assert table.toasts[-1][1] == "That game is over, or you no longer play in it."
    for data in ("focus:99999999999999", "focus:x", "focus"):
        table.press_data("Alice", data)
        assert table.toasts[-1][1] == "That button no longer works."
    in_the_group = Line(0, table.now, FIRST[0], "")  # never from a group
    table.press_data(
        "Alice", encode(Verb.CHOOSE_GAME, game_id_in(uow_factory, FIRST)), in_the_group
    )
    assert table.toasts[-1][1] == "Please send me this in our private chat, not in the group."
    with uow_factory() as uow:
        assert uow.chats.focus("console:alice").game_id is None
    mark = table.mark()
    table.send("Alice", "/status", private=True)
    assert len(questions_to(table, "Alice", since=mark)) == 1, "still unclear"


def test_erasing_a_person_forgets_the_game_they_chose(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    two_games(table)
    table.send("Alice", "/game", private=True)
    table.press("Alice", "Campus league")
    campus = game_id_in(uow_factory, SECOND)
    with uow_factory() as uow:
        assert uow.chats.focus("console:alice").game_id == campus
    delete_player_data(uow_factory, "console:alice")
    with uow_factory() as uow:
        assert uow.chats.focus("console:alice") == Focus()


def test_a_live_location_asks_once_in_a_while_not_on_every_update(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    two_games(table)
    mark = table.mark()
    table.pin("Alice", *HIDER_SPOT, private=True)  # a live location starts
    for _ in range(20):  # and moves every 15 seconds for five minutes
        table.now += timedelta(seconds=15)
        table.pin("Alice", *HIDER_SPOT, private=True)
    assert len(questions_to(table, "Alice", since=mark)) == 1
    assert pings_in(uow_factory, FIRST) == 0 and pings_in(uow_factory, SECOND) == 0
    table.now += timedelta(minutes=6)  # ten minutes after the question
    table.pin("Alice", *HIDER_SPOT, private=True)
    assert len(questions_to(table, "Alice", since=mark)) == 2
    table.press("Alice", "Stillwater crew")
    table.now += timedelta(seconds=15)
    table.pin("Alice", *HIDER_SPOT, private=True)
    assert pings_in(uow_factory, FIRST) == 1 and pings_in(uow_factory, SECOND) == 0
    assert len(questions_to(table, "Alice", since=mark)) == 2
    # A one-off pin, or a command, is always answered.
    with uow_factory() as uow:
        uow.chats.choose_game("console:alice", None)
        uow.commit()
    table.pin("Alice", *HIDER_SPOT, private=True, live=False)
    table.send("Alice", "/hand", private=True)
    assert len(questions_to(table, "Alice", since=mark)) == 4


def test_what_needs_no_game_does_not_ask(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    two_games(table)
    mark = table.mark()
    table.send("Alice", "/help", private=True)
    assert "/game — in several games at once" in table.last("Alice")
    table.send("Alice", "/start", private=True)
    table.send("Alice", "/language de", private=True)
    table.send("Alice", "hello there", private=True)  # chatter, not a pin
    assert len(questions_to(table, "Alice", since=mark)) == 0
    table.send("Alice", "36.12622, -97.06401", private=True)  # coordinates are a pin
    assert table.last("Alice").startswith("🎲 Du spielst in mehr als einem Spiel.")
    assert pings_in(uow_factory, FIRST) == 0 and pings_in(uow_factory, SECOND) == 0
    assert ("game", "in several games at once: choose which one our chat is about") in (
        routes.menu(routes.Where.PRIVATE)
    )
    assert "game" not in dict(routes.menu(routes.Where.GROUP))


def test_one_game_one_person_is_never_asked(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    with in_group(table, FIRST):
        table.send("Alice", "/newgame small metric")
        table.send("Bob", "/join")
        table.send("Alice", "/begin")
    mark = table.mark()
    table.send("Alice", "/game", private=True)
    assert "You play in 1 game:\n• Stillwater crew — Hiding period" in table.last("Alice")
    assert labels(table.said("Alice")[-1]) == []
    table.send("Alice", "/status", private=True)
    table.pin("Alice", *HIDER_SPOT, private=True)
    assert pings_in(uow_factory, FIRST) == 1
    assert not questions_to(table, "Alice", since=mark)
