"""What a channel hands the conversation and what it gets back: plain values, no I/O.

A channel adapter (Telegram, the console, SMS) turns its updates into ``Inbound`` values,
passes them to ``Conversation.handle`` and performs the ``Outbound`` actions it gets back.
Chats and people are named by channel-prefixed keys: ``tg:-100123`` for a group,
``tg:42`` for a person (whose private chat with the bot has the same key).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class ChatKind(StrEnum):
    GROUP = "group"
    PRIVATE = "private"


@dataclass(frozen=True)
class BotRights:
    """What the bot may see and do in a group, as its channel reports it (plain facts).

    ``sees_all``: every message of the group reaches the bot (on Telegram: privacy mode
    off, or the bot is an admin); without it, live locations and files sent in the group
    are never seen. ``delete_messages``: a hider's location posted in the group can be
    removed. ``pin_messages``: the game's status stays on top."""

    sees_all: bool = True
    admin: bool = False
    delete_messages: bool = False
    pin_messages: bool = False


@dataclass(frozen=True)
class Sender:
    ref: str  # "tg:42"
    name: str  # how the group knows them
    language: str | None = None  # their app's language (IETF tag such as "de-AT"), if known
    username: str | None = None  # their public handle without the "@", if they have one


@dataclass(frozen=True)
class Inbound:
    """Something a person did in a chat. ``update_id`` makes a redelivery harmless."""

    chat: str  # the chat's key; for a private chat, the person's ref
    kind: ChatKind
    sender: Sender
    at: datetime  # aware UTC, when the channel says it happened
    update_id: str | None = None
    message_ref: str | None = None  # the channel's id of the message, to delete or edit it
    #: a group's name on its channel, when it tells it (keyword-only: after a kind's fields)
    chat_title: str | None = field(default=None, kw_only=True)
    #: the thread of a group it came from (a Telegram forum topic's id); None: the group's
    #: main thread, or a channel without threads
    topic: str | None = field(default=None, kw_only=True)
    #: what the bot may do in the group, when the channel looked (``routes.wants_rights``);
    #: None: not looked up
    bot_rights: BotRights | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class CommandIn(Inbound):
    """``/name arg arg``; ``name`` lower-case, without the slash or a ``@botname``."""

    name: str = ""
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class TextIn(Inbound):
    text: str = ""


@dataclass(frozen=True)
class LocationIn(Inbound):
    lat: float = 0.0
    lon: float = 0.0
    accuracy_m: float | None = None
    live: bool = False  # part of a live location (the first message or an edit)
    live_ended: bool = False  # the person stopped sharing
    edited: bool = False
    forwarded: bool = False
    #: when the channel says this version of the message was made (Telegram: an edit's
    #: ``edit_date``, else the message's ``date``); with ``message_ref`` it names the version,
    #: so a redelivered edit is stored once and a late older one never moves the player
    sent_at: datetime | None = None


@dataclass(frozen=True)
class TrackerIn(LocationIn):
    """A GPS tracker app's ping (``web.trackers``): a live location of ``sender`` in their
    private chat, taken at ``at`` (the device's time, also its ``sent_at``).

    ``device_ref`` names the tracker, so the same device and time are stored once; ``app``
    is which app sent it ("owntracks", "traccar", "gpslogger"); ``speed_kmh`` is what the
    device measured, if it says. The person hears nothing back for a ping.
    """

    app: str = ""
    device_ref: str = ""
    speed_kmh: float | None = None


@dataclass(frozen=True)
class ButtonIn(Inbound):
    """A press of a button the bot sent; ``data`` is the button's ``data``.

    ``press_ref`` is the channel's id of the press (Telegram's callback query id), which
    ``AnswerButton`` acknowledges; ``message_ref`` is the message the button was under.
    """

    data: str = ""
    press_ref: str = ""


@dataclass(frozen=True)
class FileIn(Inbound):
    """A document; the adapter downloads ``content`` only when ``size`` is within limits."""

    filename: str = ""
    size: int = 0
    content: bytes | None = None


@dataclass(frozen=True)
class PhotoIn(Inbound):
    """A photo; ``file_ref`` lets the channel send the same photo again."""

    file_ref: str = ""
    caption: str = ""


class Membership(StrEnum):
    """What happened to the bot's membership of a group."""

    ADDED = "added"  # the bot was added to the group (or came back)
    REMOVED = "removed"  # the bot was removed from the group, or the group is gone


@dataclass(frozen=True)
class MembershipIn(Inbound):
    """The bot was added to or removed from the group ``chat``; ``sender`` did it."""

    change: Membership = Membership.ADDED


# ----- what the conversation wants done -----


@dataclass(frozen=True)
class Button:
    """A button under a message: presses come back as ``ButtonIn(data=...)``.

    ``private_link`` asks the channel for a button that opens the person's private chat
    with the bot (a deep link on Telegram) instead of a callback. ``share_location`` asks
    for a button that sends the presser's current location, which comes back as a
    ``LocationIn`` (Telegram: a reply-keyboard button, private chats only); a channel that
    cannot offer one leaves it out (``drive.Capabilities.location_button``).
    """

    label: str
    data: str = ""
    private_link: bool = False
    share_location: bool = False


@dataclass(frozen=True)
class Outbound:
    to: str  # a chat key or a person's ref (their private chat)


#: The slot of the group's pinned status (``SendText.slot``, ``Unpin.slot``).
STATUS_SLOT = "status"


@dataclass(frozen=True)
class SendText(Outbound):
    text: str = ""
    buttons: tuple[tuple[Button, ...], ...] = ()
    photo_ref: str | None = None  # relay this photo with ``text`` as its caption
    reply_to: str | None = None
    #: A message the bot keeps editing: edit the one stored for the chat and slot
    #: (``Conversation.status_ref``) or, if there is none, send it and report its id with
    #: ``Conversation.remember_status``. "status" is the group's pinned status (pinned
    #: when sent); "map-job-N" is map job N's one message (its progress, then its outcome).
    slot: str | None = None
    #: only worth showing as an edit of its ``slot`` (a download's progress): a channel
    #: that cannot edit leaves it out instead of sending one message per step
    transient: bool = False
    #: the first message of its ``slot`` ("Looking up…"): sent only while the slot holds
    #: none, so that it never replaces what the job already said (it may run at once)
    opens_slot: bool = False
    private: bool = field(default=False)  # sent to a person, not a group
    #: a block of fixed-width text (a board) shown after ``text``
    pre: str = ""
    #: a PNG that says what ``pre`` says: a channel that can show pictures sends it with
    #: ``text`` as its caption instead of ``pre``
    image: bytes | None = None
    #: the thread of the group to send to, overriding the game's (``Conversation.topic_of``):
    #: "" the group's main thread; None the thread the group's game lives in
    topic: str | None = None
    #: the channel's id of a message of the bot in this chat (a menu whose button was
    #: pressed) to replace, text and buttons, instead of sending a new one; a channel that
    #: cannot edit, or a message that can no longer be edited, gets a new message
    edit_ref: str | None = None


@dataclass(frozen=True)
class SendFile(Outbound):
    """A document (the seekers' map as GeoJSON): ``content`` named ``filename``, with
    ``caption``. A channel that cannot send files says ``fallback`` instead
    (``drive.Capabilities.files``)."""

    filename: str = ""
    content: bytes = b""
    caption: str = ""
    mime_type: str = "application/octet-stream"
    fallback: str = ""
    private: bool = field(default=False)  # sent to a person, not a group


@dataclass(frozen=True)
class DeleteMessage(Outbound):
    message_ref: str = ""


@dataclass(frozen=True)
class EditButtons(Outbound):
    """Replace the buttons under the bot's message ``message_ref`` in chat ``to``; no
    ``buttons`` removes them (a keyboard that was used, or one that went stale)."""

    message_ref: str = ""
    buttons: tuple[tuple[Button, ...], ...] = ()


@dataclass(frozen=True)
class Unpin(Outbound):
    """The message kept in ``slot`` (the game's status) is final: unpin it (the next game's
    status is a message of its own). A channel that cannot pin leaves it out."""

    slot: str = STATUS_SLOT


@dataclass(frozen=True)
class AnswerButton(Outbound):
    """Acknowledge a button press (a toast); ``to`` is the presser's ref."""

    text: str = ""
    press_ref: str = ""
