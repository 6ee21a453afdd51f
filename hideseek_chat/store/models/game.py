"""Chats, games with their settings, teams, players, rounds, pauses, deadlines and catches.

Every table below a game is keyed by ``(game_id, <engine id>)``: the engine's ids are unique
per game. Column (attribute) names are the field names of ``hideseek_chat.rules.state``.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from hideseek_chat.rules.ruleset import Category, Size
from hideseek_chat.rules.state import (
    DeadlineKind,
    Ending,
    Mode,
    PauseReason,
    Phase,
    Transport,
)
from hideseek_chat.store.models.base import GAME_FK, Base, game_ref, str_enum


class ChatRow(Base):
    """A group chat on some channel; ``key`` is the channel's stable id, e.g. ``tg:-100123``."""

    __tablename__ = "chats"

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(unique=True)
    created_at: Mapped[datetime]
    #: the group's name on its channel when its last game was started (None: not known)
    title: Mapped[str | None]
    #: the thread (a Telegram forum topic) its current game lives in; None: the main thread
    topic: Mapped[str | None] = mapped_column(String(32))


class GameRow(Base):
    """One game; a chat's current game is its newest one."""

    __tablename__ = "games"
    __table_args__ = (Index("ix_games_chat_id_id", "chat_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    chat_id: Mapped[int] = mapped_column(ForeignKey("chats.id", ondelete="CASCADE"))
    ruleset: Mapped[str]
    size: Mapped[Size] = mapped_column(str_enum(Size))
    seed: Mapped[int] = mapped_column(BigInteger)
    # No foreign key: players reference games, and the admin is one of them.
    admin_player_id: Mapped[int | None]
    created_at: Mapped[datetime | None]
    phase: Mapped[Phase] = mapped_column(str_enum(Phase))
    started_at: Mapped[datetime | None]
    ended_at: Mapped[datetime | None]
    game_timer_at: Mapped[datetime | None]
    rng_counter: Mapped[int] = mapped_column(BigInteger)
    next_id: Mapped[int]
    last_event_at: Mapped[datetime | None]


class SettingsRow(Base):
    __tablename__ = "game_settings"

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    rounds_per_team: Mapped[int]
    end_timer_min: Mapped[float | None]
    time_zone: Mapped[str]  # rules.localtime: an IANA name or a fixed offset, UTC+02:00
    time_zone_typed: Mapped[bool]
    transport: Mapped[Transport] = mapped_column(str_enum(Transport))
    mode: Mapped[Mode] = mapped_column(str_enum(Mode))
    global_scale: Mapped[bool]


class RestPeriodRow(Base):
    """``Settings.rest_periods``: clock times ("22:00", "08:00") in the game's time zone."""

    __tablename__ = "rest_periods"

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    starts: Mapped[str]
    ends: Mapped[str]


class TeamRow(Base):
    __tablename__ = "teams"

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    name: Mapped[str]


class PlayerRow(Base):
    """A membership: a person (``ref``) in one game, on one team."""

    __tablename__ = "players"
    __table_args__ = (
        game_ref("team_id", "teams"),
        Index("ix_players_ref", "ref"),
    )

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    ref: Mapped[str]
    name: Mapped[str]
    team_id: Mapped[int]
    active: Mapped[bool]


class HideOrderRow(Base):
    """``GameState.hide_order``: which team hides in each round."""

    __tablename__ = "hide_order"
    __table_args__ = (game_ref("team_id", "teams"),)

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    team_id: Mapped[int]


class RoundRow(Base):
    __tablename__ = "rounds"
    __table_args__ = (game_ref("hider_team_id", "teams"),)

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    number: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    hider_team_id: Mapped[int]
    hiding_started_at: Mapped[datetime | None]
    seeking_started_at: Mapped[datetime | None]
    end_game_started_at: Mapped[datetime | None]
    ended_at: Mapped[datetime | None]
    ending: Mapped[Ending | None] = mapped_column(str_enum(Ending))
    chalice_remaining: Mapped[int]
    spotty_category: Mapped[Category | None] = mapped_column(str_enum(Category))
    urban_explorer: Mapped[bool]
    next_question_free: Mapped[bool]
    penalty_minutes: Mapped[float]
    bonus_minutes: Mapped[float | None]
    hiding_seconds: Mapped[float | None]


class ZoneRow(Base):
    """A round's zone (``current``) and its earlier zones (a Move), in order."""

    __tablename__ = "round_zones"
    __table_args__ = (game_ref("round_number", "rounds", "number", ondelete="CASCADE"),)

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    round_number: Mapped[int] = mapped_column(primary_key=True)
    current: Mapped[bool] = mapped_column(primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    station_ref: Mapped[str]
    station_name: Mapped[str]
    lat: Mapped[float]
    lon: Mapped[float]
    radius_m: Mapped[float]
    fixed_at: Mapped[datetime]


class HandBonusRow(Base):
    """``Round.hand_limit_bonus``: extra hand slots per team in a round."""

    __tablename__ = "round_hand_bonus"
    __table_args__ = (
        game_ref("round_number", "rounds", "number", ondelete="CASCADE"),
        game_ref("team_id", "teams"),
    )

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    round_number: Mapped[int] = mapped_column(primary_key=True)
    team_id: Mapped[int] = mapped_column(primary_key=True)
    extra: Mapped[int]


class PauseRow(Base):
    __tablename__ = "pauses"

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    reason: Mapped[PauseReason] = mapped_column(str_enum(PauseReason))
    start: Mapped[datetime] = mapped_column("started_at")
    end: Mapped[datetime | None] = mapped_column("ended_at")
    round_number: Mapped[int | None]


class DeadlineRow(Base):
    """A durable timer; the scheduler looks for open rows with ``due_at <= now``."""

    __tablename__ = "deadlines"
    __table_args__ = (Index("ix_deadlines_done_due_at", "done", "due_at"),)

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    kind: Mapped[DeadlineKind] = mapped_column(str_enum(DeadlineKind))
    due_at: Mapped[datetime | None]
    round_number: Mapped[int | None]
    ref_id: Mapped[int | None]
    remaining_s: Mapped[float | None]
    done: Mapped[bool]


class CatchRow(Base):
    __tablename__ = "catches"
    __table_args__ = (game_ref("team_id", "teams"),)

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    round_number: Mapped[int]
    team_id: Mapped[int]
    at: Mapped[datetime]
    seconds: Mapped[float]
    bonus_minutes: Mapped[float]


class PendingCatchRow(Base):
    __tablename__ = "pending_catches"
    __table_args__ = (game_ref("claimed_by", "players"),)

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    round_number: Mapped[int]
    claimed_by: Mapped[int]
    claimed_at: Mapped[datetime]
    distance_m: Mapped[float | None]


__all__ = [
    "CatchRow",
    "ChatRow",
    "DeadlineRow",
    "GameRow",
    "HandBonusRow",
    "HideOrderRow",
    "PauseRow",
    "PendingCatchRow",
    "PlayerRow",
    "RestPeriodRow",
    "RoundRow",
    "SettingsRow",
    "TeamRow",
    "ZoneRow",
]
