"""The gateway client on its own (``sms.gateway``): what reaches the fake Messages API (basic
auth, the form, an MMS's image, the status callback), and each failure told as permanent or
worth another try: 4xx, 429, 5xx, nobody listening, a gateway that does not answer."""

from __future__ import annotations

import socket
import threading

import pytest

from hideseek_chat.sms.gateway import Gateway, GatewayError, GatewaySettings
from tests.sms.fakes import ACCOUNT, BOT_NUMBER, MEDIA_AUTH, TOKEN, FakeGateway, free_port

TO = "+41791234567"


def settings(url: str, status_url: str | None = None) -> GatewaySettings:
    return GatewaySettings(ACCOUNT, TOKEN, BOT_NUMBER, status_url=status_url, base_url=url)


def test_a_text_and_an_mms_reach_the_api_as_twilio_sends_them(gateway: FakeGateway) -> None:
    client = Gateway(settings(gateway.url, "https://bot.example.org/sms/status"))
    first = client.send(TO, "Ça marche: 5 € & 10 %")
    second = client.send(TO, "the photo", photo="https://bot.example.org/media/x.jpg")
    assert first != second and first.startswith("SM")
    assert gateway.auth_seen == {MEDIA_AUTH}  # the account's basic auth
    text, mms = gateway.sent
    assert (text.to, text.body) == (TO, "Ça marche: 5 € & 10 %")
    assert text.status_callback == "https://bot.example.org/sms/status"
    assert text.media is None and mms.media == "https://bot.example.org/media/x.jpg"


@pytest.mark.parametrize(("status", "permanent"), [(400, True), (429, False), (503, False)])
def test_a_refusal_says_whether_trying_again_can_help(
    gateway: FakeGateway, status: int, permanent: bool
) -> None:
    gateway.fail, gateway.fail_status = 1, status
    with pytest.raises(GatewayError) as refused:
        Gateway(settings(gateway.url)).send(TO, "hello")
    assert refused.value.permanent is permanent
    assert str(status) in str(refused.value) and "hello" not in str(refused.value)


def test_nobody_listening_is_worth_another_try() -> None:
    with pytest.raises(GatewayError) as failed:
        Gateway(settings(f"http://127.0.0.1:{free_port()}")).send(TO, "hello")
    assert failed.value.permanent is False


def test_a_gateway_that_never_answers_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    accepted: list[socket.socket] = []
    threading.Thread(target=lambda: accepted.append(silent.accept()[0]), daemon=True).start()
    monkeypatch.setattr("hideseek_chat.sms.gateway.TIMEOUT", 0.3)
    gateway = Gateway(settings(f"http://127.0.0.1:{silent.getsockname()[1]}"))
    try:
        with pytest.raises(GatewayError) as failed:
            gateway.send(TO, "hello")
        assert failed.value.permanent is False
    finally:
        for sock in (*accepted, silent):
            sock.close()
