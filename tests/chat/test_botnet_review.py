"""The botnet game against hostile or clumsy players: forged and stale buttons, strangers,
players in two matches, a Hide+Seek game in the same group, doubled presses, odd
resignations, leaks of a proxy's device and the language of private replies.

Every step goes through the whole conversation (``Table``) on SQLite and PostgreSQL; each
case checks both the reply and that nothing was lost or changed.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.model import ButtonIn, ChatKind, Sender, SendText
from hideseek_chat.console.table import Line, Table
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.botnet import StoredMatch

OTHER_GROUP = "console:group2"


def second_group(table: Table) -> Table:
    """A second group with the same people and conversation (its own update ids)."""
    other = Table(table.conversation, table.now, group=OTHER_GROUP)
    other.people = table.people
    other._next_id = 100_000
    return other


def start(table: Table, first: str = "Alice", *, rival: str = "Bob") -> None:
    """Alice challenges, ``rival`` accepts, ``first`` is chosen to move first."""
    table.send("Alice", "/botnet")
    table.press(rival, "Accept", chat=table.group)
    table.press("Alice", first, chat=table.group)


def move(table: Table, who: str, cell: str) -> None:
    table.press(who, cell, chat=who)


def claim(table: Table, who: str, cell: str) -> None:
    table.press(who, cell, chat=table.group)


def toast(table: Table) -> str:
    return table.toasts[-1][1]


def latest(uow_factory: UnitOfWorkFactory, chat: str) -> StoredMatch:
    with uow_factory() as uow:
        stored = uow.botnet.latest_for_chat(chat)
    assert stored is not None
    return stored


def count_matches(uow_factory: UnitOfWorkFactory, chat: str) -> int:
    with uow_factory() as uow:
        stored = uow.botnet.latest_for_chat(chat)
    return 0 if stored is None else stored.id


def press_raw(table: Table, who: str, data: str, chat: str) -> list:  # type: ignore[type-arg]
    """``who`` presses a button with ``data`` in ``chat``, however it got there."""
    person = table.person(who)
    kind = ChatKind.PRIVATE if chat == person.ref else ChatKind.GROUP
    table._next_id += 1
    msg = ButtonIn(
        chat,
        kind,
        Sender(person.ref, person.name, username=person.ref.split(":", 1)[1]),
        table.now,
        update_id=f"raw:{table._next_id}",
        data=data,
        press_ref=f"raw{table._next_id}",
    )
    replies = table.conversation.handle(msg)
    table.record(replies)
    return replies


def button_data(line: Line, label: str) -> str:
    return next(b.data for row in line.buttons for b in row if label in b.label)


def newest_with_buttons(table: Table, chat: str | None = None) -> Line:
    return next(line for line in reversed(table.said(chat)) if line.buttons)


# ===================================================================== forged data


@pytest.mark.parametrize(
    "data",
    [
        "bnc:99999999999999999999:0:e6",  # an id no database column holds
        "bnm:99999999999999999999:0:g1",
        "bnfirst:99999999999999999999:0",
        "bnok:99999999999999999999:console.carol:",
        "bnc:-1:0:e6",
        "bnc:1:-5:e6",
        "bnc:1:99999999999999999999:e6",
        "bnc:1:x:e6",
        "bnc:1:0",
        "bnc:1",
        "bnc:1:0:zz",
        "bnc:1:0:e9",
        "bnm:1:0:",
        "bnfirst:1:7",
        "bnfirst:1:",
        "bnok:1",
    ],
)
def test_forged_button_data_is_refused_and_changes_nothing(
    table: Table, uow_factory: UnitOfWorkFactory, data: str
) -> None:
    start(table, "Alice")
    before = latest(uow_factory, table.group)
    for who, chat in (
        ("Alice", table.group),
        ("Alice", table.person("Alice").ref),
        ("Bob", table.group),
        ("Carol", table.group),
    ):
        toasts = len(table.toasts)
        replies = press_raw(table, who, data, chat)
        assert len(table.toasts) == toasts + 1 and toast(table), (who, data)  # a reason
        assert not any(isinstance(r, SendText) for r in replies), (who, data)
    after = latest(uow_factory, table.group)
    assert after.id == before.id and after.events == before.events
    assert after.status == before.status == "playing"


def test_a_forged_challenge_never_seats_someone_who_did_not_challenge(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    for data in ("bnok:0:", "bnok:0:nobody:", "bnok:0:console.stranger:"):
        press_raw(table, "Bob", data, table.group)
        assert "out of date" in toast(table), data
    assert count_matches(uow_factory, table.group) == 0
    table.send("Alice", "/botnet")  # a real challenge still works
    table.press("Bob", "Accept", chat=table.group)
    assert "Alice and Bob play" in table.last()


def test_who_moves_first_is_only_decided_in_the_matchs_group(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    table.send("Alice", "/botnet")
    table.press("Bob", "Accept", chat=table.group)
    data = button_data(table.said()[-1], "Toss a coin")
    for chat in (OTHER_GROUP, table.person("Alice").ref):
        replies = press_raw(table, "Alice", data, chat)
        assert "out of date" in toast(table)
        assert not any(isinstance(r, SendText) for r in replies)
    assert latest(uow_factory, table.group).status == "choosing"
    table.press("Alice", "Toss a coin", chat=table.group)
    assert "The coin says" in table.last()


def test_a_claim_button_from_another_group_claims_nothing(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    start(table, "Alice")
    move(table, "Alice", "g1")
    keyboard = table.said()[-1]
    replies = press_raw(table, "Alice", button_data(keyboard, "e5"), OTHER_GROUP)
    assert toast(table)
    assert not any(isinstance(r, SendText) for r in replies)
    assert len(latest(uow_factory, table.group).events) == 1
    claim(table, "Alice", "e5")
    assert "Alice claimed e5." in table.last()


# ===================================================================== strangers, wrong player


def test_strangers_and_the_opponent_cannot_move_or_claim_for_a_player(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    start(table, "Alice")
    prompt = newest_with_buttons(table, "Alice")
    forged_move = button_data(prompt, "g1")
    press_raw(table, "Carol", forged_move, table.person("Carol").ref)
    assert "Only Alice and Bob play" in toast(table)
    press_raw(table, "Bob", forged_move, table.person("Bob").ref)
    assert "isn't your turn" in toast(table)
    table.send("Carol", "/move g1", private=True)
    assert "No botnet match" in table.last("Carol")
    assert latest(uow_factory, table.group).events == ()

    move(table, "Alice", "g1")
    keyboard = table.said()[-1]
    table.press_data("Carol", button_data(keyboard, "e5"), keyboard)
    assert "Only Alice and Bob play" in toast(table)
    table.press_data("Bob", button_data(keyboard, "e5"), keyboard)
    assert "isn't your turn" in toast(table)
    table.send("Carol", "/claim e5")
    assert "Only Alice and Bob play" in table.last()
    table.send("Carol", "/resign")
    assert "Only Alice and Bob play" in table.last()
    stored = latest(uow_factory, table.group)
    assert len(stored.events) == 1 and stored.status == "playing"


# ===================================================================== doubled presses


def test_doubled_presses_apply_once(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    table.send("Alice", "/botnet")
    challenge = table.said()[-1]
    accept = button_data(challenge, "Accept")
    table.press_data("Bob", accept, challenge)
    table.press_data("Bob", accept, challenge)
    assert "running in this group already" in toast(table)
    table.press_data("Carol", accept, challenge)
    assert "running in this group already" in toast(table)
    assert count_matches(uow_factory, table.group) == 1
    who = table.said()[-1]
    table.press_data("Alice", button_data(who, "Alice"), who)
    table.press_data("Bob", button_data(who, "Bob"), who)
    assert "started already" in toast(table)
    assert latest(uow_factory, table.group).match.to_move == 0  # type: ignore[union-attr]

    prompt = newest_with_buttons(table, "Alice")
    data = button_data(prompt, "g1")
    table.press_data("Alice", data, prompt)
    table.press_data("Alice", data, prompt)
    assert "now claim a device" in toast(table)
    keyboard = table.said()[-1]
    table.press_data("Alice", button_data(keyboard, "f4"), keyboard)
    mark = table.mark()
    table.press_data("Alice", button_data(keyboard, "f4"), keyboard)
    table.press_data("Alice", button_data(keyboard, "e5"), keyboard)
    assert "out of date" in toast(table)
    assert table.said(since=mark) == [] and table.said("Bob", since=mark) == []
    assert len(latest(uow_factory, table.group).events) == 2


# ===================================================================== two matches at once


def test_a_player_in_two_groups_moves_and_resigns_the_right_match(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    other = second_group(table)
    start(table, "Alice", rival="Bob")  # group 1: Alice to move
    start(other, "Carol", rival="Carol")  # group 2: Alice against Carol, Carol to move
    one, two = latest(uow_factory, table.group), latest(uow_factory, OTHER_GROUP)
    assert one.id != two.id

    table.send("Alice", "/move g1", private=True)  # only group 1 waits for her
    assert "Your proxy is on g1 now" in table.last("Alice")
    assert latest(uow_factory, table.group).match.proxy(0) == (6, 0)  # type: ignore[union-attr]
    assert latest(uow_factory, OTHER_GROUP).events == ()

    # Giving up in private is ambiguous with two matches: nothing is resigned.
    table.send("Alice", "/resign", private=True)
    assert "more than one botnet match" in table.last("Alice")
    assert latest(uow_factory, table.group).status == "playing"
    assert latest(uow_factory, OTHER_GROUP).status == "playing"

    other.send("Alice", "/resign")  # in group 2: only that match ends
    assert "Alice resigned. Carol wins!" in other.last()
    assert latest(uow_factory, OTHER_GROUP).status == "over"
    assert latest(uow_factory, table.group).status == "playing"
    table.send("Alice", "/claim f4")
    assert "Alice claimed f4." in table.last()

    table.send("Alice", "/resign", private=True)  # one match left: this one
    assert "Alice resigned. Bob wins!" in table.last()
    table.send("Alice", "/resign", private=True)
    assert "No botnet match" in table.last("Alice")


# ===================================================================== a Hide+Seek game


def test_a_match_does_not_disturb_the_groups_hide_and_seek_game(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    table.send("Alice", "/newgame small metric")
    table.press("Bob", "Join the game")
    table.send("Bob", "/botnet")  # the game's two players: they start at once
    assert "Bob and Alice play hide && seek" in table.last()
    table.press("Alice", "Toss a coin", chat=table.group)
    # The Hide+Seek game's buttons and commands still work in the same group.
    table.press("Carol", "Join the game")
    table.send("Alice", "/status")
    assert "Carol" in table.last()
    with uow_factory() as uow:
        loaded = uow.games.for_chat(table.group)
    assert loaded is not None
    assert sorted(p.name for p in loaded.state.players) == ["Alice", "Bob", "Carol"]
    # ... and the match goes on beside it.
    match = latest(uow_factory, table.group).match
    assert match is not None
    mover = ("Bob", "Alice")[match.to_move]
    prompt = newest_with_buttons(table, mover)
    table.press_data(mover, prompt.buttons[0][0].data, prompt)
    assert f"{mover} has moved their proxy" in table.last()
    table.send("Alice", "/begin")
    assert len(latest(uow_factory, table.group).events) == 1


# ===================================================================== odd resignations


def test_resigning_at_odd_times(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    table.send("Alice", "/resign")
    assert "No botnet match" in table.last()
    table.send("Alice", "/resign", private=True)
    assert "No botnet match" in table.last("Alice")
    table.send("Alice", "/botnet")
    challenge = table.said()[-1]
    table.send("Alice", "/resign")  # a challenge nobody took is no match
    assert "No botnet match" in table.last()
    table.press_data("Bob", button_data(challenge, "Accept"), challenge)
    who_first = table.said()[-1]
    table.send("Carol", "/resign")
    assert "Only Alice and Bob play" in table.last()
    table.send("Bob", "/resign", private=True)  # before anyone moved: called off
    assert table.last() == "Bob called the match off."
    table.press_data("Alice", button_data(who_first, "Alice"), who_first)
    assert "That match is over" in toast(table)
    table.press_data("Carol", button_data(challenge, "Accept"), challenge)
    assert "out of date" in toast(table)

    start(table, "Alice")
    move(table, "Alice", "g1")  # Bob resigns while Alice is about to claim
    table.send("Bob", "/resign")
    final = table.said()[-1]
    assert "Bob resigned. Alice wins!" in final.text
    assert "Alice's proxy went h1 → g1." in final.text and "Bob's proxy went a8." in final.text
    old_keyboard = next(line for line in reversed(table.said()) if len(line.buttons) == 8)
    table.press_data("Alice", button_data(old_keyboard, "e5"), old_keyboard)
    assert "That match is over" in toast(table)
    table.send("Bob", "/resign")
    assert "No botnet match" in table.last()
    stored = latest(uow_factory, table.group)
    assert stored.winner_seat == 0 and len(stored.events) == 2


def test_the_challenge_button_after_a_finished_match_starts_nothing(
    table: Table, uow_factory: UnitOfWorkFactory
) -> None:
    table.send("Alice", "/botnet")
    challenge = table.said()[-1]
    table.press_data("Bob", button_data(challenge, "Accept"), challenge)
    table.press("Alice", "Alice", chat=table.group)
    move(table, "Alice", "g1")
    claim(table, "Alice", "f4")
    table.send("Bob", "/resign")
    assert "Bob resigned" in table.last()
    table.press_data("Carol", button_data(challenge, "Accept"), challenge)
    assert "out of date" in toast(table)
    assert count_matches(uow_factory, table.group) == 1


# ===================================================================== secrets


def test_the_opponent_learns_nothing_by_probing(table: Table) -> None:
    """Bob tries everything he may and may not do while Alice's proxy stands on g1 in one
    match and on h2 in the other: every reply he or the group gets reads the same."""

    def probe(alice_to: str) -> list[str]:
        start(table, "Alice")
        move(table, "Alice", alice_to)
        mark = table.mark()
        forged = button_data(newest_with_buttons(table, "Alice"), "g1").rsplit(":", 1)[0]
        keyboard = table.said()[-1]
        for cell in ("g1", "h2", "h1", "g2"):
            press_raw(table, "Bob", f"{forged}:{cell}", table.person("Bob").ref)
            table.send("Bob", f"/move {cell}", private=True)
            table.send("Bob", f"/claim {cell}")
            table.press_data("Bob", button_data(keyboard, cell), keyboard)
            table.send("Bob", f"/move {cell}")
            table.send("Carol", f"/claim {cell}")
        table.send("Bob", "/botnet")
        seen = [
            line.text
            for line in table.lines
            if line.id > mark and line.chat in (table.group, table.person("Bob").ref)
        ]
        table.send("Alice", "/resign")
        return seen + [t for _, t in table.toasts[-8:]]

    first, second = probe("g1"), probe("h2")
    assert first == second
    assert len(first) > 20


def test_refusals_in_the_group_never_name_the_movers_device(table: Table) -> None:
    start(table, "Alice")
    move(table, "Alice", "g1")
    mark = table.mark()
    table.send("Alice", "/move g2")  # typed in the group by mistake
    table.send("Alice", "/claim g1")  # her own proxy's device: allowed, not a leak
    assert "Alice claimed g1." in table.last()
    move(table, "Bob", "a7")
    table.send("Bob", "/move a6")
    for line in table.said(since=mark):
        assert "a7" not in line.text and "g2" not in line.text, line.text


# ===================================================================== languages


def test_private_refusals_speak_the_language_of_the_private_prompts(table: Table) -> None:
    table.send("Alice", "/language de")  # the group speaks German; Alice chose nothing
    table.send("Alice", "/botnet")
    challenge = table.said()[-1]
    table.press_data("Bob", challenge.buttons[0][0].data, challenge)
    table.press("Alice", "Alice", chat=table.group)
    german, english = Formatter("de"), Formatter("en")
    intro = "Your proxy is on {cell} now. Its path: {path}. Claim a device in the group."
    table.send("Alice", "/move h3", private=True)
    refusal = table.last("Alice")
    assert refusal != Formatter("en").t(
        "{cell} isn't next to your proxy on {here}: it moves one device up, down, left or "
        "right, never diagonally.",
        cell="h3",
        here="h1",
    )
    assert "h3" in refusal and "h1" in refusal
    assert refusal == german.t(
        "{cell} isn't next to your proxy on {here}: it moves one device up, down, left or "
        "right, never diagonally.",
        cell="h3",
        here="h1",
    )
    prompt = newest_with_buttons(table, "Alice")
    table.press_data("Bob", button_data(prompt, "g1"), None)  # Bob's own chat: not his turn
    assert toast(table) == german.t("It isn't your turn: wait for your opponent.")
    table.send("Bob", "/language es", private=True)  # Bob's own choice wins in private
    table.send("Bob", "/move b8", private=True)
    assert table.last("Bob") == Formatter("es").t("It isn't your turn: wait for your opponent.")
    move(table, "Alice", "g1")
    assert table.last("Alice") == german.t(intro, cell="g1", path="h1 → g1")
    assert english.t(intro, cell="g1", path="h1 → g1") != table.last("Alice")
    claim(table, "Alice", "f4")
    assert table.said("Bob")[-1].text.startswith(
        Formatter("es").t(
            "Your turn against {name}: your proxy is on {cell}. Where does it move?",
            name="Alice",
            cell="a8",
        )
    )


# ===================================================================== clumsy typing


@pytest.mark.parametrize(
    "typed",
    ["/move", "/move zz", "/claim", "/claim e", "/claim @@@@", "/resign now", "/botnet @x y"],
)
def test_clumsy_commands_without_a_match_get_a_reason(table: Table, typed: str) -> None:
    for private in (False, True):
        replies = table.send("Carol", typed, private=private)
        assert any(isinstance(r, SendText) and r.text for r in replies), (typed, private)


def test_a_move_typed_in_a_quiet_group_is_deleted_too(table: Table) -> None:
    table.send("Carol", "/move e4")
    assert any(line.deleted and line.text == "/move e4" for line in table.lines)
    assert "never here" in table.last()


def test_a_match_waits_across_a_long_pause(table: Table, uow_factory: UnitOfWorkFactory) -> None:
    start(table, "Alice")
    table.wait(timedelta(hours=2))
    move(table, "Alice", "g1")
    claim(table, "Alice", "f4")
    assert "Bob's turn" in table.last()
