"""What players look up: /status, /score, /track (the hider) and /review (a finished
round's questions, answers and checks)."""

from __future__ import annotations

from hideseek_chat.chat import liveness, sightings, texts
from hideseek_chat.chat.errors import ChatError
from hideseek_chat.chat.model import Outbound
from hideseek_chat.chat.texts.notices_zone import silent_seekers
from hideseek_chat.chat.turn import Turn
from hideseek_chat.rules.errors import NotAllowed
from hideseek_chat.rules.events import CatchDecided
from hideseek_chat.rules.state import GameState, Round

Args = tuple[str, ...]


def status(turn: Turn, args: Args) -> list[Outbound]:
    """``/status``; the hider's also names the seekers whose location no longer counts."""
    seen = sightings.seen_from(turn.uow, turn.game_id, turn.state)
    text = texts.status_text(
        turn.state,
        turn.fmt,
        turn.msg.at,
        {ref: s[0] if s else None for ref, s in seen.items()},
        {ref: s[1] for ref, s in seen.items() if s},
    )
    player = turn.player()
    if player is not None and turn.state.is_hider(player.id):
        silent = liveness.silent_seekers(turn.uow, turn.game_id, turn.state, turn.msg.at)
        if silent:
            text = f"{text}\n\n{silent_seekers(silent, turn.fmt)}"
    if player is not None and player.id == turn.state.admin_player_id:
        sent, segments = turn.uow.sms.counts(turn.game_chat())
        if sent:  # texts cost money: the admin sees what the game sent
            text = f"{text}\n\n{turn.say('sms.count', texts=sent, segments=segments)}"
    return [turn.reply(text)]


def score(turn: Turn, args: Args) -> list[Outbound]:
    return [turn.reply(texts.score_text(turn.state, turn.fmt))]


def track(turn: Turn, args: Args) -> list[Outbound]:
    """``/track``: the hider sees how far each seeker was and how long ago."""
    player = turn.player()
    if player is None or not turn.state.is_hider(player.id):
        raise NotAllowed("only the hider tracks the seekers", key="error.only_hider")
    rows = sightings.seekers_seen_by(turn.uow, turn.game_id, turn.state, player.id)
    text = texts.track_text(turn.state, turn.fmt, turn.msg.at, rows)
    silent = liveness.silent_seekers(turn.uow, turn.game_id, turn.state, turn.msg.at)
    if silent:
        text = f"{text}\n\n{silent_seekers(silent, turn.fmt)}"
    return [turn.reply(text)]


def review(turn: Turn, args: Args) -> list[Outbound]:
    """``/review [N]``: a round that is over, in the group; in private, the admin's newest
    game (also after it ended). The numbers and the station are no secret by then."""
    uow = turn.uow
    if turn.is_private:
        found = uow.checks.admin_game(turn.by)
        if found is None:
            raise ChatError("chat.review_admin_only")
        game_id, state = found, uow.games.read(found)
        fmt = turn.services.formatter(uow, uow.games.chat_key(game_id), state, turn.by)
    else:
        game_id, state, fmt = turn.game_id, turn.state, turn.fmt
    chosen = choose_round(state, args)
    checks = uow.checks.for_round(game_id, chosen.number)
    claims = uow.checks.claims(game_id, chosen.number)
    text = texts.review_text(state, chosen, checks, claims, fmt)
    # The admin's decisions on the catch are in the event log (the state keeps the catch).
    decided = [
        texts.decided_line(
            _name(state, str(e.payload.get("seeker"))),
            _name(state, e.actor_ref),
            e.occurred_at,
            fmt,
        )
        for e in uow.events.for_game(game_id)
        if e.type == CatchDecided.__name__
        and chosen.hiding_started_at is not None
        and chosen.ended_at is not None
        and chosen.hiding_started_at <= e.occurred_at <= chosen.ended_at
    ]
    return [turn.reply("\n".join([text, *decided]))]


def _name(state: GameState, ref: str | None) -> str:
    """The name of the player ``ref``, who may have left since."""
    return next((p.name for p in state.players if p.ref == ref), "?")


def choose_round(state: GameState, args: Args) -> Round:
    """The round asked for (default: the last one that is over); refuse a running one."""
    ended = [r for r in state.rounds if r.ended_at is not None]
    numbers = ", ".join(str(r.number) for r in ended)
    if not args:
        if not ended:
            raise ChatError("chat.review_nothing")
        return ended[-1]
    try:
        wanted = int(args[0])
    except ValueError:
        raise ChatError("chat.review_usage", rounds=numbers or "—") from None
    for round_ in state.rounds:
        if round_.number == wanted:
            if round_.ended_at is None:
                raise ChatError("chat.review_running")
            return round_
    raise ChatError("chat.review_usage", rounds=numbers or "—")
