"""JSON for the event log and the outbox, with an exact round trip.

Plain JSON, except three tagged objects that keep Python types apart: ``{"$dt": ISO 8601}``
for datetimes, ``{"$tuple": [...]}`` for tuples and ``{"$enum": class, "value": ...}`` for
the engine's enums. ``decode_decision(encode_decision(d)) == d`` and the same for events.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from datetime import datetime
from enum import StrEnum
from typing import Any

from hideseek_chat.rules import events as events_module
from hideseek_chat.rules.decisions import (
    Audience,
    AudienceKind,
    CheckHidingSpot,
    Decision,
    FreezeHidingSpot,
    Notify,
    RequestZone,
)
from hideseek_chat.rules.events import Event
from hideseek_chat.rules.localtime import offset_name
from hideseek_chat.rules.ruleset import Category, Size
from hideseek_chat.rules.state import (
    CardZone,
    DeadlineKind,
    Ending,
    Mode,
    PauseReason,
    Phase,
    QuestionStatus,
    Transport,
)

_ENUMS: dict[str, type[StrEnum]] = {
    cls.__name__: cls
    for cls in (
        AudienceKind,
        CardZone,
        Category,
        DeadlineKind,
        Ending,
        Mode,
        PauseReason,
        Phase,
        QuestionStatus,
        Size,
        Transport,
    )
}
_DECISIONS: dict[str, type[Decision]] = {
    cls.__name__: cls for cls in (Notify, RequestZone, FreezeHidingSpot, CheckHidingSpot)
}


def _tag(value: Any) -> Any:
    if isinstance(value, StrEnum) and type(value).__name__ in _ENUMS:
        return {"$enum": type(value).__name__, "value": value.value}
    if isinstance(value, datetime):
        return {"$dt": value.isoformat()}
    if isinstance(value, tuple):
        return {"$tuple": [_tag(v) for v in value]}
    if isinstance(value, list):
        return [_tag(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _tag(v) for k, v in value.items()}
    return value


def _untag(value: dict[str, Any]) -> Any:
    if "$dt" in value and len(value) == 1:
        return datetime.fromisoformat(value["$dt"])
    if "$tuple" in value and len(value) == 1:
        return tuple(value["$tuple"])
    if "$enum" in value and len(value) == 2 and value["$enum"] in _ENUMS:
        return _ENUMS[value["$enum"]](value["value"])
    return value


def dumps(value: Any) -> str:
    """Encode plain values (and datetimes, tuples, engine enums) as JSON text."""
    return json.dumps(_tag(value), ensure_ascii=False, allow_nan=False)


def loads(text: str) -> Any:
    return json.loads(text, object_hook=_untag)


# ----- decisions (the outbox) -----


@dataclass(frozen=True)
class DecisionColumns:
    """A decision spread over the outbox's columns."""

    kind: str
    audience_kind: str | None
    audience_player_id: int | None
    audience_team_id: int | None
    key: str | None
    params: str
    round_number: int | None


def encode_decision(decision: Decision) -> DecisionColumns:
    if isinstance(decision, Notify):
        return DecisionColumns(
            "Notify",
            decision.to.kind.value,
            decision.to.player_id,
            decision.to.team_id,
            decision.key,
            dumps(decision.params),
            None,
        )
    name = type(decision).__name__
    if name not in _DECISIONS:
        raise TypeError(f"cannot store decision {decision!r}")
    values = {f.name: getattr(decision, f.name) for f in fields(decision)}
    round_number = values.pop("round_number", None)
    return DecisionColumns(name, None, None, None, None, dumps(values), round_number)


def decode_decision(columns: DecisionColumns) -> Decision:
    if columns.kind == "Notify":
        assert columns.audience_kind is not None and columns.key is not None
        audience = Audience(
            AudienceKind(columns.audience_kind),
            player_id=columns.audience_player_id,
            team_id=columns.audience_team_id,
        )
        return Notify(audience, columns.key, loads(columns.params))
    cls = _DECISIONS[columns.kind]
    values = loads(columns.params)
    if columns.round_number is not None:
        values["round_number"] = columns.round_number
    return cls(**values)


# ----- events (the event log) -----


@dataclass(frozen=True)
class EventColumns:
    type: str
    actor_ref: str | None
    payload: str


def encode_event(event: Event) -> EventColumns:
    """Name the event's type and actor (``by``); the other fields go to the payload."""
    values = {f.name: getattr(event, f.name) for f in fields(event)}
    actor = values.pop("by", None)
    return EventColumns(type(event).__name__, actor, dumps(values))


def _upgrade_settings(values: dict[str, Any]) -> dict[str, Any]:
    """A ``SettingsChanged`` logged before zones had names: its typed ``utc_offset_min``
    becomes the fixed-offset zone name (``UTC+02:00``), typed by the admin as it was."""
    if "utc_offset_min" in values:
        offset = values.pop("utc_offset_min")
        if offset is not None:
            values["time_zone"] = offset_name(int(offset))
    return values


#: How the payloads of older event versions are read today, by event type.
_UPGRADES = {"SettingsChanged": _upgrade_settings}


def decode_event(columns: EventColumns) -> Event:
    cls = getattr(events_module, columns.type, None)
    if not (isinstance(cls, type) and issubclass(cls, Event)):
        raise ValueError(f"unknown event type {columns.type!r}")
    values = loads(columns.payload)
    if columns.type in _UPGRADES:
        values = _UPGRADES[columns.type](values)
    if any(f.name == "by" for f in fields(cls)):
        values["by"] = columns.actor_ref
    return cls(**values)
