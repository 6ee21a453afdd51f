"""``hideseek-chat erase USER`` and ``hideseek-chat export GAME`` on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from sqlalchemy import select, update

from hideseek_chat.cli import main
from hideseek_chat.store import make_engine, migrate, unit_of_work_factory
from hideseek_chat.store.export import FORMAT
from hideseek_chat.store.models import EventRow, PlayerRow
from tests.store.helpers import CHAT, replay, start
from tests.store.scenarios import play


@pytest.fixture
def game(database_url: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    """A game of 60 steps whose player ``bob`` is the Telegram user 77; (game id, his name)."""
    monkeypatch.setenv("DATABASE_URL", database_url)
    migrate.upgrade(database_url)
    engine = make_engine(database_url)
    try:
        uow_factory = unit_of_work_factory(engine)
        script = play(0, steps=60)
        game_id = start(uow_factory, script)
        replay(uow_factory, script)
        with engine.begin() as connection:
            name = connection.scalar(select(PlayerRow.name).where(PlayerRow.ref == "bob"))
            connection.execute(update(PlayerRow).where(PlayerRow.ref == "bob").values(ref="tg:77"))
            connection.execute(
                update(EventRow).where(EventRow.actor_ref == "bob").values(actor_ref="tg:77")
            )
    finally:
        engine.dispose()
    assert name
    return game_id, name


def _export(game_id: int, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["export", str(game_id)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, dict)
    return data


def test_export_writes_the_games_metadata_players_and_every_event(
    game: tuple[int, str], database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    game_id, name = game
    data = _export(game_id, capsys)
    assert data["format"] == FORMAT
    meta = data["game"]
    assert isinstance(meta, dict)
    assert (meta["id"], meta["chat"], meta["ruleset"]) == (game_id, CHAT, "metric")
    assert meta["created_at"] is not None
    players = data["players"]
    assert isinstance(players, list)
    assert {"ref": "tg:77", "name": name} in [{k: p[k] for k in ("ref", "name")} for p in players]
    events = data["events"]
    assert isinstance(events, list)
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            stored = connection.execute(
                select(EventRow.id, EventRow.type).where(EventRow.game_id == game_id)
            ).all()
    finally:
        engine.dispose()
    assert [(e["id"], e["type"]) for e in events] == sorted(tuple(row) for row in stored)
    assert events[0]["type"] == "GameCreated"
    assert any(e["actor"] == "tg:77" for e in events)


def test_export_to_a_file_is_readable_by_its_owner_only(
    game: tuple[int, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game_id, _ = game
    target = tmp_path / "game.json"
    assert main(["export", str(game_id), "-o", str(target)]) == 0
    assert json.loads(target.read_text(encoding="utf-8"))["game"]["id"] == game_id
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert capsys.readouterr().out == ""


def test_erase_by_telegram_id_leaves_nothing_of_the_person_in_the_export(
    game: tuple[int, str], capsys: pytest.CaptureFixture[str]
) -> None:
    game_id, name = game
    assert main(["erase", "77"]) == 0
    assert capsys.readouterr().out.startswith("erased tg:77: 1 game membership(s)")
    text = json.dumps(_export(game_id, capsys))
    assert "tg:77" not in text and name not in text
    assert main(["erase", "tg:77"]) == 0  # twice: nothing left
    assert capsys.readouterr().out == "nothing is stored about tg:77\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["erase", "bob smith"], "not a person"),
        (["export", "x"], "not a game number"),
    ],
)
def test_bad_arguments_are_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert message in capsys.readouterr().err


def test_export_of_a_missing_game_says_so(
    database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    assert main(["export", "404"]) == 2
    assert capsys.readouterr().err == "hideseek-chat: there is no game 404 in the database.\n"
