"""The botnet game played through the conversation, on SQLite and PostgreSQL."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.handlers import botnet as botnet_chat
from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.model import ButtonIn, ChatKind, CommandIn, Sender, SendText
from hideseek_chat.chat.texts import botnet_keys, ending, grid, say
from hideseek_chat.console.table import Table
from hideseek_chat.rules import botnet as botnet_rules
from hideseek_chat.rules.botnet import Ending, Stage, new_match, parse_cell
from hideseek_chat.store import UnitOfWorkFactory


def toast(table: Table) -> str:
    return table.toasts[-1][1]


def start(table: Table, first: str = "Bob") -> None:
    """Alice challenges, Bob accepts, ``first`` is chosen to move first."""
    table.send("Alice", "/botnet")
    table.press("Bob", "Accept", chat=table.group)
    table.press("Alice", first, chat=table.group)


def move(table: Table, who: str, cell: str) -> None:
    table.press(who, cell, chat=who)


def claim(table: Table, who: str, cell: str) -> None:
    table.press(who, cell, chat=table.group)


def stored(uow_factory: UnitOfWorkFactory, table: Table):  # type: ignore[no-untyped-def]
    with uow_factory() as uow:
        return uow.botnet.latest_for_chat(table.group)


def test_a_challenge_is_accepted_and_played_to_a_find(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    table.send("Alice", "/botnet")
    assert "Alice wants to play hide && seek" in table.last()
    table.press("Alice", "Accept", chat=table.group)
    assert "your own challenge" in toast(table)
    table.press("Bob", "Accept", chat=table.group)
    assert "Alice and Bob play hide && seek" in table.last()
    table.press("Carol", "Toss a coin", chat=table.group)
    assert "Only Alice and Bob play" in toast(table)
    table.press("Bob", "Toss a coin", chat=table.group)  # the seed 11 picks seat 1: Bob
    assert "The coin says Bob moves first.\nBob's turn: move your proxy" in table.last()
    assert "Your proxy starts on h1" in table.said("Alice")[-1].text
    prompt = table.said("Bob")[-1]
    assert "your proxy is on a8" in prompt.text
    assert sorted(b.label for row in prompt.buttons for b in row) == ["→ b8", "↓ a7"]

    move(table, "Bob", "a7")
    assert "Your proxy is on a7 now" in table.said("Bob")[-1].text
    assert "Bob has moved their proxy" in table.last()
    assert len(table.said()[-1].buttons) == 8 and all(len(r) == 8 for r in table.said()[-1].buttons)
    claim(table, "Bob", "c5")
    board = table.last()
    assert "Bob claimed c5." in board
    assert "Alice's turn: move your proxy" in board
    assert "X Alice: 1 device · O Bob: 2 devices" in board
    assert "5 · · O · · · · · 5" in board and "3 · · · · · X · · 3" in board
    move(table, "Alice", "g1")
    claim(table, "Alice", "f4")
    move(table, "Bob", "a6")
    claim(table, "Bob", "g1")  # Alice's proxy is on g1
    final = table.last()
    assert "Bob claimed g1, where Alice's proxy was hiding. Bob wins!" in final
    assert "Alice's proxy went h1 → g1." in final
    assert "Bob's proxy went a8 → a7 → a6." in final
    match = stored(uow_factory, table)
    assert match.status == "over" and match.winner_seat == 1 and match.ending == Ending.FOUND
    assert len(match.events) == 6


def test_the_group_sees_nothing_of_where_the_proxies_are(table: Table) -> None:
    """Two matches with the same claims and different proxy paths read the same in the
    group, word for word and button for button, until the match ends."""

    def group_view(since: int) -> list[tuple[str, tuple[str, ...]]]:
        return [
            (line.text, tuple(b.label for row in line.buttons for b in row))
            for line in table.said(since=since)
        ]

    views = []
    for bob_path, alice_path in ((["a7", "a6"], ["g1", "g2"]), (["b8", "c8"], ["h2", "h3"])):
        mark = table.mark()
        start(table, "Bob")
        for bob, alice, bob_claim, alice_claim in zip(
            bob_path, alice_path, ["c5", "c4"], ["f4", "f5"], strict=True
        ):
            move(table, "Bob", bob)
            claim(table, "Bob", bob_claim)
            move(table, "Alice", alice)
            claim(table, "Alice", alice_claim)
        views.append(group_view(mark))
        table.send("Alice", "/resign")
        assert "Alice resigned. Bob wins!" in table.last()
    assert views[0] == views[1]
    assert len(views[0]) > 8


def test_illegal_steps_get_a_reason_and_change_nothing(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    start(table, "Alice")
    table.send("Bob", "/move b8", private=True)
    assert "isn't your turn" in table.last("Bob")
    table.send("Alice", "/claim f4")
    assert "Move your proxy first" in table.last()
    table.send("Alice", "/move h3", private=True)
    assert "h3 isn't next to your proxy on h1" in table.last("Alice")
    table.send("Alice", "/move h1", private=True)
    assert "on h1 already" in table.last("Alice")
    table.send("Alice", "/move z9", private=True)
    assert "“z9” isn't a device on the board" in table.last("Alice")
    table.send("Alice", "/move", private=True)
    assert "/move e6" in table.last("Alice")
    assert len(stored(uow_factory, table).events) == 0

    mark = table.mark()
    table.send("Alice", "/move g1")  # in the group: her move would be read by Bob
    assert "I've deleted your message" in table.last()
    assert any(line.deleted and line.text == "/move g1" for line in table.lines)
    assert len(stored(uow_factory, table).events) == 0
    assert table.mark() > mark

    prompt = next(line for line in reversed(table.said("Alice")) if line.buttons)
    forged = next(b.data for row in prompt.buttons for b in row if "g1" in b.label)
    table.press_data("Alice", forged, table.said()[-1])  # a move button pressed in the group
    assert "never here" in toast(table)
    assert len(stored(uow_factory, table).events) == 0
    table.send("Alice", "/move g1", private=True)
    table.send("Alice", "/claim f4", private=True)
    assert "Claim devices in the group" in table.last("Alice")
    table.send("Alice", "/claim f3")
    assert "f3 is in your botnet already" in table.last()
    table.send("Alice", "/claim c6")
    assert "c6 is in your opponent's botnet" in table.last()
    table.send("Bob", "/claim e4")
    assert "isn't your turn" in table.last()
    table.send("Alice", "/move g2", private=True)
    assert "now claim a device" in table.last("Alice")
    old_keyboard = next(line for line in reversed(table.said()) if len(line.buttons) == 8)
    table.send("Alice", "/claim f4")
    move(table, "Bob", "b8")
    table.send("Bob", "/claim b6")
    # a button of an earlier turn's board claims nothing
    data = next(b.data for row in old_keyboard.buttons for b in row if b.label == "e5")
    table.press_data("Alice", data, old_keyboard)
    assert "out of date" in toast(table)
    prompt = table.said("Alice")[-1]
    assert sorted(b.label for row in prompt.buttons for b in row) == ["← f1", "↑ g2"]
    table.send("Alice", "/move h1", private=True)
    assert "has been on h1 before" in table.last("Alice")
    move(table, "Alice", "g2")
    claim(table, "Alice", "g3")
    move(table, "Bob", "c8")
    claim(table, "Bob", "b5")
    prompt = table.said("Alice")[-1]
    assert sorted(b.label for row in prompt.buttons for b in row) == ["← f2", "→ h2"]
    table.send("Alice", "/move g3", private=True)
    assert "g3 is in your botnet" in table.last("Alice")
    match = stored(uow_factory, table).match
    assert match.proxy(0) == parse_cell("g2") and match.turns == 4


def test_a_far_claim_gives_the_opponent_turns_in_a_row(table: Table) -> None:
    start(table, "Alice")
    move(table, "Alice", "g1")
    claim(table, "Alice", "f6")  # three from f3: two devices skipped
    board = table.last()
    assert "That skips 2 devices beyond their botnet: Bob plays 3 turns in a row." in board
    assert "Bob's turn (3 turns in a row left)" in board
    assert "You have 3 turns in a row" in table.said("Bob")[-1].text
    for to, device in [("a7", "c5"), ("a6", "c4"), ("a5", "c3")]:
        move(table, "Bob", to)
        claim(table, "Bob", device)
    assert "Bob's turn (2 turns in a row left)" in table.said()[-5].text
    assert "Alice's turn: move your proxy" in table.last()


def test_the_two_players_of_the_groups_game_start_without_a_challenge(table: Table) -> None:
    table.send("Alice", "/newgame")
    table.send("Bob", "/join")
    table.send("Bob", "/botnet")
    assert "Bob and Alice play hide && seek" in table.last()
    assert "Accept" not in str(table.said()[-1].buttons)


def test_a_challenge_for_someone_is_theirs_to_accept(table: Table) -> None:
    table.send("Alice", "/botnet @carol")
    assert "@carol, Alice challenges you" in table.last()
    table.press("Bob", "Accept", chat=table.group)
    assert "This challenge is for @carol." in toast(table)
    table.press("Carol", "Accept", chat=table.group)
    assert "Alice and Carol play" in table.last()
    table.send("Bob", "/botnet")
    assert "Alice and Carol play" in table.last()  # the running match, shown again
    table.send("Alice", "/botnet bob")
    assert "Alice and Carol play" in table.last()


def test_a_used_or_doubled_challenge_starts_nothing_more(table: Table) -> None:
    table.send("Alice", "/botnet")
    challenge = table.said()[-1]
    table.press("Bob", "Accept", chat=table.group)
    data = challenge.buttons[0][0].data
    table.press_data("Carol", data, challenge)
    assert "running in this group already" in toast(table)
    table.send("Bob", "/resign")
    assert table.last() == "Bob called the match off."
    table.press_data("Carol", data, challenge)
    assert "out of date" in toast(table)


def test_a_bad_challenge_target_is_explained(table: Table) -> None:
    table.send("Alice", "/botnet carol")
    assert "like /botnet @name" in table.last()
    table.send("Alice", "/botnet @a;drop")
    assert "like /botnet @name" in table.last()
    table.send("Alice", "/botnet @Alice")  # herself: nobody could accept
    assert "like /botnet @name" in table.last()
    assert not any(b for line in table.said() for row in line.buttons for b in row)


def test_a_match_survives_a_restart(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    start(table, "Alice")
    move(table, "Alice", "g1")
    claim(table, "Alice", "f4")
    move(table, "Bob", "a7")
    restarted = Table(Conversation(uow_factory, seeds=lambda: 11), table.now)
    restarted.people = table.people
    restarted._next_id = table._next_id  # the chat's message ids go on after a bot restart
    restarted.send("Bob", "/botnet")
    keyboard = restarted.said()[-1]
    assert "Bob has moved their proxy" in keyboard.text and len(keyboard.buttons) == 8
    restarted.press("Bob", "c5", chat=restarted.group)
    assert "Bob claimed c5." in restarted.last()
    assert "your proxy is on g1" in restarted.said("Alice")[-1].text
    mark = restarted.mark()
    restarted.send("Alice", "/botnet")  # lost the prompt? /botnet sends it again
    assert "Alice's turn" in restarted.said(since=mark)[0].text
    assert "your proxy is on g1" in restarted.said("Alice", since=mark)[0].text


def test_redelivered_steps_apply_once(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    start(table, "Alice")
    conv = table.conversation
    prompt = table.said("Alice")[-1]
    data = next(b.data for row in prompt.buttons for b in row if "g1" in b.label)
    press = ButtonIn(
        "console:alice",
        ChatKind.PRIVATE,
        Sender("console:alice", "Alice"),
        table.now,
        update_id="redelivered-1",
        data=data,
        press_ref="p1",
    )
    first = conv.handle(press)
    again = conv.handle(press)
    assert any(isinstance(r, SendText) for r in first)
    assert not any(isinstance(r, SendText) for r in again)
    assert len(stored(uow_factory, table).events) == 1


def test_the_board_is_a_picture_and_a_grid(table: Table) -> None:
    start(table, "Alice")
    move(table, "Alice", "g1")
    claim_f4 = CommandIn(
        table.group,
        ChatKind.GROUP,
        Sender("console:alice", "Alice"),
        table.now,
        name="claim",
        args=("f4",),
    )
    replies = table.conversation.handle(claim_f4)
    board = next(r for r in replies if isinstance(r, SendText) and r.to == table.group)
    assert board.image is not None and board.image.startswith(b"\x89PNG")
    assert board.pre.splitlines()[0] == "  a b c d e f g h"
    assert "g1" not in board.pre and "X" in board.pre


def test_the_game_speaks_the_groups_language(table: Table) -> None:
    table.send("Alice", "/language de")
    table.send("Alice", "/botnet")
    wants = "{name} wants to play hide && seek on the botnet grid. Who takes them on?"
    assert Formatter("de").t(wants, name="Alice") in table.last()
    assert Formatter("en").t(wants, name="Alice") not in table.last()
    challenge = table.said()[-1]
    table.press_data("Bob", challenge.buttons[0][0].data, challenge)
    table.press("Alice", "Bob", chat=table.group)
    german = table.last()
    move(table, "Bob", "a7")
    claim(table, "Bob", "c5")
    board = table.last()
    english = Formatter("en")
    assert english.t("{name} moves first.", name="Bob") not in german
    assert Formatter("de").t("{name} moves first.", name="Bob") in german
    assert Formatter("de").t("{name} claimed {cell}.", name="Bob", cell="c5") in board
    assert "Bob claimed c5." not in board and "5 · · O · · · · · 5" in board


@pytest.mark.parametrize("language", ["en", "de", "es"])
def test_every_botnet_refusal_reads_well(language: str) -> None:
    params = {
        "text": "z9",
        "cell": "e6",
        "here": "e5",
        "names": ["Alice", "Bob"],
        "username": "carol",
        "command": "claim",
    }
    for key in botnet_keys():
        said = say(key, params, Formatter(language))
        assert said and "{" not in said, key
        if language != "en":
            assert said != say(key, params, Formatter("en")), key


def test_every_refusal_the_botnet_chat_raises_has_its_text() -> None:
    source = Path(botnet_chat.__file__).read_text() + Path(botnet_rules.__file__).read_text()
    keys = set(re.findall(r'"(botnet\.[a-z_]+)"', source))
    assert len(keys) > 20
    assert keys <= botnet_keys(), keys - botnet_keys()


def test_an_ending_by_a_stuck_proxy_names_the_winner_and_both_paths() -> None:
    match = replace(
        new_match(1),
        paths=((parse_cell("b1"), parse_cell("a1")), (parse_cell("a8"), parse_cell("a7"))),
        stage=Stage.OVER,
        winner=1,
        ending=Ending.STUCK,
    )
    text = ending(match, None, ("Alice", "Bob"), Formatter("en"))
    assert text.splitlines() == [
        "Alice's proxy has nowhere left to go. Bob wins!",
        "Alice's proxy went b1 → a1.",
        "Bob's proxy went a8 → a7.",
    ]
    assert grid(match, paths=(0, 1)).splitlines()[1] == "8 o · · · · · · · 8"


def test_two_accepts_at_once_start_one_match(
    table: Table, uow_factory: UnitOfWorkFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    table.send("Alice", "/botnet")
    challenge = table.said()[-1]
    table.press("Bob", "Accept", chat=table.group)
    # Carol's press was checked before Bob's match was stored: only the database can tell.
    from hideseek_chat.store.botnet import BotnetMatches

    monkeypatch.setattr(BotnetMatches, "active_for_chat", lambda *args, **kwargs: None)
    monkeypatch.setattr(BotnetMatches, "latest_for_chat", lambda *args, **kwargs: None)
    table.press_data("Carol", challenge.buttons[0][0].data, challenge)
    assert "running in this group already" in toast(table)
    with uow_factory() as uow:
        assert len(uow.botnet.active_for_person("console:alice")) == 1
