"""The map settings: where the geocoder and Overpass are, the User-Agent the bot names
itself with, and how long a fetched map is used again."""

from __future__ import annotations

from datetime import timedelta

import pytest

from hideseek_chat.config import NOMINATIM_URL, OVERPASS_URLS, Config, ConfigError


def test_the_public_instances_by_default() -> None:
    config = Config.from_env({})
    assert config.nominatim_url == NOMINATIM_URL == "https://nominatim.openstreetmap.org"
    assert config.overpass_urls == OVERPASS_URLS and len(OVERPASS_URLS) == 2
    assert config.user_agent.startswith("hideseek_chat/")
    assert config.map_max_age == timedelta(days=30)


def test_map_settings_from_the_environment() -> None:
    config = Config.from_env(
        {
            "HIDESEEK_NOMINATIM_URL": "http://127.0.0.1:8080",
            "HIDESEEK_OVERPASS_URLS": " http://127.0.0.1:9000/api/interpreter, https://b/x ,",
            "HIDESEEK_USER_AGENT": "my-bot/1 (me@example.org)",
            "HIDESEEK_MAP_MAX_AGE_DAYS": "7",
        }
    )
    assert config.nominatim_url == "http://127.0.0.1:8080"
    assert config.overpass_urls == ("http://127.0.0.1:9000/api/interpreter", "https://b/x")
    assert config.user_agent == "my-bot/1 (me@example.org)"
    assert config.map_max_age == timedelta(days=7)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("HIDESEEK_NOMINATIM_URL", "nominatim.local"),
        ("HIDESEEK_OVERPASS_URLS", "ftp://x/y"),
        ("HIDESEEK_MAP_MAX_AGE_DAYS", "a month"),
        ("HIDESEEK_MAP_MAX_AGE_DAYS", "-1"),
    ],
)
def test_a_malformed_map_setting_is_one_clear_sentence(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Config.from_env({name: value})
