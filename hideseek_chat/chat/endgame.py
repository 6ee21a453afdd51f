"""Seekers claim the end game by hand (``/endgame``), e.g. when their GPS plays up.

The claim is checked against the claimer's last pins and the zone:

- the pins agree (inside the zone, off transit) or cannot tell (no zone yet, no fresh pin,
  too close to call): the end game starts at once, and its announcement says which;
- the pins contradict it: nothing starts yet. The group hears only that the pins disagree
  and that the hider decides; the hider hears how far outside the zone the pin was (with
  the distance the seekers could find the station) and accepts or refuses (``b_claim``).

Every claim is stored with its verdict for ``/review``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from hideseek_chat.chat import referee
from hideseek_chat.chat.buttons import Press, encode
from hideseek_chat.chat.checks import verdict_note
from hideseek_chat.chat.commands import ChatError
from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.model import Button, ButtonIn, CommandIn, Inbound, Outbound, SendText
from hideseek_chat.chat.views import chat_text
from hideseek_chat.rules import apply as engine_apply
from hideseek_chat.rules.events import EndGameStarted
from hideseek_chat.rules.state import GameState
from hideseek_chat.rules.state import Zone as StateZone
from hideseek_chat.store import Ping, UnitOfWork
from hideseek_chat.store.checks import CheckVerdict

if TYPE_CHECKING:
    from hideseek_chat.chat.service import Conversation


@dataclass(frozen=True)
class ClaimCheck:
    """What the pins say about a claim; ``outside_m`` (beyond the zone's edge) is hider-only."""

    verdict: CheckVerdict
    reason: str
    pin_at: datetime | None = None
    outside_m: float | None = None
    on_transit: bool = False


def check_claim(zone: StateZone | None, track: list[Ping], now: datetime) -> ClaimCheck:
    """Check a claim against the claimer's pins (``track``, newest first) and the zone."""
    if zone is None:
        return ClaimCheck(CheckVerdict.UNCHECKED, "no_zone")
    check = referee.end_game_check(zone, track, now)
    if check is None:
        return ClaimCheck(CheckVerdict.UNCHECKED, "no_pin")
    pin_at = track[0].at
    if check.starts:
        return ClaimCheck(CheckVerdict.AGREED, check.reason, pin_at)
    if check.reason == "outside_zone":
        outside = max(0.0, (check.distance_m or 0.0) - check.radius_m)
        if check.too_close_to_call:
            return ClaimCheck(CheckVerdict.UNCHECKED, "too_close", pin_at, outside)
        return ClaimCheck(CheckVerdict.DISAGREED, check.reason, pin_at, outside)
    if check.reason == "on_transit":
        return ClaimCheck(CheckVerdict.DISAGREED, check.reason, pin_at, on_transit=True)
    return ClaimCheck(CheckVerdict.UNCHECKED, check.reason, pin_at)  # stale, forwarded...


def cmd_endgame(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    """A seeker says they are in the zone: start the end game, or let the hider decide."""
    chat = msg.chat
    event = EndGameStarted(msg.sender.ref)
    with conv.uow_factory() as uow:
        if msg.update_id is not None and uow.updates.is_processed(msg.update_id):
            return []
        game_id, state = conv.load(uow, chat)
        engine_apply(conv.ruleset(state), state, event, msg.at)  # refused as the rules say
        player = state.player_by_ref(msg.sender.ref)
        current = state.current_round
        assert player is not None and current is not None  # the rules accepted the claim
        check = check_claim(current.zone, conv.pins_of(uow, game_id, player.id, 10), msg.at)
        claim_id = uow.checks.add_claim(
            game_id,
            current.number,
            player.id,
            msg.at,
            check.verdict,
            check.reason,
            pin_at=check.pin_at,
            outside_m=check.outside_m,
            on_transit=check.on_transit,
        )
        if check.verdict != CheckVerdict.DISAGREED:
            uow.commit()
            conv.apply(chat, event, msg.at, msg.update_id)
            return []
        if msg.update_id is not None:
            uow.updates.mark_processed(msg.update_id, msg.at, game_id)
        fmt = conv.formatter(uow, chat, state)
        hiders = [
            (p.ref, conv.formatter(uow, chat, state, p.ref))
            for p in state.team_players(current.hider_team_id)
        ]
        uow.commit()
    values = {"name": player.name}
    replies: list[Outbound] = [conv.reply(msg, chat_text("chat.claim_disputed", values, fmt))]
    for ref, own in hiders:
        buttons = (
            (
                Button(
                    chat_text("chat.claim_accept", values, own),
                    encode("claim", game_id, claim_id, "y"),
                ),
                Button(
                    chat_text("chat.claim_refuse", values, own),
                    encode("claim", game_id, claim_id, "n"),
                ),
            ),
        )
        text = _hider_text(check, player.name, msg.at, own)
        replies.append(SendText(ref, text=text, buttons=buttons, private=True))
    return replies


def _hider_text(check: ClaimCheck, name: str, now: datetime, fmt: Formatter) -> str:
    if check.on_transit:
        first = chat_text("chat.claim_transit_hider", {"name": name}, fmt)
    else:
        age = (now - check.pin_at).total_seconds() if check.pin_at else 0.0
        values = {
            "name": name,
            "distance": fmt.distance(check.outside_m or 0.0),
            "age": fmt.duration(max(0.0, age)),
        }
        first = chat_text("chat.claim_outside_hider", values, fmt)
    return "\n".join([first, chat_text("chat.claim_decide", {"name": name}, fmt)])


def b_claim(
    conv: Conversation, msg: ButtonIn, press: Press, state: GameState, fmt: Formatter
) -> list[Outbound]:
    """The hider accepts (``y``) or refuses (``n``) a claim the pins contradict."""
    claim_id, choice = press.int_arg(0), press.arg(1)
    current = state.current_round
    with conv.uow_factory() as uow:
        if _processed(uow, msg):
            return []
        claim = uow.checks.claim(press.game_id, claim_id)
    if (
        claim is None
        or claim.verdict != CheckVerdict.DISAGREED
        or claim.accepted is not None
        or current is None
        or claim.round_number != current.number
        or choice not in ("y", "n")
    ):
        raise ChatError("chat.button_unknown")
    player = state.player_by_ref(msg.sender.ref)
    if player is None or not state.is_hider(player.id):
        raise ChatError("chat.button_not_yours")
    claimer = state.player(claim.claimed_by)
    chat = conv.game_chat(msg)
    event = EndGameStarted(claimer.ref)
    if choice == "y":
        engine_apply(conv.ruleset(state), state, event, msg.at)  # still seeking?
    with conv.uow_factory() as uow:
        uow.checks.decide_claim(press.game_id, claim_id, choice == "y", msg.at)
        if choice == "n" and msg.update_id is not None:
            uow.updates.mark_processed(msg.update_id, msg.at, press.game_id)
        group_fmt = conv.formatter(uow, chat, state)
        uow.commit()
    if choice == "y":
        conv.apply(chat, event, msg.at, msg.update_id)
        return []
    text = chat_text("chat.claim_refused", {"name": claimer.name}, group_fmt)
    return [SendText(chat, text=text)]


def _processed(uow: UnitOfWork, msg: Inbound) -> bool:
    return msg.update_id is not None and uow.updates.is_processed(msg.update_id)


def claim_note(uow: UnitOfWork, game_id: int, state: GameState, fmt: Formatter) -> str | None:
    """The check line under a claimed end game's announcement (no numbers)."""
    current = state.current_round
    if current is None:
        return None
    claims = uow.checks.claims(game_id, current.number)
    if not claims:
        return None
    claim = claims[-1]
    if claim.verdict == CheckVerdict.DISAGREED:
        return chat_text("chat.claim_accepted", {}, fmt) if claim.accepted else None
    return verdict_note(claim.verdict, claim.reason, False, fmt)
