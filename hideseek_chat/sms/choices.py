"""Buttons as numbered choices: "1 Yes · 2 No · 3 Veto", and the reply that picks one.

A reply of the number, or of the choice's words, chooses it. A number with no choice behind
it (an older message's, or none at all) is stale and gets a clear refusal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from hideseek_chat.chat.model import Button
from hideseek_chat.sms.segments import prepare

#: Choices shown on one line when their line is at most this long, else one per line.
ONE_LINE = 90
_NUMBER = re.compile(r"^\s*#?(\d{1,3})[.)]?\s*$")


@dataclass(frozen=True)
class Offered:
    """One numbered choice: a pressable button's label (as texted) and data."""

    position: int
    label: str
    data: str


def label_of(button: Button) -> str:
    """A button's label as a text shows it: typographic marks plain, emoji left out."""
    return prepare(button.label) or button.label.strip()


def numbered(buttons: Sequence[Sequence[Button]]) -> list[Offered]:
    """The buttons a reply can press, numbered from 1 in reading order (a button that
    opens a private chat or shares a location has no use by text)."""
    offered: list[Offered] = []
    for row in buttons:
        for button in row:
            if button.private_link or button.share_location or not button.data:
                continue
            offered.append(Offered(len(offered) + 1, label_of(button), button.data))
    return offered


def render(offered: Sequence[Offered]) -> str:
    """The choices as the text's last line(s): "1 Yes · 2 No · 3 Veto"."""
    parts = [f"{choice.position} {choice.label}" for choice in offered]
    line = " · ".join(parts)
    return line if len(line) <= ONE_LINE else "\n".join(parts)


def _words(text: str) -> str:
    return " ".join(prepare(text).casefold().split())


def position_in(reply: str) -> int | None:
    """The number a reply consists of ("2", "2.", "#2"), if it is one."""
    match = _NUMBER.match(reply)
    return int(match.group(1)) if match else None


def by_words(reply: str, labels: Sequence[tuple[int, str]]) -> int | None:
    """The position whose label ``reply`` names: the whole label, or the start of one
    label only (case and emoji do not matter)."""
    said = _words(reply)
    if not said:
        return None
    exact = [pos for pos, label in labels if _words(label) == said]
    if len(exact) == 1:
        return exact[0]
    starts = [pos for pos, label in labels if _words(label).startswith(said)]
    return starts[0] if len(starts) == 1 and len(said) >= 2 else None
