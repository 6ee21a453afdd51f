"""The bot's logging set-up: quiet libraries, JSON lines, one line per network failure,
people and chats only as a short hash."""

from __future__ import annotations

import io
import json
import logging
import re

import pytest
from telegram.error import NetworkError, TimedOut

from hideseek_chat import logs


def test_who_is_a_short_stable_hash_never_the_id() -> None:
    person, group = logs.who("tg:123456789"), logs.who("tg:-1001234567890")
    assert re.fullmatch(r"u:[0-9a-f]{6}", person)
    assert re.fullmatch(r"c:[0-9a-f]{6}", group)
    assert "123456789" not in person and "1234567890" not in group
    assert logs.who("tg:123456789") == person
    assert logs.who("tg:123456788") != person


def test_who_depends_on_the_deployments_salt(monkeypatch: pytest.MonkeyPatch) -> None:
    before = logs.who("tg:42")
    monkeypatch.setenv("HIDESEEK_LOG_SALT", "another deployment")
    assert logs.who("tg:42") != before


def test_json_format_writes_one_object_per_line(restore_logging: None) -> None:
    stream = io.StringIO()
    logs.setup({"HIDESEEK_LOG_FORMAT": "json"}, stream=stream)
    log = logging.getLogger("hideseek_chat.test")
    log.info("first %s", "line")
    log.warning("second\nwith a break")
    try:
        raise ValueError("boom")
    except ValueError:
        log.exception("third")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 3
    entries = [json.loads(line) for line in lines]
    assert [e["message"] for e in entries] == ["first line", "second\nwith a break", "third"]
    assert [e["level"] for e in entries] == ["INFO", "WARNING", "ERROR"]
    assert {e["logger"] for e in entries} == {"hideseek_chat.test"}
    assert all(
        re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", e["time"]) for e in entries
    )
    assert "ValueError: boom" in entries[2]["exc"]


def test_a_network_failure_is_one_line_without_a_traceback(restore_logging: None) -> None:
    stream = io.StringIO()
    logs.setup({}, stream=stream)
    log = logging.getLogger("hideseek_chat.test")
    for err in (TimedOut("Timed out"), NetworkError("httpx.ConnectError: refused"), TimeoutError()):
        try:
            raise err
        except Exception:
            log.error("sending failed", exc_info=True)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 3
    assert lines[0].endswith("sending failed (TimedOut: Timed out)")
    assert lines[2].endswith("sending failed (TimeoutError)")
    assert "Traceback" not in stream.getvalue()
    try:  # anything else keeps its traceback
        raise KeyError("x")
    except KeyError:
        log.error("a bug", exc_info=True)
    assert "Traceback" in stream.getvalue()


def test_libraries_stay_at_warning_at_debug(restore_logging: None) -> None:
    stream = io.StringIO()
    logs.setup({"HIDESEEK_LOG_LEVEL": "debug"}, stream=stream)
    logging.getLogger("telegram.Bot").debug("Calling Bot API endpoint with parameters {...}")
    logging.getLogger("apscheduler.executors.default").info('Running job "tick"')
    logging.getLogger("httpx").info("HTTP Request: POST https://api.telegram.org/bot123:abc/")
    logging.getLogger("hideseek_chat.test").debug("ours")
    assert stream.getvalue().splitlines()[-1].endswith("hideseek_chat.test: ours")
    assert len(stream.getvalue().splitlines()) == 1


def test_coordinate_shaped_numbers_are_masked(restore_logging: None) -> None:
    stream = io.StringIO()
    logs.setup({}, stream=stream)
    logging.getLogger("hideseek_chat.test").error("bad pin 36.12622,-97.06401 after 2.5 s")
    line = stream.getvalue()
    assert "36.12622" not in line and "97.06401" not in line and "2.5 s" in line


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"HIDESEEK_LOG_LEVEL": "loud"}, "HIDESEEK_LOG_LEVEL"),
        ({"HIDESEEK_LOG_FORMAT": "xml"}, "HIDESEEK_LOG_FORMAT"),
    ],
)
def test_bad_settings_are_one_sentence(env: dict[str, str], message: str) -> None:
    with pytest.raises(logs.LogSettingsError, match=message):
        logs.setup(env)
