"""Rule violations: specific errors carrying what the player must be told.

``key`` names the message for the translation layer; ``params`` fill it. ``str(error)``
is an English sentence for logs and tests, not the text a player sees.
"""

from __future__ import annotations

from typing import Any


class RuleViolation(ValueError):
    """An event the rules do not allow; the state is unchanged."""

    key = "error.rule"

    def __init__(self, message: str, key: str | None = None, **params: Any) -> None:
        super().__init__(message)
        if key is not None:
            self.key = key
        self.params = params


class NotAPlayer(RuleViolation):
    key = "error.not_a_player"


class NotAllowed(RuleViolation):
    """The person may not do this (not the admin, not the hider, not a seeker)."""

    key = "error.not_allowed"


class WrongPhase(RuleViolation):
    key = "error.wrong_phase"


class GamePausedError(RuleViolation):
    key = "error.paused"


class QuestionNotAvailable(RuleViolation):
    key = "error.question_not_available"


class QuestionPending(RuleViolation):
    key = "error.question_pending"


class NoPendingQuestion(RuleViolation):
    key = "error.no_pending_question"


class InvalidAnswer(RuleViolation):
    key = "error.invalid_answer"


class CurseBlocks(RuleViolation):
    key = "error.curse_blocks"


class HandOverLimit(RuleViolation):
    key = "error.hand_over_limit"


class CardNotAvailable(RuleViolation):
    key = "error.card_not_available"


class CostNotMet(RuleViolation):
    key = "error.cost_not_met"


class SetupError(RuleViolation):
    key = "error.setup"
