"""The end game and the catch: /found, the hider's answer to a catch claim, the admin's
decision (``/found @seeker``), /endgame when the bot missed the seekers entering the zone,
the hider's decision on a claim the pins contradict or cannot check, the seekers' word that
they left transit, and the referee's look at every pin during seeking (``after_pin``).

Every end-game claim is stored with its verdict for /review. No state leaves a round
without a way to end it: a seeker's claim and the hider's answer always remain, a claim the
pins put far off can still be sent ("we've spotted them"), and in the end game the admin
decides when the hider cannot.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from hideseek_chat import geo
from hideseek_chat.chat import keyboards, referee, sightings, texts
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.keyboards import Press
from hideseek_chat.chat.model import Outbound
from hideseek_chat.chat.turn import Turn
from hideseek_chat.rules import apply as engine_apply
from hideseek_chat.rules import pins
from hideseek_chat.rules.events import CatchAnswered, CatchClaimed, CatchDecided, EndGameStarted
from hideseek_chat.rules.state import GameState, Phase, Player, Round
from hideseek_chat.store import Ping
from hideseek_chat.store.chats import SpotData
from hideseek_chat.store.checks import CheckVerdict

Args = tuple[str, ...]


# ----------------------------------------------------------------- the catch


def found(turn: Turn, args: Args) -> list[Outbound]:
    """A seeker claims the catch; with a name, the admin decides who found the hider.

    The claim is measured between the freshest pins of both (the hider is caught where they
    are, even if they moved). A claim the pins put far off is not sent at once: the seeker
    hears only that (never how far) and may still say they have spotted the hider. Anything
    closer goes to the hider, who has the last word.
    """
    if args:
        return _decide(turn, " ".join(args))
    engine_apply(turn.ruleset, turn.state, CatchClaimed(turn.by), turn.msg.at)  # refusals
    player = turn.player()
    assert player is not None  # the rules accepted the claim
    check = _measure(turn, player.id)
    if (
        check is not None
        and check.verdict == geo.CatchVerdict.NOT_CAUGHT
        and pins.is_far_catch_claim(check.distance_m)
    ):
        label = turn.say("chat.catch_spotted_button")
        buttons = keyboards.spotted_anyway(turn.game_id, label)
        return [turn.reply(turn.say("chat.catch_far"), buttons)]
    turn.apply(CatchClaimed(turn.by, check.distance_m if check else None))
    return []


def press_spotted(turn: Turn, press: Press) -> list[Outbound]:
    """A seeker whose claim the pins put far off says they have spotted the hider anyway:
    the hider decides (and reads how far apart the pins are)."""
    player = turn.player()
    check = _measure(turn, player.id) if player is not None else None
    turn.apply(CatchClaimed(turn.by, check.distance_m if check else None))
    return []


def _measure(turn: Turn, player_id: int) -> geo.CatchCheck | None:
    """The catch check between ``player_id``'s current pin and the hider's freshest
    position; None when either is missing. Its distance is hider-only."""
    state, uow, at = turn.state, turn.uow, turn.msg.at
    current = state.current_round
    if current is None:
        return None
    game_id = turn.game_id
    mine = sightings.last_pin(uow, game_id, player_id)
    if mine is None or not referee.is_current(mine, at):
        return None
    spot = uow.chats.hiding_spot(game_id, current.number)
    target = referee.catch_target(sightings.hider_pin(uow, game_id, state), spot, at)
    if target is None:
        return None
    return referee.catch_distance(mine, target, turn.ruleset.catch_distance_m)


def press_catch(turn: Turn, press: Press) -> list[Outbound]:
    """The hider confirms (``y``) or denies (``n``) a catch claim: the one its buttons came
    with, not a newer claim of someone else's."""
    pending = turn.state.pending_catch
    if len(press.args) > 1 and pending is not None and pending.claimed_by != press.int_arg(0):
        claimer = turn.state.player(pending.claimed_by)
        raise ChatError("chat.catch_replaced", name=claimer.name)
    turn.apply(CatchAnswered(turn.by, press.arg(-1) == "y"))  # the last argument: y / n
    return []


def _decide(turn: Turn, words: str) -> list[Outbound]:
    """``/found @name``: the admin decides that this seeker found the hider; a name that
    is not one seeker's gets a button per seeker."""
    state = turn.state
    player = turn.player()
    if player is None or player.id != state.admin_player_id:
        raise ChatError("chat.found_usage")
    seekers = [p for team in state.seeker_team_ids() for p in state.team_players(team)]
    chosen = _named(seekers, words)
    if chosen is not None:
        turn.apply(CatchDecided(turn.by, chosen.ref))
        return []
    if seekers:  # refused as the rules say before any button is offered
        engine_apply(turn.ruleset, state, CatchDecided(turn.by, seekers[0].ref), turn.msg.at)
    buttons = keyboards.choose_seeker(turn.game_id, [(p.id, p.name) for p in seekers])
    return [turn.reply(turn.say("chat.catch_which_seeker"), buttons)]


def _named(players: list[Player], words: str) -> Player | None:
    """The one player ``words`` names (``@name``, any case; a unique start will do)."""
    wanted = words.strip().lstrip("@").casefold().replace(" ", "")
    if not wanted:
        return None
    names = [(p, p.name.casefold().replace(" ", "")) for p in players]
    exact = [p for p, name in names if name == wanted]
    if len(exact) == 1:
        return exact[0]
    start = [p for p, name in names if name.startswith(wanted)]
    return start[0] if len(start) == 1 else None


def press_decide_catch(turn: Turn, press: Press) -> list[Outbound]:
    """The admin picked the seeker who found the hider."""
    try:
        seeker = turn.state.player(press.int_arg(0))
    except KeyError:
        raise ChatError("chat.button_unknown") from None
    turn.apply(CatchDecided(turn.by, seeker.ref))
    return []


# ----------------------------------------------------------------- starting the end game


def endgame(turn: Turn, args: Args) -> list[Outbound]:
    """A seeker says they are in the zone: start the end game, or let the hider decide when
    the pins contradict it or there is no current pin to check it by."""
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
    if not referee.hider_decides(check.verdict, check.reason):
        turn.apply(event)
        return []
    turn.wrote()
    values = {"name": player.name}
    disputed = check.verdict == CheckVerdict.DISAGREED
    if check.reason == "no_zone":
        unchecked, unchecked_hider = "chat.claim_no_zone", "chat.claim_no_zone_hider"
    else:
        unchecked, unchecked_hider = "chat.claim_no_pin", "chat.claim_no_pin_hider"
    group_key = "chat.claim_disputed" if disputed else unchecked
    replies: list[Outbound] = [turn.reply(turn.say(group_key, **values))]
    for hider in state.team_players(current.hider_team_id):
        own = turn.formatter(hider.ref)
        buttons = keyboards.decide_claim(
            game_id,
            claim_id,
            texts.say("chat.claim_accept", values, own),
            texts.say("chat.claim_refuse", values, own),
        )
        if disputed:
            text = texts.claim_hider_text(check, player.name, at, own)
        else:
            text = "\n".join(
                [
                    texts.say(unchecked_hider, values, own),
                    texts.say("chat.claim_decide", values, own),
                ]
            )
        replies.append(turn.to_person(hider.ref, text, buttons))
    return replies


def press_decide_claim(turn: Turn, press: Press) -> list[Outbound]:
    """The hider accepts (``y``) or refuses (``n``) a claim that waits for them."""
    claim_id, choice = press.int_arg(0), press.arg(1)
    state = turn.state
    current = state.current_round
    claim = turn.uow.checks.claim(press.game_id, claim_id)
    if (
        claim is None
        or not referee.hider_decides(claim.verdict, claim.reason)
        or claim.accepted is not None
        or current is None
        or claim.round_number != current.number
        or state.phase != Phase.SEEKING  # the end game began since: nothing to decide
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


def press_off_transit(turn: Turn, press: Press) -> list[Outbound]:
    """A seeker confirms that they left transit: the end game starts when the newest pin of
    the seeker the bot asked still puts them in the zone, not riding."""
    state, at = turn.state, turn.msg.at
    current = state.current_round
    claim = turn.uow.checks.claim(press.game_id, press.int_arg(0))
    if (
        claim is None
        or claim.reason != referee.TRANSIT_UNKNOWN
        or claim.accepted is not None
        or current is None
        or current.zone is None
        or claim.round_number != current.number
    ):
        raise ChatError("chat.button_unknown")
    event = EndGameStarted(turn.by)
    engine_apply(turn.ruleset, state, event, at)  # the rules refuse the hider, a second start
    claimer = state.player(claim.claimed_by)
    track = sightings.last_pins(turn.uow, press.game_id, claimer.id, 10)
    if referee.transit_of(track, at):
        raise ChatError("chat.transit_riding", name=claimer.name)
    if not referee.starts_end_game(current.zone, track, at):
        raise ChatError("chat.transit_no_longer", name=claimer.name)
    turn.uow.checks.decide_claim(press.game_id, claim.id, True, at)
    turn.apply(event)
    return []


# ----------------------------------------------------------------- every pin


def after_pin(
    turn: Turn, player_id: int, now: datetime, where: tuple[float, float]
) -> list[Outbound]:
    """What a new pin of ``player_id`` at ``where`` calls for beyond the facts it
    established: a seeker in the zone whose speed cannot be told is asked whether they left
    transit; a hider whose pins break the staying-put rules is warned (numbers privately,
    a rule warning without a place to the group)."""
    state = turn.state
    current = state.current_round
    if current is None or state.is_paused or state.phase not in (Phase.SEEKING, Phase.END_GAME):
        return []
    if state.is_hider(player_id):
        return _stays_put(turn, state, current, player_id, now)
    zone = current.zone
    if state.phase != Phase.SEEKING or zone is None or not referee.may_be_in_zone(zone, *where):
        return []
    uow, game_id = turn.uow, turn.game_id
    track = sightings.last_pins(uow, game_id, player_id, 10)
    if not referee.asks_off_transit(zone, track, now):
        return []
    uow.games.lock(game_id)  # one question per seeker, however fast their pins come
    if any(
        c.claimed_by == player_id and c.reason == referee.TRANSIT_UNKNOWN and c.accepted is None
        for c in uow.checks.claims(game_id, current.number)
    ):
        return []  # asked already: the button stands
    claim_id = uow.checks.add_claim(
        game_id,
        current.number,
        player_id,
        now,
        CheckVerdict.UNCHECKED,
        referee.TRANSIT_UNKNOWN,
        pin_at=track[0].at,
    )
    turn.wrote()
    fmt = turn.formatter()
    text = texts.say("chat.transit_ask", {"name": state.player(player_id).name}, fmt)
    label = texts.say("chat.transit_button", {}, fmt)
    return [turn.to_group(text, keyboards.off_transit(game_id, claim_id, label))]


def _stays_put(
    turn: Turn, state: GameState, current: Round, player_id: int, now: datetime
) -> list[Outbound]:
    """Warn a hider whose newest pin is outside their zone while seeking, or away from their
    frozen spot in the end game; once per excursion (the pin before it was fine)."""
    uow, game_id = turn.uow, turn.game_id
    recent = sightings.last_pins(uow, game_id, player_id, 2)
    if not recent:
        return []
    if state.phase == Phase.SEEKING:
        zone = current.zone
        if zone is None:
            return []
        away = _newly_away(lambda pin: referee.outside_zone_m(zone, pin), zone.fixed_at, recent)
        keys = ("chat.hider_outside_zone", "chat.rule_outside_zone")
    else:
        spot = uow.chats.hiding_spot(game_id, current.number)
        if spot is None:
            # Nothing was frozen (no current pin when the end game began): this pin is it.
            newest = recent[0]
            frozen = SpotData(newest.lat, newest.lon, newest.accuracy_m, now)
            uow.chats.freeze_spot(game_id, current.number, frozen)
            return []
        away = _newly_away(lambda pin: referee.moved_from_spot_m(spot, pin), spot.frozen_at, recent)
        keys = ("chat.hider_moved", "chat.rule_moved")
    if away is None:
        return []
    hider = state.player(player_id)
    own = turn.formatter(hider.ref)
    private = texts.say(keys[0], {"distance": own.distance(away)}, own)
    return [
        turn.to_person(hider.ref, private),
        turn.to_group(texts.say(keys[1], {}, turn.formatter())),
    ]


def _newly_away(
    away_m: Callable[[Ping], float | None], since: datetime, recent: list[Ping]
) -> float | None:
    """How far the newest of ``recent`` (newest first) is away (``away_m``), unless the pin
    before it, sent ``since`` the place was set, was away too (the hider was warned then)."""
    away = away_m(recent[0])
    previous = recent[1] if len(recent) > 1 else None
    told = previous is not None and previous.at >= since and away_m(previous) is not None
    return None if told else away
