"""Decisions: what the engine wants done, in the imperative. The chat layer renders them."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class AudienceKind(StrEnum):
    GROUP = "group"  # everyone in the game's group chat
    HIDERS = "hiders"  # the hiding team, privately
    SEEKERS = "seekers"  # every seeker, privately
    TEAM = "team"  # the members of team ``team_id``, privately (a hand, an offer)
    PLAYER = "player"  # one player, privately


@dataclass(frozen=True)
class Audience:
    kind: AudienceKind
    player_id: int | None = None
    team_id: int | None = None


GROUP = Audience(AudienceKind.GROUP)
HIDERS = Audience(AudienceKind.HIDERS)


def to_player(player_id: int) -> Audience:
    return Audience(AudienceKind.PLAYER, player_id=player_id)


def to_team(team_id: int) -> Audience:
    """Only the members of ``team_id`` (the hider's team for their hand and offers)."""
    return Audience(AudienceKind.TEAM, team_id=team_id)


@dataclass(frozen=True)
class Decision:
    pass


@dataclass(frozen=True)
class Notify(Decision):
    """Tell ``to`` the message ``key`` with ``params`` (plain values only)."""

    to: Audience
    key: str
    params: dict[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class RequestZone(Decision):
    """Fix the hider's zone now: nearest station to the hider's position (or ask them)."""

    round_number: int


@dataclass(frozen=True)
class FreezeHidingSpot(Decision):
    """The end game began: record the hider's current position as their final spot."""

    round_number: int
