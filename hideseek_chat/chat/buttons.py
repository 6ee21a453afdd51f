"""Button data: what a press means, in at most 64 bytes (Telegram's limit).

Data reads ``verb:game_id:arg:arg``. The game id makes a button from an earlier game
harmless: a press is refused when it does not name the chat's current game.
"""

from __future__ import annotations

from dataclasses import dataclass

from hideseek_chat.chat.commands import ChatError

MAX_BYTES = 64

#: Verbs and what their arguments are.
VERBS = {
    "join": "join the game",
    "ans": "record_id, answer word (or 's' for the suggested tentacle place)",
    "veto": "record_id",
    "rnd": "record_id",
    "keep": "cycle_id, comma-separated card ids",
    "play": "card_id, then optional steps (d<ids>, t<card>, c, g<team>)",
    "disc": "card_id",
    "catch": "y / n",
    "clear": "curse_id",
    "arrive": "record_id (a thermometer's seekers arrived)",
    "ask": "question id",
    "set": "setting, value",
    "map": "map pack name",
    "hand": "(show the hand)",
    "next": "(start the next round now)",
    "chk": "record_id, a (send the held answer anyway) / s (send the pins' answer)",
    "claim": "claim_id, y / n (the hider accepts or refuses an end-game claim)",
    # the botnet game: the id is the match's (for bnok, the chat's newest match id or 0)
    "bnok": "challenger ref (':' as '.'), @username it is for or ''",
    "bnfirst": "seat 0 / 1 who moves first, or r for a coin toss",
    "bnm": "turns played, device to move the proxy to",
    "bnc": "turns played, device to claim",
}


@dataclass(frozen=True)
class Press:
    verb: str
    game_id: int
    args: tuple[str, ...]

    def arg(self, index: int) -> str:
        try:
            return self.args[index]
        except IndexError:
            raise ChatError("chat.button_unknown") from None

    def int_arg(self, index: int) -> int:
        try:
            return int(self.arg(index))
        except ValueError:
            raise ChatError("chat.button_unknown") from None


def encode(verb: str, game_id: int, *args: object) -> str:
    """Button data for ``verb`` in game ``game_id``; raise ValueError if over 64 bytes."""
    if verb not in VERBS:
        raise ValueError(f"unknown verb {verb!r}")
    data = ":".join([verb, str(game_id), *(str(a) for a in args)])
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"button data too long: {data!r}")
    return data


def decode(data: str) -> Press:
    """Read button data; anything malformed or forged raises ChatError."""
    parts = data.split(":")
    if len(parts) < 2 or parts[0] not in VERBS or len(data.encode()) > MAX_BYTES:
        raise ChatError("chat.button_unknown")
    try:
        game_id = int(parts[1])
    except ValueError:
        raise ChatError("chat.button_unknown") from None
    return Press(parts[0], game_id, tuple(parts[2:]))
