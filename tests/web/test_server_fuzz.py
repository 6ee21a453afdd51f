"""The webhook answers garbage with 4xx, never 500, and hands on only real updates
(hypothesis drives bodies and headers through the ASGI application itself)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hideseek_chat.web.server import (
    MAX_BODY_BYTES,
    MAX_UPDATE_ID,
    SECRET_HEADER,
    make_app,
    telegram_route,
)

SECRET = "s3cret"
received: list[dict[str, Any]] = []


async def receive(update: dict[str, Any]) -> None:
    received.append(update)


APP = make_app([telegram_route("/hook", SECRET, receive)])


class Answer:
    status_code = 0


def post(body: bytes, secret: str) -> Answer:
    """POST ``body`` to the webhook through the ASGI interface; the answer's status."""
    answer = Answer()
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/hook",
        "raw_path": b"/hook",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (SECRET_HEADER.lower().encode(), secret.encode()),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    chunks = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive_asgi() -> dict[str, Any]:
        return chunks.pop(0) if chunks else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answer.status_code = message["status"]

    asyncio.run(APP(scope, receive_asgi, send))  # type: ignore[arg-type]
    return answer


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=10,
)
bodies = st.one_of(
    st.binary(max_size=200),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.dictionaries(st.sampled_from(["update_id", "message", "x"]), json_values).map(
        lambda v: json.dumps(v).encode()
    ),
    st.sampled_from([b"", b"{", b"NaN", b'{"update_id": NaN}', b'{"update_id": 1e400}']),
    st.integers(-(2**80), 2**80).map(lambda n: json.dumps({"update_id": n}).encode()),
)


@settings(
    max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(bodies, st.sampled_from([SECRET, "", "wrong"]))
def test_any_body_gets_an_answer_and_only_updates_are_handed_on(body: bytes, secret: str) -> None:
    received.clear()
    answer = post(body, secret)
    if secret != SECRET:
        assert answer.status_code == 403
    elif answer.status_code == 200:
        [update] = received
        assert isinstance(update["update_id"], int) and 0 <= update["update_id"] <= MAX_UPDATE_ID
    else:
        assert answer.status_code == 400 and received == []


def test_a_body_over_the_cap_is_413() -> None:
    received.clear()
    body = b'{"update_id": 1, "x": "' + b"a" * MAX_BODY_BYTES + b'"}'
    answer = post(body, SECRET)
    assert answer.status_code == 413 and received == []


def test_an_update_id_too_large_to_store_is_refused() -> None:
    """The inbox keeps ``tg:<id>`` in 64 characters: a larger id could not be stored."""
    received.clear()
    for update_id in (MAX_UPDATE_ID + 1, 10**70):
        answer = post(json.dumps({"update_id": update_id}).encode(), SECRET)
        assert answer.status_code == 400 and received == []
    assert post(json.dumps({"update_id": MAX_UPDATE_ID}).encode(), SECRET).status_code == 200
