"""Which game a private message is about, for a person who plays in several at once.

A button names its game. A command, a location or a photo sent in a private chat names
none: with one unfinished game it is that one. With several it is the one game that waits
for the person (``is_waiting_for``); else the game they chose (``/game``, or a button of
the question "which game?"), kept until that game ends or they choose again; else nobody
can tell, and ``Turn`` raises ``GameUnclear``, which the routing answers with that
question (``handlers.games``). Nothing here reads or writes the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from hideseek_chat.rules.state import GameState, Phase, QuestionStatus
from hideseek_chat.store import GameNotFound
from hideseek_chat.store.chats import PersonGame

#: A live location of someone whose game is unclear is not stored; its updates ask
#: "which game?" again at most this often (a one-off pin or a command always asks).
ASK_AGAIN_AFTER = timedelta(minutes=10)


class GameUnclear(GameNotFound):
    """``ref`` plays in several games and none of them is the one a private message is
    about: ask them. ``games`` are newest first, ``states`` in the same order."""

    def __init__(self, ref: str, games: Sequence[PersonGame], states: Sequence[GameState]) -> None:
        super().__init__(ref)
        self.games = tuple(games)
        self.states = tuple(states)


def is_waiting_for(state: GameState, ref: str) -> bool:
    """Whether the game cannot go on until ``ref`` does something only a hider can: send
    the pin that fixes the zone, answer a question, or say whether a catch claim is right.

    This is the one definition: a private message of someone in several games goes to the
    game that waits for them when exactly one does."""
    player = state.player_by_ref(ref)
    current = state.current_round
    if player is None or current is None or not state.is_hider(player.id):
        return False
    if state.phase in (Phase.SEEKING, Phase.END_GAME) and current.zone is None:
        return True
    if state.pending_catch is not None:
        return True
    question = state.pending_question()
    return question is not None and question.status == QuestionStatus.PENDING


def settle(
    ref: str,
    games: Sequence[PersonGame],
    states: Sequence[GameState],
    chosen: int | None,
) -> PersonGame | None:
    """The game of ``games`` (with their ``states``) that ``ref``'s private message is
    about: the one waiting for them, else the one they chose; None when neither tells."""
    waiting = [g for g, s in zip(games, states, strict=True) if is_waiting_for(s, ref)]
    if len(waiting) == 1:
        return waiting[0]
    return next((g for g in games if g.game_id == chosen), None)
