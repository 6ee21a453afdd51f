"""Hostile input at the SMS webhook: forged or missing signatures, huge bodies, malformed
forms and media counts, unknown and invalid numbers, a flood from one number. Each is
answered without changing anything it should not."""

from __future__ import annotations

import asyncio

from sqlalchemy import func, select

from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.models import InboxRow, SmsNumberRow
from hideseek_chat.web.sms import MAX_BODY_BYTES
from tests.sms.conftest import sms_bot
from tests.sms.fakes import TOKEN, FakeGateway, signed

BOB = "+41791234562"


def _form(body: str = "NEW small", sid: str = "SMaaaa", sender: str = BOB) -> dict[str, str]:
    return {"MessageSid": sid, "From": sender, "To": "+41790000000", "Body": body, "NumMedia": "0"}


def _rows(uow_factory: UnitOfWorkFactory) -> tuple[int, int]:
    with uow_factory() as uow:
        inbox = uow.session.scalar(select(func.count(InboxRow.id))) or 0
        numbers = uow.session.scalar(select(func.count(SmsNumberRow.id))) or 0
        return inbox, numbers


async def test_forged_missing_and_wrong_signatures_get_403_and_change_nothing(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        client, url = bot.phones.client, bot.phones.url
        form = _form()
        attempts = [
            {},  # no signature
            signed(url, form, token="not-the-token"),  # another account's
            signed(url, {**form, "Body": "JOIN ABCD"}, token=TOKEN),  # another form's
            signed(url.replace("/sms", "/other"), form, token=TOKEN),  # another URL's
            {"X-Twilio-Signature": "x" * 500},
            {
                **signed(url, form),
                "X-Twilio-Webhooks-Signature-Settings": "key=k,algorithm=HMAC_MD5",
            },
        ]
        for headers in attempts:
            response = await client.post("/sms", data=form, headers=headers)
            assert response.status_code == 403
            assert "NEW" not in response.text
        status = {"MessageSid": "SMaaaa", "MessageStatus": "delivered"}
        response = await client.post("/sms/status", data=status)
        assert response.status_code == 403
        await bot.phones.settle()  # type: ignore[misc]
        assert _rows(uow_factory) == (0, 0)
        assert gateway.sent == []

        # A URL with a query is signed with its query.
        queried = f"{url}?app=hideseek"
        response = await client.post("/sms?app=hideseek", data=form, headers=signed(url, form))
        assert response.status_code == 403
        response = await client.post(
            "/sms?app=hideseek", data=_form(sid="SMq"), headers=signed(queried, _form(sid="SMq"))
        )
        assert response.status_code == 200
        await bot.phones.settle()  # type: ignore[misc]
        assert _rows(uow_factory) == (1, 1)

        # The same form signed right is taken.
        response = await client.post("/sms", data=form, headers=signed(url, form))
        assert response.status_code == 200
        await bot.phones.settle()  # type: ignore[misc]
        assert _rows(uow_factory) == (2, 1)


async def test_huge_bodies_malformed_forms_and_media_are_refused(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        client, url = bot.phones.client, bot.phones.url
        huge = _form(body="x" * (MAX_BODY_BYTES + 10))
        response = await client.post("/sms", data=huge, headers=signed(url, huge))
        assert response.status_code == 413
        for bad in (
            {**_form(), "NumMedia": "many"},
            {**_form(), "NumMedia": "9999"},
            {**_form(), "NumMedia": "1", "MediaUrl0": "javascript:alert(1)"},
            {**_form(), "NumMedia": "1"},  # a medium without its URL
            {**_form(), "NumMedia": "1", "MediaUrl0": "https://x/" + "a" * 600},
            {**_form(), "MessageSid": "SM<script>"},
            {**_form(), "MessageSid": ""},
            {k: v for k, v in _form().items() if k != "From"},
        ):
            response = await client.post("/sms", data=bad, headers=signed(url, bad))
            assert response.status_code == 400, bad
        raw = b"\xff\xfe=%%%"
        response = await client.post(
            "/sms",
            content=raw,
            headers={"X-Twilio-Signature": "abc", "content-type": "x-www-form-urlencoded"},
        )
        assert response.status_code == 400
        twice = "MessageSid=SMa&MessageSid=SMb&From=%2B41791234562&Body=hi"
        response = await client.post(
            "/sms",
            content=twice.encode(),
            headers={"X-Twilio-Signature": "abc", "content-type": "x-www-form-urlencoded"},
        )
        assert response.status_code == 400
        # A photo alone gets a clear answer; its URL is never fetched or echoed.
        photo = {**_form(body="", sid="SMphoto"), "NumMedia": "1", "MediaUrl0": "http://x/y"}
        response = await client.post("/sms", data=photo, headers=signed(url, photo))
        assert response.status_code == 200
        await bot.phones.settle()  # type: ignore[misc]
        assert "only take photos" in bot.phones.last(BOB)
        assert all("http://x/y" not in s.body for s in gateway.sent)


async def test_invalid_numbers_are_ignored_and_a_flood_is_applied_once_each_in_order(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    async with sms_bot(uow_factory, gateway) as bot:
        phones = bot.phones
        for sender in ("not-a-number", "+999", "12"):
            form = _form(sender=sender, sid=f"SM{abs(hash(sender))}")
            response = await phones.client.post("/sms", data=form, headers=signed(phones.url, form))
            assert response.status_code == 200  # the gateway must not retry it
        await phones.settle()  # type: ignore[misc]
        assert _rows(uow_factory) == (0, 0)
        assert gateway.sent == []

        # A flood: 40 texts from one number at once, then the same 40 again.
        forms = [_form(body=f"NAME Bob{i}", sid=f"SMflood{i:04d}") for i in range(40)]

        async def post(form: dict[str, str]) -> int:
            response = await phones.client.post("/sms", data=form, headers=signed(phones.url, form))
            return response.status_code

        codes = await asyncio.gather(*(post(form) for form in forms + forms))
        assert set(codes) == {200}
        await phones.settle()  # type: ignore[misc]
        replies = phones.said(BOB)
        assert len(replies) == 40  # each text once
        assert _rows(uow_factory) == (40, 1)
        # Applied in the order they were stored (their inbox ids), whatever that was.
        with uow_factory() as uow:
            stored = uow.session.scalars(select(InboxRow.update_id).order_by(InboxRow.id)).all()
            last = uow.chats.name_of("sms:1")
        applied = [reply.split("see you as ", 1)[1].split(",", 1)[0] for reply in replies]
        assert applied == [f"Bob{int(sid.removeprefix('sms:SMflood'))}" for sid in stored]
        assert last == applied[-1]


async def test_a_gateway_that_is_down_delays_an_announcement_and_never_doubles_it(
    uow_factory: UnitOfWorkFactory, gateway: FakeGateway
) -> None:
    from datetime import timedelta

    carol, alice = "+41791234563", "+41791234561"
    async with sms_bot(uow_factory, gateway) as bot:
        phones = bot.phones
        await phones.text(alice, "NEW small metric")
        code = phones.said(alice)[0].split("code is ", 1)[1][:4]
        await phones.text(BOB, f"JOIN {code}")
        gateway.fail = 1  # the announcement's first text: the gateway is down
        await phones.text(carol, f"JOIN {code}")
        joined = [t for t in phones.said(alice) if "3 teams" in t]
        assert joined == []
        await bot.wait(timedelta(seconds=30))  # the tick drains the outbox again
        for number in (alice, BOB, carol):
            assert len([t for t in phones.said(number) if "3 teams" in t]) == 1, number
        # A number the gateway refuses for good is counted as failed; the others get it.
        gateway.fail, gateway.fail_status = 1, 400
        await phones.text(alice, "begin")
        with uow_factory() as uow:
            from hideseek_chat.store.models import SmsMessageRow

            statuses = uow.session.scalars(select(SmsMessageRow.status)).all()
        assert "failed" in statuses
        assert any("The game is on" in t for t in phones.said(carol))
