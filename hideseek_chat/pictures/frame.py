"""What every map picture shares: the Web Mercator frame, the basemap (tiles or vectors),
shading, dots, labels, the scale bar and the attribution line, and the PNG itself.

Pixel positions are floats in the picture (x right, y down); :class:`Frame` turns world units
(``geo.mercator``) into them. Drawing is deterministic: the same values give the same bytes.
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageChops, ImageDraw, ImageFont

from hideseek_chat.geo.mercator import (
    metres_per_world_unit,
    point_world,
    world_to_lonlat,
)
from hideseek_chat.pictures.tiles import TileClient
from hideseek_chat.rules.units import METRES_PER_UNIT

Colour = tuple[int, int, int]
Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

OUTSIDE = (228, 228, 222)  # beyond the game's boundary (vector basemap)
LAND = (250, 250, 246)  # inside the boundary (vector basemap)
ROAD = (205, 203, 196)
BOUNDARY = (55, 55, 60)
INK = (30, 30, 30)
HALO = (255, 255, 255)
TILE_SIZE = 256
#: How much white is laid over tiles, so the game's marks stand out on a busy basemap.
TILE_WASH = 0.3


class Frame:
    """A square picture over part of the Web Mercator square."""

    def __init__(self, x0: float, y0: float, scale: float, size: int) -> None:
        self.x0, self.y0 = x0, y0
        self.scale = scale  # pixels per world unit
        self.size = size

    @classmethod
    def fit(cls, bounds: tuple[float, float, float, float], size: int, margin: float) -> Frame:
        """Return the frame that shows ``bounds`` (world units) centred, ``margin`` of it spare."""
        x0, y0, x1, y1 = bounds
        span = max(x1 - x0, y1 - y0, 1e-9) / max(1e-3, 1.0 - 2.0 * margin)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        return cls(cx - span / 2, cy - span / 2, size / span, size)

    def pixel(self, lat: float, lon: float) -> tuple[float, float]:
        """Return where a lon/lat point is drawn."""
        x, y = point_world(lat, lon)
        return (x - self.x0) * self.scale, (y - self.y0) * self.scale

    def pixels(self, world: np.ndarray) -> np.ndarray:
        """Return the pixel positions of an (n, 2) array of world units."""
        return (world - (self.x0, self.y0)) * self.scale

    def metres_per_pixel(self) -> float:
        _, lat = world_to_lonlat(self.x0, self.y0 + self.size / self.scale / 2)
        return metres_per_world_unit(lat) / self.scale


def tile_basemap(frame: Frame, tiles: TileClient) -> Image.Image | None:
    """Return the frame's basemap from tiles, or None when any tile is missing."""
    zoom = int(min(19, max(0, round(math.log2(frame.scale / TILE_SIZE)))))
    n = 2**zoom
    span = frame.size / frame.scale
    tx0, ty0 = math.floor(frame.x0 * n), math.floor(frame.y0 * n)
    tx1, ty1 = math.floor((frame.x0 + span) * n - 1e-9), math.floor((frame.y0 + span) * n - 1e-9)
    mosaic = Image.new("RGB", ((tx1 - tx0 + 1) * TILE_SIZE, (ty1 - ty0 + 1) * TILE_SIZE))
    for ty in range(ty0, ty1 + 1):
        for tx in range(tx0, tx1 + 1):
            tile = tiles.tile(zoom, tx, ty)
            if tile is None:
                return None
            if tile.size != (TILE_SIZE, TILE_SIZE):
                tile = tile.resize((TILE_SIZE, TILE_SIZE), Image.Resampling.BILINEAR)
            mosaic.paste(tile, ((tx - tx0) * TILE_SIZE, (ty - ty0) * TILE_SIZE))
    left = (frame.x0 * n - tx0) * TILE_SIZE
    top = (frame.y0 * n - ty0) * TILE_SIZE
    side = span * n * TILE_SIZE
    image = mosaic.resize(
        (frame.size, frame.size),
        Image.Resampling.BILINEAR,
        box=(left, top, left + side, top + side),
    )
    return Image.blend(image, Image.new("RGB", image.size, HALO), TILE_WASH)


def area_mask(frame: Frame, polygons: Sequence[Sequence[np.ndarray]]) -> Image.Image:
    """Return a mask (mode L, 255 inside) of polygons from ``geo.mercator.polygons_world``."""
    mask = Image.new("L", (frame.size, frame.size), 0)
    draw = ImageDraw.Draw(mask)
    for rings in polygons:
        for number, ring in enumerate(rings):
            if len(ring) >= 3:
                draw.polygon(_flat(frame, ring), fill=255 if number == 0 else 0)
    return mask


class Lines:
    """Many lines in world units, kept as one array so a picture projects them in one go."""

    def __init__(self, lines: Sequence[np.ndarray]) -> None:
        kept = [line for line in lines if len(line) >= 2]
        self.coords = np.concatenate(kept) if kept else np.zeros((0, 2))
        ends = np.cumsum([len(line) for line in kept], dtype=np.int64)
        self.starts = np.concatenate([[0], ends[:-1]]).astype(np.int64)
        self.ends = ends
        self.boxes = np.array(
            [(*line.min(axis=0), *line.max(axis=0)) for line in kept]
        ).reshape(-1, 4)

    def draw(self, draw: ImageDraw.ImageDraw, frame: Frame, colour: Colour, width: int) -> None:
        """Draw the lines that reach into the frame."""
        if not len(self.boxes):
            return
        x1, y1 = frame.x0 + frame.size / frame.scale, frame.y0 + frame.size / frame.scale
        seen = np.flatnonzero(
            (self.boxes[:, 2] >= frame.x0)
            & (self.boxes[:, 0] <= x1)
            & (self.boxes[:, 3] >= frame.y0)
            & (self.boxes[:, 1] <= y1)
        )
        flat: list[float] = frame.pixels(self.coords).ravel().tolist()
        for start, end in zip(self.starts[seen].tolist(), self.ends[seen].tolist(), strict=True):
            draw.line(flat[2 * start : 2 * end], fill=colour, width=width)


def vector_basemap(
    frame: Frame,
    boundary: Sequence[Sequence[np.ndarray]],
    roads: Lines | None,
    road_width: int = 1,
) -> Image.Image:
    """Return the plain basemap: land inside the boundary's polygons, the roads on it."""
    image = Image.new("RGB", (frame.size, frame.size), OUTSIDE)
    draw = ImageDraw.Draw(image)
    for rings in boundary:
        for number, ring in enumerate(rings):
            if len(ring) >= 3:
                draw.polygon(_flat(frame, ring), fill=LAND if number == 0 else OUTSIDE)
    if roads is not None:
        roads.draw(draw, frame, ROAD, road_width)
    return image


def shade(image: Image.Image, mask: Image.Image, colour: Colour, alpha: float) -> Image.Image:
    """Return ``image`` with ``colour`` laid over it at ``alpha`` where ``mask`` is set."""
    tinted = Image.blend(image, Image.new("RGB", image.size, colour), alpha)
    return Image.composite(tinted, image, mask)


def without(mask: Image.Image, hole: Image.Image) -> Image.Image:
    """Return ``mask`` minus ``hole`` (both mode L)."""
    return ImageChops.subtract(mask, hole)


def outline(
    draw: ImageDraw.ImageDraw,
    frame: Frame,
    lines: Sequence[np.ndarray],
    colour: Colour,
    width: int,
) -> None:
    """Draw lines or rings (world units)."""
    for line in lines:
        if len(line) >= 2:
            draw.line(_flat(frame, line), fill=colour, width=width, joint="curve")


def dots(
    image: Image.Image,
    frame: Frame,
    points: np.ndarray,
    radius: float,
    fill: Colour,
    ring: Colour | None = None,
) -> Image.Image:
    """Draw a dot (ringed one pixel wider) at each point (world units); return ``image``."""
    if not len(points):
        return image
    size = frame.size
    pad = math.ceil(radius) + 1
    side = size + 2 * pad  # a padded canvas: no dot needs a bounds check
    centres = np.floor(frame.pixels(points)).astype(np.int64) + pad
    centres = centres[np.all((centres >= 0) & (centres < side - pad), axis=1)]
    # Mark each dot's pixels by flat index in one numpy assignment, then paste the colour
    # through that mask: one ellipse call per dot costs more than the rest of the picture.
    at = centres[:, 1] * side + centres[:, 0]
    for reach, colour in ((radius + 1, ring), (radius, fill)):
        if colour is None:
            continue
        offsets = _disc(reach)
        mask = np.zeros(side * side, np.uint8)
        mask[(at[:, None] + (offsets[:, 1] * side + offsets[:, 0])[None, :]).ravel()] = 255
        layer = Image.frombuffer("L", (side, side), mask.tobytes())
        image.paste(colour, (0, 0, size, size), layer.crop((pad, pad, pad + size, pad + size)))
    return image


@functools.cache
def _disc(radius: float) -> np.ndarray:
    """The pixel offsets of a filled disc, as an (n, 2) array."""
    reach = math.ceil(radius)
    dx, dy = np.meshgrid(np.arange(-reach, reach + 1), np.arange(-reach, reach + 1))
    inside = dx**2 + dy**2 <= radius**2 + radius / 2
    return np.column_stack([dx[inside], dy[inside]]).astype(np.int64)


def label(
    draw: ImageDraw.ImageDraw, frame: Frame, at: tuple[float, float], gap: float, text: str,
    size: int,
) -> None:
    """Write a name ``gap`` pixels right of a mark (left of it near the right edge), haloed
    so it reads on any background."""
    face = font(size)
    x, y = at
    right = x + gap + draw.textlength(text, font=face) + 4 <= frame.size
    draw.text(
        (x + gap if right else x - gap, y),
        text,
        fill=INK,
        font=face,
        anchor="lm" if right else "rm",
        stroke_width=3,
        stroke_fill=HALO,
    )


def scale_bar(draw: ImageDraw.ImageDraw, frame: Frame, units: str = "metric") -> None:
    """Draw a scale bar in the bottom left corner: metres or kilometres, or with
    ``units`` "imperial" feet or miles (a round length at most a fifth of the picture)."""
    count, unit, length = scale_length(frame.metres_per_pixel(), frame.size, units)
    text = f"{count:g} {unit}"
    size = max(11, frame.size // 70)
    left, base = size, frame.size - size
    draw.rectangle(
        (left - 6, base - 2.4 * size, left + length + 6, base + 6), fill=(255, 255, 255)
    )
    draw.line((left, base, left + length, base), fill=INK, width=3)
    for x in (left, left + length):
        draw.line((x, base - size / 2, x, base), fill=INK, width=2)
    draw.text((left, base - size), text, fill=INK, font=font(size), anchor="ls")


def scale_length(per_pixel: float, size: int, units: str) -> tuple[float, str, float]:
    """The scale bar of a picture ``size`` pixels wide at ``per_pixel`` metres a pixel:
    how many of which unit (a round number, at most a fifth of the picture) and its
    length in pixels."""
    target = per_pixel * size / 5
    if units == "imperial":
        unit = "mi" if target >= METRES_PER_UNIT["mi"] else "ft"
    else:
        unit = "km" if target >= METRES_PER_UNIT["km"] else "m"
    count = _round_down(target / METRES_PER_UNIT[unit])
    return count, unit, count * METRES_PER_UNIT[unit] / per_pixel


def _round_down(value: float) -> float:
    """The largest of 1, 2 or 5 times a power of ten that is at most ``value``."""
    step = 10 ** math.floor(math.log10(value))
    return max(m for m in (step, 2 * step, 5 * step) if m <= value * (1 + 1e-9))


def attribution(draw: ImageDraw.ImageDraw, frame: Frame, text: str) -> None:
    """Write the data's attribution in the bottom right corner, wrapped to fit."""
    if not text:
        return
    size = max(10, frame.size // 85)
    face = font(size)
    width = frame.size * 0.6
    lines: list[str] = []
    for word in text.split():
        if lines and draw.textlength(f"{lines[-1]} {word}", font=face) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    height = size + 3
    right, bottom = frame.size - 4, frame.size - 4
    widest = max(draw.textlength(line, font=face) for line in lines)
    top = bottom - height * len(lines)
    draw.rectangle((right - widest - 6, top - 3, right + 2, bottom + 2), fill=(255, 255, 255))
    for number, line in enumerate(lines):
        draw.text((right, top + number * height), line, fill=INK, font=face, anchor="ra")


@functools.cache
def font(size: int) -> Font:
    return ImageFont.load_default(size=size)


def png(image: Image.Image) -> bytes:
    """Encode as PNG with no metadata, so equal pictures are equal bytes."""
    buffer = io.BytesIO()
    # zlib's fastest level: half the encoding time of the default, for a file a third larger
    # (some 50 kB for a vector map), far below what a chat takes.
    image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def _flat(frame: Frame, world: np.ndarray) -> list[float]:
    flat: list[float] = frame.pixels(world).ravel().tolist()
    return flat
