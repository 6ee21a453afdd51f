"""A person's data: ``/forgetme``, its confirmation and what it erased."""

from __future__ import annotations

from hideseek_chat.chat.i18n import N_
from hideseek_chat.chat.texts.registry import plain_texts

plain_texts(
    {
        "chat.forget_confirm": N_(
            "🗑 Erase what I store about you? Your name is removed from every game you played "
            "(they keep their scores, with you as a former player), your shared locations are "
            "deleted, and I forget your language and this chat. This cannot be undone."
        ),
        "chat.forget_yes": N_("Yes, erase"),
        "chat.forget_no": N_("Cancel"),
        "chat.forget_playing": N_(
            "You are still in a game that has not ended. Leave it with /leave in its group, "
            "or wait until it ends, then send /forgetme again: I erase nothing while a game "
            "needs you."
        ),
        "chat.forget_kept": N_("Nothing was erased."),
        "chat.forgotten": N_(
            "✅ Done: I erased what I stored about you. Messages already in your groups stay "
            "there (only their members can delete them). Send /start if you play again."
        ),
    }
)
