"""GameState <-> rows: every field of the state dataclasses is a column of some table.

``state_rows`` flattens a state into ``{model: {key: column values}}``; ``state_from_rows``
builds the state back. Keys are the rows' primary keys without ``game_id``, so a save can
diff the rows it loaded against the rows a new state needs. Lists without ids (hide order,
banned questions, catches, rest periods, previous zones) are keyed by their position.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import fields
from functools import cache
from operator import attrgetter, itemgetter
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


def changed_tables(before: GameState, after: GameState) -> frozenset[type[Base]]:
    """The tables whose rows may differ between ``before`` and ``after``: those whose
    state attributes do not compare equal (records compare field by field, as the rows'
    values would)."""
    changed: set[type[Base]] = set()
    if _values(before, _GAME_CHILDREN) != _values(after, _GAME_CHILDREN):
        changed.add(GameRow)
    if before.settings != after.settings:
        changed.update((SettingsRow, RestPeriodRow))
    for model, (attribute, _cls) in ID_TABLES.items():
        if getattr(before, attribute) != getattr(after, attribute):
            changed.add(model)
    if before.hide_order != after.hide_order:
        changed.add(HideOrderRow)
    if before.banned != after.banned:
        changed.add(BannedQuestionRow)
    if before.catches != after.catches:
        changed.add(CatchRow)
    if before.pending_catch != after.pending_catch:
        changed.add(PendingCatchRow)
    if before.rounds != after.rounds:
        changed.update((RoundRow, ZoneRow, HandBonusRow))
    return frozenset(changed)


def state_rows(game_id: int, state: GameState, only: frozenset[type[Base]] | None = None) -> Rows:
    """Return every row ``state`` needs (of the tables ``only``, if given: the others are
    left empty), ``game_id`` included, keyed as ``KEYS`` says."""
    rows: Rows = {model: {} for model in STATE_TABLES}

    def wanted(model: type[Base]) -> bool:
        return only is None or model in only

    if wanted(GameRow):
        rows[GameRow][()] = {"id": game_id, **_values(state, _GAME_CHILDREN)}
    if wanted(SettingsRow):
        rows[SettingsRow][()] = _values(state.settings, frozenset({"rest_periods"}))
    if wanted(RestPeriodRow):
        rows[RestPeriodRow] = _by_position(
            {"starts": start, "ends": end} for start, end in state.settings.rest_periods
        )
    for model, (attribute, _cls) in ID_TABLES.items():
        if wanted(model):
            rows[model] = {(r.id,): _values(r) for r in getattr(state, attribute)}
    if wanted(HideOrderRow):
        rows[HideOrderRow] = _by_position({"team_id": team} for team in state.hide_order)
    if wanted(BannedQuestionRow):
        rows[BannedQuestionRow] = _by_position(_values(b) for b in state.banned)
    if wanted(CatchRow):
        rows[CatchRow] = _by_position(_values(c) for c in state.catches)
    if state.pending_catch is not None and wanted(PendingCatchRow):
        rows[PendingCatchRow][()] = _values(state.pending_catch)
    for current in state.rounds if wanted(RoundRow) else ():
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
def column_keys(model: type[Base]) -> tuple[str, ...]:
    """The column attributes of ``model``, in the mapper's order."""
    return tuple(attr.key for attr in model.__mapper__.column_attrs)


def row_values(model: type[Base], row: Base) -> Values:
    """Return the column attributes of an ORM row, as ``state_rows`` spells them."""
    return {key: getattr(row, key) for key in column_keys(model)}


def row_key(model: type[Base], row: Base) -> tuple[Any, ...]:
    return tuple(getattr(row, name) for name in KEYS[model])


@cache
def _as_tuple(model: type[Base]) -> Callable[[Any], tuple[Any, ...]]:
    """A row (an ORM object, or any row with its columns as attributes) -> its column
    values, in ``column_keys`` order."""
    get = attrgetter(*column_keys(model))
    if len(column_keys(model)) == 1:
        return lambda row: (get(row),)
    return get


@cache
def _at(model: type[Base], name: str) -> int:
    """Where column attribute ``name`` of ``model`` is in the tuples of ``_as_tuple``."""
    return column_keys(model).index(name)


@cache
def _maker(model: type[Base], cls: type) -> Callable[[Sequence[Any]], Any]:
    """A row's tuple -> a ``cls`` of the fields that are columns (the rest default)."""
    names = tuple(n for n in _field_names(cls) if n in column_keys(model))
    at = tuple(_at(model, n) for n in names)
    if names == _field_names(cls) and len(at) > 1:  # every field a column, in order
        get = itemgetter(*at)
        return lambda row: cls(*get(row))
    pairs = tuple(zip(names, at, strict=True))
    return lambda row: cls(**{name: row[i] for name, i in pairs})


@cache
def _sort_key(model: type[Base]) -> Callable[[Sequence[Any]], Any]:
    return itemgetter(*(_at(model, name) for name in KEYS[model]))


def state_from_rows(rows: Mapping[type[Base], Iterable[Base]]) -> GameState:
    """Rebuild a GameState from its rows (any order within a table)."""
    return state_from_tuples(
        {model: list(map(_as_tuple(model), found)) for model, found in rows.items()}
    )


def state_from_tuples(rows: Mapping[type[Base], Iterable[Sequence[Any]]]) -> GameState:
    """Rebuild a GameState from its rows as tuples of the columns in ``column_keys`` order
    (any order within a table): rows read with ``select(*columns)`` in that order."""
    table: dict[type[Base], list[Sequence[Any]]] = {}
    for model in STATE_TABLES:
        found = list(rows.get(model, ()))
        if len(found) > 1:
            found.sort(key=_sort_key(model))
        table[model] = found
    (game,) = table[GameRow]
    (settings_row,) = table[SettingsRow]
    settings = _maker(SettingsRow, Settings)(settings_row)
    starts, ends = _at(RestPeriodRow, "starts"), _at(RestPeriodRow, "ends")
    settings.rest_periods = [(r[starts], r[ends]) for r in table[RestPeriodRow]]
    state: GameState = _maker(GameRow, GameState)(game)
    state.settings = settings
    for model, (attribute, cls) in ID_TABLES.items():
        make = _maker(model, cls)
        setattr(state, attribute, [make(r) for r in table[model]])
    team = _at(HideOrderRow, "team_id")
    state.hide_order = [r[team] for r in table[HideOrderRow]]
    make = _maker(BannedQuestionRow, BannedQuestion)
    state.banned = [make(r) for r in table[BannedQuestionRow]]
    make = _maker(CatchRow, Catch)
    state.catches = [make(r) for r in table[CatchRow]]
    pending = table[PendingCatchRow]
    state.pending_catch = _maker(PendingCatchRow, PendingCatch)(pending[0]) if pending else None
    make, number = _maker(RoundRow, Round), _at(RoundRow, "number")
    rounds = {r[number]: make(r) for r in table[RoundRow]}
    make = _maker(ZoneRow, Zone)
    round_number, current = _at(ZoneRow, "round_number"), _at(ZoneRow, "current")
    for row in table[ZoneRow]:
        zone = make(row)
        target = rounds[row[round_number]]
        if row[current]:
            target.zone = zone
        else:
            target.previous_zones.append(zone)
    round_number = _at(HandBonusRow, "round_number")
    team, extra = _at(HandBonusRow, "team_id"), _at(HandBonusRow, "extra")
    for row in table[HandBonusRow]:
        rounds[row[round_number]].hand_limit_bonus[row[team]] = row[extra]
    state.rounds = [rounds[n] for n in sorted(rounds)]
    return state
