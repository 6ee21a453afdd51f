"""Curse reports: a curse struck (the Lemon fell, the egg cracked: the hider gains its
bonus) or a curse game was lost (Hidden Hangman).

The rulebook has the seekers inform the hider ("once the lemon falls, the hider should be
informed of their bonus immediately"): a seeker reports with ``/penalty`` or ``/lost`` (or
the button under the curse), and whom it benefits confirms in private (the hider; in the
points mode the team that cast the curse). A lost hangman game brings the seekers closer to
clearing the curse, so the hider, who played it, confirms it too. The admin's report counts
at once (an override for disputes). The engine checks who may claim what again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hideseek_chat.chat import keyboards
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.keyboards import Press, Verb
from hideseek_chat.chat.model import Outbound
from hideseek_chat.chat.texts import Params, say
from hideseek_chat.chat.turn import Turn
from hideseek_chat.rules.curses import CASTING_PHASES, rules_of
from hideseek_chat.rules.errors import WrongPhase
from hideseek_chat.rules.events import CurseLossReported, CursePenaltyClaimed
from hideseek_chat.rules.ruleset import CurseEffect
from hideseek_chat.rules.scale import scaled_minutes
from hideseek_chat.rules.state import ActiveCurse, GameState, Mode, Player

Args = tuple[str, ...]


def confirmers(state: GameState, curse: ActiveCurse) -> list[Player]:
    """Who confirms a report about ``curse``: the hider's team; in the points mode, the
    team that cast it."""
    if state.settings.mode == Mode.TEAMS_POINTS:
        teams = [t for t in state.seeker_team_ids() if t != curse.target_team_id]
    else:
        hider = state.hider_team_id()
        teams = [hider] if hider is not None else []
    return [p for t in teams for p in state.team_players(t)]


def _reporter(turn: Turn) -> tuple[Player, bool]:
    """The sender and whether they are the admin; the run must be on."""
    player = turn.player()
    if player is None:
        raise ChatError("chat.not_in_game")
    if turn.state.phase not in CASTING_PHASES:
        raise WrongPhase("curses are reported during the run", key="error.no_round")
    return player, player.id == turn.state.admin_player_id


def _concerns(curse: ActiveCurse, player: Player, admin: bool) -> bool:
    return admin or curse.target_team_id in (None, player.team_id)


def _named(turn: Turn, curses: list[ActiveCurse], args: Args) -> list[ActiveCurse]:
    if not args:
        return curses
    wanted = " ".join(args).lower()
    return [c for c in curses if wanted in c.def_id or wanted in turn.fmt.card(c.def_id).lower()]


def _duration(turn: Turn, curse: ActiveCurse, fmt: Formatter) -> str:
    rules = rules_of(turn.ruleset, curse)
    assert rules.penalty_min is not None
    return fmt.duration(60 * scaled_minutes(turn.state, turn.ruleset, rules.penalty_min))


# ----------------------------------------------------------------- a curse struck: a bonus


def penalty_curses(turn: Turn, player: Player, admin: bool) -> list[ActiveCurse]:
    """The curses of this run whose bonus may be reported now."""
    found = []
    for curse in turn.state.round_curses():
        rules = rules_of(turn.ruleset, curse)
        if rules.penalty_min is None or curse.no_effect or not _concerns(curse, player, admin):
            continue
        if curse.penalties and not rules.penalty_repeatable:
            continue
        found.append(curse)
    return found


def penalty(turn: Turn, args: Args) -> list[Outbound]:
    """``/penalty [curse]``: a seeker reports that a curse struck (the hider confirms)."""
    return _by_command(turn, _PENALTY, args)


def press_report_penalty(turn: Turn, press: Press) -> list[Outbound]:
    return _by_press(turn, _PENALTY, press)


def _report_penalty(turn: Turn, player: Player, admin: bool, curse: ActiveCurse) -> list[Outbound]:
    if admin:
        turn.apply(CursePenaltyClaimed(turn.by, curse.id))
        return []

    def params(fmt: Formatter) -> Params:
        return {
            "name": player.name,
            "curse": fmt.card(curse.def_id),
            "duration": _duration(turn, curse, fmt),
        }

    sends = _ask_confirmers(turn, curse, _PENALTY, curse.penalties, params)
    reported = turn.say(
        "chat.penalty_reported",
        curse=turn.fmt.card(curse.def_id),
        duration=_duration(turn, curse, turn.fmt),
    )
    return [*sends, turn.reply(reported)]


def press_confirm_penalty(turn: Turn, press: Press) -> list[Outbound]:
    """The hider confirms a reported bonus (once per report)."""
    curse, counted = _confirmed(turn, press)
    if curse.penalties != counted:
        raise ChatError("chat.penalty_already")
    turn.apply(CursePenaltyClaimed(turn.by, curse.id))
    return []


# ----------------------------------------------------------------- a lost curse game


def game_curses(turn: Turn, player: Player, admin: bool) -> list[ActiveCurse]:
    """The curse games being played now (not yet in their closing wait)."""
    return [
        c
        for c in turn.state.round_curses()
        if c.cleared_at is None
        and not c.no_effect
        and c.lockout_until is None
        and rules_of(turn.ruleset, c).effect == CurseEffect.HANGMAN
        and _concerns(c, player, admin)
    ]


def lost(turn: Turn, args: Args) -> list[Outbound]:
    """``/lost [curse]``: a seeker reports a lost curse game (the hider confirms)."""
    return _by_command(turn, _LOSS, args)


def press_report_loss(turn: Turn, press: Press) -> list[Outbound]:
    return _by_press(turn, _LOSS, press)


def _report_loss(turn: Turn, player: Player, admin: bool, curse: ActiveCurse) -> list[Outbound]:
    if admin:
        turn.apply(CurseLossReported(turn.by, curse.id))
        return []
    rules = rules_of(turn.ruleset, curse)
    needed = int(rules.losses_to_clear[turn.state.size]) if rules.losses_to_clear else 1

    def params(fmt: Formatter) -> Params:
        return {
            "name": player.name,
            "curse": fmt.card(curse.def_id),
            "losses": curse.losses + 1,
            "needed": needed,
        }

    sends = _ask_confirmers(turn, curse, _LOSS, curse.losses, params)
    return [*sends, turn.reply(turn.say("chat.loss_reported", curse=turn.fmt.card(curse.def_id)))]


def press_confirm_loss(turn: Turn, press: Press) -> list[Outbound]:
    """The hider confirms a reported lost game (once per report)."""
    curse, counted = _confirmed(turn, press)
    if curse.losses != counted or curse.lockout_until is not None:
        raise ChatError("chat.loss_already")
    turn.apply(CurseLossReported(turn.by, curse.id))
    return []


# ----------------------------------------------------------------- what both reports share


@dataclass(frozen=True)
class _Report:
    """What differs between reporting a bonus and a lost game: the curses it may be about,
    how a chosen one is reported, and its button verbs and text keys."""

    candidates: Callable[[Turn, Player, bool], list[ActiveCurse]]
    report: Callable[[Turn, Player, bool, ActiveCurse], list[Outbound]]
    report_verb: Verb
    confirm_verb: Verb
    by_seekers: str
    nothing: str
    which: str
    confirm: str
    confirm_button: str


_PENALTY = _Report(
    penalty_curses,
    _report_penalty,
    Verb.REPORT_PENALTY,
    Verb.CONFIRM_PENALTY,
    by_seekers="chat.penalty_by_seekers",
    nothing="chat.no_penalty_curse",
    which="chat.which_penalty",
    confirm="chat.penalty_confirm",
    confirm_button="chat.penalty_confirm_button",
)
_LOSS = _Report(
    game_curses,
    _report_loss,
    Verb.REPORT_LOSS,
    Verb.CONFIRM_LOSS,
    by_seekers="chat.loss_by_seekers",
    nothing="chat.no_lost_curse",
    which="chat.which_lost",
    confirm="chat.loss_confirm",
    confirm_button="chat.loss_confirm_button",
)


def _seeker_reporter(turn: Turn, kind: _Report) -> tuple[Player, bool]:
    """The sender and whether they are the admin; the hiders may not report (but the admin)."""
    player, admin = _reporter(turn)
    if turn.state.is_hider(player.id) and not admin:
        raise ChatError(kind.by_seekers)
    return player, admin


def _by_command(turn: Turn, kind: _Report, args: Args) -> list[Outbound]:
    """The command: the one curse it names (or the only one), else buttons to choose."""
    player, admin = _seeker_reporter(turn, kind)
    found = _named(turn, kind.candidates(turn, player, admin), args)
    if not found:
        raise ChatError(kind.nothing)
    if len(found) > 1:
        buttons = keyboards.curses_to_report(turn.game_id, kind.report_verb, found, turn.fmt)
        return [turn.reply(turn.say(kind.which), buttons)]
    return kind.report(turn, player, admin, found[0])


def _by_press(turn: Turn, kind: _Report, press: Press) -> list[Outbound]:
    """A curse chosen with a button (it must still be one that may be reported)."""
    player, admin = _seeker_reporter(turn, kind)
    wanted = press.int_arg(0)
    found = [c for c in kind.candidates(turn, player, admin) if c.id == wanted]
    if not found:
        raise ChatError(kind.nothing)
    return kind.report(turn, player, admin, found[0])


def _ask_confirmers(
    turn: Turn,
    curse: ActiveCurse,
    kind: _Report,
    counted: int,
    params: Callable[[Formatter], Params],
) -> list[Outbound]:
    """Ask everyone who confirms a report about ``curse``, each in their language, with a
    button that counts once (``counted``: the reports counted so far)."""
    sends: list[Outbound] = []
    for other in confirmers(turn.state, curse):
        fmt = turn.formatter(other.ref)
        asked = params(fmt)
        label = say(kind.confirm_button, asked, fmt)
        buttons = keyboards.confirm_report(
            turn.game_id, kind.confirm_verb, curse.id, counted, label
        )
        sends.append(turn.to_person(other.ref, say(kind.confirm, asked, fmt), buttons))
    if not sends:
        raise ChatError("chat.report_sent_nowhere")
    return sends


def _confirmed(turn: Turn, press: Press) -> tuple[ActiveCurse, int]:
    """The curse a confirm button is about, and the reports counted when it was sent."""
    curse_id, counted = press.int_arg(0), press.int_arg(1)
    try:
        curse = turn.state.curse(curse_id)
    except KeyError:
        raise ChatError("chat.button_unknown") from None
    return curse, counted
