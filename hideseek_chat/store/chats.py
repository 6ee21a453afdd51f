"""The conversation's own records: chat preferences, people, kept messages, hiding spots,
and which game a person in several games means in private (``games_of``, ``focus``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, exists, func, select
from sqlalchemy.orm import Session

from hideseek_chat.rules.state import Phase
from hideseek_chat.store.config import dialect_insert
from hideseek_chat.store.held import hold
from hideseek_chat.store.models import (
    ChatMessageRow,
    ChatPrefsRow,
    ChatRow,
    EventRow,
    GameRow,
    HidingSpotRow,
    PersonFocusRow,
    PersonRow,
    PlayerRow,
    RoundRow,
)
from hideseek_chat.store.rawrow import all_rows, first_row, lend
from hideseek_chat.store.repository import PREFS_READ, GameRepository
from hideseek_chat.store.state_read import PREFS_COLUMNS

DEFAULT_MAP = "stillwater"

# Read on every private message (a hider's live location among them): built once.
_GAMES_OF = (
    select(
        GameRow.id,
        ChatRow.key,
        ChatRow.title,
        select(func.max(EventRow.id)).where(EventRow.game_id == GameRow.id).scalar_subquery(),
    )
    .join(GameRow, GameRow.chat_id == ChatRow.id)
    .join(PlayerRow, PlayerRow.game_id == GameRow.id)
    .where(
        PlayerRow.ref == bindparam("ref"), PlayerRow.active, GameRow.phase != Phase.GAME_OVER
    )
    .order_by(GameRow.id.desc())
)


@dataclass(frozen=True)
class ChatPrefs:
    language: str = "en"
    units: str | None = None  # None: the ruleset's units
    map_name: str = DEFAULT_MAP
    auto_answer: bool = False  # the bot answers what the pins can answer (admin setting)
    auto_pictures: bool = True  # the seekers' map follows every answer (admin setting)


@dataclass(frozen=True)
class PersonGame:
    """An unfinished game someone plays in, as their private messages may mean it."""

    game_id: int
    chat_key: str  # its group
    title: str | None  # the group's name, when the channel told it
    last_event_id: int | None  # changes whenever the game's state does


@dataclass(frozen=True)
class Focus:
    """The game a person chose for their private messages (None: none), and when the bot
    last asked them which game they mean."""

    game_id: int | None = None
    asked_at: datetime | None = None


@dataclass(frozen=True)
class SpotData:
    lat: float
    lon: float
    accuracy_m: float | None
    frozen_at: datetime


_PREFS = (
    select(*PREFS_COLUMNS)
    .join(ChatRow, ChatRow.id == ChatPrefsRow.chat_id)
    .where(ChatRow.key == bindparam("chat"))
)


class Chats:
    def __init__(self, session: Session) -> None:
        self.session = session

    def _person(self, ref: str) -> PersonRow | None:
        """The person's row, held for the unit of work (``store.held``): a turn looks it up
        several times (name, language, whether they can be written to)."""
        row = self.session.get(PersonRow, ref)
        if row is not None:
            hold(self.session, row)
        return row

    def _chat_id(self, chat_key: str, now: datetime) -> int:
        return GameRepository(self.session).chat_id(chat_key, now)

    def _existing_chat_id(self, chat_key: str) -> int | None:
        return self.session.scalar(select(ChatRow.id).where(ChatRow.key == chat_key))

    def prefs(self, chat_key: str) -> ChatPrefs:
        """The chat's choices (the defaults when it made none): as the turn's read of the
        chat's game found them (``GameRepository.read_chat``), else one query of plain
        values, after what this unit of work changed is flushed (every turn that speaks
        asks)."""
        read = self.session.info.get(PREFS_READ)
        if read is not None and chat_key in read:
            row = read[chat_key]
        else:
            self.session.flush()  # a no-op when nothing changed
            row = first_row(lend(self.session), _PREFS, {"chat": chat_key})
        return ChatPrefs() if row is None else ChatPrefs(*row)

    def has_prefs(self, chat_key: str) -> bool:
        """Whether the chat has chosen anything yet (a new group has not)."""
        chat_id = self._existing_chat_id(chat_key)
        return chat_id is not None and self.session.get(ChatPrefsRow, chat_id) is not None

    def set_prefs(self, chat_key: str, prefs: ChatPrefs, now: datetime) -> None:
        self.session.info.get(PREFS_READ, {}).pop(chat_key, None)  # read again after this
        chat_id = self._chat_id(chat_key, now)
        row = self.session.get(ChatPrefsRow, chat_id)
        if row is None:
            self.session.add(
                ChatPrefsRow(
                    chat_id=chat_id,
                    language=prefs.language,
                    units=prefs.units,
                    map_name=prefs.map_name,
                    auto_answer=prefs.auto_answer,
                    auto_pictures=prefs.auto_pictures,
                )
            )
        else:
            row.language, row.units, row.map_name = prefs.language, prefs.units, prefs.map_name
            row.auto_answer = prefs.auto_answer
            row.auto_pictures = prefs.auto_pictures
        self.session.flush()

    # ----- people -----

    def game_chat_for(self, ref: str) -> str | None:
        """The group of the newest unfinished game ``ref`` plays in (for private messages)."""
        return self.session.scalar(
            select(ChatRow.key)
            .join(GameRow, GameRow.chat_id == ChatRow.id)
            .join(PlayerRow, PlayerRow.game_id == GameRow.id)
            .where(PlayerRow.ref == ref, PlayerRow.active, GameRow.phase != Phase.GAME_OVER)
            .order_by(GameRow.id.desc())
            .limit(1)
        )

    def games_of(self, ref: str) -> list[PersonGame]:
        """The unfinished games ``ref`` plays in, newest first (each is its group's current
        game: a group starts no game while one is unfinished)."""
        rows = all_rows(lend(self.session), _GAMES_OF, {"ref": ref})
        return [PersonGame(*row) for row in rows]

    def hides_now(self, ref: str) -> bool:
        """Whether ``ref`` is on the hiding team of a running round of an unfinished game."""
        hiding = (
            select(PlayerRow.id)
            .join(GameRow, GameRow.id == PlayerRow.game_id)
            .join(
                RoundRow,
                (RoundRow.game_id == PlayerRow.game_id)
                & (RoundRow.hider_team_id == PlayerRow.team_id),
            )
            .where(
                PlayerRow.ref == ref,
                PlayerRow.active,
                GameRow.phase != Phase.GAME_OVER,
                RoundRow.ended_at.is_(None),
            )
        )
        return bool(self.session.scalar(select(exists(hiding))))

    def focus(self, ref: str) -> Focus:
        row = self.session.execute(
            select(PersonFocusRow.game_id, PersonFocusRow.asked_at).where(PersonFocusRow.ref == ref)
        ).first()
        return Focus() if row is None else Focus(*row)

    def choose_game(self, ref: str, game_id: int | None) -> None:
        """Remember that ``ref``'s private messages are about ``game_id`` (None: forget)."""
        self._set_focus(ref, game_id=game_id)

    def asked_which_game(self, ref: str, at: datetime) -> None:
        """Remember that the bot asked ``ref`` which game they mean, at ``at``."""
        self._set_focus(ref, asked_at=at)

    def _set_focus(self, ref: str, **values: object) -> None:
        # One statement: two processes writing a person's first row both succeed.
        insert = dialect_insert(self.session)
        self.session.execute(
            insert(PersonFocusRow)
            .values(ref=ref, **values)
            .on_conflict_do_update(index_elements=[PersonFocusRow.ref], set_=values)
        )

    def set_title(self, chat_key: str, title: str, now: datetime) -> None:
        """Remember the group's name as its channel shows it."""
        row = self.session.get(ChatRow, self._chat_id(chat_key, now))
        assert row is not None
        if row.title != title:
            row.title = title
            self.session.flush()

    def topic(self, chat_key: str) -> str | None:
        """The thread of the group its current game lives in (None: the main thread)."""
        return self.session.scalar(select(ChatRow.topic).where(ChatRow.key == chat_key))

    def set_topic(self, chat_key: str, topic: str | None, now: datetime) -> None:
        """Make ``topic`` the thread the group's game lives in (None: the main thread)."""
        row = self.session.get(ChatRow, self._chat_id(chat_key, now))
        assert row is not None
        if row.topic != topic:
            row.topic = topic
            self.session.flush()

    def can_message(self, ref: str) -> bool:
        row = self._person(ref)
        return bool(row and row.private_ok)

    def met(self, ref: str, name: str, now: datetime, private_ok: bool | None = None) -> None:
        """Remember ``ref``'s name; ``private_ok`` records whether they can be written to."""
        row = self._person(ref)
        if row is None:
            row = PersonRow(ref=ref, name=name, private_ok=bool(private_ok), updated_at=now)
            self.session.add(row)
            hold(self.session, row)
        else:
            row.name = name or row.name
            if private_ok is not None:
                row.private_ok = private_ok
            row.updated_at = now
        self.session.flush()

    def name_of(self, ref: str) -> str | None:
        """The name ``ref`` was last seen with, or None for someone never met."""
        row = self._person(ref)
        return None if row is None or not row.name else row.name

    def language(self, ref: str) -> str | None:
        """The language ``ref`` chose for their private chat; None: their group's."""
        row = self._person(ref)
        return None if row is None else row.language

    def reader_language(self, ref: str) -> str | None:
        """The language to write to ``ref`` in private: their own, else their newest
        unfinished game's group's; None when neither tells."""
        own = self.language(ref)
        if own is not None:
            return own
        chat = self.game_chat_for(ref)
        return None if chat is None else self.prefs(chat).language

    def set_language(self, ref: str, name: str, language: str | None, now: datetime) -> None:
        """Remember ``ref``'s language for their private chat (None: their group's)."""
        self.met(ref, name, now)
        row = self._person(ref)
        assert row is not None
        row.language = language
        self.session.flush()

    # ----- kept messages -----

    def message_ref(self, chat_key: str, slot: str) -> str | None:
        chat_id = self._existing_chat_id(chat_key)
        if chat_id is None:
            return None
        row = self.session.get(ChatMessageRow, (chat_id, slot))
        return None if row is None else row.message_ref

    def set_message_ref(self, chat_key: str, slot: str, message_ref: str, now: datetime) -> None:
        chat_id = self._chat_id(chat_key, now)
        row = self.session.get(ChatMessageRow, (chat_id, slot))
        if row is None:
            self.session.add(ChatMessageRow(chat_id=chat_id, slot=slot, message_ref=message_ref))
        else:
            row.message_ref = message_ref
        self.session.flush()

    def forget_message_ref(self, chat_key: str, slot: str) -> None:
        """Let the message kept in ``slot`` go: the next one is sent anew."""
        chat_id = self._existing_chat_id(chat_key)
        row = None if chat_id is None else self.session.get(ChatMessageRow, (chat_id, slot))
        if row is not None:
            self.session.delete(row)
            self.session.flush()

    # ----- hiding spots -----

    def hiding_spot(self, game_id: int, round_number: int) -> SpotData | None:
        row = self.session.get(HidingSpotRow, (game_id, round_number))
        if row is None:
            return None
        return SpotData(row.lat, row.lon, row.accuracy_m, row.frozen_at)

    def freeze_spot(self, game_id: int, round_number: int, spot: SpotData) -> None:
        row = self.session.get(HidingSpotRow, (game_id, round_number))
        if row is None:
            self.session.add(
                HidingSpotRow(
                    game_id=game_id,
                    round_number=round_number,
                    lat=spot.lat,
                    lon=spot.lon,
                    accuracy_m=spot.accuracy_m,
                    frozen_at=spot.frozen_at,
                )
            )
            self.session.flush()
