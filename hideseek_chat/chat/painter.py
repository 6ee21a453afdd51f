"""Who draws the pictures the chat sends: the seekers' map and the hider's zone.

``Painter`` is what picture jobs call; ``PicturesPainter`` draws with ``pictures/`` and the
tile client app.py built (None: vector drawings only, nothing fetched). A test hands in
its own painter.
"""

from __future__ import annotations

from typing import Protocol

from hideseek_chat.chat.seekmap import SeekersView
from hideseek_chat.geo import MapPack
from hideseek_chat.pictures.seekmap import seekers_picture, zone_picture
from hideseek_chat.pictures.tiles import TileClient

#: The seekers' map's side, in pixels.
SEEKERS_SIZE = 1024
#: The hider's zone picture's side, in pixels.
ZONE_SIZE = 768


class Painter(Protocol):
    def seekers(self, seekers: SeekersView) -> bytes:
        """The seekers' map as a PNG: what is left, the candidates, the seekers' pins."""
        ...

    def zone(
        self,
        pack: MapPack,
        lat: float,
        lon: float,
        radius_m: float,
        station_name: str,
        units: str = "metric",
    ) -> bytes:
        """The hider's own zone as a PNG (its scale bar in ``units``)."""
        ...


class PicturesPainter:
    """Draws with ``pictures.seekmap``; ``tiles`` is a ``pictures.tiles.TileClient``."""

    def __init__(self, tiles: TileClient | None = None) -> None:
        self.tiles = tiles

    def seekers(self, seekers: SeekersView) -> bytes:
        return seekers_picture(
            seekers.view,
            seekers.pins,
            size=SEEKERS_SIZE,
            tiles=self.tiles,
            pack=seekers.pack,
            units=seekers.units,
        )

    def zone(
        self,
        pack: MapPack,
        lat: float,
        lon: float,
        radius_m: float,
        station_name: str,
        units: str = "metric",
    ) -> bytes:
        return zone_picture(
            pack,
            lat,
            lon,
            radius_m,
            station_name,
            size=ZONE_SIZE,
            tiles=self.tiles,
            units=units,
        )
