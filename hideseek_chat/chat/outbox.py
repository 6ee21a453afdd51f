"""From the outbox to messages: who receives each announcement, its text and its buttons.

Rendering only reads. What the referee must do before an announcement can be shown (fix a
zone, freeze the hiding spot, check a question against the pins) is done before, by
``jobs``. Hider-only material (the station, the suggested answer and its numbers) is only
ever addressed to the hider's private chats.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from hideseek_chat.chat import checking, keyboards, seekmap_keys, sightings, texts
from hideseek_chat.chat.i18n import Formatter
from hideseek_chat.chat.map_jobs import job_slot
from hideseek_chat.chat.model import Outbound, SendText
from hideseek_chat.chat.picture_jobs import PICTURE_NOTICES
from hideseek_chat.chat.turn import Services
from hideseek_chat.rules.curses import is_clearable
from hideseek_chat.rules.decisions import AudienceKind, Notify
from hideseek_chat.rules.deck import card_minutes, hand_limit, over_limit
from hideseek_chat.rules.ruleset import Category, CurseEffect, PowerupEffect, Ruleset
from hideseek_chat.rules.state import CardZone, GameState, QuestionStatus
from hideseek_chat.store import OutboxMessage, UnitOfWork

Rows = keyboards.Rows

#: Notices asking for a location: with a button that sends it at once (private chats).
LOCATION_PROMPTS = frozenset(
    {
        "chat.zone_pin_needed",
        "chat.hiding_no_pin",
        "live.share",
        "chat.live_ended",
        "chat.live_quiet",
    }
)

#: Notices after which a team sees its hand again, with its buttons.
HAND_NOTICES = frozenset(
    {"draw.kept", "hand.discarded", "hand.expanded", "card.duplicated", "hand.over_limit"}
)


def recipients(
    state: GameState, notify: Notify, created_at: datetime, round_number: int | None = None
) -> list[str]:
    """The private chats a non-group decision goes to (active members only). The hiders are
    those of round ``round_number`` (the newest when it was written); entries written
    without one fall back to the round that had begun by ``created_at``."""
    kind = notify.to.kind
    if kind == AudienceKind.PLAYER and notify.to.player_id is not None:
        return [state.player(notify.to.player_id).ref]
    if kind == AudienceKind.TEAM and notify.to.team_id is not None:
        return [p.ref for p in state.team_players(notify.to.team_id)]
    hider_team = _hider_team_of(state, round_number, created_at)
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


def _hider_team_of(state: GameState, round_number: int | None, at: datetime) -> int | None:
    if round_number is not None:
        for round_ in state.rounds:
            if round_.number == round_number:
                return round_.hider_team_id
    return _hider_team_at(state, at)


def _hider_team_at(state: GameState, at: datetime) -> int | None:
    hider = None
    for round_ in state.rounds:
        if round_.hiding_started_at is None or round_.hiding_started_at <= at:
            hider = round_.hider_team_id
    return hider


def render(
    services: Services,
    uow: UnitOfWork,
    message: OutboxMessage,
    notify: Notify,
    state: GameState,
    now: datetime,
) -> list[Outbound]:
    """The decision's messages: one to the group, or one to each private reader in the
    language they read (their own, else the group's)."""
    chat = message.chat_key
    if notify.to.kind == AudienceKind.GROUP:
        fmt = services.formatter(uow, chat, state, now=message.created_at)
        text, buttons, photo = _compose(services, uow, message, notify, state, fmt, now)
        job_id = notify.params.get("job_id") if notify.key.startswith("map.") else None
        if job_id is not None:  # a map job's one message: its progress, then its outcome
            slot, transient = job_slot(int(job_id)), notify.key == "map.progress"
            return [SendText(chat, text=text, buttons=buttons, slot=slot, transient=transient)]
        image = _picture(uow, notify)
        return [SendText(chat, text=text, buttons=buttons, photo_ref=photo, image=image)]
    sends: list[Outbound] = []
    composed: dict[str, tuple[str, Rows, str | None]] = {}
    for ref in recipients(state, notify, message.created_at, message.round_number):
        fmt = services.formatter(uow, chat, state, ref, now=message.created_at)
        if fmt.language not in composed:
            composed[fmt.language] = _compose(services, uow, message, notify, state, fmt, now)
        text, buttons, photo = composed[fmt.language]
        image = _picture(uow, notify)
        sends.append(
            SendText(ref, text=text, buttons=buttons, photo_ref=photo, image=image, private=True)
        )
    return sends


def _picture(uow: UnitOfWork, notify: Notify) -> bytes | None:
    """The PNG a picture job drew for ``notify`` (None: it carries none)."""
    picture_id = notify.params.get("picture_id")
    if notify.key not in PICTURE_NOTICES or picture_id is None:
        return None
    return uow.pictures.picture(int(picture_id))


def status(
    services: Services,
    uow: UnitOfWork,
    game_id: int,
    state: GameState,
    fmt: Formatter,
    now: datetime,
) -> str:
    """The group's pinned status."""
    seen = sightings.seen_from(uow, game_id, state)
    return texts.status_text(
        state,
        fmt,
        now,
        {ref: s[0] if s else None for ref, s in seen.items()},
        {ref: s[1] for ref, s in seen.items() if s},
    )


def card_labels(
    state: GameState, ruleset: Ruleset, def_ids: Sequence[str], fmt: Formatter
) -> list[str]:
    """The cards' names, a time bonus with its minutes for this game, repeats numbered."""
    return texts.numbered(
        [texts.card_label(fmt, d, card_minutes(state, ruleset, d)) for d in def_ids]
    )


def hand_view(
    state: GameState, ruleset: Ruleset, game_id: int, team_id: int, fmt: Formatter
) -> tuple[str, Rows]:
    """A team's hand with a play and a discard button per card."""
    cards = state.cards_in(CardZone.HAND, team_id)
    labels = card_labels(state, ruleset, [c.def_id for c in cards], fmt)
    text = texts.hand_text(state, fmt, team_id, hand_limit(state, ruleset, team_id), labels)
    return text, keyboards.hand(game_id, cards, ruleset, fmt, labels)


def _compose(
    services: Services,
    uow: UnitOfWork,
    message: OutboxMessage,
    notify: Notify,
    state: GameState,
    fmt: Formatter,
    now: datetime,
) -> tuple[str, Rows, str | None]:
    """The text, buttons and relayed photo of a decision, said with ``fmt``."""
    # The game's size lets texts show what a time bonus is worth for this game.
    params: dict[str, Any] = {"size": state.size.value, "global_scale": state.settings.global_scale}
    params.update(notify.params)
    _name_chosen_distance(services.ruleset(state), state, message.created_at, params)
    text = texts.say(notify.key, params, fmt)
    buttons: Rows = ()
    photo: str | None = None
    game_id = message.game_id
    key = notify.key
    if key == "game.created":
        buttons = keyboards.join_game(
            game_id,
            texts.say("chat.join_button", {}, fmt),
            texts.say("chat.open_private_button", {}, fmt),
        )
    elif key == "question.asked" and params.get("category") == Category.THERMOMETER.value:
        buttons = keyboards.arrived(game_id, params["record_id"], fmt)
    elif key == "question.incoming":
        extra, buttons = _incoming(
            services, uow, game_id, state, int(params["record_id"]), fmt, now
        )
        text = f"{text}\n\n{extra}" if extra else text
    elif key == "draw.offer":
        offered = [str(c) for c in params.get("cards", [])]
        labels = card_labels(state, services.ruleset(state), offered, fmt)
        buttons = keyboards.keep_cards(game_id, params, fmt, labels)
    elif key in HAND_NOTICES and notify.to.team_id is not None:
        ruleset = services.ruleset(state)
        # Kept over the limit: the prompt that follows shows the hand with its buttons.
        if key != "draw.kept" or not over_limit(state, ruleset, notify.to.team_id):
            hand, buttons = hand_view(state, ruleset, game_id, notify.to.team_id, fmt)
            text = f"{text}\n\n{hand}"
    elif key == "catch.confirm":
        buttons = keyboards.confirm_catch(game_id, fmt, params.get("claimer"))
    elif key == "curse.cast":
        buttons = _curse_buttons(services.ruleset(state), game_id, params, fmt)
    elif key == "map.places":
        labels = [str(label) for label in params.get("labels", ())]
        buttons = keyboards.map_places(game_id, int(params["job_id"]), labels)
    elif key == "picture.seekers":
        buttons = seekmap_keys.under_picture(game_id, fmt)
    elif key == "round.next_you_hide":
        buttons = keyboards.start_hiding(game_id, fmt)
    elif key in LOCATION_PROMPTS:
        buttons = keyboards.share_location(fmt)
    elif key == "question.answered" and params.get("answer") == "photo" and params.get("detail"):
        photo = str(params["detail"])
    note = _check_note(uow, game_id, state, key, params, fmt)
    if note:
        text = f"{text}\n{note}"
    return text, buttons, photo


def _curse_buttons(ruleset: Ruleset, game_id: int, params: dict[str, Any], fmt: Formatter) -> Rows:
    """Under a cast curse, for the seekers: done, it struck (the hider's bonus), a lost game."""
    curse_id = params.get("curse_id")
    rules = ruleset.card(str(params.get("curse"))).curse
    if curse_id is None or rules is None:
        return ()
    penalty = params.get("penalty_min")
    return keyboards.curse_actions(
        game_id,
        curse_id,
        fmt,
        clearable=is_clearable(rules),
        penalty_label=texts.say(
            "chat.penalty_report_button", {"duration": fmt.duration(60 * penalty)}, fmt
        )
        if penalty is not None
        else None,
        loss_label=texts.say("chat.loss_report_button", {}, fmt)
        if rules.effect == CurseEffect.HANGMAN
        else None,
    )


def _name_chosen_distance(
    ruleset: Ruleset, state: GameState, created_at: datetime, params: dict[str, Any]
) -> None:
    """Give a notice about a question of a distance of one's choice the distance chosen,
    so that it reads "Radar 750 m" and not "Radar: Distance of your choice": from the
    question it names by ``record_id``, else from the newest such question asked by then."""
    question_id = params.get("question")
    if params.get("distance_m") is not None or not isinstance(question_id, str):
        return
    if not ruleset.has_question(question_id) or not ruleset.question(question_id).custom_distance:
        return
    records = [q for q in state.questions if q.question_id == question_id]
    if params.get("record_id") is not None:
        records = [q for q in records if q.id == params["record_id"]]
    asked = [q for q in records if q.asked_at <= created_at and q.distance_m]
    if asked:
        params["distance_m"] = max(asked, key=lambda q: (q.asked_at, q.id)).distance_m


def _incoming(
    services: Services,
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
    ruleset = services.ruleset(state)
    suggestion = checking.stored_suggestion(
        uow, services.maps, ruleset, game_id, state, record, now
    )
    check = uow.checks.get(game_id, record.id)
    if check is not None and check.automatic:
        return texts.automatic_text(record, suggestion, fmt), ()
    hand = {
        ruleset.card(c.def_id).powerup for c in state.cards_in(CardZone.HAND, state.hider_team_id())
    }
    powers = {
        "veto": PowerupEffect.VETO in hand,
        "randomize": PowerupEffect.RANDOMIZE in hand,
    }
    buttons = keyboards.answers(game_id, record, suggestion.answer, suggestion.detail, powers, fmt)
    return texts.suggestion_text(suggestion, fmt), buttons


def _check_note(
    uow: UnitOfWork,
    game_id: int,
    state: GameState,
    key: str,
    params: dict[str, Any],
    fmt: Formatter,
) -> str | None:
    """The check line under an answer or a claimed end game, for everyone; None if none."""
    if key == "question.answered" and params.get("record_id") is not None:
        return texts.answer_note(uow.checks.get(game_id, int(params["record_id"])), fmt)
    if key == "endgame.started" and params.get("by"):
        current = state.current_round
        if current is None:
            return None
        return texts.claim_note(uow.checks.claims(game_id, current.number), fmt)
    return None
