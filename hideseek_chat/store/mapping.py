"""GameState <-> rows: every field of the state dataclasses is a column of some table.

``state_rows`` flattens a state into ``{model: {key: column values}}``; ``state_from_rows``
builds the state back. Keys are the rows' primary keys without ``game_id``, so a save can
diff the rows it loaded against the rows a new state needs. Lists without ids (hide order,
banned questions, catches, rest periods, previous zones) are keyed by their position.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from functools import cache
from typing import Any

from hideseek_chat.rules.state import (
    RECORD_LISTS,
    ActiveCurse,
    BannedQuestion,
    Card,
    Catch,
    Deadline,
    DrawCycle,
    GameState,
    Pause,
    PendingCatch,
    Player,
    Question,
    Round,
    Settings,
    Team,
    Zone,
)
from hideseek_chat.store.models import (
    BannedQuestionRow,
    Base,
    CardRow,
    CatchRow,
    CurseRow,
    DeadlineRow,
    DrawCycleRow,
    GameRow,
    HandBonusRow,
    HideOrderRow,
    PauseRow,
    PendingCatchRow,
    PlayerRow,
    QuestionRow,
    RestPeriodRow,
    RoundRow,
    SettingsRow,
    TeamRow,
    ZoneRow,
)

Values = dict[str, Any]
Rows = dict[type[Base], dict[tuple[Any, ...], Values]]

#: GameState fields kept in other tables than ``games``.
_GAME_CHILDREN = frozenset({*RECORD_LISTS, "settings", "hide_order", "pending_catch"})
_ROUND_CHILDREN = frozenset({"zone", "previous_zones", "hand_limit_bonus"})

#: Tables whose rows are engine records with an ``id``, and the state list holding them.
ID_TABLES: dict[type[Base], tuple[str, type]] = {
    TeamRow: ("teams", Team),
    PlayerRow: ("players", Player),
    CardRow: ("cards", Card),
    DrawCycleRow: ("draws", DrawCycle),
    QuestionRow: ("questions", Question),
    CurseRow: ("curses", ActiveCurse),
    PauseRow: ("pauses", Pause),
    DeadlineRow: ("deadlines", Deadline),
}

#: Every table a game's state is spread over, ``games`` first.
STATE_TABLES: tuple[type[Base], ...] = (
    GameRow,
    SettingsRow,
    RestPeriodRow,
    *ID_TABLES,
    HideOrderRow,
    RoundRow,
    ZoneRow,
    HandBonusRow,
    BannedQuestionRow,
    CatchRow,
    PendingCatchRow,
)

#: Primary-key attributes of each table, ``game_id`` left out.
KEYS: dict[type[Base], tuple[str, ...]] = {
    GameRow: (),
    SettingsRow: (),
    RestPeriodRow: ("position",),
    **{model: ("id",) for model in ID_TABLES},
    HideOrderRow: ("position",),
    RoundRow: ("number",),
    ZoneRow: ("round_number", "current", "position"),
    HandBonusRow: ("round_number", "team_id"),
    BannedQuestionRow: ("position",),
    CatchRow: ("position",),
    PendingCatchRow: (),
}


@cache
def _field_names(cls: type, skip: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The dataclass's field names (``dataclasses.fields`` is slow on the hot path)."""
    return tuple(f.name for f in fields(cls) if f.name not in skip)


def _values(record: Any, skip: frozenset[str] = frozenset()) -> Values:
    return {name: getattr(record, name) for name in _field_names(record.__class__, skip)}


def _by_position(items: Iterable[Values]) -> dict[tuple[Any, ...], Values]:
    return {(i,): {"position": i, **values} for i, values in enumerate(items)}


def state_rows(game_id: int, state: GameState) -> Rows:
    """Return every row ``state`` needs, ``game_id`` included, keyed as ``KEYS`` says."""
    rows: Rows = {model: {} for model in STATE_TABLES}
    game = _values(state, _GAME_CHILDREN)
    rows[GameRow][()] = {"id": game_id, **game}
    settings = _values(state.settings, frozenset({"rest_periods"}))
    rows[SettingsRow][()] = settings
    rows[RestPeriodRow] = _by_position(
        {"starts": start, "ends": end} for start, end in state.settings.rest_periods
    )
    for model, (attribute, _cls) in ID_TABLES.items():
        rows[model] = {(r.id,): _values(r) for r in getattr(state, attribute)}
    rows[HideOrderRow] = _by_position({"team_id": team} for team in state.hide_order)
    rows[BannedQuestionRow] = _by_position(_values(b) for b in state.banned)
    rows[CatchRow] = _by_position(_values(c) for c in state.catches)
    if state.pending_catch is not None:
        rows[PendingCatchRow][()] = _values(state.pending_catch)
    for current in state.rounds:
        number = current.number
        rows[RoundRow][(number,)] = _values(current, _ROUND_CHILDREN)
        zones = [(False, i, z) for i, z in enumerate(current.previous_zones)]
        if current.zone is not None:
            zones.append((True, 0, current.zone))
        for is_current, position, zone in zones:
            rows[ZoneRow][(number, is_current, position)] = {
                "round_number": number,
                "current": is_current,
                "position": position,
                **_values(zone),
            }
        for team_id, extra in current.hand_limit_bonus.items():
            rows[HandBonusRow][(number, team_id)] = {
                "round_number": number,
                "team_id": team_id,
                "extra": extra,
            }
    for model, table in rows.items():
        if model is not GameRow:
            for values in table.values():
                values["game_id"] = game_id
    return rows


@cache
def _column_keys(model: type[Base]) -> tuple[str, ...]:
    return tuple(attr.key for attr in model.__mapper__.column_attrs)


def row_values(model: type[Base], row: Base) -> Values:
    """Return the column attributes of an ORM row, as ``state_rows`` spells them."""
    return {key: getattr(row, key) for key in _column_keys(model)}


def row_key(model: type[Base], row: Base) -> tuple[Any, ...]:
    return tuple(getattr(row, name) for name in KEYS[model])


def _build(cls: type, values: Mapping[str, Any]) -> Any:
    return cls(**{name: values[name] for name in _field_names(cls) if name in values})


def _sort_key(names: tuple[str, ...]) -> Callable[[Values], tuple[Any, ...]]:
    return lambda values: tuple(values[name] for name in names)


def state_from_rows(rows: Mapping[type[Base], Iterable[Base]]) -> GameState:
    """Rebuild a GameState from its rows (any order within a table)."""
    table: dict[type[Base], list[Values]] = {}
    for model in STATE_TABLES:
        found = [row_values(model, r) for r in rows.get(model, ())]
        table[model] = sorted(found, key=_sort_key(KEYS[model]))
    (game,) = table[GameRow]
    (settings_values,) = table[SettingsRow]
    settings = _build(Settings, settings_values)
    settings.rest_periods = [(r["starts"], r["ends"]) for r in table[RestPeriodRow]]
    state: GameState = _build(GameState, game)
    state.settings = settings
    for model, (attribute, cls) in ID_TABLES.items():
        setattr(state, attribute, [_build(cls, v) for v in table[model]])
    state.hide_order = [r["team_id"] for r in table[HideOrderRow]]
    state.banned = [_build(BannedQuestion, v) for v in table[BannedQuestionRow]]
    state.catches = [_build(Catch, v) for v in table[CatchRow]]
    pending = table[PendingCatchRow]
    state.pending_catch = _build(PendingCatch, pending[0]) if pending else None
    rounds = {v["number"]: _build(Round, v) for v in table[RoundRow]}
    for values in table[ZoneRow]:
        zone = _build(Zone, values)
        target = rounds[values["round_number"]]
        if values["current"]:
            target.zone = zone
        else:
            target.previous_zones.append(zone)
    for values in table[HandBonusRow]:
        rounds[values["round_number"]].hand_limit_bonus[values["team_id"]] = values["extra"]
    state.rounds = [rounds[n] for n in sorted(rounds)]
    return state
