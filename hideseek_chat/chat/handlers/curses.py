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

from hideseek_chat.chat import keyboards
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.keyboards import Press, Verb
from hideseek_chat.chat.model import Outbound
from hideseek_chat.chat.texts import say
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
    player, admin = _reporter(turn)
    if turn.state.is_hider(player.id) and not admin:
        raise ChatError("chat.penalty_by_seekers")
    found = _named(turn, penalty_curses(turn, player, admin), args)
    if not found:
        raise ChatError("chat.no_penalty_curse")
    if len(found) > 1:
        buttons = keyboards.curses_to_report(turn.game_id, Verb.REPORT_PENALTY, found, turn.fmt)
        return [turn.reply(turn.say("chat.which_penalty"), buttons)]
    return _report_penalty(turn, player, admin, found[0])


def press_report_penalty(turn: Turn, press: Press) -> list[Outbound]:
    player, admin = _reporter(turn)
    if turn.state.is_hider(player.id) and not admin:
        raise ChatError("chat.penalty_by_seekers")
    wanted = press.int_arg(0)
    found = [c for c in penalty_curses(turn, player, admin) if c.id == wanted]
    if not found:
        raise ChatError("chat.no_penalty_curse")
    return _report_penalty(turn, player, admin, found[0])


def _report_penalty(turn: Turn, player: Player, admin: bool, curse: ActiveCurse) -> list[Outbound]:
    if admin:
        turn.apply(CursePenaltyClaimed(turn.by, curse.id))
        return []
    sends: list[Outbound] = []
    for other in confirmers(turn.state, curse):
        fmt = turn.formatter(other.ref)
        params = {
            "name": player.name,
            "curse": fmt.card(curse.def_id),
            "duration": _duration(turn, curse, fmt),
        }
        label = say("chat.penalty_confirm_button", params, fmt)
        buttons = keyboards.confirm_report(
            turn.game_id, Verb.CONFIRM_PENALTY, curse.id, curse.penalties, label
        )
        text = say("chat.penalty_confirm", params, fmt)
        sends.append(turn.to_person(other.ref, text, buttons))
    if not sends:
        raise ChatError("chat.report_sent_nowhere")
    reported = turn.say(
        "chat.penalty_reported",
        curse=turn.fmt.card(curse.def_id),
        duration=_duration(turn, curse, turn.fmt),
    )
    return [*sends, turn.reply(reported)]


def press_confirm_penalty(turn: Turn, press: Press) -> list[Outbound]:
    """The hider confirms a reported bonus (once per report)."""
    curse_id, counted = press.int_arg(0), press.int_arg(1)
    try:
        curse = turn.state.curse(curse_id)
    except KeyError:
        raise ChatError("chat.button_unknown") from None
    if curse.penalties != counted:
        raise ChatError("chat.penalty_already")
    turn.apply(CursePenaltyClaimed(turn.by, curse_id))
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
    player, admin = _reporter(turn)
    if turn.state.is_hider(player.id) and not admin:
        raise ChatError("chat.loss_by_seekers")
    found = _named(turn, game_curses(turn, player, admin), args)
    if not found:
        raise ChatError("chat.no_lost_curse")
    if len(found) > 1:
        buttons = keyboards.curses_to_report(turn.game_id, Verb.REPORT_LOSS, found, turn.fmt)
        return [turn.reply(turn.say("chat.which_lost"), buttons)]
    return _report_loss(turn, player, admin, found[0])


def press_report_loss(turn: Turn, press: Press) -> list[Outbound]:
    player, admin = _reporter(turn)
    if turn.state.is_hider(player.id) and not admin:
        raise ChatError("chat.loss_by_seekers")
    wanted = press.int_arg(0)
    found = [c for c in game_curses(turn, player, admin) if c.id == wanted]
    if not found:
        raise ChatError("chat.no_lost_curse")
    return _report_loss(turn, player, admin, found[0])


def _report_loss(turn: Turn, player: Player, admin: bool, curse: ActiveCurse) -> list[Outbound]:
    if admin:
        turn.apply(CurseLossReported(turn.by, curse.id))
        return []
    rules = rules_of(turn.ruleset, curse)
    needed = int(rules.losses_to_clear[turn.state.size]) if rules.losses_to_clear else 1
    sends: list[Outbound] = []
    for other in confirmers(turn.state, curse):
        fmt = turn.formatter(other.ref)
        params = {
            "name": player.name,
            "curse": fmt.card(curse.def_id),
            "losses": curse.losses + 1,
            "needed": needed,
        }
        label = say("chat.loss_confirm_button", params, fmt)
        buttons = keyboards.confirm_report(
            turn.game_id, Verb.CONFIRM_LOSS, curse.id, curse.losses, label
        )
        sends.append(turn.to_person(other.ref, say("chat.loss_confirm", params, fmt), buttons))
    if not sends:
        raise ChatError("chat.report_sent_nowhere")
    return [*sends, turn.reply(turn.say("chat.loss_reported", curse=turn.fmt.card(curse.def_id)))]


def press_confirm_loss(turn: Turn, press: Press) -> list[Outbound]:
    """The hider confirms a reported lost game (once per report)."""
    curse_id, counted = press.int_arg(0), press.int_arg(1)
    try:
        curse = turn.state.curse(curse_id)
    except KeyError:
        raise ChatError("chat.button_unknown") from None
    if curse.losses != counted or curse.lockout_until is not None:
        raise ChatError("chat.loss_already")
    turn.apply(CurseLossReported(turn.by, curse_id))
    return []
