"""The demo's card play: which cards the hider keeps and plays, and how seekers clear curses.

:class:`DemoCards` adds to :class:`~hideseek_chat.console.demo_players.DemoPlayers` the
hider's choices: it keeps the cards the demo still needs to show (a curse it can cast and
the seekers can clear, a powerup it can play by itself), otherwise the best time bonus,
keeps the hand within its limit, and plays the wanted cards; and the seekers doing what an
active curse asks.
"""

from __future__ import annotations

from hideseek_chat.console.demo_players import DemoFailed, DemoPlayers
from hideseek_chat.rules.curses import is_active, is_clearable
from hideseek_chat.rules.deck import over_limit
from hideseek_chat.rules.ruleset import CardDef, CardKind, CostKind, CurseEffect, PowerupEffect
from hideseek_chat.rules.state import CardZone, GameState, Phase

#: Powerups the script can play by itself (Move would reveal the old station; Duplicate
#: needs a second card worth copying).
PLAYABLE = (
    PowerupEffect.DRAW_EXPAND,
    PowerupEffect.DISCARD_DRAW,
    PowerupEffect.VETO,
    PowerupEffect.RANDOMIZE,
)
#: Curse costs the script pays without further cards.
EASY_COSTS = (CostKind.CONFIRM, CostKind.DIE, CostKind.NEXT_QUESTION_FREE)


class DemoCards(DemoPlayers):
    """The scripted players' card play (the hider's hand, the seekers' curses)."""

    def wanted_curse(self, card: CardDef, hand_size: int) -> bool:
        curse = card.curse
        if curse is None or not is_clearable(curse) or curse.effect != CurseEffect.NONE:
            return False
        if curse.cost.kind in EASY_COSTS:
            return True
        # a discard of any kind of card: time bonuses pay it
        return (
            curse.cost.kind == CostKind.DISCARD
            and curse.cost.card_kind in (None, CardKind.TIME_BONUS)
            and hand_size >= curse.cost.count
        )

    def card_value(
        self, card: CardDef, state: GameState, team: int, own: int | None = None
    ) -> float:
        """How much the script wants ``card`` (``own``: its id, when it is in the hand)."""
        ruleset = self.ruleset()
        hand = [ruleset.card(c.def_id) for c in state.cards_in(CardZone.HAND, team) if c.id != own]
        if (
            self.goals.curse_cast is None
            and self.wanted_curse(card, len(hand))
            and not any(self.wanted_curse(h, len(hand)) for h in hand)
        ):
            return 1000.0
        if (
            self.goals.powerup is None
            and card.powerup in PLAYABLE
            and not any(h.powerup in PLAYABLE for h in hand)
        ):
            return 900.0 - PLAYABLE.index(card.powerup)
        if card.kind == CardKind.TIME_BONUS:
            return card.minutes[self.size] if card.minutes else 0.0
        return -1.0

    def hider_turn(self, hider: str) -> None:
        """Keep cards from the offers, keep the hand within its limit, play what is wanted."""
        for _ in range(12):
            state = self.state()
            team = state.hider_team_id()
            if team is None or state.phase not in (Phase.SEEKING, Phase.END_GAME):
                return
            if over_limit(state, self.ruleset(), team):
                worst = self.worst_in_hand(state, team)
                self.minutes(1)
                self.say(hider, "/hand", private=True)
                self.press(hider, f"disc:{self.game_id}:{worst}")
                continue
            best = self.best_offer(hider, state, team)
            if best is not None:
                self.press(hider, best)
                self.goals.kept += 1
                continue
            if self.play_cards(hider, state, team):
                continue
            return

    def worst_in_hand(self, state: GameState, team: int) -> int:
        """The id of the card the hider misses least."""
        ruleset = self.ruleset()
        values = [
            (self.card_value(ruleset.card(c.def_id), state, team, c.id), c.id)
            for c in state.cards_in(CardZone.HAND, team)
        ]
        return min(values)[1]

    def best_offer(self, hider: str, state: GameState, team: int) -> str | None:
        """The data of the keep button for the most wanted cards on offer, if any."""
        offered = {c.id for c in state.cards_in(CardZone.OFFER, team)}
        if not offered:
            return None
        ruleset = self.ruleset()
        scored = []
        for _, data, _ in self.buttons(hider, f"keep:{self.game_id}:"):
            ids = {int(i) for i in data.rsplit(":", 1)[1].split(",")}
            if ids <= offered:
                value = sum(
                    self.card_value(ruleset.card(state.card(i).def_id), state, team) for i in ids
                )
                scored.append((value, data))
        if not scored:
            raise DemoFailed("the offer's buttons do not match the cards on offer")
        return max(scored)[1]

    def play_cards(self, hider: str, state: GameState, team: int) -> bool:
        """Play a wanted curse or powerup; whether something was played."""
        ruleset = self.ruleset()
        hand = state.cards_in(CardZone.HAND, team)
        if self.goals.curse_cast is None and state.phase == Phase.SEEKING:
            blocking = any(is_active(c, self.table.now) for c in state.round_curses())
            for card in hand:
                card_def = ruleset.card(card.def_id)
                if not blocking and self.wanted_curse(card_def, len(hand) - 1):
                    return self.play(hider, card.id, card_def)
        if self.goals.powerup is None:
            for card in hand:
                card_def = ruleset.card(card.def_id)
                if card_def.powerup == PowerupEffect.DRAW_EXPAND or (
                    card_def.powerup == PowerupEffect.DISCARD_DRAW
                    and len(hand) - 1 >= card_def.discard
                ):
                    return self.play(hider, card.id, card_def)
        return False

    def play(self, hider: str, card_id: int, card_def: CardDef) -> bool:
        self.minutes(1)
        self.say(hider, "/hand", private=True)
        prefix = f"play:{self.game_id}:{card_id}"
        self.press(hider, prefix)
        for _ in range(4):  # the steps a card asks for: confirm a cost, choose discards
            steps = [f for f in self.buttons(hider, prefix + ":") if f[1] != prefix]
            state = self.state()
            if card_id not in {c.id for c in state.cards_in(CardZone.HAND, state.hider_team_id())}:
                break
            if not steps:
                return False
            self.press(hider, self.choose_step(state, steps))
        state = self.state()
        if card_def.curse is not None:
            cast = [c for c in state.round_curses() if c.card_id == card_id]
            if cast and not cast[0].no_effect:
                self.goals.curse_cast = card_def.id
        elif card_id in {c.id for c in state.cards_in(CardZone.PLAYED)}:
            self.goals.powerup = card_def.id
        return True

    def choose_step(self, state: GameState, steps: list[tuple[object, str, str]]) -> str:
        """The cheapest discard (time bonuses first), or the confirmation."""
        ruleset = self.ruleset()
        team = state.hider_team_id()
        assert team is not None

        def cost(found: tuple[object, str, str]) -> tuple[float, str]:
            last = found[1].rsplit(":", 1)[1]
            if not last.startswith("d"):
                return (0.0, found[1])
            ids = [int(i) for i in last[1:].split(".") if i]
            return (
                sum(
                    self.card_value(ruleset.card(state.card(i).def_id), state, team, i) for i in ids
                ),
                found[1],
            )

        return min(steps, key=cost)[1]

    def clear_curses(self, seekers: list[str]) -> None:
        """The seekers do what an active curse asks, then press its button."""
        state = self.state()
        ruleset = self.ruleset()
        for curse in state.round_curses():
            rules = ruleset.card(curse.def_id).curse
            if rules is None or not is_active(curse, self.table.now) or not is_clearable(rules):
                continue
            found = self.buttons(seekers[0], f"clear:{self.game_id}:{curse.id}")
            if not found:
                continue
            self.minutes(4)  # doing what the curse asks
            self.press(seekers[0], found[0][1])
            if self.state().curse(curse.id).cleared_at is not None:
                self.goals.curse_cleared = True
