"""The end game's and the catch's own sentences: asking the seekers whether they left
transit, a claim without a location, a catch the pins put far off, the admin's decision,
and the referee's warnings when the hider's pins break the staying-put rules.

What the group or a seeker reads here never holds a distance or a place: the numbers go
to the hider's private chat only (``chat.hider_*``).
"""

from __future__ import annotations

from hideseek_chat.chat.i18n import N_, Formatter
from hideseek_chat.chat.texts.registry import Params, plain_texts, text

plain_texts(
    {
        # /found
        "chat.catch_far": N_(
            "🛰 Your location is nowhere near the hider's, so I haven't sent your claim. Check "
            "that your live location is on. If you really have spotted them (GPS can be far "
            "off), press the button and the hider decides."
        ),
        "chat.catch_spotted_button": N_("👀 We've spotted them: ask the hider"),
        "chat.found_usage": N_(
            "Send /found on its own to claim that you found the hider. Only the admin names "
            "who found them: /found @name."
        ),
        "chat.catch_which_seeker": N_("⚖️ Which seeker found the hider?"),
        "chat.catch_replaced": N_(
            "{name} has claimed the catch since: answer their claim with its own buttons."
        ),
        # /endgame without a location
        "chat.claim_no_pin": N_(
            "🛰 {name} claims the end game, but I have no current location from them to check "
            "it. The hider decides whether it starts; a live location lets me check it."
        ),
        "chat.claim_no_pin_hider": N_(
            "🎯 {name} claims the end game, but I have no current location from them to check it."
        ),
        # /endgame while the zone is pending
        "chat.claim_no_zone": N_(
            "🛰 {name} claims the end game, but the hider's zone isn't fixed yet, so I can't "
            "check it. The hider decides whether it starts."
        ),
        "chat.claim_no_zone_hider": N_(
            "🎯 {name} claims the end game, but your zone isn't fixed yet (send your location "
            "to fix it), so I can't check the claim."
        ),
        # a seeker's pin in the zone whose speed can't be told
        "chat.transit_ask": N_(
            "🎯 {name}, your location may start the end game, but I can't tell whether you are "
            "still on transit. Once you are off it, press the button (or keep sharing your live "
            "location: its next update tells me)."
        ),
        "chat.transit_button": N_("🚶 We're off transit: start the end game"),
        "chat.transit_no_longer": N_(
            "{name}'s latest location doesn't start the end game any more. Send /endgame if you "
            "are sure it has begun."
        ),
        "chat.transit_riding": N_(
            "{name}'s latest locations move at transit speed: the end game starts once you're "
            "off transit."
        ),
        "chat.claim_off_transit": N_("🛰 The seekers confirmed that they had left transit."),
        # the hider's staying put: numbers to the hider only, a rule warning to the group
        "chat.hider_outside_zone": N_(
            "⚠️ Your location is {distance} outside your zone. The rules keep you inside it "
            "while the seekers seek: head back in."
        ),
        "chat.hider_moved": N_(
            "⚠️ Your location is {distance} from where you were when the end game began. The "
            "rules say stay put: go back to your hiding spot."
        ),
        "chat.rule_outside_zone": N_(
            "⚠️ Rule check: the hider's location shows them outside their zone. I've told them."
        ),
        "chat.rule_moved": N_(
            "⚠️ Rule check: the hider's location shows them moving during the end game. I've "
            "told them."
        ),
    },
    partial=True,
)

plain_texts(
    {
        "error.decide_end_game": N_(
            "The admin decides a catch during the end game. If the seekers are in the zone, "
            "start it with /endgame first."
        ),
        "error.not_a_seeker": N_("Only a seeker can be named as having found the hider."),
        "error.team_caught": N_("That team has already found the hider this round."),
    }
)


@text("catch.decided")
def _catch_decided(p: Params, f: Formatter) -> str:
    if p["team"] == p["by"]:
        return f.t(
            "⚖️ Found! The admin, {admin}, decided that {by} caught the hider.",
            admin=p["admin"],
            by=p["by"],
        )
    return f.t(
        "⚖️ Found! The admin, {admin}, decided that {by} of team {team} caught the hider.",
        admin=p["admin"],
        by=p["by"],
        team=p["team"],
    )
