"""Cards and curses: /hand, keeping drawn cards, playing a card step by step (what each
card still needs comes from ``rules.casting``), discarding, and seekers clearing a curse."""

from __future__ import annotations

from dataclasses import replace

from hideseek_chat.chat import keyboards, referee, sightings
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.keyboards import Press
from hideseek_chat.chat.model import Outbound
from hideseek_chat.chat.outbox import hand_view
from hideseek_chat.chat.turn import Turn
from hideseek_chat.rules.casting import (
    CastingChoices,
    CastingStep,
    StepKind,
    acting_card,
    needs_seekers_distance,
    needs_seekers_heading,
    next_casting_step,
    seekers_heading_away,
)
from hideseek_chat.rules.curses import is_active, is_clearable, rules_of
from hideseek_chat.rules.errors import CardNotAvailable
from hideseek_chat.rules.events import CardDiscarded, CardPlayed, CardsKept, CurseCleared
from hideseek_chat.rules.state import CardZone

Args = tuple[str, ...]


def hand(turn: Turn, args: Args = ()) -> list[Outbound]:
    """``/hand``: the sender's hand, always in their private chat."""
    player = turn.player()
    if player is None:
        raise ChatError("chat.not_in_game")
    text, buttons = _hand(turn, player.team_id)
    private = turn.to_person(turn.by, text, buttons)
    if turn.is_private:
        return [private]
    return [private, turn.reply(turn.say("chat.hand_sent"))]


def press_hand(turn: Turn, press: Press) -> list[Outbound]:
    player = turn.player()
    if player is None:
        raise ChatError("chat.button_not_yours")
    text, buttons = _hand(turn, player.team_id)
    return [turn.to_person(turn.by, text, buttons)]


def _hand(turn: Turn, team_id: int) -> tuple[str, keyboards.Rows]:
    """The team's hand, in the sender's own language (it goes to their private chat)."""
    own = turn.formatter(turn.by)
    return hand_view(turn.state, turn.ruleset, turn.game_id, team_id, own)


def press_keep(turn: Turn, press: Press) -> list[Outbound]:
    try:
        ids = tuple(int(i) for i in press.arg(1).split(","))
    except ValueError:
        raise ChatError("chat.button_unknown") from None
    turn.apply(CardsKept(turn.by, ids))
    return []


def press_discard(turn: Turn, press: Press) -> list[Outbound]:
    turn.apply(CardDiscarded(turn.by, press.int_arg(0)))
    return []


# ----------------------------------------------------------------- playing a card


def play(turn: Turn, args: Args) -> list[Outbound]:
    """``/play N ban q1 q2 q3``: play card N of /hand with the questions it bans."""
    player = turn.player()
    if player is None:
        raise ChatError("chat.not_in_game")
    cards = turn.state.cards_in(CardZone.HAND, player.team_id)
    try:
        number = int(args[0])
    except (IndexError, ValueError):
        raise ChatError("chat.ban_usage", number=1) from None
    if not 1 <= number <= len(cards):
        raise CardNotAvailable("no such card in the hand", key="error.card_not_in_hand")
    banned = tuple(a.lower() for a in args[2:]) if args[1:2] == ("ban",) else ()
    turn.apply(CardPlayed(turn.by, cards[number - 1].id, banned_question_ids=banned))
    return []


def press_play(turn: Turn, press: Press) -> list[Outbound]:
    """Play a card from the hand, asking step by step for what the card still needs.

    Each step's choice is added to the button's data (``d<ids>`` discards, ``t<card>`` the
    Duplicate's target, ``g<team>`` the cursed team, ``c`` the condition confirmed).
    """
    player = turn.player()
    if player is None:
        raise ChatError("chat.button_not_yours")
    state, ruleset = turn.state, turn.ruleset
    card_id = press.int_arg(0)
    choices = _choices(press.args[1:])
    try:
        acting = acting_card(ruleset, state, player.team_id, card_id, choices.target_card_id)
        if needs_seekers_distance(acting):
            choices = _with_distance(turn, player.id, choices)
        if needs_seekers_heading(acting):
            choices = _with_heading(turn, choices)
        step = next_casting_step(ruleset, state, player.team_id, card_id, choices)
    except CardNotAvailable:
        raise ChatError("chat.button_unknown") from None
    if step is not None:
        return [_ask_step(turn, press, player.team_id, card_id, step)]
    turn.apply(
        CardPlayed(
            turn.by,
            card_id,
            discard_ids=choices.discard_ids,
            target_card_id=choices.target_card_id,
            confirmed=choices.confirmed,
            seekers_distance_m=choices.seekers_distance_m,
            seekers_away=choices.seekers_away,
            target_team_id=choices.target_team_id,
        )
    )
    return []


def _choices(steps: tuple[str, ...]) -> CastingChoices:
    discard_ids: tuple[int, ...] = ()
    target: int | None = None
    team: int | None = None
    confirmed = False
    try:
        for step in steps:
            if step.startswith("d"):
                discard_ids = tuple(int(i) for i in step[1:].split(".") if i)
            elif step.startswith("t"):
                target = int(step[1:])
            elif step == "c":
                confirmed = True
            elif step.startswith("g"):
                team = int(step[1:])
    except ValueError:
        raise ChatError("chat.button_unknown") from None
    return CastingChoices(discard_ids, target, team, confirmed)


def _with_distance(turn: Turn, player_id: int, choices: CastingChoices) -> CastingChoices:
    """The choices with the seekers' distance from the caster, when the pins tell it."""
    mine = sightings.last_pin(turn.uow, turn.game_id, player_id)
    if mine is None:
        return choices
    seekers = sightings.seeker_pins(turn.uow, turn.game_id, turn.state)
    distance = referee.nearest_seeker_m(mine, seekers)
    return CastingChoices(
        choices.discard_ids,
        choices.target_card_id,
        choices.target_team_id,
        choices.confirmed,
        distance,
    )


def _with_heading(turn: Turn, choices: CastingChoices) -> CastingChoices:
    """The choices with whether the seekers travel away from the hider, when pins tell."""
    state, uow, now = turn.state, turn.uow, turn.msg.at
    hider = sightings.hider_pin(uow, turn.game_id, state)
    if hider is None:
        return choices
    targets = [choices.target_team_id] if choices.target_team_id else state.seeker_team_ids()
    tracks = [
        [
            (pin.at, referee.travelled_m(hider, pin))
            for pin in sightings.last_pins(uow, turn.game_id, seeker.id)
        ]
        for team in targets
        for seeker in state.team_players(team)
    ]
    return replace(choices, seekers_away=seekers_heading_away(tracks, now))


def _ask_step(turn: Turn, press: Press, team_id: int, card_id: int, step: CastingStep) -> Outbound:
    """The question for the next casting step, with a button per option."""
    state, fmt = turn.state, turn.fmt
    cards = {c.id: c for c in state.cards_in(CardZone.HAND, team_id)}
    name = fmt.card(cards[card_id].def_id)
    options: list[tuple[str, str]]
    if step.kind == StepKind.TARGET:
        key = "chat.choose_target"
        options = [(fmt.card(cards[i].def_id), f"t{i}") for (i,) in step.options]
    elif step.kind == StepKind.DISCARD:
        key = "chat.choose_discard"
        options = [
            (" + ".join(fmt.card(cards[i].def_id) for i in combo), "d" + ".".join(map(str, combo)))
            for combo in step.options
        ]
    elif step.kind == StepKind.BAN:
        raise ChatError("chat.ban_usage", number=list(cards).index(card_id) + 1)
    elif step.kind == StepKind.TEAM:
        key = "chat.choose_team"
        options = [(state.team(t).name, f"g{t}") for (t,) in step.options]
    else:
        key = "chat.confirm_cost"
        options = [(fmt.t("✅ Condition met — cast it"), "c")]
    buttons = keyboards.casting_choices(press.game_id, press.args, options)
    return turn.to_person(turn.by, turn.say(key, card=name), buttons)


# ----------------------------------------------------------------- curses


def cleared(turn: Turn, args: Args) -> list[Outbound]:
    """``/cleared [curse]``: seekers report a curse done (a button per curse if several)."""
    state, ruleset, fmt = turn.state, turn.ruleset, turn.fmt
    at = turn.msg.at
    open_curses = [
        c for c in state.round_curses() if is_active(c, at) and is_clearable(rules_of(ruleset, c))
    ]
    if args:
        wanted = " ".join(args).lower()
        open_curses = [c for c in open_curses if wanted in (c.def_id, fmt.card(c.def_id).lower())]
    if not open_curses:
        raise ChatError("chat.no_curse_to_clear")
    if len(open_curses) > 1:
        buttons = keyboards.curses_to_clear(turn.game_id, open_curses, fmt)
        return [turn.reply(turn.say("chat.which_curse"), buttons)]
    turn.apply(CurseCleared(turn.by, open_curses[0].id))
    return []


def press_clear(turn: Turn, press: Press) -> list[Outbound]:
    turn.apply(CurseCleared(turn.by, press.int_arg(0)))
    return []
