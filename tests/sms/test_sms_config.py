"""The SMS settings: all four or none, the URLs and the region checked."""

from __future__ import annotations

import pytest

from hideseek_chat.config import Config, ConfigError

FULL = {
    "TWILIO_ACCOUNT_SID": "AC" + "1" * 32,
    "TWILIO_AUTH_TOKEN": "token",
    "SMS_FROM": "+41790000000",
    "SMS_PUBLIC_URL": "https://bot.example.org",
}


def test_the_sms_channel_is_off_without_its_settings() -> None:
    assert Config.from_env({}).sms is None


def test_the_sms_settings_are_read_once() -> None:
    sms = Config.from_env({**FULL, "SMS_REGION": "ch", "SMS_API_URL": "http://127.0.0.1:9"}).sms
    assert sms is not None
    assert sms.sender == "+41790000000" and sms.region == "CH"
    assert sms.public_url == "https://bot.example.org" and sms.api_url == "http://127.0.0.1:9"


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"SMS_FROM": ""}, "SMS_FROM"),
        ({"TWILIO_AUTH_TOKEN": " "}, "TWILIO_AUTH_TOKEN"),
        ({"SMS_PUBLIC_URL": "bot.example.org"}, "SMS_PUBLIC_URL"),
        ({"SMS_REGION": "Switzerland"}, "SMS_REGION"),
        ({"SMS_API_URL": "ftp://x"}, "SMS_API_URL"),
    ],
)
def test_incomplete_or_malformed_sms_settings_are_named(
    changes: dict[str, str], named: str
) -> None:
    with pytest.raises(ConfigError, match=named):
        Config.from_env({**FULL, **changes})
