"""The botnet game in chat: challenge, who starts, private proxy moves, claims in the group.

A match lives in a group. ``/botnet`` starts one (between the two players of the group's
Hide+Seek game, or by a challenge anyone, or ``@username``, accepts) or shows the running
one again, re-sending the mover's private choices. Proxies move only in private chats
(buttons, or ``/move e4``); claims happen in the group (the board's buttons, or
``/claim e6``). Nothing sent to the group names a proxy's device until the match is over.
Every step is a row in the store, so a restart loses nothing; replies go out at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from hideseek_chat.chat import botnet_text as text
from hideseek_chat.chat.buttons import Press, encode
from hideseek_chat.chat.commands import ChatError
from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.model import (
    AnswerButton,
    Button,
    ButtonIn,
    ChatKind,
    CommandIn,
    DeleteMessage,
    Inbound,
    Outbound,
    SendText,
)
from hideseek_chat.rules.botnet import (
    SIZE,
    BotnetViolation,
    Cell,
    DeviceClaimed,
    Ending,
    Match,
    ProxyMoved,
    Resigned,
    Stage,
    apply,
    cell_name,
    parse_cell,
)
from hideseek_chat.rules.errors import RuleViolation
from hideseek_chat.store import UnitOfWork
from hideseek_chat.store.botnet import BotnetStatus, MatchRunning, StoredMatch

if TYPE_CHECKING:
    from hideseek_chat.chat.service import Conversation

USERNAME = re.compile(r"@([A-Za-z0-9_]{3,32})")
#: Arrows for the move buttons, by (column, row) step.
ARROWS = {(0, 1): "↑", (1, 0): "→", (0, -1): "↓", (-1, 0): "←"}

#: The largest id a match can have (the store's ids are 32-bit); a bigger one is forged.
MAX_ID = 2**31 - 1


def refuse(key: str, **params: object) -> BotnetViolation:
    return BotnetViolation(key, key, **params)


# ===================================================================== commands


def cmd_botnet(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    """Start a match (or a challenge), or show the running one again."""
    with conv.uow_factory() as uow:
        if _seen(uow, msg):
            return []
        fmt = conv.formatter(uow, msg.chat, None)
        active = uow.botnet.active_for_chat(msg.chat, for_update=True)
        if active is not None:
            return _show(conv, uow, active)
        target = _target(msg.args)
        if target and target.lower() == (msg.sender.username or "").lower():
            raise refuse("botnet.bad_target")  # nobody else could accept it
        uow.chats.met(msg.sender.ref, msg.sender.name, msg.at)
        pair = None if target else _game_pair(uow, msg)
        if pair is not None:
            match_id = _create(uow, msg.chat, pair, msg)
            _done(uow, msg)
            stored = uow.botnet.get(match_id)
            assert stored is not None
            uow.commit()
            return [_who_first(stored, fmt)]
        latest = uow.botnet.latest_for_chat(msg.chat)
        uow.commit()
    challenger = msg.sender.ref.replace(":", ".", 1)
    data = encode("bnok", latest.id if latest else 0, challenger, target or "")
    if target:
        line = fmt.t(
            "@{username}, {name} challenges you to hide && seek on the botnet grid.",
            username=target,
            name=msg.sender.name,
        )
    else:
        line = fmt.t(
            "{name} wants to play hide && seek on the botnet grid. Who takes them on?",
            name=msg.sender.name,
        )
    rules = fmt.t(
        "Two players, an 8×8 grid of devices. Each of you hides a proxy that moves one device "
        "a turn, in private, and grows a botnet in the open. Claim the device your opponent's "
        "proxy is on, or leave it nowhere to go, and you win."
    )
    buttons = ((Button(fmt.t("Accept the challenge"), data),),)
    return [SendText(msg.chat, text=f"{line}\n{rules}", buttons=buttons)]


def cmd_move(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    """``/move e4`` in private; typed in a group it is deleted before anyone reads it."""
    return _speaking(conv, msg, None, lambda: _cmd_move(conv, msg))


def _cmd_move(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    if msg.kind == ChatKind.GROUP:
        deleted: list[Outbound] = []
        if msg.message_ref:
            deleted.append(DeleteMessage(msg.chat, message_ref=msg.message_ref))
        with conv.uow_factory() as uow:
            fmt = conv.formatter(uow, msg.chat, None)
        notice = text.error_text("botnet.move_in_private", {}, fmt) or ""
        return [*deleted, SendText(msg.chat, text=f"{msg.sender.name}: {notice}")]
    if not msg.args:
        raise refuse("botnet.no_cell", command="move")
    with conv.uow_factory() as uow:
        stored = _only_match(uow, msg.sender.ref)
    return _move(conv, msg, stored.id, None, msg.args[0])


def cmd_claim(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    """``/claim e6`` in the group."""
    return _speaking(conv, msg, None, lambda: _cmd_claim(conv, msg))


def _cmd_claim(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    if msg.kind != ChatKind.GROUP:
        raise refuse("botnet.claim_in_group")
    if not msg.args:
        raise refuse("botnet.no_cell", command="claim")
    with conv.uow_factory() as uow:
        stored = uow.botnet.active_for_chat(msg.chat)
    if stored is None:
        raise refuse("botnet.no_match")
    return _claim(conv, msg, stored.id, None, msg.args[0])


def cmd_resign(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    """Give the match up: in the group, or in private when you play only one."""
    return _speaking(conv, msg, None, lambda: _cmd_resign(conv, msg))


def _cmd_resign(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    with conv.uow_factory() as uow:
        if msg.kind == ChatKind.GROUP:
            stored = uow.botnet.active_for_chat(msg.chat)
            if stored is None:
                raise refuse("botnet.no_match")
        else:  # never a guess: resigning the wrong match would lose it
            matches = uow.botnet.active_for_person(msg.sender.ref)
            if not matches:
                raise refuse("botnet.no_match")
            if len(matches) > 1:
                raise refuse("botnet.several_resign")
            stored = matches[0]
    return _resign(conv, msg, stored.id)


# ===================================================================== buttons


def button(conv: Conversation, msg: ButtonIn, press: Press) -> list[Outbound]:
    """A press of a botnet button; acknowledged with a toast unless it says something."""
    known = 0 <= press.game_id <= MAX_ID  # forged when not: no match has such an id

    def run() -> list[Outbound]:
        if not known:
            raise refuse("botnet.stale")
        return BUTTONS[press.verb](conv, msg, press)

    replies = _speaking(conv, msg, press.game_id if known else None, run)
    if not any(isinstance(r, AnswerButton) for r in replies):
        replies.insert(0, AnswerButton(msg.sender.ref, text="", press_ref=msg.press_ref))
    return replies


def b_accept(conv: Conversation, msg: ButtonIn, press: Press) -> list[Outbound]:
    challenger = press.arg(0).replace(".", ":", 1)
    target = press.args[1] if len(press.args) > 1 else ""
    if msg.kind != ChatKind.GROUP:
        raise refuse("botnet.stale")
    if msg.sender.ref == challenger:
        raise refuse("botnet.own_challenge")
    if target and (msg.sender.username or "").lower() != target.lower():
        raise refuse("botnet.challenge_for", username=target)
    with conv.uow_factory() as uow:
        if _seen(uow, msg):
            return []
        if uow.botnet.active_for_chat(msg.chat, for_update=True) is not None:
            raise refuse("botnet.running")
        latest = uow.botnet.latest_for_chat(msg.chat)
        if (latest.id if latest else 0) != press.game_id:
            raise refuse("botnet.stale")  # a match came of this challenge already
        name = uow.chats.name_of(challenger)
        if name is None:  # forged: whoever sends /botnet is met first
            raise refuse("botnet.stale")
        uow.chats.met(msg.sender.ref, msg.sender.name, msg.at)
        seats = [(challenger, name), (msg.sender.ref, msg.sender.name)]
        match_id = _create(uow, msg.chat, seats, msg)
        _done(uow, msg)
        stored = uow.botnet.get(match_id)
        assert stored is not None
        fmt = conv.formatter(uow, msg.chat, None)
        uow.commit()
    return [_who_first(stored, fmt)]


def b_first(conv: Conversation, msg: ButtonIn, press: Press) -> list[Outbound]:
    choice = press.arg(0)
    with conv.uow_factory() as uow:
        if _seen(uow, msg):
            return []
        stored = _seated(uow, press.game_id, msg.sender.ref, lock=True)
        if stored.chat_key != msg.chat:  # the question is only ever asked in the group
            raise refuse("botnet.stale")
        if stored.status != BotnetStatus.CHOOSING:
            playing = stored.status == BotnetStatus.PLAYING
            raise refuse("botnet.started" if playing else "botnet.over")
        if choice == "r":
            first = conv.seeds() % 2
        elif choice in ("0", "1"):
            first = int(choice)
        else:
            raise refuse("botnet.stale")
        uow.botnet.start(stored.id, first)
        _done(uow, msg)
        started = uow.botnet.get(stored.id)
        assert started is not None
        replies = _started(conv, uow, started, coin=choice == "r")
        uow.commit()
    return replies


def b_move(conv: Conversation, msg: ButtonIn, press: Press) -> list[Outbound]:
    if msg.kind == ChatKind.GROUP:  # move buttons only ever go to private chats
        raise refuse("botnet.move_in_private")
    return _move(conv, msg, press.game_id, press.int_arg(0), press.arg(1))


def b_claim(conv: Conversation, msg: ButtonIn, press: Press) -> list[Outbound]:
    return _claim(conv, msg, press.game_id, press.int_arg(0), press.arg(1))


BUTTONS = {"bnok": b_accept, "bnfirst": b_first, "bnm": b_move, "bnc": b_claim}


# ===================================================================== steps


def _move(
    conv: Conversation, msg: Inbound, match_id: int, turn: int | None, where: str
) -> list[Outbound]:
    with conv.uow_factory() as uow:
        if _seen(uow, msg):
            return []
        stored, match, seat = _playing(uow, match_id, msg.sender.ref)
        if turn is not None and turn != match.turns:
            raise refuse("botnet.stale")
        cell = parse_cell(where)
        event = ProxyMoved(seat, cell)
        moved = apply(match, event)
        uow.botnet.append(stored.id, seat, event, msg.at)
        _done(uow, msg)
        private = conv.formatter(uow, stored.chat_key, None, msg.sender.ref)
        group = conv.formatter(uow, stored.chat_key, None)
        uow.commit()
    name = stored.names[seat]
    ack = private.t(
        "Your proxy is on {cell} now. Its path: {path}. Claim a device in the group.",
        cell=cell_name(cell),
        path=text.path_text(moved.paths[seat]),
    )
    return [
        SendText(msg.sender.ref, text=ack, private=True),
        _claim_prompt(stored, moved, name, group),
    ]


def _claim(
    conv: Conversation, msg: Inbound, match_id: int, turn: int | None, where: str
) -> list[Outbound]:
    with conv.uow_factory() as uow:
        if _seen(uow, msg):
            return []
        stored, match, seat = _playing(uow, match_id, msg.sender.ref)
        if stored.chat_key != msg.chat:
            raise refuse("botnet.claim_in_group")
        if turn is not None and turn != match.turns:
            raise refuse("botnet.stale")
        cell = parse_cell(where)
        event = DeviceClaimed(seat, cell)
        after = apply(match, event)
        skipped = match.skipped(seat, cell)
        uow.botnet.append(stored.id, seat, event, msg.at)
        if after.is_over:
            assert after.winner is not None and after.ending is not None
            uow.botnet.finish(stored.id, after.winner, after.ending, msg.at)
        _done(uow, msg)
        fmt = conv.formatter(uow, stored.chat_key, None)
        head = text.claimed(after, seat, cell, skipped, stored.names, fmt)
        replies = _after_turn(conv, uow, stored, after, fmt, head, cell)
        uow.commit()
    return replies


def _resign(conv: Conversation, msg: Inbound, match_id: int) -> list[Outbound]:
    with conv.uow_factory() as uow:
        if _seen(uow, msg):
            return []
        stored = _seated(uow, match_id, msg.sender.ref, lock=True)
        if stored.status == BotnetStatus.OVER:
            raise refuse("botnet.over")
        seat = stored.seat_of(msg.sender.ref)
        assert seat is not None
        uow.botnet.finish(stored.id, 1 - seat, Ending.RESIGNED, msg.at)
        _done(uow, msg)
        fmt = conv.formatter(uow, stored.chat_key, None)
        if stored.match is None:  # called off before anyone moved
            uow.commit()
            off = fmt.t("{name} called the match off.", name=stored.names[seat])
            return [SendText(stored.chat_key, text=off)]
        event = Resigned(seat)
        after = apply(stored.match, event)
        uow.botnet.append(stored.id, seat, event, msg.at)
        replies = _after_turn(conv, uow, stored, after, fmt, "", None)
        uow.commit()
    return replies


# ===================================================================== what is sent


def _who_first(stored: StoredMatch, fmt: Formatter) -> SendText:
    names = stored.names
    line = fmt.t(
        "{first} and {second} play hide && seek on the botnet grid. Who moves first?",
        first=names[0],
        second=names[1],
    )
    hint = fmt.t("Proxies move in our private chat: open it with the button below if you haven't.")
    rows = (
        (
            Button(names[0], encode("bnfirst", stored.id, 0)),
            Button(names[1], encode("bnfirst", stored.id, 1)),
        ),
        (Button(fmt.t("Toss a coin"), encode("bnfirst", stored.id, "r")),),
        (Button(fmt.t("Open my private chat"), private_link=True),),
    )
    return SendText(stored.chat_key, text=f"{line}\n{hint}", buttons=rows)


def _started(
    conv: Conversation, uow: UnitOfWork, stored: StoredMatch, coin: bool
) -> list[Outbound]:
    match = stored.match
    assert match is not None
    fmt = conv.formatter(uow, stored.chat_key, None)
    first = stored.names[match.to_move]
    if coin:
        head = fmt.t("The coin says {name} moves first.", name=first)
    else:
        head = fmt.t("{name} moves first.", name=first)
    head = f"{head}\n{text.whose_turn(match, stored.names, fmt)}"
    replies: list[Outbound] = [_board(stored, match, head, fmt)]
    for seat in (0, 1):
        ref = stored.refs[seat]
        mine = conv.formatter(uow, stored.chat_key, None, ref)
        intro = mine.t(
            "Your proxy starts on {proxy}; your botnet is {botnet}, marked {mark} on the "
            "board. Keep your proxy's device to yourself: I'll write here when it's your turn.",
            proxy=cell_name(match.proxy(seat)),
            botnet=cell_name(match.botnets[seat][0]),
            mark=text.MARKS[seat],
        )
        replies.append(SendText(ref, text=intro, private=True))
    replies.append(_move_prompt(conv, uow, stored, match))
    return replies


def _after_turn(
    conv: Conversation,
    uow: UnitOfWork,
    stored: StoredMatch,
    match: Match,
    fmt: Formatter,
    head: str,
    claimed: Cell | None,
) -> list[Outbound]:
    """The board after a claim (or the end) in the group's ``fmt``, with ``head`` (what
    happened, if anything) on top, and the next mover's private choices."""
    if match.is_over:
        lines = [head, text.ending(match, claimed, stored.names, fmt)]
        return [_board(stored, match, "\n".join(filter(None, lines)), fmt, final=True)]
    lines = [head, text.whose_turn(match, stored.names, fmt)]
    return [_board(stored, match, "\n".join(lines), fmt), _move_prompt(conv, uow, stored, match)]


def _board(
    stored: StoredMatch, match: Match, head: str, fmt: Formatter, final: bool = False
) -> SendText:
    """The board for the group: both botnets, never a proxy (their paths once it is over)."""
    from hideseek_chat.chat.botnet_picture import picture

    body = f"{head}\n{text.legend(match, stored.names, fmt)}"
    seats = (0, 1) if final else ()
    return SendText(
        stored.chat_key,
        text=body,
        pre=text.grid(match, paths=seats),
        image=picture(match, paths=seats),
    )


def _claim_prompt(stored: StoredMatch, match: Match, name: str, fmt: Formatter) -> SendText:
    """Ask the mover to claim, under a keyboard of the whole board (free devices by name)."""
    seat = match.to_move
    line = fmt.t("{name} has moved their proxy. {name}, claim a device for your botnet:", name=name)
    cost = fmt.t(
        "A device next to your botnet is free; one further away gives {other} a turn more for "
        "every device in between.",
        other=stored.names[1 - seat],
    )
    rows: list[tuple[Button, ...]] = []
    for row in reversed(range(SIZE)):
        buttons = []
        for col in range(SIZE):
            cell = (col, row)
            owner = match.owner(cell)
            label = cell_name(cell) if owner is None else text.MARKS[owner]
            buttons.append(Button(label, encode("bnc", stored.id, match.turns, cell_name(cell))))
        rows.append(tuple(buttons))
    return SendText(stored.chat_key, text=f"{line}\n{cost}", buttons=tuple(rows))


def _move_prompt(
    conv: Conversation, uow: UnitOfWork, stored: StoredMatch, match: Match
) -> SendText:
    """The mover's private choices: a button per legal neighbour, and their own board."""
    seat = match.to_move
    ref = stored.refs[seat]
    fmt = conv.formatter(uow, stored.chat_key, None, ref)
    here = match.proxy(seat)
    lines = [
        fmt.t(
            "Your turn against {name}: your proxy is on {cell}. Where does it move?",
            name=stored.names[1 - seat],
            cell=cell_name(here),
        )
    ]
    if match.turns_left > 1:
        lines.append(
            fmt.n(
                "You have {count} turn in a row, this one included.",
                "You have {count} turns in a row, this one included.",
                match.turns_left,
            )
        )
    lines.append(fmt.t("Its path so far: {path}.", path=text.path_text(match.paths[seat])))
    moves = match.legal_moves(seat)
    buttons = tuple(
        Button(
            f"{ARROWS[(cell[0] - here[0], cell[1] - here[1])]} {cell_name(cell)}",
            encode("bnm", stored.id, match.turns, cell_name(cell)),
        )
        for cell in moves
    )
    return SendText(
        ref,
        text="\n".join(lines),
        buttons=(buttons,) if buttons else (),
        pre=text.grid(match, paths=(seat,)),
        private=True,
    )


def _show(conv: Conversation, uow: UnitOfWork, stored: StoredMatch) -> list[Outbound]:
    """The running match again: the question who starts, or the board and the next step."""
    fmt = conv.formatter(uow, stored.chat_key, None)
    match = stored.match
    if match is None:
        return [_who_first(stored, fmt)]
    if match.stage == Stage.CLAIM:
        return [_claim_prompt(stored, match, stored.names[match.to_move], fmt)]
    head = text.whose_turn(match, stored.names, fmt)
    return [_board(stored, match, head, fmt), _move_prompt(conv, uow, stored, match)]


def waiting_prompts(conv: Conversation, ref: str) -> list[Outbound]:
    """The private choices of every match waiting for ``ref`` to move their proxy (sent
    again when they open the private chat, say after a prompt could not reach them)."""
    with conv.uow_factory() as uow:
        prompts: list[Outbound] = []
        for stored in uow.botnet.active_for_person(ref):
            match = stored.match
            if match and match.stage == Stage.MOVE and match.to_move == stored.seat_of(ref):
                prompts.append(_move_prompt(conv, uow, stored, match))
        return prompts


# ===================================================================== helpers


def _speaking(
    conv: Conversation, msg: Inbound, match_id: int | None, run: Callable[[], list[Outbound]]
) -> list[Outbound]:
    """``run()``; a refusal in a private chat speaks as the match's private prompts do (the
    person's own language, else their match's group's), not as a chat without a group."""
    try:
        return run()
    except (RuleViolation, ChatError) as error:
        if msg.kind != ChatKind.PRIVATE:
            raise
        with conv.uow_factory() as uow:
            stored = uow.botnet.get(match_id) if match_id else None
            if stored is None or stored.seat_of(msg.sender.ref) is None:
                mine = uow.botnet.active_for_person(msg.sender.ref)
                stored = mine[0] if mine else None
            if stored is None:
                raise
            fmt = conv.formatter(uow, stored.chat_key, None, msg.sender.ref)
        engine = isinstance(error, RuleViolation)
        return conv.refuse(msg, error.key, dict(error.params), engine=engine, fmt=fmt)


def _target(args: tuple[str, ...]) -> str | None:
    if not args:
        return None
    found = USERNAME.fullmatch(args[0])
    if found is None or len(args) > 1:
        raise refuse("botnet.bad_target")
    return found.group(1)


def _game_pair(uow: UnitOfWork, msg: Inbound) -> list[tuple[str, str]] | None:
    """The sender and the other player when the group's game has exactly two players."""
    loaded = uow.games.for_chat(msg.chat)
    if loaded is None:
        return None
    players = [p for p in loaded.state.players if p.active]
    refs = [p.ref for p in players]
    if len(players) != 2 or msg.sender.ref not in refs:
        return None
    me = refs.index(msg.sender.ref)
    other = players[1 - me]
    return [(msg.sender.ref, msg.sender.name), (other.ref, other.name)]


def _create(uow: UnitOfWork, chat: str, seats: list[tuple[str, str]], msg: Inbound) -> int:
    """Store a new match; refuse when another one started in the chat meanwhile."""
    try:
        return uow.botnet.create(chat, seats, msg.at)
    except MatchRunning:  # another press started one at the same moment
        raise refuse("botnet.running") from None


def _seen(uow: UnitOfWork, msg: Inbound) -> bool:
    return msg.update_id is not None and uow.updates.is_processed(msg.update_id)


def _done(uow: UnitOfWork, msg: Inbound) -> None:
    if msg.update_id is not None:
        uow.updates.mark_processed(msg.update_id, msg.at)


def _seated(uow: UnitOfWork, match_id: int, ref: str, lock: bool = False) -> StoredMatch:
    stored = uow.botnet.get(match_id, for_update=lock)
    if stored is None:
        raise refuse("botnet.stale")
    if stored.seat_of(ref) is None:
        raise refuse("botnet.not_seated", names=list(stored.names))
    return stored


def _playing(uow: UnitOfWork, match_id: int, ref: str) -> tuple[StoredMatch, Match, int]:
    stored = _seated(uow, match_id, ref, lock=True)
    if stored.status == BotnetStatus.OVER:
        raise refuse("botnet.over")
    match = stored.match
    if match is None:
        raise refuse("botnet.choosing")
    seat = stored.seat_of(ref)
    assert seat is not None
    return stored, match, seat


def _only_match(uow: UnitOfWork, ref: str) -> StoredMatch:
    """The one running match ``ref`` plays (for typed commands in private)."""
    matches = uow.botnet.active_for_person(ref)
    if not matches:
        raise refuse("botnet.no_match")
    mine = [m for m in matches if m.match is not None and m.match.to_move == m.seat_of(ref)]
    if len(matches) > 1 and len(mine) != 1:
        raise refuse("botnet.several")
    return mine[0] if mine else matches[0]
