"""Choosing a map during setup: the game's clock follows the map's time zone, and the map's
country suggests the units and a ruleset (suggestions only: the admin decides).

The zone the map sets is the one at a point inside its boundary (``geo.pack_time_zone``).
A zone the admin typed (``/settings timezone ...``) is kept when a map is chosen later: the
group is told the map's zone and how to follow it (``/settings timezone map``). A zone a
map set is replaced by the next map's.

``on_map_chosen`` works in any unit of work (a background job's: the map fetch) and
``map_chosen`` in a turn; both plan the same with ``plan_map_choice``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from hideseek_chat import geo
from hideseek_chat.chat.turn import Services, Turn
from hideseek_chat.geo import MapPack
from hideseek_chat.rules.decisions import GROUP, Decision, Notify
from hideseek_chat.rules.events import SettingsChanged
from hideseek_chat.rules.ruleset import RulesetError
from hideseek_chat.rules.state import GameState, Phase
from hideseek_chat.rules.units import units_for_country
from hideseek_chat.store import UnitOfWork
from hideseek_chat.store.uow import apply_event

#: The notice in the group (``chat.texts.setup.map_time_zone``).
NOTICE = "chat.map_time_zone"


@dataclass(frozen=True)
class MapChoice:
    """What a chosen map changes (``event``, None for nothing) and tells the group."""

    event: SettingsChanged | None
    notice: Notify | None


def suggested_ruleset(services: Services, state: GameState, country: str) -> str | None:
    """The first known ruleset that declares ``country``, unless the game already uses one."""
    if not country:
        return None
    suiting = []
    for name in services.known_rulesets:
        try:
            if services.rulesets(name).suits(country):
                suiting.append(name)
        except RulesetError:  # a broken house ruleset suggests nothing
            continue
    return suiting[0] if suiting and state.ruleset not in suiting else None


def plan_map_choice(
    services: Services,
    uow: UnitOfWork,
    state: GameState,
    chat_key: str,
    pack: MapPack,
    *,
    by: str,
    zone: str | None = None,
) -> MapChoice:
    """What choosing ``pack`` in ``chat_key`` does to the game ``state`` (in setup only);
    ``zone`` is the pack's zone when the caller looked it up already."""
    if state.phase != Phase.SETUP:
        return MapChoice(None, None)
    zone = zone or geo.pack_time_zone(pack)
    country = geo.pack_country(pack)
    settings = state.settings
    differs = zone is not None and zone != settings.time_zone
    event = None
    if differs and not settings.time_zone_typed:
        event = SettingsChanged(by, time_zone=zone, time_zone_from_map=True)
    prefs = uow.chats.prefs(chat_key)
    units_now = prefs.units or services.ruleset(state).units
    units = units_for_country(country) if country else None
    params = {
        "time_zone": zone if event is not None else None,
        "map_zone": zone if differs and event is None else None,
        "kept": settings.time_zone if differs and event is None else None,
        "country": country,
        "ruleset": suggested_ruleset(services, state, country),
        "units": units if units != units_now else None,
    }
    # The suggestions come with news: a new zone, or a map in another country than the
    # game's clock; choosing a second map in the same place tells nothing again.
    news = differs or geo.country_of_time_zone(settings.time_zone) != country
    if not news or not any(params[k] for k in ("time_zone", "map_zone", "ruleset", "units")):
        return MapChoice(event, None)
    return MapChoice(event, Notify(GROUP, NOTICE, params))


def on_map_chosen(
    services: Services,
    uow: UnitOfWork,
    game_id: int,
    state: GameState,
    chat_key: str,
    pack: MapPack,
    *,
    by: str,
    now: datetime,
) -> tuple[GameState, list[Decision]]:
    """Apply what choosing ``pack`` means in the unit of work ``uow`` (no turn needed): the
    zone through the store, the notice to the outbox; return the new state and decisions.

    ``state`` must be the game's, read with its row locked in ``uow``
    (``uow.games.current_id(chat_key, for_update=True)`` then ``uow.games.get``); ``by`` is
    the admin who chose the map. Does not commit.
    """
    choice = plan_map_choice(services, uow, state, chat_key, pack, by=by)
    decisions: list[Decision] = []
    if choice.event is not None:
        state, decisions = apply_event(
            uow, game_id, state, services.ruleset(state), choice.event, now
        )
        services.states.pop(game_id, None)
    if choice.notice is not None:
        uow.outbox.add(game_id, [choice.notice], now)
        decisions.append(choice.notice)
    return state, decisions


def map_chosen(turn: Turn, pack: MapPack, *, quiet: bool = False) -> None:
    """``on_map_chosen`` inside a turn: the admin chose ``pack`` for the game. ``quiet``
    (a new game on the group's map): the zone only, no notice (/settings shows it)."""
    choice = plan_map_choice(
        turn.services, turn.uow, turn.state, turn.game_chat(), pack, by=turn.by
    )
    if choice.event is not None:
        turn.apply(choice.event)
    if choice.notice is not None and not quiet:
        turn.announce([choice.notice])


def map_pack(turn: Turn, name: str) -> MapPack | None:
    """The pack called ``name`` (shipped or stored), or None."""
    index = turn.services.maps.index(turn.uow, name)
    return index.pack if index is not None else None
