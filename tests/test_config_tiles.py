"""The basemap tile settings: OpenStreetMap's tiles at 2 requests a second unless told."""

from __future__ import annotations

from pathlib import Path

import pytest

from hideseek_chat.config import TILE_URL, Config, ConfigError


def test_osm_tiles_at_two_a_second_by_default() -> None:
    config = Config.from_env({"HIDESEEK_DATA_DIR": "/var/lib/hs"})
    assert config.tile_url == TILE_URL == "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    assert config.tile_rate_per_s == 2.0
    assert config.tile_cache_dir == Path("/var/lib/hs/tiles")


def test_tiles_from_the_environment_or_off() -> None:
    config = Config.from_env(
        {"HIDESEEK_TILE_URL": "http://127.0.0.1:9/{z}/{x}/{y}.png", "HIDESEEK_TILE_RATE": "0.5"}
    )
    assert config.tile_url == "http://127.0.0.1:9/{z}/{x}/{y}.png"
    assert config.tile_rate_per_s == 0.5
    assert Config.from_env({"HIDESEEK_TILE_URL": "OFF"}).tile_url is None


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("HIDESEEK_TILE_URL", "https://tile.example.org/tiles.png"),
        ("HIDESEEK_TILE_URL", "tile.example.org/{z}/{x}/{y}.png"),
        ("HIDESEEK_TILE_RATE", "fast"),
        ("HIDESEEK_TILE_RATE", "0"),
        ("HIDESEEK_TILE_RATE", "500"),
    ],
)
def test_a_malformed_tile_setting_is_one_clear_sentence(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Config.from_env({name: value})
