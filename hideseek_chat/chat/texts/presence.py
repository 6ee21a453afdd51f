"""The bot's place in a group: its introduction when added, the rights it needs and what is
missing (privacy mode, deleting, pinning), a game paused while it was away, and the
pointer to the topic a game lives in."""

from __future__ import annotations

from hideseek_chat.chat.i18n import N_
from hideseek_chat.chat.texts.registry import plain_texts

plain_texts(
    {
        "chat.hello_group": N_(
            "👋 Hi, I'm the Hide+Seek referee. Start a game with /newgame; /help lists "
            "everything I understand."
        ),
        "chat.rights_wanted": N_(
            "To referee well, please make me a group admin with these rights:"
        ),
        "chat.right_delete": N_(
            "• Delete messages: I remove a location the hider posts here by mistake."
        ),
        "chat.right_pin": N_("• Pin messages: the game's status stays on top."),
        "chat.privacy_on": N_(
            "⚠️ I can't see the live locations and files you send in this group: my privacy "
            "mode is on and I'm not an admin here. Make me a group admin, or have my owner "
            "turn privacy mode off (BotFather: /setprivacy → Disable) and add me to the group "
            "again."
        ),
        "chat.rights_missing": N_(
            "⚠️ I'm missing rights in this group. The game goes on, but without them:"
        ),
        "chat.missing_delete": N_(
            "• Delete messages: a location the hider posts here by mistake stays for all to "
            "see."
        ),
        "chat.missing_pin": N_("• Pin messages: the game's status is not pinned."),
        "chat.rights_fix": N_("A group admin can give me these rights in the group's settings."),
        "chat.paused_while_away": N_(
            "⏸ I'm back. The game here was paused while I was away; nothing is lost. When "
            "everyone is ready, send /resume to go on."
        ),
        "chat.game_in_topic": N_(
            "This group's game is played in another topic. Please write there, or start a "
            "game here with /newgame once it is over."
        ),
    },
    partial=True,
)
