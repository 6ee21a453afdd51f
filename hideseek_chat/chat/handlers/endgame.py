"""The end game and the catch: /found, the hider's answer to a catch claim, /endgame when
the bot missed the seekers entering the zone, and the hider's decision on a claim the pins
contradict. Every end-game claim is stored with its verdict for /review."""

from __future__ import annotations

from hideseek_chat import geo
from hideseek_chat.chat import keyboards, referee, sightings, texts
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.keyboards import Press
from hideseek_chat.chat.model import Outbound
from hideseek_chat.chat.turn import Turn
from hideseek_chat.rules import apply as engine_apply
from hideseek_chat.rules import pins
from hideseek_chat.rules.events import CatchAnswered, CatchClaimed, EndGameStarted
from hideseek_chat.store.checks import CheckVerdict

Args = tuple[str, ...]


def found(turn: Turn, args: Args) -> list[Outbound]:
    """A seeker claims the catch; the bot measures it when both have recent pins.

    A claim the pins put far from the hider is refused without saying how far (only the
    verdict may reach the seekers); anything closer goes to the hider, who has the last word.
    """
    state = turn.state
    player = turn.player()
    current = state.current_round
    distance: float | None = None
    if player is not None and current is not None:
        game_id = turn.game_id
        mine = sightings.last_pin(turn.uow, game_id, player.id)
        spot = turn.uow.chats.hiding_spot(game_id, current.number)
        target: geo.HidingSpot | geo.Pin | None = None
        if spot is not None:
            target = geo.HidingSpot(spot.lat, spot.lon, spot.accuracy_m, spot.frozen_at)
        else:
            hider = sightings.hider_pin(turn.uow, game_id, state)
            target = referee.pin_of(hider) if hider is not None else None
        if mine is not None and target is not None and referee.is_current(mine, turn.msg.at):
            check = referee.catch_distance(mine, target, turn.ruleset.catch_distance_m)
            if check.verdict == "not_caught" and pins.is_far_catch_claim(check.distance_m):
                raise ChatError("chat.catch_too_far")
            distance = check.distance_m
    turn.apply(CatchClaimed(turn.by, distance))
    return []


def press_catch(turn: Turn, press: Press) -> list[Outbound]:
    """The hider confirms (``y``) or denies (``n``) a catch claim."""
    turn.apply(CatchAnswered(turn.by, press.arg(0) == "y"))
    return []


def endgame(turn: Turn, args: Args) -> list[Outbound]:
    """A seeker says they are in the zone: start the end game, or let the hider decide."""
    state, at = turn.state, turn.msg.at
    event = EndGameStarted(turn.by)
    engine_apply(turn.ruleset, state, event, at)  # refused as the rules say
    player = turn.player()
    current = state.current_round
    assert player is not None and current is not None  # the rules accepted the claim
    game_id = turn.game_id
    check = referee.check_claim(
        current.zone, sightings.last_pins(turn.uow, game_id, player.id, 10), at
    )
    claim_id = turn.uow.checks.add_claim(
        game_id,
        current.number,
        player.id,
        at,
        check.verdict,
        check.reason,
        pin_at=check.pin_at,
        outside_m=check.outside_m,
        on_transit=check.on_transit,
    )
    if check.verdict != CheckVerdict.DISAGREED:
        turn.apply(event)
        return []
    turn.wrote()
    values = {"name": player.name}
    replies: list[Outbound] = [turn.reply(turn.say("chat.claim_disputed", **values))]
    for hider in state.team_players(current.hider_team_id):
        own = turn.formatter(hider.ref)
        buttons = keyboards.decide_claim(
            game_id,
            claim_id,
            texts.say("chat.claim_accept", values, own),
            texts.say("chat.claim_refuse", values, own),
        )
        text = texts.claim_hider_text(check, player.name, at, own)
        replies.append(turn.to_person(hider.ref, text, buttons))
    return replies


def press_decide_claim(turn: Turn, press: Press) -> list[Outbound]:
    """The hider accepts (``y``) or refuses (``n``) a claim the pins contradict."""
    claim_id, choice = press.int_arg(0), press.arg(1)
    state = turn.state
    current = state.current_round
    claim = turn.uow.checks.claim(press.game_id, claim_id)
    if (
        claim is None
        or claim.verdict != CheckVerdict.DISAGREED
        or claim.accepted is not None
        or current is None
        or claim.round_number != current.number
        or choice not in ("y", "n")
    ):
        raise ChatError("chat.button_unknown")
    player = turn.player()
    if player is None or not state.is_hider(player.id):
        raise ChatError("chat.button_not_yours")
    claimer = state.player(claim.claimed_by)
    turn.uow.checks.decide_claim(press.game_id, claim_id, choice == "y", turn.msg.at)
    turn.wrote()
    if choice == "y":
        turn.apply(EndGameStarted(claimer.ref))
        return []
    text = texts.say("chat.claim_refused", {"name": claimer.name}, turn.formatter())
    return [turn.to_group(text)]
