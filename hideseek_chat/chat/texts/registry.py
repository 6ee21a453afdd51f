"""The registry behind ``say``: one table from a text's key to its renderer.

A renderer is ``(params, fmt) -> str``: it reads the values it needs from ``params`` and
says them with the chat's ``Formatter``. Register a function with ``@text(key)``, or a
plain msgid with ``plain(key, N_("..."), prepare=...)`` (``prepare`` turns raw params into
the words the msgid shows: option lists, reason codes, sizes). Every msgid stays a
literal at its ``fmt.t``/``fmt.n``/``N_`` call, so ``pybabel extract -k t -k n:1,2 -k N_``
finds it.

The table is filled when ``hideseek_chat.chat.texts`` is imported (its ``__init__``
imports every module that registers texts); importing any module of the package runs
that first.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from hideseek_chat.chat.i18n import Formatter

log = logging.getLogger(__name__)

Params = Mapping[str, Any]
Renderer = Callable[[Params, Formatter], str]
#: Turns a text's raw params into the values its msgid shows (merged over the params).
Prepare = Callable[[Params, Formatter], Mapping[str, Any]]

#: Key prefixes of the refusals: the engine's (``error.``), the botnet game's, the chat's.
ENGINE_REFUSALS = ("error.", "botnet.")
CHAT_PREFIX = "chat."

_TEXTS: dict[str, Renderer] = {}


def text(key: str) -> Callable[[Renderer], Renderer]:
    """Register the decorated function as the renderer of ``key``."""

    def register(renderer: Renderer) -> Renderer:
        add(key, renderer)
        return renderer

    return register


def add(key: str, renderer: Renderer) -> None:
    """Register ``renderer`` for ``key``; a key has exactly one text."""
    if key in _TEXTS:
        raise ValueError(f"two texts for {key}")
    _TEXTS[key] = renderer


def plain(key: str, msgid: str, prepare: Prepare | None = None, partial: bool = False) -> None:
    """Register the msgid ``msgid`` (marked with ``N_`` at the call) as ``key``'s text.

    Its ``{placeholders}`` are filled from the params, overridden by what ``prepare``
    returns; a missing one fails (``say`` then shows the generic text). With ``partial``
    (the chat's own sentences), missing values do not fail: without any params the msgid
    is shown as it is, else up to its first placeholder.
    """

    def render(params: Params, fmt: Formatter) -> str:
        values = dict(params)
        if prepare is not None:
            values.update(prepare(params, fmt))
        if not partial:
            return fmt.t(msgid, **values) if values else fmt.t(msgid).format()
        try:
            return fmt.t(msgid, **values)
        except (KeyError, IndexError):
            return fmt.t(msgid.split("{")[0].strip() or msgid)

    add(key, render)


def plain_texts(
    msgids: Mapping[str, str], prepare: Prepare | None = None, partial: bool = False
) -> None:
    """Register each ``key: msgid`` of ``msgids`` with ``plain``."""
    for key, msgid in msgids.items():
        plain(key, msgid, prepare, partial)


def has_text(key: str) -> bool:
    """Whether ``key`` has its own text (otherwise ``say`` shows a generic one)."""
    return key in _TEXTS


def keys() -> frozenset[str]:
    """Every registered key."""
    return frozenset(_TEXTS)


def fallback(key: str, fmt: Formatter) -> str:
    """The generic text for a key without a usable text of its own."""
    if key.startswith(CHAT_PREFIX):
        return fmt.t("Sorry, that did not work.")
    if key.startswith(ENGINE_REFUSALS):
        return fmt.t("Sorry, that isn't possible right now.")
    return fmt.t("ℹ️ Game update: {key}", key=key)


def say(key: str, params: Params, fmt: Formatter) -> str:
    """The text of ``key`` with ``params``, said with ``fmt``; never raises.

    A key without a text, or whose renderer fails on these params (logged), gets the
    generic text of its family (``fallback``).
    """
    renderer = _TEXTS.get(key)
    if renderer is not None:
        try:
            return renderer(params, fmt)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            # The parameters' names only: their values may hold the hider's station.
            log.exception("cannot render %s with the parameters %s", key, sorted(params))
    return fallback(key, fmt)
