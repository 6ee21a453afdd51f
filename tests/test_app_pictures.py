"""app.py hands the pictures the tile client the config asks for, and none when it is off."""

from __future__ import annotations

from pathlib import Path

from hideseek_chat.app import build_tiles
from hideseek_chat.config import Config
from hideseek_chat.pictures.tiles import TileClient


def test_the_tile_client_follows_the_config(tmp_path: Path) -> None:
    config = Config.from_env(
        {
            "HIDESEEK_DATA_DIR": str(tmp_path),
            "HIDESEEK_TILE_URL": "http://127.0.0.1:9/{z}/{x}/{y}.png",
            "HIDESEEK_USER_AGENT": "hideseek-test/1 (tests@example.org)",
        }
    )
    tiles = build_tiles(config)
    assert isinstance(tiles, TileClient)
    try:
        assert tiles.url_template == "http://127.0.0.1:9/{z}/{x}/{y}.png"
        assert tiles.cache_dir == tmp_path / "tiles"
        assert tiles.requests == 0  # nothing is fetched before a picture asks
    finally:
        tiles.close()


def test_no_tiles_when_the_config_turns_them_off() -> None:
    assert build_tiles(Config.from_env({"HIDESEEK_TILE_URL": "off"})) is None
