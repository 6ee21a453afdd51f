"""What the botnet game says: its refusals (``botnet.*``), announcements and the board
as a fixed-width grid.

The grid and the device names (``e6``) are the same in every language.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hideseek_chat.chat.i18n import N_, Formatter
from hideseek_chat.chat.texts.registry import Params, plain_texts
from hideseek_chat.pictures.botnet import MARKS
from hideseek_chat.rules.botnet import COLUMNS, SIZE, Cell, Ending, Match, cell_name

#: A free device on the grid (each seat's mark is the picture's, ``pictures.botnet.MARKS``).
EMPTY = "·"


def _names(p: Params, f: Formatter) -> Mapping[str, Any]:
    return {"names": f.names(list(p["names"]))} if "names" in p else {}


plain_texts(
    {
        "botnet.illegal": N_("The rules of the botnet game don't allow that."),
        "botnet.bad_cell": N_(
            "“{text}” isn't a device on the board: name a column a–h and a row 1–8, like e6."
        ),
        "botnet.over": N_("That match is over. Send /botnet to start a new one."),
        "botnet.not_your_turn": N_("It isn't your turn: wait for your opponent."),
        "botnet.claim_first": N_(
            "Your proxy has moved this turn: now claim a device for your botnet in the group."
        ),
        "botnet.move_first": N_(
            "Move your proxy first: the choices are in our private chat (/move there)."
        ),
        "botnet.must_move": N_(
            "Your proxy is on {cell} already: it has to move to a neighbouring device."
        ),
        "botnet.not_neighbour": N_(
            "{cell} isn't next to your proxy on {here}: it moves one device up, down, left or "
            "right, never diagonally."
        ),
        "botnet.into_own_botnet": N_(
            "{cell} is in your botnet: a proxy can't move into a device of either botnet."
        ),
        "botnet.into_their_botnet": N_(
            "{cell} is in your opponent's botnet: a proxy can't move into a device of either "
            "botnet."
        ),
        "botnet.visited": N_(
            "Your proxy has been on {cell} before: it can never return to a device it occupied."
        ),
        "botnet.claimed_own": N_("{cell} is in your botnet already: claim an unclaimed device."),
        "botnet.claimed_theirs": N_(
            "{cell} is in your opponent's botnet: claim an unclaimed device."
        ),
        "botnet.no_match": N_("No botnet match is running here. Send /botnet to start one."),
        "botnet.not_seated": N_("Only {names} play this match."),
        "botnet.own_challenge": N_("That's your own challenge: wait for someone to accept it."),
        "botnet.challenge_for": N_("This challenge is for @{username}."),
        "botnet.running": N_(
            "A botnet match is running in this group already: /botnet shows its board."
        ),
        "botnet.stale": N_("That board is out of date: use the newest one."),
        "botnet.bad_target": N_(
            "Challenge someone by their username, like /botnet @name, or send /botnet alone "
            "and anyone here can accept."
        ),
        "botnet.no_cell": N_("Say which device, like /{command} e6."),
        "botnet.choosing": N_("First decide who moves first, with the buttons under the match."),
        "botnet.started": N_("The match has started already."),
        "botnet.move_in_private": N_(
            "Move your proxy in our private chat, never here. I've deleted your message so that "
            "your opponent can't read it."
        ),
        "botnet.claim_in_group": N_(
            "Claim devices in the group, where your opponent sees them: /claim e6 there."
        ),
        "botnet.several": N_("You play more than one botnet match: use the buttons I sent you."),
        "botnet.several_resign": N_(
            "You play more than one botnet match: send /resign in the group of the one you give up."
        ),
    },
    _names,
)


def grid(match: Match, paths: Sequence[int] = ()) -> str:
    """The board as fixed-width text: rows 8 to 1, each botnet by its mark.

    The proxy paths of the seats in ``paths`` show as ``x``/``o`` where no botnet covers
    them: both once the match is over, a player's own in their private chat, else none.
    """
    header = "  " + " ".join(COLUMNS)
    lines = [header]
    for row in reversed(range(SIZE)):
        marks = [_mark(match, (col, row), paths) for col in range(SIZE)]
        lines.append(f"{row + 1} {' '.join(marks)} {row + 1}")
    lines.append(header)
    return "\n".join(lines)


def _mark(match: Match, cell: Cell, paths: Sequence[int]) -> str:
    owner = match.owner(cell)
    if owner is not None:
        return MARKS[owner]
    for seat in paths:
        if cell in match.paths[seat]:
            return MARKS[seat].lower()
    return EMPTY


def legend(match: Match, names: Sequence[str], fmt: Formatter) -> str:
    """Whose mark is whose and how big each botnet is."""
    parts = [
        fmt.n(
            "{mark} {name}: {count} device",
            "{mark} {name}: {count} devices",
            len(match.botnets[seat]),
            mark=MARKS[seat],
            name=names[seat],
        )
        for seat in (0, 1)
    ]
    return " · ".join(parts)


def path_text(cells: Sequence[Cell]) -> str:
    """A proxy's path: ``e4 → e5 → f5``."""
    return " → ".join(cell_name(cell) for cell in cells)


def whose_turn(match: Match, names: Sequence[str], fmt: Formatter) -> str:
    """Who plays now and how many turns their run has left."""
    name = names[match.to_move]
    if match.turns_left > 1:
        return fmt.n(
            "{name}'s turn ({count} turn in a row left): move your proxy in our private chat.",
            "{name}'s turn ({count} turns in a row left): move your proxy in our private chat.",
            match.turns_left,
            name=name,
        )
    return fmt.t("{name}'s turn: move your proxy in our private chat.", name=name)


def claimed(
    match: Match, seat: int, cell: Cell, skipped: int, names: Sequence[str], fmt: Formatter
) -> str:
    """What a claim did: the device, and the turns it cost."""
    text = fmt.t("{name} claimed {cell}.", name=names[seat], cell=cell_name(cell))
    if skipped:
        text += " " + fmt.n(
            "That skips {count} device beyond their botnet: {other} plays {turns} turns in a row.",
            "That skips {count} devices beyond their botnet: {other} plays {turns} turns in a row.",
            skipped,
            other=names[1 - seat],
            turns=skipped + 1,
        )
    return text


def ending(match: Match, last_claim: Cell | None, names: Sequence[str], fmt: Formatter) -> str:
    """How the match ended, who won, and where both proxies went."""
    assert match.winner is not None
    winner, loser = names[match.winner], names[1 - match.winner]
    if match.ending == Ending.FOUND and last_claim is not None:
        head = fmt.t(
            "{winner} claimed {cell}, where {loser}'s proxy was hiding. {winner} wins!",
            winner=winner,
            loser=loser,
            cell=cell_name(last_claim),
        )
    elif match.ending == Ending.STUCK:
        head = fmt.t(
            "{loser}'s proxy has nowhere left to go. {winner} wins!", winner=winner, loser=loser
        )
    else:
        head = fmt.t("{loser} resigned. {winner} wins!", winner=winner, loser=loser)
    routes = [
        fmt.t("{name}'s proxy went {path}.", name=names[seat], path=path_text(match.paths[seat]))
        for seat in (0, 1)
    ]
    return "\n".join([head, *routes])
