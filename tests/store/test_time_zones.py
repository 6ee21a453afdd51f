"""The game's time zone in the store: migration 0005 turns stored offsets into zone names, and
events logged before zones had names still load and apply."""

from __future__ import annotations

from datetime import UTC, datetime

from alembic import command
from sqlalchemy import text

from hideseek_chat.rules import apply, load_ruleset, new_game
from hideseek_chat.rules.events import SettingsChanged
from hideseek_chat.rules.ruleset import Size
from hideseek_chat.store import handle, make_engine, start_game, unit_of_work_factory
from hideseek_chat.store.migrate import alembic_config, upgrade
from hideseek_chat.store.serialize import EventColumns, decode_event, encode_event

NOW = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)


def _games(database_url: str, chats: list[str]) -> dict[str, int]:
    engine = make_engine(database_url)
    try:
        uow_factory = unit_of_work_factory(engine)
        ids = {}
        for chat in chats:
            state, decisions = new_game(
                load_ruleset("metric"), Size.SMALL, 5, f"{chat}:alice", "Alice", NOW
            )
            game_id = start_game(uow_factory, chat, state, decisions, NOW)
            assert game_id is not None
            ids[chat] = game_id
        handle(
            uow_factory,
            "tg:zurich",
            SettingsChanged("tg:zurich:alice", time_zone="Europe/Zurich"),
            NOW,
        )
        return ids
    finally:
        engine.dispose()


def test_0005_names_the_stored_offsets_and_goes_back(database_url: str) -> None:
    upgrade(database_url)  # games made with today's models, then the schema before 0005
    ids = _games(database_url, ["tg:utc", "tg:plus2", "tg:india", "tg:zurich"])
    config = alembic_config(database_url)
    command.downgrade(config, "0004")
    engine = make_engine(database_url)
    try:
        with engine.begin() as connection:
            before = dict(
                connection.execute(text("SELECT game_id, utc_offset_min FROM game_settings")).all()
            )
            assert before[ids["tg:zurich"]] in (60, 120)  # Zürich's offset when downgraded
            for chat, offset in (("tg:plus2", 120), ("tg:india", 330)):
                connection.execute(
                    text("UPDATE game_settings SET utc_offset_min = :o WHERE game_id = :g"),
                    {"o": offset, "g": ids[chat]},
                )
        upgrade(database_url)
        with engine.connect() as connection:
            rows = connection.execute(
                text("SELECT game_id, time_zone, time_zone_typed FROM game_settings")
            ).all()
            countries = connection.execute(text("SELECT count(*) FROM map_packs")).scalar()
        after = {game_id: (zone, bool(typed)) for game_id, zone, typed in rows}
        assert after[ids["tg:utc"]] == ("UTC", False)
        assert after[ids["tg:plus2"]] == ("UTC+02:00", True)
        assert after[ids["tg:india"]] == ("UTC+05:30", True)
        assert countries == 0
        with unit_of_work_factory(engine)() as uow:
            loaded = uow.games.for_chat("tg:india")
            assert loaded is not None
            assert loaded.state.settings.time_zone == "UTC+05:30"
    finally:
        engine.dispose()


def test_a_logged_offset_event_loads_as_its_fixed_zone_and_applies() -> None:
    """A SettingsChanged logged before 0005 holds ``utc_offset_min``."""
    old = EventColumns(
        "SettingsChanged",
        "alice",
        '{"size": null, "rounds_per_team": null, "end_timer_min": null, '
        '"clear_end_timer": false, "rest_periods": {"$tuple": [{"$tuple": ["22:00", "07:00"]}]}, '
        '"utc_offset_min": -330, "transport": null, "mode": null, "global_scale": null}',
    )
    event = decode_event(old)
    assert event == SettingsChanged(
        "alice", rest_periods=(("22:00", "07:00"),), time_zone="UTC-05:30"
    )
    unset = decode_event(EventColumns("SettingsChanged", "alice", '{"utc_offset_min": null}'))
    assert unset == SettingsChanged("alice")
    rules = load_ruleset("metric")
    state, _ = new_game(rules, Size.SMALL, 5, "alice", "Alice", NOW)
    state, _ = apply(rules, state, event, NOW)
    assert (state.settings.time_zone, state.settings.time_zone_typed) == ("UTC-05:30", True)
    assert decode_event(encode_event(event)) == event  # today's events round-trip as they are
