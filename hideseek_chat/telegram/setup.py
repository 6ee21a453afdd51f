"""Telegram set-up the bot does at start: the command menus (one per kind of chat and
language, derived from the routing table) and the privacy-mode check of ``getMe``."""

from __future__ import annotations

import logging

from telegram import (
    Bot,
    BotCommand,
    BotCommandScope,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
)

from hideseek_chat.chat import routes
from hideseek_chat.chat.i18n import LANGUAGES, Formatter

log = logging.getLogger(__name__)


#: One command menu per kind of chat, each listing what can be done there.
MENU_SCOPES: tuple[tuple[routes.Where, BotCommandScope], ...] = (
    (routes.Where.GROUP, BotCommandScopeAllGroupChats()),
    (routes.Where.PRIVATE, BotCommandScopeAllPrivateChats()),
)


def command_menu(language: str, where: routes.Where) -> list[BotCommand]:
    """The command menu of a ``where`` chat (group or private) in ``language``."""
    fmt = Formatter(language)
    return [BotCommand(name, fmt.t(description)) for name, description in routes.menu(where)]


def command_menus() -> list[tuple[BotCommandScope, str | None, list[BotCommand]]]:
    """Every command menu to set: one for groups and one for private chats, in English for
    everyone (no language code) and in each shipped language for apps set to it."""
    return [
        (scope, None if language == "en" else language, command_menu(language, where))
        for where, scope in MENU_SCOPES
        for language in LANGUAGES
    ]


#: What the start-up log says when the bot cannot read a group's messages.
PRIVACY_WARNING = (
    "privacy mode is on: in groups where the bot is not an admin, players' live locations "
    "and files never reach it; fix: BotFather /setprivacy -> Disable (then re-add the bot "
    "to its groups), or make the bot an admin of each group"
)


def check_privacy(bot: Bot) -> bool:
    """Log one warning when the bot cannot read all group messages (``getMe``); return
    whether it can."""
    if bot.can_read_all_group_messages:
        return True
    log.warning(PRIVACY_WARNING)
    return False
