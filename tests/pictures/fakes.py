"""A fake slippy-map tile server on 127.0.0.1 and a fake clock for the tile client.

:class:`FakeTiles` answers ``/{z}/{x}/{y}.png`` with a 256-pixel PNG of one colour
(:func:`tile_colour` of the tile), after any scripted replies (429, 504, a stall, garbage),
and records every request, so a test counts them and reads their User-Agent.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping

from PIL import Image

from tests.maps.fakes import FakeServer, Recorded, Reply

USER_AGENT = "hideseek_chat-test/1 (+https://example.org/tests)"
_TILE = re.compile(r"^/(\d+)/(\d+)/(\d+)\.png$")


def tile_colour(z: int, x: int, y: int) -> tuple[int, int, int]:
    """The colour the fake server paints tile ``(z, x, y)``."""
    return (40 + (x * 37) % 200, 40 + (y * 53) % 200, 40 + (z * 29) % 200)


def png(colour: tuple[int, int, int], size: int = 256) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (size, size), colour).save(buffer, format="PNG")
    return buffer.getvalue()


class FakeTiles(FakeServer):
    """A fake tile server; ``template`` is the URL template a TileClient takes."""

    def __init__(
        self,
        headers: Mapping[str, str] | None = None,
        solid: tuple[int, int, int] | None = None,
    ) -> None:
        self.headers = dict(headers or {})
        self.solid = solid  # paint every tile this colour (for pixel checks on a picture)
        super().__init__(self._tile)

    @property
    def template(self) -> str:
        return self.base_url + "/{z}/{x}/{y}.png"

    def _tile(self, request: Recorded) -> Reply:
        found = _TILE.match(request.path)
        if found is None:
            return Reply(404)
        z, x, y = (int(v) for v in found.groups())
        body = png(self.solid or tile_colour(z, x, y))
        return Reply(200, body, {"Content-Type": "image/png", **self.headers})

    def tiles_asked(self) -> list[str]:
        return [r.path for r in self.requests]


class FakeClock:
    """Monotonic and wall-clock seconds that move only when slept on or advanced."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.t = start
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds

    def advance(self, seconds: float) -> None:
        self.t += seconds
