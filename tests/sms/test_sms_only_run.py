"""An SMS-only deployment: ``hideseek-chat run`` without a Telegram token, with the SMS
gateway configured, serves the web server and the SMS channel (a subprocess against the
fake gateway); SIGTERM stops it cleanly."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from tests.sms.fakes import ACCOUNT, BOT_NUMBER, TOKEN, FakeGateway, signed
from tests.telegram.processes import PATIENCE, free_port, wait_until

ALICE, BOB = "+41791234561", "+41791234562"


def test_run_without_telegram_serves_the_sms_channel(
    tmp_path: Path, gateway: FakeGateway
) -> None:
    web = free_port()
    public = f"http://127.0.0.1:{web}"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HIDESEEK_", "TELEGRAM_", "TWILIO_", "SMS_"))
    }
    env.update(
        TWILIO_ACCOUNT_SID=ACCOUNT,
        TWILIO_AUTH_TOKEN=TOKEN,
        SMS_FROM=BOT_NUMBER,
        SMS_PUBLIC_URL=public,
        SMS_API_URL=gateway.url,
        HIDESEEK_DATA_DIR=str(tmp_path),
        PORT=str(web),
        HOST="127.0.0.1",
        PYTHONPATH=str(Path(__file__).resolve().parents[2]),
    )
    env.pop("DATABASE_URL", None)
    log = tmp_path / "bot.log"
    count = 0

    def text(number: str, body: str) -> None:
        nonlocal count
        count += 1
        form = {"MessageSid": f"SM{count:032d}", "From": number, "To": BOT_NUMBER, "Body": body}
        form["NumMedia"] = "0"
        reply = httpx.post(f"{public}/sms", data=form, headers=signed(f"{public}/sms", form))
        assert reply.status_code == 200

    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "hideseek_chat", "run"],
            env=env,
            cwd=tmp_path,  # no .env of the checkout
            stdout=out,
            stderr=out,
        )
    try:

        def healthy() -> bool:
            try:
                return httpx.get(f"{public}/healthz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return process.poll() is not None

        wait_until(healthy, "the web server")
        assert process.poll() is None, log.read_text()
        text(ALICE, "NEW small metric")
        wait_until(lambda: any("code is" in t for t in gateway.to(ALICE)), "the join code")
        found = re.search(r"code is ([A-Z0-9]{4})", "\n".join(gateway.to(ALICE)))
        assert found is not None
        text(BOB, f"JOIN {found.group(1)}")
        # The announcement goes through the outbox and the drive loop, to Alice too.
        wait_until(lambda: any("joined" in t for t in gateway.to(ALICE)), "the announcement")
        # A tracker link for continuous pins: handed out by text, served by the same server.
        text(BOB, "TRACKER")
        link = re.compile(re.escape(public) + r"/trackers/[A-Za-z0-9_-]+/traccar")

        def tracker_link() -> str | None:
            found = link.search("\n".join(gateway.to(BOB)))
            return found.group(0) if found else None

        wait_until(lambda: tracker_link() is not None, "the tracker link")
        url = tracker_link()
        assert url is not None
        ping = {"id": "phone", "lat": "47.3769", "lon": "8.5417", "timestamp": "1770000000"}
        assert httpx.post(url, params=ping).status_code == 200
        assert httpx.post(url.replace("/trackers/", "/trackers/x"), params=ping).status_code == 401
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=PATIENCE) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    logged = log.read_text()
    assert "Traceback" not in logged and "TELEGRAM_BOT_TOKEN" not in logged
    assert ALICE not in logged and BOB not in logged
