"""The game itself: rulesets, state, events, decisions and the pure engine.

Standard library only. Nothing here knows of Telegram, SQL or the wall clock.
"""

from hideseek_chat.rules.engine import apply, due_deadlines, next_deadline
from hideseek_chat.rules.lifecycle import new_game
from hideseek_chat.rules.ruleset import Ruleset, RulesetError, Size
from hideseek_chat.rules.ruleset_loader import load_ruleset

__all__ = [
    "Ruleset",
    "RulesetError",
    "Size",
    "apply",
    "due_deadlines",
    "load_ruleset",
    "new_game",
    "next_deadline",
]
