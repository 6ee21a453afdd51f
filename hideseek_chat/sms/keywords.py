"""What a text message means: a keyword (NEW, JOIN, STATUS, STOP, START, HELP, DIGEST,
FORGETME, NAME, in English, German or Spanish), any command of the routing table, or plain
text.

Case does not matter and a leading slash is optional: ``new small``, ``/NEU small``,
``ask radar 1km``. Commands are read from ``chat.routes.COMMANDS``, so a new command works
by text the day it is added.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from hideseek_chat.chat.routes import COMMANDS

#: The longest text read as a keyword or command (a longer one is plain text).
MAX_COMMAND_CHARS = 300


class Keyword(StrEnum):
    NEW = "new"
    JOIN = "join"
    STATUS = "status"
    STOP = "stop"
    START = "start"
    HELP = "help"
    DIGEST = "digest"  # DIGEST 15 / DIGEST OFF: plain announcements together
    FORGET = "forget"  # FORGETME: /forgetme, erase what is kept about the number (asks first)
    NAME = "name"  # NAME Alex: the name the others see (only with nothing to answer)
    COMMAND = "command"  # any command of the routing table
    TEXT = "text"  # anything else: a pin typed as text, a word


#: Each keyword in each language ("en" also holds the carriers' standard words).
WORDS: dict[Keyword, dict[str, tuple[str, ...]]] = {
    Keyword.NEW: {"en": ("new", "newgame"), "de": ("neu",), "es": ("nuevo", "nueva")},
    Keyword.JOIN: {"en": ("join",), "de": ("beitreten", "mitspielen"), "es": ("unirse", "unir")},
    Keyword.STATUS: {"en": ("status",), "de": ("stand",), "es": ("estado",)},
    Keyword.STOP: {
        "en": ("stop", "stopall", "unsubscribe", "cancel", "end", "quit"),
        "de": ("stopp",),
        "es": ("parar", "baja"),
    },
    Keyword.START: {"en": ("start", "unstop"), "de": ("weiter",), "es": ("alta", "reanudar")},
    Keyword.HELP: {"en": ("help", "info"), "de": ("hilfe",), "es": ("ayuda",)},
    Keyword.DIGEST: {"en": ("digest",), "de": ("sammeln",), "es": ("resumen",)},
    Keyword.FORGET: {
        "en": ("forgetme",),
        "de": ("vergissmich",),
        "es": ("olvidame", "olvídame", "borrarme"),
    },
    Keyword.NAME: {"en": ("name",), "de": ("name",), "es": ("nombre",)},
}


def _by_word() -> dict[str, tuple[Keyword, str | None]]:
    """Each word's keyword and language; a word of several languages names no language."""
    found: dict[str, tuple[Keyword, str | None]] = {}
    for keyword, languages in WORDS.items():
        for language, words in languages.items():
            for word in words:
                shared = word in found and found[word][1] != language
                found[word] = (keyword, None if shared else language)
    return found


_BY_WORD = _by_word()
_COMMAND_NAMES = frozenset(command.name for command in COMMANDS)


@dataclass(frozen=True)
class Parsed:
    """A text read: its keyword, the words after it and the language of the keyword
    (None when it says nothing about the language: a command, plain text)."""

    keyword: Keyword
    args: tuple[str, ...] = ()
    language: str | None = None
    name: str = ""  # the command's name, for ``Keyword.COMMAND``


def parse(body: str) -> Parsed:
    """What ``body`` asks for."""
    text = body.strip()
    words = text.split()
    if not words or len(text) > MAX_COMMAND_CHARS:
        return Parsed(Keyword.TEXT)
    head = words[0].removeprefix("/").split("@", 1)[0].casefold()
    args = tuple(words[1:])
    found = _BY_WORD.get(head)
    if found is not None:
        keyword, language = found
        if keyword in (Keyword.STOP, Keyword.START, Keyword.HELP, Keyword.STATUS) and args:
            # "stop the clock", "start now": a carrier keyword is the whole text
            if head in _COMMAND_NAMES:
                return Parsed(Keyword.COMMAND, args, name=head)
            return Parsed(Keyword.TEXT)
        return Parsed(keyword, args, language)
    if head in _COMMAND_NAMES:
        return Parsed(Keyword.COMMAND, args, name=head)
    return Parsed(Keyword.TEXT)
