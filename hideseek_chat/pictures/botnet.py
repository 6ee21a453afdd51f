"""The botnet board as a PNG picture, for channels that can show one.

Both botnets in their colours with their marks, the grid's column and row names, and,
only for a finished match, each proxy's path as a line from its start (a ring) to where it
ended (a dot). The picture holds no words, so it is the same in every language; the
caption under it names the players.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

from hideseek_chat.rules.botnet import COLUMNS, SIZE, Cell, Match

#: Each seat's mark on the board (seat 0, seat 1): the picture's and the text grid's.
MARKS = ("X", "O")

CELL = 56
MARGIN = 30
SIDE = 2 * MARGIN + SIZE * CELL
BACKGROUND = (250, 250, 247)
GRID = (190, 190, 185)
LABEL = (90, 90, 90)
FILL = ((214, 69, 65), (44, 110, 185))  # seat 0 red, seat 1 blue
PATH = ((140, 30, 28), (20, 60, 120))


def picture(match: Match, paths: Sequence[int] = ()) -> bytes:
    """A PNG of the board; the proxies' paths of ``paths`` seats drawn (only when it is over)."""
    image = Image.new("RGB", (SIDE, SIDE), BACKGROUND)
    draw = ImageDraw.Draw(image)
    label_font = ImageFont.load_default(size=18)
    mark_font = ImageFont.load_default(size=30)
    for index in range(SIZE):
        centre = MARGIN + index * CELL + CELL // 2
        for y in (MARGIN // 2, SIDE - MARGIN // 2):
            draw.text((centre, y), COLUMNS[index], fill=LABEL, font=label_font, anchor="mm")
        row_y = _centre((0, index))[1]
        for x in (MARGIN // 2, SIDE - MARGIN // 2):
            draw.text((x, row_y), str(index + 1), fill=LABEL, font=label_font, anchor="mm")
    for col in range(SIZE):
        for row in range(SIZE):
            left, top = MARGIN + col * CELL, MARGIN + (SIZE - 1 - row) * CELL
            box = (left, top, left + CELL, top + CELL)
            owner = match.owner((col, row))
            draw.rectangle(box, fill=FILL[owner] if owner is not None else "white", outline=GRID)
            if owner is not None:
                draw.text(
                    _centre((col, row)), MARKS[owner], fill="white", font=mark_font, anchor="mm"
                )
    for seat in paths:
        points = [_centre(cell) for cell in match.paths[seat]]
        if len(points) > 1:
            draw.line(points, fill=PATH[seat], width=5, joint="curve")
        start, end = points[0], points[-1]
        draw.ellipse(_around(start, 10), outline=PATH[seat], width=4)
        draw.ellipse(_around(end, 9), fill=PATH[seat])
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def _centre(cell: Cell) -> tuple[int, int]:
    col, row = cell
    return MARGIN + col * CELL + CELL // 2, MARGIN + (SIZE - 1 - row) * CELL + CELL // 2


def _around(point: tuple[int, int], radius: int) -> tuple[int, int, int, int]:
    x, y = point
    return x - radius, y - radius, x + radius, y + radius
