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

from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.keyboards import Press, Verb, encode
from hideseek_chat.chat.model import Button, DeleteMessage, Inbound, Outbound, SendText
from hideseek_chat.chat.texts import botnet as text
from hideseek_chat.chat.texts import say
from hideseek_chat.chat.turn import Turn
from hideseek_chat.pictures.botnet import MARKS, picture
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
from hideseek_chat.store import UnitOfWork
from hideseek_chat.store.botnet import BotnetStatus, MatchRunning, StoredMatch

USERNAME = re.compile(r"@([A-Za-z0-9_]{3,32})")
#: Arrows for the move buttons, by (column, row) step.
ARROWS = {(0, 1): "↑", (1, 0): "→", (0, -1): "↓", (-1, 0): "←"}

#: The largest id a match can have (the store's ids are 32-bit); a bigger one is forged.
MAX_ID = 2**31 - 1

Args = tuple[str, ...]


def refuse(key: str, **params: object) -> BotnetViolation:
    return BotnetViolation(key, key, **params)


# ===================================================================== commands


def botnet(turn: Turn, args: Args) -> list[Outbound]:
    """Start a match (or a challenge), or show the running one again."""
    msg, uow = turn.msg, turn.uow
    fmt = _group_fmt(turn, msg.chat)
    active = uow.botnet.active_for_chat(msg.chat, for_update=True)
    if active is not None:
        return _show(turn, active)
    target = _target(args)
    if target and target.lower() == (msg.sender.username or "").lower():
        raise refuse("botnet.bad_target")  # nobody else could accept it
    uow.chats.met(msg.sender.ref, msg.sender.name, msg.at)
    turn.wrote()
    pair = None if target else _game_pair(uow, msg)
    if pair is not None:
        stored = _create(turn, msg.chat, pair)
        return [_who_first(stored, fmt)]
    latest = uow.botnet.latest_for_chat(msg.chat)
    challenger = msg.sender.ref.replace(":", ".", 1)
    data = encode(Verb.ACCEPT_CHALLENGE, latest.id if latest else 0, challenger, target or "")
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


def move(turn: Turn, args: Args) -> list[Outbound]:
    """``/move e4`` in private; typed in a group it is deleted before anyone reads it."""
    msg = turn.msg
    if not turn.is_private:
        deleted: list[Outbound] = []
        if msg.message_ref:
            deleted.append(DeleteMessage(msg.chat, message_ref=msg.message_ref))
        notice = say("botnet.move_in_private", {}, _group_fmt(turn, msg.chat))
        return [*deleted, SendText(msg.chat, text=f"{msg.sender.name}: {notice}")]
    _speak_privately(turn, None)
    if not args:
        raise refuse("botnet.no_cell", command="move")
    stored = _only_match(turn.uow, turn.by)
    return _move(turn, stored.id, None, args[0])


def claim(turn: Turn, args: Args) -> list[Outbound]:
    """``/claim e6`` in the group."""
    _speak_privately(turn, None)
    if turn.is_private:
        raise refuse("botnet.claim_in_group")
    if not args:
        raise refuse("botnet.no_cell", command="claim")
    stored = turn.uow.botnet.active_for_chat(turn.msg.chat)
    if stored is None:
        raise refuse("botnet.no_match")
    return _claim(turn, stored.id, None, args[0])


def resign(turn: Turn, args: Args) -> list[Outbound]:
    """Give the match up: in the group, or in private when you play only one."""
    _speak_privately(turn, None)
    uow = turn.uow
    if not turn.is_private:
        stored = uow.botnet.active_for_chat(turn.msg.chat)
        if stored is None:
            raise refuse("botnet.no_match")
    else:  # never a guess: resigning the wrong match would lose it
        matches = uow.botnet.active_for_person(turn.by)
        if not matches:
            raise refuse("botnet.no_match")
        if len(matches) > 1:
            raise refuse("botnet.several_resign")
        stored = matches[0]
    return _resign(turn, stored.id)


# ===================================================================== buttons


def press(turn: Turn, pressed: Press) -> list[Outbound]:
    """A press of a botnet button (its id names a match, not the chat's game)."""
    known = 0 <= pressed.game_id <= MAX_ID  # forged when not: no match has such an id
    _speak_privately(turn, pressed.game_id if known else None)
    if not known:
        raise refuse("botnet.stale")
    return BUTTONS[pressed.verb](turn, pressed)


def press_accept(turn: Turn, pressed: Press) -> list[Outbound]:
    msg, uow = turn.msg, turn.uow
    challenger = pressed.arg(0).replace(".", ":", 1)
    target = pressed.args[1] if len(pressed.args) > 1 else ""
    if turn.is_private:
        raise refuse("botnet.stale")
    if msg.sender.ref == challenger:
        raise refuse("botnet.own_challenge")
    if target and (msg.sender.username or "").lower() != target.lower():
        raise refuse("botnet.challenge_for", username=target)
    if uow.botnet.active_for_chat(msg.chat, for_update=True) is not None:
        raise refuse("botnet.running")
    latest = uow.botnet.latest_for_chat(msg.chat)
    if (latest.id if latest else 0) != pressed.game_id:
        raise refuse("botnet.stale")  # a match came of this challenge already
    name = uow.chats.name_of(challenger)
    if name is None:  # forged: whoever sends /botnet is met first
        raise refuse("botnet.stale")
    uow.chats.met(msg.sender.ref, msg.sender.name, msg.at)
    stored = _create(turn, msg.chat, [(challenger, name), (msg.sender.ref, msg.sender.name)])
    return [_who_first(stored, _group_fmt(turn, msg.chat))]


def press_first(turn: Turn, pressed: Press) -> list[Outbound]:
    choice = pressed.arg(0)
    uow = turn.uow
    stored = _seated(uow, pressed.game_id, turn.by, lock=True)
    if stored.chat_key != turn.msg.chat:  # the question is only ever asked in the group
        raise refuse("botnet.stale")
    if stored.status != BotnetStatus.CHOOSING:
        playing = stored.status == BotnetStatus.PLAYING
        raise refuse("botnet.started" if playing else "botnet.over")
    if choice == "r":
        first = turn.services.seeds() % 2
    elif choice in ("0", "1"):
        first = int(choice)
    else:
        raise refuse("botnet.stale")
    uow.botnet.start(stored.id, first)
    turn.wrote()
    started = uow.botnet.get(stored.id)
    assert started is not None
    return _started(turn, started, coin=choice == "r")


def press_move(turn: Turn, pressed: Press) -> list[Outbound]:
    if not turn.is_private:  # move buttons only ever go to private chats
        raise refuse("botnet.move_in_private")
    return _move(turn, pressed.game_id, pressed.int_arg(0), pressed.arg(1))


def press_claim(turn: Turn, pressed: Press) -> list[Outbound]:
    return _claim(turn, pressed.game_id, pressed.int_arg(0), pressed.arg(1))


BUTTONS: dict[Verb, Callable[[Turn, Press], list[Outbound]]] = {
    Verb.ACCEPT_CHALLENGE: press_accept,
    Verb.CHOOSE_FIRST: press_first,
    Verb.MOVE_PROXY: press_move,
    Verb.CLAIM_DEVICE: press_claim,
}


# ===================================================================== steps


def _move(turn: Turn, match_id: int, turns: int | None, where: str) -> list[Outbound]:
    uow = turn.uow
    stored, match, seat = _playing(uow, match_id, turn.by)
    if turns is not None and turns != match.turns:
        raise refuse("botnet.stale")
    cell = parse_cell(where)
    event = ProxyMoved(seat, cell)
    moved = apply(match, event)
    uow.botnet.append(stored.id, seat, event, turn.msg.at)
    turn.wrote()
    private = _private_fmt(turn, stored.chat_key, turn.by)
    group = _group_fmt(turn, stored.chat_key)
    name = stored.names[seat]
    ack = private.t(
        "Your proxy is on {cell} now. Its path: {path}. Claim a device in the group.",
        cell=cell_name(cell),
        path=text.path_text(moved.paths[seat]),
    )
    return [
        SendText(turn.by, text=ack, private=True),
        _claim_prompt(stored, moved, name, group),
    ]


def _claim(turn: Turn, match_id: int, turns: int | None, where: str) -> list[Outbound]:
    uow, at = turn.uow, turn.msg.at
    stored, match, seat = _playing(uow, match_id, turn.by)
    if stored.chat_key != turn.msg.chat:
        raise refuse("botnet.claim_in_group")
    if turns is not None and turns != match.turns:
        raise refuse("botnet.stale")
    cell = parse_cell(where)
    event = DeviceClaimed(seat, cell)
    after = apply(match, event)
    skipped = match.skipped(seat, cell)
    uow.botnet.append(stored.id, seat, event, at)
    if after.is_over:
        assert after.winner is not None and after.ending is not None
        uow.botnet.finish(stored.id, after.winner, after.ending, at)
    turn.wrote()
    fmt = _group_fmt(turn, stored.chat_key)
    head = text.claimed(after, seat, cell, skipped, stored.names, fmt)
    return _after_turn(turn, stored, after, fmt, head, cell)


def _resign(turn: Turn, match_id: int) -> list[Outbound]:
    uow, at = turn.uow, turn.msg.at
    stored = _seated(uow, match_id, turn.by, lock=True)
    if stored.status == BotnetStatus.OVER:
        raise refuse("botnet.over")
    seat = stored.seat_of(turn.by)
    assert seat is not None
    uow.botnet.finish(stored.id, 1 - seat, Ending.RESIGNED, at)
    turn.wrote()
    fmt = _group_fmt(turn, stored.chat_key)
    if stored.match is None:  # called off before anyone moved
        off = fmt.t("{name} called the match off.", name=stored.names[seat])
        return [SendText(stored.chat_key, text=off)]
    event = Resigned(seat)
    after = apply(stored.match, event)
    uow.botnet.append(stored.id, seat, event, at)
    return _after_turn(turn, stored, after, fmt, "", None)


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
            Button(names[0], encode(Verb.CHOOSE_FIRST, stored.id, 0)),
            Button(names[1], encode(Verb.CHOOSE_FIRST, stored.id, 1)),
        ),
        (Button(fmt.t("Toss a coin"), encode(Verb.CHOOSE_FIRST, stored.id, "r")),),
        (Button(fmt.t("Open my private chat"), private_link=True),),
    )
    return SendText(stored.chat_key, text=f"{line}\n{hint}", buttons=rows)


def _started(turn: Turn, stored: StoredMatch, coin: bool) -> list[Outbound]:
    match = stored.match
    assert match is not None
    fmt = _group_fmt(turn, stored.chat_key)
    first = stored.names[match.to_move]
    if coin:
        head = fmt.t("The coin says {name} moves first.", name=first)
    else:
        head = fmt.t("{name} moves first.", name=first)
    head = f"{head}\n{text.whose_turn(match, stored.names, fmt)}"
    replies: list[Outbound] = [_board(stored, match, head, fmt)]
    for seat in (0, 1):
        ref = stored.refs[seat]
        mine = _private_fmt(turn, stored.chat_key, ref)
        intro = mine.t(
            "Your proxy starts on {proxy}; your botnet is {botnet}, marked {mark} on the "
            "board. Keep your proxy's device to yourself: I'll write here when it's your turn.",
            proxy=cell_name(match.proxy(seat)),
            botnet=cell_name(match.botnets[seat][0]),
            mark=MARKS[seat],
        )
        replies.append(SendText(ref, text=intro, private=True))
    replies.append(_move_prompt(turn, stored, match))
    return replies


def _after_turn(
    turn: Turn,
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
    return [_board(stored, match, "\n".join(lines), fmt), _move_prompt(turn, stored, match)]


def _board(
    stored: StoredMatch, match: Match, head: str, fmt: Formatter, final: bool = False
) -> SendText:
    """The board for the group: both botnets, never a proxy (their paths once it is over)."""
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
            label = cell_name(cell) if owner is None else MARKS[owner]
            buttons.append(
                Button(label, encode(Verb.CLAIM_DEVICE, stored.id, match.turns, cell_name(cell)))
            )
        rows.append(tuple(buttons))
    return SendText(stored.chat_key, text=f"{line}\n{cost}", buttons=tuple(rows))


def _move_prompt(turn: Turn, stored: StoredMatch, match: Match) -> SendText:
    """The mover's private choices: a button per legal neighbour, and their own board."""
    seat = match.to_move
    ref = stored.refs[seat]
    fmt = _private_fmt(turn, stored.chat_key, ref)
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
            encode(Verb.MOVE_PROXY, stored.id, match.turns, cell_name(cell)),
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


def _show(turn: Turn, stored: StoredMatch) -> list[Outbound]:
    """The running match again: the question who starts, or the board and the next step."""
    fmt = _group_fmt(turn, stored.chat_key)
    match = stored.match
    if match is None:
        return [_who_first(stored, fmt)]
    if match.stage == Stage.CLAIM:
        return [_claim_prompt(stored, match, stored.names[match.to_move], fmt)]
    head = text.whose_turn(match, stored.names, fmt)
    return [_board(stored, match, head, fmt), _move_prompt(turn, stored, match)]


def waiting_prompts(turn: Turn) -> list[Outbound]:
    """The private choices of every match waiting for the sender to move their proxy (sent
    again when they open the private chat, say after a prompt could not reach them)."""
    prompts: list[Outbound] = []
    for stored in turn.uow.botnet.active_for_person(turn.by):
        match = stored.match
        if match and match.stage == Stage.MOVE and match.to_move == stored.seat_of(turn.by):
            prompts.append(_move_prompt(turn, stored, match))
    return prompts


# ===================================================================== helpers


def _group_fmt(turn: Turn, chat: str) -> Formatter:
    """How to speak in a match's group (a botnet match has no game state of its own)."""
    return turn.services.formatter(turn.uow, chat, None)


def _private_fmt(turn: Turn, chat: str, ref: str) -> Formatter:
    """How to speak to ``ref`` in private about a match of ``chat``."""
    return turn.services.formatter(turn.uow, chat, None, ref)


def _speak_privately(turn: Turn, match_id: int | None) -> None:
    """In a private chat, refuse in the language of the match's private prompts (the
    person's own, else their match's group's), not as a chat without a group."""
    if not turn.is_private:
        return
    uow = turn.uow
    stored = uow.botnet.get(match_id) if match_id else None
    if stored is None or stored.seat_of(turn.by) is None:
        mine = uow.botnet.active_for_person(turn.by)
        stored = mine[0] if mine else None
    if stored is not None:
        turn.speak_as(_private_fmt(turn, stored.chat_key, turn.by))


def _target(args: tuple[str, ...]) -> str | None:
    if not args:
        return None
    found = USERNAME.fullmatch(args[0])
    if found is None or len(args) > 1:
        raise refuse("botnet.bad_target")
    return found.group(1)


def _game_pair(uow: UnitOfWork, msg: Inbound) -> list[tuple[str, str]] | None:
    """The sender and the other player when the group's game has exactly two players."""
    loaded = uow.games.read_chat(msg.chat)
    if loaded is None:
        return None
    players = [p for p in loaded.state.players if p.active]
    refs = [p.ref for p in players]
    if len(players) != 2 or msg.sender.ref not in refs:
        return None
    me = refs.index(msg.sender.ref)
    other = players[1 - me]
    return [(msg.sender.ref, msg.sender.name), (other.ref, other.name)]


def _create(turn: Turn, chat: str, seats: list[tuple[str, str]]) -> StoredMatch:
    """Store a new match; refuse when another one started in the chat meanwhile."""
    try:
        match_id = turn.uow.botnet.create(chat, seats, turn.msg.at)
    except MatchRunning:  # another press started one at the same moment
        raise refuse("botnet.running") from None
    turn.wrote()
    stored = turn.uow.botnet.get(match_id)
    assert stored is not None
    return stored


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
