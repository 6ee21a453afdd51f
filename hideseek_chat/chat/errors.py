"""The chat layer's refusal: what a person typed or pressed cannot be done.

Parsers and handlers raise :class:`ChatError` with a text key (``chat.*``) and its
parameters, never a sentence, so every refusal is translatable; the conversation renders it
where the person acted. The engine's own refusals are ``rules.errors.RuleViolation``.
"""

from __future__ import annotations

from typing import Any


class ChatError(ValueError):
    """Something the person typed or pressed cannot be done; ``key`` names the message."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params
