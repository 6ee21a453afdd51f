"""From the outbox to messages: who receives each decision, its text, its buttons.

The referee's own decisions (fix the zone, freeze the hiding spot) are carried out here
and marked done; every announcement becomes a ``Delivery`` the channel performs.
Hider-only material (the station, the suggested answer and its numbers) is only ever
addressed to the hider's private chats.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from itertools import combinations
from typing import TYPE_CHECKING, Any

from hideseek_chat.chat import checks, referee
from hideseek_chat.chat.actions import hand_view, status_for
from hideseek_chat.chat.buttons import encode
from hideseek_chat.chat.i18n import N_, Formatter
from hideseek_chat.chat.messages import render
from hideseek_chat.chat.model import Button, Outbound, SendText
from hideseek_chat.chat.views import chat_text
from hideseek_chat.rules.curses import is_clearable
from hideseek_chat.rules.decisions import AudienceKind, FreezeHidingSpot, Notify, RequestZone
from hideseek_chat.rules.ruleset import CATEGORY_ANSWERS, NULL_ANSWER, Category, PowerupEffect
from hideseek_chat.rules.state import CardZone, GameState, Phase, QuestionStatus
from hideseek_chat.store import OutboxMessage, UnitOfWork
from hideseek_chat.store.chats import SpotData

if TYPE_CHECKING:
    from hideseek_chat.chat.service import Conversation, Delivery

Rows = tuple[tuple[Button, ...], ...]


def collect(conv: Conversation, now: datetime, limit: int) -> list[Delivery]:
    from hideseek_chat.chat.service import IN_FLIGHT, Delivery

    deliveries: list[Delivery] = []
    status_chats: set[str] = set()
    # Each game's state, loaded once for all its messages; dropped whenever the referee
    # applies something (a zone, an automatic answer) while rendering.
    states: dict[int, GameState] = {}
    for _ in range(100):  # internal decisions may queue more announcements
        progressed = False
        with conv.uow_factory() as uow:
            pending = [
                m
                for m in uow.outbox.pending(limit=limit + len(conv._in_flight))
                if m.id not in conv._in_flight or now - conv._in_flight[m.id] > IN_FLIGHT
            ][:limit]
        for message in pending:
            decision = message.decision
            if isinstance(decision, RequestZone | FreezeHidingSpot):
                actions = internal(conv, message, now)
                states.clear()
                with conv.uow_factory() as uow:
                    uow.outbox.mark_sent(message.id, now)
                    uow.commit()
                if actions:
                    deliveries.append(Delivery(0, tuple(actions)))
                progressed = True
                continue
            assert isinstance(decision, Notify)
            with conv.uow_factory() as uow:
                if message.game_id not in states:
                    states[message.game_id] = uow.games.get(message.game_id)
                state = states[message.game_id]
                actions = render_notify(conv, uow, message, decision, now, state)
                uow.commit()  # suggestions recorded while rendering
            conv._in_flight[message.id] = now
            deliveries.append(Delivery(message.id, tuple(actions)))
            automatic = checks.answer_automatically(conv, message, decision, now)
            if automatic is not None:  # its announcements are in the outbox now
                progressed = True
                states.clear()
                if automatic:
                    deliveries.append(Delivery(0, tuple(automatic)))
            if decision.to.kind == AudienceKind.GROUP:
                status_chats.add(message.chat_key)
        if not progressed:
            break
    if not deliveries:
        conv.maybe_pending = False
    for chat in sorted(status_chats):
        with conv.uow_factory() as uow:
            loaded = uow.games.for_chat(chat)
            if loaded is None or loaded.state.phase == Phase.SETUP:
                continue
            fmt = conv.formatter(uow, chat, loaded.state)
            text = status_for(conv, uow, loaded.id, loaded.state, fmt, now)
        deliveries.append(Delivery(0, (SendText(chat, text=text, slot="status"),)))
    return deliveries


# --------------------------------------------------------------------- internal


def internal(conv: Conversation, message: OutboxMessage, now: datetime) -> list[Outbound]:
    """Carry out RequestZone / FreezeHidingSpot; return notices for the hider, if any."""
    decision = message.decision
    with conv.uow_factory() as uow:
        state = uow.games.get(message.game_id)
        current = state.current_round
        wanted = getattr(decision, "round_number", None)
        if current is None or current.number != wanted:
            return []
        if isinstance(decision, FreezeHidingSpot):
            ping = conv.hider_ping(uow, message.game_id, state)
            if ping is not None:
                spot = SpotData(ping.lat, ping.lon, ping.accuracy_m, now)
                uow.chats.freeze_spot(message.game_id, current.number, spot)
                uow.commit()
            return []
        if state.phase not in (Phase.SEEKING, Phase.END_GAME) or (
            current.zone is not None and state.phase == Phase.END_GAME
        ):
            return []
        event = conv.zone_event(uow, state, message.game_id, now)
        hiders = [
            (p.ref, conv.formatter(uow, message.chat_key, state, p.ref))
            for p in state.team_players(current.hider_team_id)
        ]
    if event is None:
        return [
            SendText(ref, text=chat_text("chat.zone_no_pin", {}, own), private=True)
            for ref, own in hiders
        ]
    conv.apply(message.chat_key, event, now, None)
    return []


# --------------------------------------------------------------------- rendering


def recipients(state: GameState, notify: Notify, created_at: datetime) -> list[str]:
    """The private chats a non-group decision goes to (active members only)."""
    kind = notify.to.kind
    if kind == AudienceKind.PLAYER and notify.to.player_id is not None:
        return [state.player(notify.to.player_id).ref]
    if kind == AudienceKind.TEAM and notify.to.team_id is not None:
        return [p.ref for p in state.team_players(notify.to.team_id)]
    hider_team = _hider_team_at(state, created_at)
    if kind == AudienceKind.HIDERS:
        return [p.ref for p in state.team_players(hider_team)] if hider_team else []
    if kind == AudienceKind.SEEKERS:
        return [
            p.ref
            for team in state.teams
            if team.id != hider_team
            for p in state.team_players(team.id)
        ]
    return []


def _hider_team_at(state: GameState, at: datetime) -> int | None:
    hider = None
    for round_ in state.rounds:
        if round_.hiding_started_at is None or round_.hiding_started_at <= at:
            hider = round_.hider_team_id
    return hider


def render_notify(
    conv: Conversation,
    uow: UnitOfWork,
    message: OutboxMessage,
    notify: Notify,
    now: datetime,
    state: GameState,
) -> list[Outbound]:
    """The decision's messages: one to the group, or one to each private reader in the
    language they read (their own, else the group's)."""
    chat = message.chat_key
    if notify.to.kind == AudienceKind.GROUP:
        fmt = conv.formatter(uow, chat, state)
        text, buttons, photo = _compose(conv, uow, message, notify, state, fmt, now)
        return [SendText(chat, text=text, buttons=buttons, photo_ref=photo)]
    sends: list[Outbound] = []
    composed: dict[str, tuple[str, Rows, str | None]] = {}
    for ref in recipients(state, notify, message.created_at):
        fmt = conv.formatter(uow, chat, state, ref)
        if fmt.language not in composed:
            composed[fmt.language] = _compose(conv, uow, message, notify, state, fmt, now)
        text, buttons, photo = composed[fmt.language]
        sends.append(SendText(ref, text=text, buttons=buttons, photo_ref=photo, private=True))
    return sends


def _compose(
    conv: Conversation,
    uow: UnitOfWork,
    message: OutboxMessage,
    notify: Notify,
    state: GameState,
    fmt: Formatter,
    now: datetime,
) -> tuple[str, Rows, str | None]:
    """The text, buttons and relayed photo of a decision, said with ``fmt``."""
    # The game's size lets texts show what a time bonus is worth for this game.
    params = {"size": state.size.value, "global_scale": state.settings.global_scale}
    params.update(notify.params)
    text = render(notify.key, params, fmt)
    buttons: Rows = ()
    photo: str | None = None
    game_id = message.game_id
    key = notify.key
    if key == "game.created":
        buttons = conv.join_buttons(fmt, game_id)
    elif key == "question.asked" and params.get("category") == Category.THERMOMETER.value:
        buttons = (
            (
                Button(
                    fmt.t(N_("📍 We've arrived")), encode("arrive", game_id, params["record_id"])
                ),
            ),
        )
    elif key == "question.incoming":
        extra, buttons = _incoming(conv, uow, game_id, state, int(params["record_id"]), fmt, now)
        text = f"{text}\n\n{extra}" if extra else text
    elif key == "draw.offer":
        buttons = _keep_buttons(game_id, params, fmt)
    elif key in (
        "draw.kept",
        "hand.discarded",
        "hand.expanded",
        "card.duplicated",
        "hand.over_limit",
    ):
        team_id = notify.to.team_id
        if team_id is not None:
            hand, buttons = hand_view(conv, state, game_id, team_id, fmt)
            text = f"{text}\n\n{hand}"
    elif key == "catch.confirm":
        buttons = (
            (
                Button(fmt.t(N_("✅ Yes, they found me")), encode("catch", game_id, "y")),
                Button(fmt.t(N_("❌ No")), encode("catch", game_id, "n")),
            ),
        )
    elif key == "curse.cast":
        curse_id = params.get("curse_id")
        definition = conv.ruleset(state).card(str(params.get("curse")))
        if curse_id is not None and definition.curse is not None and is_clearable(definition.curse):
            buttons = ((Button(fmt.t(N_("✅ Curse done")), encode("clear", game_id, curse_id)),),)
    elif key == "round.next_you_hide":
        buttons = ((Button(fmt.t(N_("▶️ Start my hiding period now")), encode("next", game_id)),),)
    elif key == "question.answered" and params.get("answer") == "photo" and params.get("detail"):
        photo = str(params["detail"])
    note = checks.note(uow, game_id, state, key, params, fmt)
    if note:
        text = f"{text}\n{note}"
    return text, buttons, photo


def _keep_buttons(game_id: int, params: Mapping[str, Any], fmt: Formatter) -> Rows:
    ids = [int(i) for i in params.get("card_ids", [])]
    names = [str(n) for n in params.get("cards", [])]
    keep = int(params.get("keep", 1))
    cycle = params.get("cycle_id")
    rows = []
    for combo in combinations(range(len(ids)), keep):
        label = " + ".join(fmt.card(names[i]) for i in combo)
        data = encode("keep", game_id, cycle, ",".join(str(ids[i]) for i in combo))
        rows.append((Button(f"🃏 {label}", data),))
    return tuple(rows[:20])


def _incoming(
    conv: Conversation,
    uow: UnitOfWork,
    game_id: int,
    state: GameState,
    record_id: int,
    fmt: Formatter,
    now: datetime,
) -> tuple[str, Rows]:
    """The hider's view of a question: the suggestion, its numbers and answer buttons."""
    try:
        record = state.question_record(record_id)
    except KeyError:
        return "", ()
    if record.status == QuestionStatus.TRAVELLING:
        return "", ()  # a heads-up: the question comes once the seekers have travelled
    ruleset = conv.ruleset(state)
    suggestion = checks.compute(conv, uow, game_id, state, record, now)
    if checks.plan_automatic(conv, uow, game_id, state, record, suggestion, now):
        return checks.automatic_text(record, suggestion, fmt), ()
    lines = [suggestion_text(suggestion, fmt)]
    rows: list[tuple[Button, ...]] = []
    words = [w for w in CATEGORY_ANSWERS[record.category] if w not in ("named", "photo")]
    answer_row = []
    if record.category == Category.TENTACLE and suggestion.detail:
        answer_row.append(Button(f"👉 {suggestion.detail}", encode("ans", game_id, record_id, "s")))
    for word in words:
        mark = "👉 " if word == suggestion.answer else ""
        answer_row.append(Button(mark + fmt.answer(word), encode("ans", game_id, record_id, word)))
    rows.append(tuple(answer_row))
    if record.category in (Category.MATCHING, Category.MEASURING, Category.TENTACLE):
        mark = "👉 " if suggestion.answer == NULL_ANSWER else ""
        rows.append(
            (
                Button(
                    mark + fmt.answer(NULL_ANSWER), encode("ans", game_id, record_id, NULL_ANSWER)
                ),
            )
        )
    powers = []
    hand = {
        ruleset.card(c.def_id).powerup for c in state.cards_in(CardZone.HAND, state.hider_team_id())
    }
    if PowerupEffect.VETO in hand:
        powers.append(Button(fmt.t(N_("🚫 Veto")), encode("veto", game_id, record_id)))
    if PowerupEffect.RANDOMIZE in hand:
        powers.append(Button(fmt.t(N_("🎲 Randomize")), encode("rnd", game_id, record_id)))
    if powers:
        rows.append(tuple(powers))
    return "\n".join(line for line in lines if line), tuple(rows)


#: Why no answer could be computed, in words (the geo layer's reason codes).
REASONS = {
    "no_live_pin": N_("I have no location from you"),
    "stale_pin": N_("your last location is too old"),
    "future_pin": N_("your location's time is off"),
    "forwarded": N_("a forwarded location doesn't count"),
    "no_zone": N_("your zone isn't fixed yet"),
    "no_seeker_pin": N_("I have no location from the seekers"),
    "not_far_enough": N_("the seekers haven't travelled far enough"),
    "no_map_data": N_("the map has no data for this"),
    "no_map": N_("there is no map for this game"),
    "needs_line": N_("I can't tell which line they are riding"),
    "other": N_("not enough data"),
}


def suggestion_text(s: referee.Suggestion, fmt: Formatter) -> str:
    """The suggestion and the numbers behind it (hider only)."""
    if s.answer is None:
        if s.reason == "photo":
            return ""
        return fmt.t(
            N_("🤖 I can't work this one out ({why}): please answer yourself."),
            why=fmt.t(REASONS.get(s.reason, REASONS["other"])),
        )
    lines = [fmt.t(N_("🤖 Suggested answer: {answer}"), answer=fmt.answer(s.answer, s.detail))]
    lines.extend(suggestion_numbers(s, fmt))
    if s.too_close:
        lines.append(fmt.t(N_("⚠️ Too close to call: check it yourself before answering.")))
    return "\n".join(lines)


def suggestion_numbers(s: referee.Suggestion, fmt: Formatter) -> list[str]:
    """The numbers behind a suggestion, as lines (hider only)."""
    f = s.facts
    lines: list[str] = []
    if "radius_m" in f:
        lines.append(
            fmt.t(
                N_("The seeker was {distance} from you; the radar reaches {radius}."),
                distance=fmt.distance(f["distance_m"]),
                radius=fmt.distance(f["radius_m"]),
            )
        )
    elif "start_m" in f:
        lines.append(
            fmt.t(
                N_("The seekers went from {start} to {end} away from you (travelled {travelled})."),
                start=fmt.distance(f["start_m"]),
                end=fmt.distance(f["end_m"]),
                travelled=fmt.distance(f["travelled_m"]),
            )
        )
    elif "hider_m" in f and f["hider_m"] is not None and f["seeker_m"] is not None:
        lines.append(
            fmt.t(
                N_(
                    "Nearest to you: {mine} ({my_distance}); nearest to them: {theirs} "
                    "({their_distance})."
                ),
                mine=f["hider_place"] or fmt.t(N_("an unnamed one")),
                my_distance=fmt.distance(f["hider_m"]),
                theirs=f["seeker_place"] or fmt.t(N_("an unnamed one")),
                their_distance=fmt.distance(f["seeker_m"]),
            )
        )
    elif "hider_place" in f:
        lines.append(
            fmt.t(
                N_("Yours: {mine}; theirs: {theirs}."),
                mine=f["hider_place"] or "—",
                theirs=f["seeker_place"] or "—",
            )
        )
    elif "places" in f:
        places = f["places"] or []
        lines.append(
            fmt.t(N_("Within reach of the seekers: {places}."), places=", ".join(places) or "—")
        )
    return lines
