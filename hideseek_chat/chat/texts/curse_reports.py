"""The sentences of curse reports (``chat.*``): a seeker reports that a curse struck (the
hider gains its bonus) or that a curse game was lost, and the hider confirms it."""

from __future__ import annotations

from hideseek_chat.chat.i18n import N_
from hideseek_chat.chat.texts.registry import plain_texts

plain_texts(
    {
        "chat.no_penalty_curse": N_(
            "No curse of this run can award the hider a bonus right now (or it was already "
            "awarded)."
        ),
        "chat.which_penalty": N_("Which curse struck?"),
        "chat.penalty_by_seekers": N_(
            "The seekers report a curse's bonus with /penalty, and you confirm it. "
            "Ask them, or ask the admin."
        ),
        "chat.penalty_reported": N_(
            "⏱️ Reported: the {curse} struck. The bonus of {duration} counts once it is confirmed."
        ),
        "chat.penalty_confirm": N_(
            "⏱️ {name} reports that the {curse} struck: you gain {duration}. Confirm it to add "
            "it to your time."
        ),
        "chat.penalty_confirm_button": N_("✅ Confirm +{duration}"),
        "chat.penalty_report_button": N_("⏱️ Report the bonus: +{duration}"),
        "chat.penalty_already": N_(
            "That report was already confirmed. If the curse struck again, the seekers report "
            "it again."
        ),
        "chat.no_lost_curse": N_("There is no curse game being played right now."),
        "chat.which_lost": N_("Which curse game did you lose?"),
        "chat.loss_by_seekers": N_(
            "The seekers report a lost game with /lost, and you confirm it."
        ),
        "chat.loss_reported": N_(
            "💀 Reported: a game of the {curse} lost. It counts once the hider confirms."
        ),
        "chat.loss_confirm": N_(
            "💀 {name} reports that the seekers lost a game of the {curse} ({losses} of "
            "{needed}). Confirm it if they did."
        ),
        "chat.loss_confirm_button": N_("✅ Yes, they lost"),
        "chat.loss_report_button": N_("💀 We lost a game"),
        "chat.loss_already": N_("That lost game was already counted."),
        "chat.report_sent_nowhere": N_(
            "I can't reach the confirming players in private: they should open a private chat "
            "with me, then report again."
        ),
    },
    partial=True,
)
