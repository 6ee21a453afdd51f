"""``edge.bounded``: free texts are cut to what a platform allows before a handler sees them."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select

from hideseek_chat.chat.edge import MAX_CAPTION, MAX_NAME, MAX_TEXT, bounded
from hideseek_chat.chat.model import ChatKind, CommandIn, FileIn, PhotoIn, Sender, TextIn
from hideseek_chat.console.table import Person
from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.models import BotnetSeatRow
from tests.chat.play import new_table

AT = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)
ANN = Sender("tg:1", "Ann")


def common(sender: Sender = ANN) -> dict[str, object]:
    return {"chat": "tg:-5", "kind": ChatKind.GROUP, "sender": sender, "at": AT}


def test_what_a_person_could_send_is_left_alone() -> None:
    msg = TextIn(**common(), text="x" * MAX_TEXT)  # type: ignore[arg-type]
    assert bounded(msg) is msg


def test_a_name_is_one_printable_line_of_at_most_64() -> None:
    long = TextIn(**common(Sender("tg:1", "Ann " * 100, username="a" * 99)), text="hi")  # type: ignore[arg-type]
    sender = bounded(long).sender
    assert len(sender.name) <= MAX_NAME and sender.name.startswith("Ann Ann")
    assert sender.username == "a" * MAX_NAME
    odd = TextIn(**common(Sender("tg:1", "Ann\n\x00Smith\u202e")), text="hi")  # type: ignore[arg-type]
    assert bounded(odd).sender.name == "Ann Smith"
    blank = TextIn(**common(Sender("tg:1", "\x00\n")), text="hi")  # type: ignore[arg-type]
    assert bounded(blank).sender.name == "tg:1"


def test_texts_captions_commands_and_file_names_are_cut() -> None:
    assert len(bounded(TextIn(**common(), text="x" * 9000)).text) == MAX_TEXT  # type: ignore[arg-type,attr-defined]
    photo = bounded(PhotoIn(**common(), caption="c" * 5000))  # type: ignore[arg-type]
    assert isinstance(photo, PhotoIn) and len(photo.caption) == MAX_CAPTION
    command = bounded(CommandIn(**common(), name="team", args=("a" * 3000, "b" * 3000)))  # type: ignore[arg-type]
    assert isinstance(command, CommandIn) and command.args == ("a" * 3000,)
    file = bounded(FileIn(**common(), filename="n" * 400 + ".geojson"))  # type: ignore[arg-type]
    assert isinstance(file, FileIn) and file.filename.endswith("n.geojson")
    assert len(file.filename) == 255


def test_a_long_name_plays_botnet(uow_factory: UnitOfWorkFactory) -> None:
    """A botnet seat keeps its player's name in 128 characters: a longer name (Telegram's
    first and last name together may have 129) failed on PostgreSQL."""
    long = "Bartholomew" * 12  # 132 characters
    table = new_table(uow_factory, names=("Alice",))
    table.people["bart"] = Person("console:bart", long)
    table.send("bart", "/start", private=True)
    table.send("Alice", "/botnet")
    table.press("bart", "Accept", chat=table.group)
    with uow_factory() as uow:
        names = sorted(uow.session.scalars(select(BotnetSeatRow.name)))
    assert names == ["Alice", long[:MAX_NAME]]
