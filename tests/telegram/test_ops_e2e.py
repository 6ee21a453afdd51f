"""A whole scripted game in a Telegram group, watched as an operator watches it: every log
line at DEBUG (the libraries included, as ``hideseek_chat.logs.setup`` leaves them) holds no
coordinate, player name, station or update body, and the metrics count what happened."""

from __future__ import annotations

import io
import re
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import Engine

from hideseek_chat import logs, metrics
from hideseek_chat.store import UnitOfWorkFactory
from tests.telegram.e2e import USERS, Telegram, telegram
from tests.web.test_health import samples, serving

#: Digits of the Stillwater pins the game uses (36.12..36.14, -97.06..-97.08).
COORDINATE = re.compile(r"36\.1\d|97\.0\d")
#: What a whole update or a Bot API call's parameters look like in a log line.
UPDATE_BODY = re.compile(r"update_id|first_name|\"chat\"|'chat'|latitude|longitude|\"text\"")


@pytest.fixture
def captured(restore_logging: None) -> io.StringIO:
    """The bot's logging set-up at DEBUG, written to a string."""
    stream = io.StringIO()
    logs.setup({}, stream=stream, level="DEBUG")
    return stream


@pytest.fixture
async def tg(uow_factory: UnitOfWorkFactory) -> AsyncIterator[Telegram]:
    async with telegram(uow_factory) as tg:
        yield tg


async def test_a_whole_game_logs_nothing_personal_and_counts_itself(
    tg: Telegram, engine: Engine, captured: io.StringIO, fresh_metrics: metrics.Metrics
) -> None:
    # The round of test_game_e2e: radar, thermometer, matching, veto, a curse, end game, catch.
    from tests.telegram.test_game_e2e import STATION, test_a_whole_round_in_a_telegram_group

    await test_a_whole_round_in_a_telegram_group(tg)
    text = captured.getvalue()
    lines = text.splitlines()
    assert len(lines) > 30, "the capture saw the game (one DEBUG line per update)"
    assert any("location from u:" in line for line in lines)
    assert COORDINATE.search(text) is None, COORDINATE.search(text)
    assert UPDATE_BODY.search(text) is None, UPDATE_BODY.search(text)
    for name, user in USERS.items():
        assert name not in text
        assert f"tg:{user['id']}" not in text and f"{user['id']}," not in text
    assert STATION.casefold() not in text.casefold()

    async with serving(_routes(engine)) as client:
        page = await client.get("/metrics")
    values = samples(page.text)

    def handled(kind: str) -> float:
        return values.get(("hideseek_updates_handled_total", (("kind", kind),)), 0)

    assert handled("command") >= 10 and handled("button") >= 12 and handled("location") >= 8
    assert values[("hideseek_update_seconds_count", (("kind", "command"),))] == handled("command")
    assert values[("hideseek_sends_total", (("result", "ok"),))] > 100
    assert values[("hideseek_timer_lateness_seconds_count", ())] >= 3  # reminders, periods
    assert values[("hideseek_outbox_depth", ())] == 0
    assert values[("hideseek_active_games", (("phase", "handover"),))] == 1


def _routes(engine: Engine):  # type: ignore[no-untyped-def]
    from hideseek_chat.web.health import health_routes

    return health_routes(engine)
