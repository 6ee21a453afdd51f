"""The SMS rows' prebuilt statements (``store.sms``): built once, run as plain rows
(``store.rawrow``) by what every text does."""

from __future__ import annotations

from typing import Any

from sqlalchemy import String, bindparam, func, insert, literal, select
from sqlalchemy import cast as cast_

from hideseek_chat.store.models import PersonRow, SmsChoiceRow, SmsMessageRow, SmsNumberRow

#: The SMS channel's person refs: ``sms:17`` (``store.sms.ref_of``).
PREFIX = "sms:"


def ref_in_sql(number_id: Any) -> Any:
    """``ref_of`` in SQL: the person ref of the number whose id is the column ``number_id``."""
    return literal(PREFIX, String) + cast_(number_id, String)


# Every text reads its number's row, its person and its pending choices first, in one
# statement (a row per choice; one with no choice when none is pending): built once (as
# the admin's /status reads what a game's texts cost).
NUMBER = (
    select(
        SmsNumberRow.id,
        SmsNumberRow.number,
        SmsNumberRow.opted_out,
        SmsNumberRow.current_chat,
        SmsNumberRow.digest_minutes,
        PersonRow.ref,
        PersonRow.name,
        PersonRow.language,
        PersonRow.private_ok,
        SmsChoiceRow.position,
        SmsChoiceRow.chat,
        SmsChoiceRow.label,
        SmsChoiceRow.data,
        SmsChoiceRow.message_ref,
    )
    .outerjoin(PersonRow, PersonRow.ref == ref_in_sql(SmsNumberRow.id))
    .outerjoin(SmsChoiceRow, SmsChoiceRow.number_id == SmsNumberRow.id)
    .where(SmsNumberRow.number == bindparam("number"))
    .order_by(SmsChoiceRow.position)
)
CHOICES = (
    select(
        SmsChoiceRow.position,
        SmsChoiceRow.chat,
        SmsChoiceRow.label,
        SmsChoiceRow.data,
        SmsChoiceRow.message_ref,
    )
    .where(SmsChoiceRow.number_id == bindparam("number"))
    .order_by(SmsChoiceRow.position)
)
BY_ID = select(
    SmsNumberRow.id,
    SmsNumberRow.number,
    SmsNumberRow.opted_out,
    SmsNumberRow.current_chat,
    SmsNumberRow.digest_minutes,
).where(SmsNumberRow.id == bindparam("id"))
SENT = (  # one text counted: a prebuilt statement (a sending thread's usual batch)
    insert(SmsMessageRow)
    .values(
        sid=bindparam("sid"),
        number_id=bindparam("number_id"),
        chat_key=bindparam("chat_key"),
        segments=bindparam("segments"),
        status=bindparam("status"),
        sent_at=bindparam("sent_at"),
        delivery_id=bindparam("delivery_id"),
    )
    .returning(SmsMessageRow.id)
)
COUNTS = select(
    func.count(SmsMessageRow.id), func.coalesce(func.sum(SmsMessageRow.segments), 0)
).where(SmsMessageRow.chat_key == bindparam("chat"))
