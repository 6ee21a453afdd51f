"""Texts fitted to SMS: the GSM-7 alphabet when it can carry the text, else UCS-2.

A segment holds 160 GSM-7 septets (153 when the message has several, for the header; an
extension character such as ``€`` takes two) or 70 UTF-16 units (67 when several; an emoji
takes two). ``prepare`` swaps typographic marks for GSM ones and leaves emoji out when the
text needs no UCS-2 otherwise, so that one emoji never makes a text cost twice as much;
``split`` cuts a long text into messages of at most ``max_segments`` segments each, at a
line or a word boundary that ends a segment, never inside a character.
"""

from __future__ import annotations

import re
import unicodedata

GSM_BASIC = frozenset(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
GSM_EXTENSION = frozenset("^{}\\[~]|€\f")
GSM_ALL = GSM_BASIC | GSM_EXTENSION
#: The joiners and variation selectors that belong to an emoji.
_JOINERS = frozenset("\u200d\ufe0f\ufe0e\u20e3")

SINGLE_GSM = 160
MULTI_GSM = 153
SINGLE_UCS2 = 70
MULTI_UCS2 = 67
#: Segments one message may have: longer texts go as several messages.
MAX_SEGMENTS = 4
#: Messages one text may become at most; the rest is cut with an ellipsis.
MAX_MESSAGES = 4

#: Typographic marks and their GSM-7 stand-ins.
_PLAIN = str.maketrans(
    {
        "“": '"',
        "”": '"',
        "„": '"',
        "«": '"',
        "»": '"',
        "‘": "'",
        "’": "'",
        "‚": "'",
        "–": "-",
        "—": "-",
        "−": "-",
        "·": "-",
        "•": "-",
        "…": "...",
        "\u00a0": " ",
        "\u202f": " ",
        "×": "x",
        "→": "->",
        "←": "<-",
        "≈": "~",
        "°": " deg",
        "✓": "OK",
        "✔": "OK",
        "✗": "X",
        "✘": "X",
    }
)
_SPACES = re.compile(r"[ \t]{2,}")


def is_gsm(text: str) -> bool:
    """Whether the GSM-7 alphabet (with its extension) can carry ``text``."""
    return GSM_ALL.issuperset(text)


def _is_symbol(ch: str) -> bool:
    """An emoji or a pictograph: a symbol outside the GSM alphabet, or a joiner."""
    if ch in _JOINERS:
        return True
    category = unicodedata.category(ch)
    return category == "So" or ord(ch) >= 0x1F000


def prepare(text: str) -> str:
    """``text`` as it is best sent: typographic marks made plain and, unless the text needs
    UCS-2 anyway (Greek, Cyrillic, CJK ...), its emoji left out."""
    plain = text.translate(_PLAIN)
    if is_gsm(plain):  # most texts: nothing to leave out
        without = plain
    else:
        symbols = {ch for ch in set(plain) - GSM_ALL if _is_symbol(ch)}
        without = "".join(ch for ch in plain if ch not in symbols) if symbols else plain
    if is_gsm(without):
        lines = [_SPACES.sub(" ", line).strip() for line in without.split("\n")]
        return "\n".join(lines).strip()
    return plain.strip()


def units(text: str) -> int:
    """What ``text`` costs in its encoding's units: septets (GSM-7) or UTF-16 units."""
    if is_gsm(text):
        return len(text) + sum(text.count(ch) for ch in GSM_EXTENSION.intersection(text))
    return len(text.encode("utf-16-le")) // 2


def _cost(ch: str, gsm: bool) -> int:
    if gsm:
        return 2 if ch in GSM_EXTENSION else 1
    return 2 if ord(ch) > 0xFFFF else 1


def segment_count(text: str) -> int:
    """How many segments ``text`` takes as one message."""
    gsm = is_gsm(text)
    total = units(text)
    single, multi = (SINGLE_GSM, MULTI_GSM) if gsm else (SINGLE_UCS2, MULTI_UCS2)
    if total <= single:
        return 1
    return -(-total // multi)


def split(
    text: str, max_segments: int = MAX_SEGMENTS, max_messages: int = MAX_MESSAGES
) -> list[str]:
    """``text`` as messages of at most ``max_segments`` segments each, cut at a line break
    or a space near a segment's end; at most ``max_messages`` (the last one ends with
    "...", when the text was longer)."""
    if not text:
        return []
    gsm = is_gsm(text)
    single, multi = (SINGLE_GSM, MULTI_GSM) if gsm else (SINGLE_UCS2, MULTI_UCS2)
    if units(text) <= single:
        return [text]
    budget = multi * max(1, max_segments)
    messages: list[str] = []
    rest = text
    while rest:
        if units(rest) <= (single if max_segments == 1 else budget):
            messages.append(rest)
            break
        cut = _cut(rest, budget, gsm)
        messages.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if len(messages) > max_messages:
        messages = messages[:max_messages]
        last = messages[-1]
        while units(last + "...") > budget:
            last = last[:-1]
        messages[-1] = last.rstrip() + "..."
    return messages


def _cut(text: str, budget: int, gsm: bool) -> int:
    """Where to cut ``text`` so that its head costs at most ``budget``: after the last
    line break or space in the head's last quarter, else at the budget itself."""
    used = 0
    end = 0
    for i, ch in enumerate(text):
        used += _cost(ch, gsm)
        if used > budget:
            break
        end = i + 1
    head = text[:end]
    floor = end - end // 4
    for mark in ("\n", " "):
        at = head.rfind(mark)
        if at >= floor:
            return at + 1
    return max(end, 1)
