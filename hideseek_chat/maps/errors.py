"""What can go wrong while getting a map, said as a message key and its values."""

from __future__ import annotations

from typing import Any


class MapFetchError(Exception):
    """A map could not be fetched or built; ``key`` and ``params`` say why, for a person.

    Keys live in the ``map.`` namespace of the chat's text registry (``map.not_found``,
    ``map.overpass_failed`` ...); ``params`` never hold anything secret.
    """

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params
