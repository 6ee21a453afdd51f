"""A channel without a network: people at a table typing into the conversation.

``Table`` turns "alice says /ask radar 1km", "bob shares a live location" and "carol
presses the button labelled Yes" into inbound messages with simulated time, performs the
outbound actions into per-chat transcripts, and advances time with ``wait``. The demo,
the console, ``simulate`` and the tests all play through it.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from hideseek_chat.chat.conversation import Conversation
from hideseek_chat.chat.drive import Capabilities, Driver, run_sync
from hideseek_chat.chat.model import (
    STATUS_SLOT,
    AnswerButton,
    Button,
    ButtonIn,
    ChatKind,
    CommandIn,
    DeleteMessage,
    EditButtons,
    FileIn,
    Inbound,
    LocationIn,
    Outbound,
    PhotoIn,
    Sender,
    SendFile,
    SendText,
    TextIn,
)

GROUP = "console:group"
#: What the console can show: everything but pictures and a button that sends a location
#: (a person at the table shares one with ``pin``).
CAPABILITIES = Capabilities(pictures=False, location_button=False, pin_messages=False)


@dataclass
class Line:
    """One message in a transcript."""

    id: int
    at: datetime
    chat: str
    text: str
    buttons: tuple[tuple[Button, ...], ...] = ()
    author: str = "bot"
    photo_ref: str | None = None
    deleted: bool = False
    slot: str | None = None
    #: what the line is: "text" (a message or command), "pin", "live" (a live-location
    #: update), "photo", "file" or "press" (``text`` is the pressed button's label)
    kind: str = "text"
    #: the answer a press got (the channel's toast), for "press" lines
    toast: str | None = None
    #: a channel-side remark printed with the line (e.g. the street a pin is on)
    note: str | None = None
    #: the line this one replaced: the bot edited that message into this one (the old
    #: line loses its buttons, and a transcript prints the new text as it appears)
    edit_of: int | None = None
    #: the bytes the bot sent with it: a picture (on a table that shows pictures) or a
    #: file (``kind`` "file", its name in ``note``)
    content: bytes | None = None


@dataclass
class Person:
    ref: str
    name: str
    private_open: bool = True


class ButtonNotFound(LookupError):
    pass


@dataclass
class Table:
    """Players in one group chat and their private chats with the bot."""

    conversation: Conversation
    now: datetime
    group: str = GROUP
    #: the group's name, as a channel tells it with each group message (None: untold)
    title: str | None = None
    people: dict[str, Person] = field(default_factory=dict)
    lines: list[Line] = field(default_factory=list)
    toasts: list[tuple[str, str]] = field(default_factory=list)
    #: every text the pinned status message had, in order (its line keeps only the last);
    #: ``id`` is the newest line when it was written
    status_log: list[Line] = field(default_factory=list)
    #: every text a kept message other than the status had (a map job's progress), in order
    slot_log: list[Line] = field(default_factory=list)
    tick_every: timedelta = timedelta(seconds=30)
    #: person refs are ``<ref_prefix>:<name>``; another prefix keeps two tables apart in
    #: one database
    ref_prefix: str = "console"
    _next_id: int = 1
    _status: dict[str, int] = field(default_factory=dict)
    #: each edited line's id -> the id of the message it first was
    _edits: dict[int, int] = field(default_factory=dict)
    _live: set[tuple[str, str]] = field(default_factory=set)
    _pressing: Line | None = None
    _driver: Driver | None = None
    #: a table shows no pictures: a board comes as its fixed-width text
    capabilities: Capabilities = field(default=CAPABILITIES)

    # ----- people -----

    def person(self, name: str, *, private_open: bool = True) -> Person:
        """Seat ``name`` at the table (refs are ``<ref_prefix>:<name>``)."""
        key = name.lower()
        if key not in self.people:
            self.people[key] = Person(f"{self.ref_prefix}:{key}", name, private_open)
            if private_open:
                self.send(name, "/start", private=True)
        return self.people[key]

    def _who(self, name: str) -> Person:
        return self.person(name)

    # ----- doing things -----

    def send(self, name: str, text: str, *, private: bool = False) -> list[Outbound]:
        """``name`` types ``text`` in the group (or privately): a command or plain text."""
        who = self._who(name)
        chat, kind = (who.ref, ChatKind.PRIVATE) if private else (self.group, ChatKind.GROUP)
        message_ref = self._log(chat, text, author=who.name)
        sender = Sender(who.ref, who.name, username=_handle(who))
        update_id = f"{self.ref_prefix}:{message_ref}"
        title = None if private else self.title
        msg: Inbound
        if text.startswith("/"):
            parts = _split(text[1:])
            name_part = parts[0].split("@", 1)[0].lower() if parts else ""
            msg = CommandIn(
                chat,
                kind,
                sender,
                self.now,
                update_id,
                str(message_ref),
                chat_title=title,
                name=name_part,
                args=tuple(parts[1:]),
            )
        else:
            msg = TextIn(
                chat,
                kind,
                sender,
                self.now,
                update_id,
                str(message_ref),
                chat_title=title,
                text=text,
            )
        return self.deliver(msg)

    def pin(
        self,
        name: str,
        lat: float,
        lon: float,
        *,
        live: bool = True,
        private: bool = False,
        accuracy_m: float | None = 10.0,
        edited: bool | None = None,
        forwarded: bool = False,
        note: str | None = None,
    ) -> list[Outbound]:
        """``name`` shares a (live) location; later live calls in a chat are its edits.

        ``edited`` None means: an edit when ``name`` already shares a live location there.
        """
        who = self._who(name)
        chat, kind = (who.ref, ChatKind.PRIVATE) if private else (self.group, ChatKind.GROUP)
        if edited is None:
            edited = live and (chat, who.ref) in self._live
        if live:
            self._live.add((chat, who.ref))
        message_ref = self._log(
            chat,
            f"📍 {lat:.5f}, {lon:.5f}",
            author=who.name,
            kind="live" if live else "pin",
            note=note,
        )
        msg = LocationIn(
            chat=chat,
            kind=kind,
            sender=Sender(who.ref, who.name, username=_handle(who)),
            at=self.now,
            update_id=f"{self.ref_prefix}:{message_ref}",
            message_ref=str(message_ref),
            lat=lat,
            lon=lon,
            accuracy_m=accuracy_m,
            live=live,
            edited=bool(edited),
            forwarded=forwarded,
        )
        return self.deliver(msg)

    def photo(
        self, name: str, file_ref: str, *, private: bool = True, caption: str = ""
    ) -> list[Outbound]:
        """``name`` sends a photo (with ``caption`` written under it)."""
        who = self._who(name)
        chat, kind = (who.ref, ChatKind.PRIVATE) if private else (self.group, ChatKind.GROUP)
        shown = f"🖼 {file_ref}\n{caption}" if caption else f"🖼 {file_ref}"
        message_ref = self._log(chat, shown, author=who.name, photo_ref=file_ref, kind="photo")
        msg = PhotoIn(
            chat=chat,
            kind=kind,
            sender=Sender(who.ref, who.name, username=_handle(who)),
            at=self.now,
            update_id=f"{self.ref_prefix}:{message_ref}",
            message_ref=str(message_ref),
            file_ref=file_ref,
            caption=caption,
        )
        return self.deliver(msg)

    def upload(self, name: str, filename: str, content: bytes) -> list[Outbound]:
        who = self._who(name)
        message_ref = self._log(self.group, f"📎 {filename}", author=who.name, kind="file")
        msg = FileIn(
            chat=self.group,
            kind=ChatKind.GROUP,
            sender=Sender(who.ref, who.name, username=_handle(who)),
            at=self.now,
            update_id=f"{self.ref_prefix}:{message_ref}",
            message_ref=str(message_ref),
            filename=filename,
            size=len(content),
            content=content,
        )
        return self.deliver(msg)

    def press(self, name: str, label: str, *, chat: str | None = None) -> list[Outbound]:
        """``name`` presses the newest button whose label contains ``label`` in a chat they see."""
        for line, button in self.buttons(name, chat=chat):
            if label.lower() in button.label.lower():
                return self.press_data(name, button.data, line, label=button.label)
        raise ButtonNotFound(f"{name} sees no button labelled {label!r}")

    def buttons(self, name: str, *, chat: str | None = None) -> list[tuple[Line, Button]]:
        """The callback buttons ``name`` sees (their private chat and the group), newest first."""
        who = self._who(name)
        chats = [self._chat_key(chat)] if chat else [who.ref, self.group]
        found: list[tuple[Line, Button]] = []
        for line in reversed(self.lines):
            if line.chat not in chats or line.deleted or line.author != "bot":
                continue
            for row in line.buttons:
                found.extend((line, button) for button in row if not button.private_link)
        return found

    def press_data(
        self, name: str, data: str, line: Line | None = None, *, label: str | None = None
    ) -> list[Outbound]:
        """``name`` presses a button with ``data`` under ``line`` (a press is logged there)."""
        who = self._who(name)
        chat = line.chat if line else who.ref
        kind = ChatKind.PRIVATE if chat == who.ref else ChatKind.GROUP
        if label is None and line is not None:
            label = next((b.label for row in line.buttons for b in row if b.data == data), None)
        pressed = self._log(chat, label or data, author=who.name, kind="press")
        msg = ButtonIn(
            chat=chat,
            kind=kind,
            sender=Sender(who.ref, who.name, username=_handle(who)),
            at=self.now,
            update_id=f"{self.ref_prefix}:press:{pressed}",
            message_ref=str(line.id) if line else None,
            data=data,
            press_ref=f"press{pressed}",
        )
        self._pressing = self.lines[-1]
        try:
            return self.deliver(msg)
        finally:
            self._pressing = None

    def wait(self, span: timedelta) -> None:
        """Let ``span`` of game time pass, firing timers as they fall due."""
        end = self.now + span
        while self.now < end:
            self.now = min(end, self.now + self.tick_every)
            run_sync(self.driver.on_tick())

    # ----- the bot's side: the shared drive loop, with this table as its channel -----

    @property
    def driver(self) -> Driver:
        if self._driver is None:
            self._driver = Driver(self.conversation, self, lambda: self.now, jobs_inline=True)
        return self._driver

    def deliver(self, msg: Inbound) -> list[Outbound]:
        """Hand ``msg`` to the drive loop; its replies and the announcements are performed."""
        return run_sync(self.driver.on_message(msg))

    def flush(self) -> None:
        """Send what the outbox holds."""
        run_sync(self.driver.drain())

    async def perform(self, actions: Sequence[Outbound], now: datetime) -> bool:
        """Write ``actions`` into the transcripts (the table never fails to deliver)."""
        self.record(actions)
        return True

    def record(self, actions: Sequence[Outbound]) -> None:
        """Write ``actions`` into the transcripts."""
        for action in actions:
            if isinstance(action, SendText):
                if action.slot is not None:
                    self._edit_status(action)
                    continue
                # No pictures here: the fixed-width block stands in for one.
                body = f"{action.text}\n{action.pre}" if action.pre else action.text
                edited = self._edited(action)
                line_id = self._log(
                    action.to, body, buttons=action.buttons, photo_ref=action.photo_ref
                )
                self.lines[-1].content = action.image
                if edited is not None:
                    self.lines[-1].edit_of = edited.id
                    self._edits[line_id] = self._edits.get(edited.id, edited.id)
            elif isinstance(action, SendFile):
                # The console prints a line for the file: its name, size and caption.
                self._log(action.to, action.caption, kind="file", note=action.filename)
                self.lines[-1].content = action.content
            elif isinstance(action, DeleteMessage):
                for line in self.lines:
                    if str(line.id) == action.message_ref and line.chat == action.to:
                        line.deleted = True
            elif isinstance(action, EditButtons):
                for line in self.lines:
                    if str(line.id) == action.message_ref and line.chat == action.to:
                        line.buttons = action.buttons
            elif isinstance(action, AnswerButton):
                self.toasts.append((action.to, action.text))
                if self._pressing is not None and self._pressing.toast is None:
                    self._pressing.toast = action.text

    def _edited(self, action: SendText) -> Line | None:
        """The bot's line ``action`` edits, which loses its buttons (None: a new message)."""
        if action.edit_ref is None:
            return None
        for line in self.lines:
            if str(line.id) == action.edit_ref and line.chat == action.to and not line.deleted:
                if line.author != "bot":
                    return None
                line.buttons = ()
                return line
        return None

    def original(self, line: Line) -> int:
        """The id of the message ``line`` is (an edit's first version's id)."""
        return self._edits.get(line.id, line.id)

    def _edit_status(self, action: SendText) -> None:
        """The message kept in ``action.slot`` (the pinned status, a map job's progress),
        edited in place, text and buttons; sent when there is none yet."""
        slot = action.slot or STATUS_SLOT
        if slot == STATUS_SLOT:
            self.status_log.append(Line(self.mark(), self.now, action.to, action.text, slot=slot))
        else:
            self.slot_log.append(Line(self.mark(), self.now, action.to, action.text, slot=slot))
        line_id = self._status.get(f"{action.to} {slot}")
        if line_id is not None and action.opens_slot:
            return
        for line in self.lines:
            if line.id == line_id:
                line.text = action.text
                line.buttons = action.buttons
                return
        if action.transient:
            return
        self._status[f"{action.to} {slot}"] = self._log(
            action.to, action.text, buttons=action.buttons, slot=slot
        )

    def _log(
        self,
        chat: str,
        text: str,
        *,
        author: str = "bot",
        buttons: tuple[tuple[Button, ...], ...] = (),
        photo_ref: str | None = None,
        slot: str | None = None,
        kind: str = "text",
        note: str | None = None,
    ) -> int:
        line = Line(
            self._next_id,
            self.now,
            chat,
            text,
            buttons,
            author,
            photo_ref,
            slot=slot,
            kind=kind,
            note=note,
        )
        self._next_id += 1
        self.lines.append(line)
        return line.id

    # ----- reading -----

    def said(self, chat: str | None = None, *, since: int = 0, bot_only: bool = True) -> list[Line]:
        """Lines in ``chat`` (a person's name for their private chat; default the group)."""
        key = self.group if chat is None else self._chat_key(chat)
        return [
            line
            for line in self.lines
            if line.chat == key and line.id > since and (line.author == "bot" or not bot_only)
        ]

    def last(self, chat: str | None = None) -> str:
        lines = self.said(chat)
        return lines[-1].text if lines else ""

    def _chat_key(self, chat: str) -> str:
        if chat == self.group or chat.startswith(f"{self.ref_prefix}:"):
            return chat
        return self._who(chat).ref

    def mark(self) -> int:
        """The id of the newest line, to read only what comes after it."""
        return self.lines[-1].id if self.lines else 0


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _handle(who: Person) -> str:
    """A person's public handle at the table: their key (``alice`` for Alice)."""
    return who.ref.split(":", 1)[-1]
