"""The SMS channel's own sentences (``sms.*``): join codes, keywords, opt-out, choices."""

from __future__ import annotations

from hideseek_chat.chat.i18n import N_
from hideseek_chat.chat.texts.registry import plain_texts

plain_texts(
    {
        "sms.created": N_(
            "Your game's code is {code}. Friends join by texting JOIN {code} to this number."
        ),
        "sms.no_code": N_(
            "There is no game with the code {code}. Check it, or start one with NEW small."
        ),
        "sms.join_usage": N_("Text JOIN and the game's code, like JOIN K7QX."),
        "sms.stopped": N_(
            "You will get no more texts from the game. Text START to get them again."
        ),
        "sms.started": N_("Welcome back: you get the game's texts again."),
        "sms.help": N_(
            "Hide+Seek by text. NEW small, medium or large: a new game. JOIN and a code: join "
            "one. STATUS: the game now. NAME and a name: how others see you. Reply with a "
            "number to choose. Commands work too, like ASK RADAR 1KM or 36.12,-97.06 for "
            "where you are. DIGEST 15: the news together every 15 min. STOP: no more texts."
        ),
        "sms.stale_choice": N_(
            "There is no choice {number} waiting for you. Reply with a number of the latest "
            "message."
        ),
        "sms.named": N_(
            "Others now see you as {name}, in every game you play. Not what you meant? Text "
            "NAME and the right name."
        ),
        "sms.name_usage": N_(
            "Your name stays {name}. To change it, text NAME and the name others should see, "
            "at most {most} characters, like NAME Alex."
        ),
        "sms.name_not_now": N_(
            "Your name stays {name}: while you hide, no text is read as a new name (it could "
            "give your spot away). Text NAME again once the round is over."
        ),
        #: the name of an SMS player who has not texted NAME yet, as others see it
        "sms.default_name": N_("Player {number}"),
        "sms.photo_note": N_("(a photo: Telegram players see it)"),
        "sms.no_media": N_(
            "I can only take photos by MMS. Send anything else as text, like ANSWER yes."
        ),
        "sms.photo_too_large": N_(
            "Your photo is too large (at most 5 MB). Please send a smaller one."
        ),
        "sms.photo_failed": N_(
            "I could not fetch your photo from the phone network. Please send it again."
        ),
        "sms.count": N_("Texts sent for this game: {texts} ({segments} SMS segments)."),
        "sms.digest_on": N_(
            "The game's news without a choice to make now come together every {minutes} min. "
            "DIGEST OFF sends each at once again."
        ),
        "sms.digest_off": N_("The game's news come one by one again."),
        "sms.digest_usage": N_(
            "Text DIGEST and the minutes (5 to 120), like DIGEST 15, or DIGEST OFF."
        ),
        "sms.invited": N_(
            "You are invited to a Hide+Seek game. Text JOIN {code} to play by text, or STOP "
            "if you do not want texts."
        ),
        "sms.invite_sent": N_("The invitation went out by text."),
        "sms.invite_usage": N_(
            "Invite a player by text with /invite and their number, like /invite +41791234567."
        ),
    },
    partial=True,
)
