"""Which game a private chat is about, for someone who plays in several: the question
"which game?", the choice made, and the /game list (``games_text``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hideseek_chat.chat.i18n import N_, Formatter
from hideseek_chat.chat.texts.registry import plain_texts
from hideseek_chat.chat.texts.screens import PHASES
from hideseek_chat.rules.state import Phase

plain_texts(
    {
        "chat.which_game": N_(
            "🎲 You play in more than one game. Which game is this about? Choose one, then "
            "send it again."
        ),
        "chat.game_chosen": N_(
            "✅ Your private messages are about {game} now, until that game ends or you "
            "choose another with /game. Please send your message again. A live location you "
            "are sharing reaches {game} from its next update."
        ),
        "chat.game_choice_gone": N_("That game is over, or you no longer play in it."),
        "chat.game_of": N_("{name}'s game"),
    },
    partial=True,
)


@dataclass(frozen=True)
class GameLine:
    """One of someone's games as /game lists it."""

    label: str
    phase: Phase
    waiting: bool  # it cannot go on until they act (``focus.is_waiting_for``)


def games_text(games: Sequence[GameLine], current: GameLine | None, fmt: Formatter) -> str:
    """The /game text: each game, and which one private messages are about (``current``;
    None: nobody can tell, the person chooses)."""
    lines = [fmt.n("🎲 You play in {count} game:", "🎲 You play in {count} games:", len(games))]
    for game in games:
        line = f"• {game.label} — {fmt.t(PHASES[game.phase])}"
        if game.waiting:
            line += " — " + fmt.t(N_("⏳ waiting for you"))
        lines.append(line)
    if current is None:
        lines.append(fmt.t(N_("Which one are your private messages about? Choose:")))
    elif len(games) == 1:
        lines.append(fmt.t(N_("Your private messages are about it.")))
    elif current.waiting and sum(g.waiting for g in games) == 1:
        lines.append(
            fmt.t(
                N_(
                    "{game} is waiting for you (your location, an answer or your word on a "
                    "catch), so your private messages go there until that is done. Buttons "
                    "always reach their own game."
                ),
                game=current.label,
            )
        )
    else:
        lines.append(
            fmt.t(
                N_("Your private messages are about {game}. Choose another one:"),
                game=current.label,
            )
        )
    return "\n".join(lines)
