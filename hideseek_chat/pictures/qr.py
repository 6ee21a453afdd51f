"""A QR code as a PNG (a tracker app's set-up link, scanned from another screen)."""

from __future__ import annotations

import io

import qrcode
from qrcode.constants import ERROR_CORRECT_M
from qrcode.image.pil import PilImage

#: Pixels per module (the code's smallest square) and the quiet border, in modules.
BOX = 8
BORDER = 4


def qr_png(data: str) -> bytes:
    """A PNG of a QR code that reads as ``data`` (a few milliseconds: small enough to draw
    while answering the command that asks for it)."""
    code = qrcode.QRCode(error_correction=ERROR_CORRECT_M, box_size=BOX, border=BORDER)
    code.add_data(data)
    code.make(fit=True)
    image = code.make_image(image_factory=PilImage)
    out = io.BytesIO()
    image.save(out)
    return out.getvalue()
