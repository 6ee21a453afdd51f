"""What the conversation keeps beside the game: chat preferences, people, pinned messages,
and the hider's frozen hiding spot."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, false, true
from sqlalchemy.orm import Mapped, mapped_column

from hideseek_chat.store.models.base import GAME_FK, Base


class ChatPrefsRow(Base):
    """How the bot speaks in a chat and which map its games use."""

    __tablename__ = "chat_prefs"

    chat_id: Mapped[int] = mapped_column(
        ForeignKey("chats.id", ondelete="CASCADE"), primary_key=True
    )
    language: Mapped[str]
    units: Mapped[str | None]  # None: the ruleset's units
    map_name: Mapped[str]
    #: Answer the questions the pins can answer as soon as they reach the hider.
    auto_answer: Mapped[bool] = mapped_column(default=False, server_default=false())
    #: Post the seekers' map after every answer (``/seekmap off`` stops it).
    auto_pictures: Mapped[bool] = mapped_column(default=True, server_default=true())


class PersonRow(Base):
    """Someone the bot has met; ``private_ok`` once they opened a private chat with it."""

    __tablename__ = "people"

    ref: Mapped[str] = mapped_column(primary_key=True)
    name: Mapped[str]
    private_ok: Mapped[bool]
    language: Mapped[str | None]  # for their private chat; None: their group's language
    updated_at: Mapped[datetime]


class PersonFocusRow(Base):
    """Which of their games a person's private messages are about, when they play in more
    than one: the game they chose (``game_id``, None: none chosen) and when the bot last
    asked them (a live location asks at most once in a while)."""

    __tablename__ = "person_focus"

    ref: Mapped[str] = mapped_column(primary_key=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey(GAME_FK, ondelete="SET NULL"))
    asked_at: Mapped[datetime | None]


class ChatMessageRow(Base):
    """A message the bot keeps editing, such as the pinned status (``slot`` = "status")."""

    __tablename__ = "chat_messages"

    chat_id: Mapped[int] = mapped_column(
        ForeignKey("chats.id", ondelete="CASCADE"), primary_key=True
    )
    slot: Mapped[str] = mapped_column(primary_key=True)
    message_ref: Mapped[str]


class HidingSpotRow(Base):
    """Where the hider was when the end game began (secret: hider-only)."""

    __tablename__ = "hiding_spots"

    game_id: Mapped[int] = mapped_column(ForeignKey(GAME_FK, ondelete="CASCADE"), primary_key=True)
    round_number: Mapped[int] = mapped_column(primary_key=True)
    lat: Mapped[float]
    lon: Mapped[float]
    accuracy_m: Mapped[float | None]
    frozen_at: Mapped[datetime]
