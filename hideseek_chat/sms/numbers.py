"""Phone numbers as the channel keeps them: E.164, parsed with phonenumbers."""

from __future__ import annotations

import phonenumbers

#: The longest text taken as a phone number (E.164 has at most 15 digits).
MAX_NUMBER_CHARS = 32


def normalize(raw: str, region: str | None = None) -> str | None:
    """``raw`` as an E.164 number (``+41791234567``), or None when it is not a valid one.

    Without a leading ``+`` the number is read as one of ``region`` (an ISO country code).
    """
    text = raw.strip()
    if not text or len(text) > MAX_NUMBER_CHARS:
        return None
    try:
        parsed = phonenumbers.parse(text, region)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_valid_number(parsed):
        return None
    return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)
