"""The two-player botnet game ("hide && seek", oakreef.ie): pure rules, standard library only.

An 8x8 grid of devices, columns a-h and rows 1-8. Each player has a hidden proxy on one
device and a visible botnet of claimed devices. A turn is two steps: move the proxy to an
orthogonal neighbour that is in no botnet and that this proxy never occupied, then claim an
unclaimed device. Claiming a device that does not touch your botnet costs turns: the
opponent then plays its own turn plus one extra turn per device skipped (the distance to
your nearest botnet device minus one; ../shared/rules/README.md). Claiming the device the
opponent's proxy stands on wins; so does an opponent whose proxy has no legal move when its
turn comes.

Turn order, where the text is silent: a player with extra turns plays them in a row. A
costly claim ends its player's run at once (the opponent must play before "your next
turn"); turns left of that run are kept and played after the opponent's. Seats are 0 and 1;
seat 0 starts with the proxy on h1 and the botnet on f3, seat 1 with a8 and c6, as the two
side panels of the paper game say.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from hideseek_chat.rules.errors import RuleViolation

SIZE = 8
COLUMNS = "abcdefgh"

#: A device: (column, row), both 0-7; ``a1`` is (0, 0), ``h8`` is (7, 7).
Cell = tuple[int, int]


class BotnetViolation(RuleViolation):
    """A botnet move or claim the rules refuse; ``key`` is ``botnet.*``."""

    key = "botnet.illegal"


def cell_name(cell: Cell) -> str:
    return f"{COLUMNS[cell[0]]}{cell[1] + 1}"


def parse_cell(text: str) -> Cell:
    """The device ``text`` names (``e6``, ``E6``, `` 6e ``); raise BotnetViolation if none."""
    word = text.strip().lower()
    if len(word) == 2 and word[0].isdigit() and word[1].isalpha():
        word = word[1] + word[0]
    if len(word) != 2 or word[0] not in COLUMNS or word[1] not in "12345678":
        raise BotnetViolation(f"no device {text!r}", "botnet.bad_cell", text=text.strip()[:12])
    return COLUMNS.index(word[0]), int(word[1]) - 1


def neighbours(cell: Cell) -> list[Cell]:
    """The devices sharing a side with ``cell`` (never a diagonal), in a fixed order."""
    col, row = cell
    around = [(col, row + 1), (col + 1, row), (col, row - 1), (col - 1, row)]
    return [(c, r) for c, r in around if 0 <= c < SIZE and 0 <= r < SIZE]


def distance(a: Cell, b: Cell) -> int:
    """Steps between two devices moving only between neighbours."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


ALL_CELLS: tuple[Cell, ...] = tuple((c, r) for r in range(SIZE) for c in range(SIZE))
START_PROXY: tuple[Cell, Cell] = (parse_cell("h1"), parse_cell("a8"))
START_BOTNET: tuple[Cell, Cell] = (parse_cell("f3"), parse_cell("c6"))


class Stage(StrEnum):
    MOVE = "move"  # the player to move moves their proxy (in private)
    CLAIM = "claim"  # ... then claims a device (in the group)
    OVER = "over"


class Ending(StrEnum):
    FOUND = "found"  # the winner claimed the device the loser's proxy stood on
    STUCK = "stuck"  # the loser's proxy had no legal move on their turn
    RESIGNED = "resigned"


@dataclass(frozen=True)
class ProxyMoved:
    seat: int
    cell: Cell


@dataclass(frozen=True)
class DeviceClaimed:
    seat: int
    cell: Cell


@dataclass(frozen=True)
class Resigned:
    seat: int


BotnetEvent = ProxyMoved | DeviceClaimed | Resigned


@dataclass(frozen=True)
class Match:
    """Where a match stands. Paths and botnets list devices in order, the start first."""

    to_move: int
    stage: Stage
    turns_left: int  # turns the player to move has in this run, this one included
    owed: tuple[int, int]  # extra turns each seat has banked for its next run
    paths: tuple[tuple[Cell, ...], tuple[Cell, ...]]
    botnets: tuple[tuple[Cell, ...], tuple[Cell, ...]]
    turns: int = 0  # turns completed (a move and a claim)
    winner: int | None = None
    ending: Ending | None = None

    @property
    def is_over(self) -> bool:
        return self.stage == Stage.OVER

    def proxy(self, seat: int) -> Cell:
        return self.paths[seat][-1]

    def owner(self, cell: Cell) -> int | None:
        """The seat whose botnet holds ``cell``, or None."""
        for seat in (0, 1):
            if cell in self.botnets[seat]:
                return seat
        return None

    def legal_moves(self, seat: int) -> list[Cell]:
        """Where ``seat``'s proxy may move: a free neighbour it never occupied."""
        path = self.paths[seat]
        return [
            cell for cell in neighbours(path[-1]) if cell not in path and self.owner(cell) is None
        ]

    def skipped(self, seat: int, cell: Cell) -> int:
        """Devices skipped by ``seat`` claiming ``cell``: 0 when it touches their botnet."""
        nearest = min(distance(cell, own) for own in self.botnets[seat])
        return max(nearest - 1, 0)


def other(seat: int) -> int:
    return 1 - seat


def new_match(first: int) -> Match:
    """A match at its start with ``first`` (0 or 1) to move."""
    if first not in (0, 1):
        raise ValueError(f"no seat {first}")
    return Match(
        to_move=first,
        stage=Stage.MOVE,
        turns_left=1,
        owed=(0, 0),
        paths=((START_PROXY[0],), (START_PROXY[1],)),
        botnets=((START_BOTNET[0],), (START_BOTNET[1],)),
    )


def apply(match: Match, event: BotnetEvent) -> Match:
    """The match after ``event``; raise BotnetViolation (match unchanged) if not allowed."""
    if match.is_over:
        raise BotnetViolation("the match is over", "botnet.over")
    if isinstance(event, Resigned):
        return _end(match, other(event.seat), Ending.RESIGNED)
    if event.seat != match.to_move:
        raise BotnetViolation("not your turn", "botnet.not_your_turn")
    if isinstance(event, ProxyMoved):
        return _move(match, event.seat, event.cell)
    return _claim(match, event.seat, event.cell)


def _move(match: Match, seat: int, cell: Cell) -> Match:
    if match.stage != Stage.MOVE:
        raise BotnetViolation("claim first", "botnet.claim_first")
    here = match.proxy(seat)
    name = cell_name(cell)
    if cell == here:
        raise BotnetViolation("must move", "botnet.must_move", cell=name)
    if cell not in neighbours(here):
        raise BotnetViolation(
            "not a neighbour", "botnet.not_neighbour", cell=name, here=cell_name(here)
        )
    owner = match.owner(cell)
    if owner is not None:
        key = "botnet.into_own_botnet" if owner == seat else "botnet.into_their_botnet"
        raise BotnetViolation("device in a botnet", key, cell=name)
    if cell in match.paths[seat]:
        raise BotnetViolation("visited before", "botnet.visited", cell=name)
    paths = _with(match.paths, seat, match.paths[seat] + (cell,))
    return replace(match, paths=paths, stage=Stage.CLAIM)


def _claim(match: Match, seat: int, cell: Cell) -> Match:
    if match.stage != Stage.CLAIM:
        raise BotnetViolation("move first", "botnet.move_first")
    owner = match.owner(cell)
    if owner is not None:
        key = "botnet.claimed_own" if owner == seat else "botnet.claimed_theirs"
        raise BotnetViolation("already claimed", key, cell=cell_name(cell))
    skipped = match.skipped(seat, cell)
    botnets = _with(match.botnets, seat, match.botnets[seat] + (cell,))
    claimed = replace(match, botnets=botnets, turns=match.turns + 1)
    if cell == match.proxy(other(seat)):
        return _end(claimed, seat, Ending.FOUND)
    return _next_turn(claimed, seat, skipped)


def _next_turn(match: Match, seat: int, skipped: int) -> Match:
    left = match.turns_left - 1
    owed = list(match.owed)
    if skipped:
        owed[other(seat)] += skipped
        owed[seat] += left  # the rest of this run waits until the opponent has played
        left = 0
    if left:
        following = replace(match, stage=Stage.MOVE, turns_left=left, owed=(owed[0], owed[1]))
    else:
        nxt = other(seat)
        run = 1 + owed[nxt]
        owed[nxt] = 0
        following = replace(
            match, to_move=nxt, stage=Stage.MOVE, turns_left=run, owed=(owed[0], owed[1])
        )
    if not following.legal_moves(following.to_move):
        return _end(following, other(following.to_move), Ending.STUCK)
    return following


def _end(match: Match, winner: int, ending: Ending) -> Match:
    return replace(match, stage=Stage.OVER, winner=winner, ending=ending)


def _with(
    pair: tuple[tuple[Cell, ...], tuple[Cell, ...]], seat: int, value: tuple[Cell, ...]
) -> tuple[tuple[Cell, ...], tuple[Cell, ...]]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def replay(first: int, events: list[BotnetEvent]) -> Match:
    """The match after ``events`` from its start; raise BotnetViolation on an illegal one."""
    match = new_match(first)
    for event in events:
        match = apply(match, event)
    return match
