"""The chat layer's texts: one registry of keyed texts, plus the screens built from data.

Keyed texts (one shape: a renderer ``(params, fmt) -> str`` per key)

- ``say(key, params, fmt) -> str``: the text of any key, never raising:
  the engine's notices (``game.*``, ``round.*``, ``question.*``, ``curse.*`` ...), its
  refusals (``error.*``), the botnet game's refusals (``botnet.*``) and the conversation's
  own sentences (``chat.*``). A key without a text, or whose renderer fails on the params
  (logged), gets its family's generic text: ``ℹ️ Game update: {key}`` for a notice,
  ``Sorry, that isn't possible right now.`` for ``error.*``/``botnet.*``,
  ``Sorry, that did not work.`` for ``chat.*``.
- ``has_text(key)``; ``notice_keys()``, ``refusal_keys()`` (``error.*``),
  ``botnet_keys()``, ``chat_keys()``, ``map_keys()`` (``map.*``, the map jobs'
  messages) and ``picture_keys()`` (``picture.*``, the picture jobs'): what is
  registered, for tests.

Reasons (``reasons``): ``map_problem(code, fmt)``, ``why_no_answer(code, fmt)``,
``unchecked_key(code, too_close)``, ``verdict_note(verdict, reason, too_close, fmt)``,
``reason_group(code)``, ``codes_in(group)``, ``REASONS``.

Screens (pure functions of their arguments; none reads or writes a database):

- ``screens``: ``status_text``, ``score_text``, ``hand_text``, ``track_text``,
  ``ask_menu_text``, ``category_label``, ``ask_category_text``, ``offer_label``,
  ``ask_distance_text``, ``ask_line_text``, ``asked_mark``, ``asked_from_menu_text``
  (the /ask menu);
- ``answers``: ``suggestion_text``, ``suggestion_numbers``, ``automatic_text``,
  ``held_answer`` (-> ``HeldAnswer``: text, two button labels, toast),
  ``claim_hider_text``, ``answer_note``, ``claim_note``; and each question category in
  words: ``answer_hint``, ``numbers_text`` (a new category's texts go here);
- ``review``: ``review_text``, ``question_line``, ``check_lines``, ``claim_line``;
- ``botnet``: ``grid``, ``legend``, ``path_text``, ``whose_turn``, ``claimed``,
  ``ending``, ``MARKS``, ``EMPTY``;
- ``games``: ``games_text`` (/game: someone's games, ``GameLine`` each);
- ``setup``: ``settings_lines`` (the settings with their rule effects), ``team_lines``,
  ``teams_text``, ``zone_text``;
- ``help``: ``help_text(sections, fmt, notes=HELP_NOTES)`` with the headings
  ``IN_GROUP``, ``IN_PRIVATE``, ``ANYWHERE``; ``FROM_GROUP_NOTE``/``FROM_PRIVATE_NOTE``
  point to the other chat's /help.

Every msgid is a literal at its ``fmt.t``/``fmt.n``/``N_`` call, so
``pybabel extract -k t -k n:1,2 -k N_`` finds it.
"""

from __future__ import annotations

# Importing these modules registers their texts.
from hideseek_chat.chat.texts import (
    conversation,
    curse_reports,
    endgame,
    maps,
    notices_game,
    notices_play,
    notices_zone,
    presence,
    privacy,
    refusals,
    seekmap,
    sms,
    trackers,
)
from hideseek_chat.chat.texts.answers import (
    ClaimFacts,
    HeldAnswer,
    answer_hint,
    answer_note,
    automatic_text,
    claim_hider_text,
    claim_note,
    held_answer,
    numbers_text,
    suggestion_numbers,
    suggestion_text,
)
from hideseek_chat.chat.texts.botnet import (
    EMPTY,
    MARKS,
    claimed,
    ending,
    grid,
    legend,
    path_text,
    whose_turn,
)
from hideseek_chat.chat.texts.games import GameLine, games_text
from hideseek_chat.chat.texts.help import (
    ANYWHERE,
    FROM_GROUP_NOTE,
    FROM_PRIVATE_NOTE,
    HELP_NOTES,
    IN_GROUP,
    IN_PRIVATE,
    HelpSection,
    help_text,
)
from hideseek_chat.chat.texts.notices_play import curse_text
from hideseek_chat.chat.texts.parts import card_label, numbered, question_name
from hideseek_chat.chat.texts.reasons import (
    REASONS,
    Reason,
    codes_in,
    map_problem,
    reason_group,
    unchecked_key,
    verdict_note,
    why_no_answer,
)
from hideseek_chat.chat.texts.registry import CHAT_PREFIX, Params, Renderer, has_text, keys, say
from hideseek_chat.chat.texts.review import (
    check_lines,
    claim_line,
    decided_line,
    question_line,
    review_text,
)
from hideseek_chat.chat.texts.screens import (
    PHASES,
    ask_category_text,
    ask_distance_text,
    ask_line_text,
    ask_menu_text,
    asked_from_menu_text,
    asked_mark,
    category_label,
    hand_text,
    offer_label,
    score_text,
    status_text,
    track_text,
)
from hideseek_chat.chat.texts.setup import settings_lines, team_lines, teams_text, zone_text
from hideseek_chat.chat.texts.trackers import (
    TrackerLinks,
    heard_text,
    source_label,
    tracker_text,
)

__all__ = [
    "ANYWHERE",
    "EMPTY",
    "FROM_GROUP_NOTE",
    "FROM_PRIVATE_NOTE",
    "HELP_NOTES",
    "IN_GROUP",
    "IN_PRIVATE",
    "MARKS",
    "PHASES",
    "REASONS",
    "ClaimFacts",
    "GameLine",
    "HeldAnswer",
    "HelpSection",
    "Params",
    "Reason",
    "Renderer",
    "TrackerLinks",
    "answer_hint",
    "answer_note",
    "ask_category_text",
    "ask_distance_text",
    "ask_line_text",
    "ask_menu_text",
    "asked_from_menu_text",
    "asked_mark",
    "automatic_text",
    "botnet_keys",
    "card_label",
    "category_label",
    "chat_keys",
    "check_lines",
    "claim_hider_text",
    "claim_line",
    "claim_note",
    "claimed",
    "codes_in",
    "curse_text",
    "decided_line",
    "ending",
    "games_text",
    "grid",
    "hand_text",
    "has_text",
    "heard_text",
    "held_answer",
    "help_text",
    "legend",
    "map_keys",
    "map_problem",
    "notice_keys",
    "numbered",
    "numbers_text",
    "offer_label",
    "path_text",
    "picture_keys",
    "question_line",
    "question_name",
    "reason_group",
    "refusal_keys",
    "review_text",
    "say",
    "score_text",
    "settings_lines",
    "source_label",
    "status_text",
    "suggestion_numbers",
    "suggestion_text",
    "team_lines",
    "teams_text",
    "track_text",
    "tracker_text",
    "unchecked_key",
    "verdict_note",
    "whose_turn",
    "why_no_answer",
    "zone_text",
]

_MODULES = (  # for their texts
    conversation,
    curse_reports,
    endgame,
    maps,
    notices_game,
    notices_play,
    notices_zone,
    presence,
    privacy,
    refusals,
    seekmap,
    trackers,
    sms,
)


def _with_prefix(*prefixes: str) -> frozenset[str]:
    return frozenset(key for key in keys() if key.startswith(prefixes))


def refusal_keys() -> frozenset[str]:
    """The engine's refusals with a text of their own (``error.*``)."""
    return _with_prefix("error.")


def botnet_keys() -> frozenset[str]:
    """The botnet game's refusals with a text of their own (``botnet.*``)."""
    return _with_prefix("botnet.")


def chat_keys() -> frozenset[str]:
    """The conversation's own sentences (``chat.*``)."""
    return _with_prefix(CHAT_PREFIX)


def map_keys() -> frozenset[str]:
    """What the map jobs tell a group (``map.*``: places found, progress, summary, why a
    search or fetch failed); not the engine's."""
    return _with_prefix("map.")


def picture_keys() -> frozenset[str]:
    """What the picture jobs send (``picture.*``: the seekers' map, the hider's zone); not
    the engine's."""
    return _with_prefix("picture.")


def sms_keys() -> frozenset[str]:
    """What the SMS channel itself says (``sms.*``: join codes, keywords, opt-out, digests,
    pictures by MMS); not the engine's."""
    return _with_prefix("sms.")


def notice_keys() -> frozenset[str]:
    """The engine's notices with a text of their own (every other key)."""
    channel = chat_keys() | map_keys() | picture_keys() | sms_keys()
    return keys() - refusal_keys() - botnet_keys() - channel
