"""``/language``: the group's language (its game's admin decides), or a person's own in private.

A new group speaks its first admin's app language when the bot has it, else English. A
person who chose a language reads their private messages in it; everyone else reads them
in their group's language, so card and curse names match what the group sees.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from hideseek_chat.chat.commands import ChatError
from hideseek_chat.chat.i18n import LANGUAGES, language_name, supported_language
from hideseek_chat.chat.model import ChatKind, CommandIn, Inbound, Outbound
from hideseek_chat.chat.views import chat_text
from hideseek_chat.store import UnitOfWork

if TYPE_CHECKING:
    from hideseek_chat.chat.service import Conversation

#: Words people may type for a language besides its code (lower case).
NAMES = {
    "english": "en",
    "englisch": "en",
    "inglés": "en",
    "ingles": "en",
    "deutsch": "de",
    "german": "de",
    "alemán": "de",
    "aleman": "de",
    "español": "es",
    "espanol": "es",
    "castellano": "es",
    "spanish": "es",
    "spanisch": "es",
}


def parse_language(word: str) -> str | None:
    """The shipped language ``word`` names (``de``, ``Deutsch``, ``es-MX``), or None."""
    lowered = word.strip().lower()
    return NAMES.get(lowered) or supported_language(lowered)


def choices() -> str:
    return ", ".join(f"/language {code} ({language_name(code)})" for code in LANGUAGES)


def cmd_language(conv: Conversation, msg: CommandIn) -> list[Outbound]:
    """``/language [code]``: show or set the language of this chat."""
    if not msg.args:
        fmt = conv.formatter_for(msg)
        return [conv.reply(msg, chat_text("chat.language_now", {"choices": choices()}, fmt))]
    language = parse_language(msg.args[0])
    if language is None:
        raise ChatError("chat.language_unknown", word=msg.args[0][:32], choices=choices())
    with conv.uow_factory() as uow:
        if msg.kind == ChatKind.GROUP:
            _require_game_admin(uow, msg)
            prefs = uow.chats.prefs(msg.chat)
            uow.chats.set_prefs(msg.chat, replace(prefs, language=language), msg.at)
        else:
            uow.chats.set_language(msg.sender.ref, msg.sender.name, language, msg.at)
        uow.commit()
    key = "chat.language_set" if msg.kind == ChatKind.GROUP else "chat.language_set_private"
    return [conv.reply(msg, chat_text(key, {}, conv.formatter_for(msg)))]


def _require_game_admin(uow: UnitOfWork, msg: Inbound) -> None:
    """In a group with a game, only its admin changes the language; without one, anyone."""
    loaded = uow.games.for_chat(msg.chat)
    if loaded is None:
        return
    player = loaded.state.player_by_ref(msg.sender.ref)
    if player is None or player.id != loaded.state.admin_player_id:
        raise ChatError("chat.only_admin")


def adopt_default(uow: UnitOfWork, msg: Inbound) -> None:
    """Give a group that never chose a language its first admin's app language."""
    language = supported_language(msg.sender.language)
    if language is None or uow.chats.has_prefs(msg.chat):
        return
    uow.chats.set_prefs(msg.chat, replace(uow.chats.prefs(msg.chat), language=language), msg.at)
