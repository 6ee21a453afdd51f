"""Decisions: what the engine wants done, in the imperative. The chat layer renders them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
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
SEEKERS = Audience(AudienceKind.SEEKERS)


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
    """Fix the hider's zone: the station nearest the hider's pin at ``at`` (the end of the
    hiding period or of a Move; ``rules.hiding``), or tell the seekers it is pending and ask
    the hider for a pin."""

    round_number: int
    at: datetime | None = None  # None (older entries): when the job runs


@dataclass(frozen=True)
class CheckHidingSpot(Decision):
    """Before the hiding period ends: tell the hider privately when they are not near any
    station of the map (and which is nearest), or ask for a pin when there is none."""

    round_number: int


@dataclass(frozen=True)
class FreezeHidingSpot(Decision):
    """The end game began: record the hider's current position as their final spot."""

    round_number: int
