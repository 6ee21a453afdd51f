"""The hider deck: a seeded shuffle, draw-N-keep-K offers, the hand limit, the discard pile.

Cards are conserved: every card of the deck is always in exactly one zone (deck, offer,
hand, discard, played), so deck + offers + hands + discard + played = deck size.
"""

from __future__ import annotations

from hideseek_chat.rules.clock import rng
from hideseek_chat.rules.decisions import GROUP, Decision, Notify, to_team
from hideseek_chat.rules.errors import CardNotAvailable, HandOverLimit
from hideseek_chat.rules.ruleset import CardDef, CardKind, PowerupEffect, Ruleset
from hideseek_chat.rules.scale import scaled_minutes
from hideseek_chat.rules.state import Card, CardZone, DrawCycle, GameState, Mode, Transport


def build_deck(state: GameState, ruleset: Ruleset) -> None:
    """Create one card row per physical card (variants may leave some out)."""
    state.cards = []
    for card_def in ruleset.cards:
        if not is_in_deck(state, card_def):
            continue
        for _ in range(card_def.count):
            state.cards.append(Card(state.new_id(), card_def.id, CardZone.DECK, 0))
    shuffle_all(state)


def is_in_deck(state: GameState, card_def: CardDef) -> bool:
    """Variants remove cards: Veto and Randomize in the points mode, transit-only curses on foot."""
    if state.settings.mode == Mode.TEAMS_POINTS and card_def.powerup in (
        PowerupEffect.VETO,
        PowerupEffect.RANDOMIZE,
    ):
        return False
    return not (
        state.settings.transport == Transport.FOOT
        and card_def.curse is not None
        and card_def.curse.needs_transit
    )


def shuffle_all(state: GameState) -> None:
    """Gather every card back into the deck and shuffle it (between rounds)."""
    order = sorted(state.cards, key=lambda c: c.id)
    rng(state).shuffle(order)
    for position, card in enumerate(order):
        card.zone = CardZone.DECK
        card.position = position
        card.holder_team_id = None
    for cycle in state.draws:
        cycle.done = True


def _refill_from_discard(state: GameState) -> None:
    pile = state.cards_in(CardZone.DISCARD)
    rng(state).shuffle(pile)
    for position, card in enumerate(pile):
        card.zone = CardZone.DECK
        card.position = position


def take_from_deck(state: GameState, count: int) -> list[Card]:
    """Take up to ``count`` cards from the top; an empty deck takes the shuffled discards."""
    taken: list[Card] = []
    while len(taken) < count:
        deck = state.cards_in(CardZone.DECK)
        if not deck:
            if not state.cards_in(CardZone.DISCARD):
                break
            _refill_from_discard(state)
            continue
        taken.append(deck[0])
        deck[0].zone = CardZone.OFFER  # out of the deck; the caller places it
    return taken


def _top_position(state: GameState, zone: CardZone, team_id: int | None = None) -> int:
    cards = state.cards_in(zone, team_id)
    return (cards[-1].position + 1) if cards else 0


def move_card(state: GameState, card: Card, zone: CardZone, team_id: int | None = None) -> None:
    card.position = _top_position(state, zone, team_id if zone != CardZone.DISCARD else None)
    card.zone = zone
    card.holder_team_id = team_id if zone in (CardZone.HAND, CardZone.OFFER) else None


def hand(state: GameState, team_id: int) -> list[Card]:
    return state.cards_in(CardZone.HAND, team_id)


def hand_limit(state: GameState, ruleset: Ruleset, team_id: int) -> int:
    current = state.current_round
    bonus = current.hand_limit_bonus.get(team_id, 0) if current else 0
    return ruleset.hand_limit + bonus


def over_limit(state: GameState, ruleset: Ruleset, team_id: int) -> int:
    """How many cards the team must play or discard now.

    While over, only the team's own draws wait (the next owed draw is not offered and an
    open one cannot be kept); the seekers ask, the hider answers and plays cards as usual.
    """
    return max(0, len(hand(state, team_id)) - hand_limit(state, ruleset, team_id))


def require_resolved_hand(state: GameState, ruleset: Ruleset, team_id: int) -> None:
    """Raise ``HandOverLimit`` while the team holds more cards than its limit."""
    excess = over_limit(state, ruleset, team_id)
    if excess:
        raise HandOverLimit(
            f"the hand is {excess} over its limit: play or discard first", excess=excess
        )


def owe_draws(
    state: GameState, team_id: int, draw: int, keep: int, times: int, question_id: int | None
) -> None:
    """Queue ``times`` separate draw-and-keep cycles (never one larger draw)."""
    current = state.current_round
    assert current is not None
    for _ in range(times):
        state.draws.append(
            DrawCycle(state.new_id(), current.number, team_id, draw, keep, question_id)
        )


def offer_next(state: GameState, ruleset: Ruleset) -> list[Decision]:
    """Put the next owed cycle's cards on offer, unless one is already open or the hand is full."""
    decisions: list[Decision] = []
    for cycle in [c for c in state.draws if not c.done]:
        if cycle.offered:
            return decisions
        if over_limit(state, ruleset, cycle.team_id):
            return decisions
        cards = take_from_deck(state, cycle.draw)
        for card in cards:
            move_card(state, card, CardZone.OFFER, cycle.team_id)
        cycle.offered = True
        keep = min(cycle.keep, len(cards))
        if keep == 0:
            cycle.done = True
            decisions.append(Notify(to_team(cycle.team_id), "draw.deck_empty"))
            continue
        if keep == len(cards):
            # Nothing to choose: keep them all at once.
            decisions.extend(_keep(state, ruleset, cycle, cards))
            continue
        decisions.append(
            Notify(
                to_team(cycle.team_id),
                "draw.offer",
                {
                    "cycle_id": cycle.id,
                    "card_ids": [c.id for c in cards],
                    "cards": [c.def_id for c in cards],
                    "keep": keep,
                },
            )
        )
        return decisions
    return decisions


def keep_cards(
    state: GameState, ruleset: Ruleset, team_id: int, card_ids: tuple[int, ...]
) -> list[Decision]:
    """The team keeps ``card_ids`` from its open offer; the rest are discarded."""
    cycle = state.open_draw(team_id)
    if cycle is None or not cycle.offered:
        raise CardNotAvailable("there is no draw to choose from", key="error.no_offer")
    # A powerup played while cards were on offer can fill the hand: sort it first.
    require_resolved_hand(state, ruleset, team_id)
    offered = state.cards_in(CardZone.OFFER, team_id)
    keep = min(cycle.keep, len(offered))
    chosen = [c for c in offered if c.id in set(card_ids)]
    if len(set(card_ids)) != keep or len(chosen) != keep:
        raise CardNotAvailable(
            f"choose exactly {keep} of the drawn cards", key="error.keep_count", keep=keep
        )
    return _keep(state, ruleset, cycle, chosen)


def _keep(
    state: GameState, ruleset: Ruleset, cycle: DrawCycle, chosen: list[Card]
) -> list[Decision]:
    chosen_ids = {c.id for c in chosen}
    for card in state.cards_in(CardZone.OFFER, cycle.team_id):
        if card.id in chosen_ids:
            move_card(state, card, CardZone.HAND, cycle.team_id)
        else:
            move_card(state, card, CardZone.DISCARD)
    cycle.done = True
    decisions: list[Decision] = [
        Notify(to_team(cycle.team_id), "draw.kept", {"cards": [c.def_id for c in chosen]})
    ]
    decisions.extend(hand_limit_notice(state, ruleset, cycle.team_id))
    decisions.extend(offer_next(state, ruleset))
    return decisions


def draw_into_hand(state: GameState, ruleset: Ruleset, team_id: int, count: int) -> list[Decision]:
    """Draw and keep ``count`` cards straight into the hand (powerups)."""
    cards = take_from_deck(state, count)
    for card in cards:
        move_card(state, card, CardZone.HAND, team_id)
    decisions: list[Decision] = [
        Notify(to_team(team_id), "draw.kept", {"cards": [c.def_id for c in cards]})
    ]
    decisions.extend(hand_limit_notice(state, ruleset, team_id))
    return decisions


def hand_limit_notice(state: GameState, ruleset: Ruleset, team_id: int) -> list[Decision]:
    """Over the limit: prompt the team to play or discard, and tell the group only that
    the team is sorting its cards (the game goes on meanwhile)."""
    excess = over_limit(state, ruleset, team_id)
    if not excess:
        return []
    return [
        Notify(
            to_team(team_id),
            "hand.over_limit",
            {"excess": excess, "limit": hand_limit(state, ruleset, team_id)},
        ),
        Notify(
            GROUP,
            "hand.sorting",
            {"team": state.team(team_id).name, "hider": team_id == state.hider_team_id()},
        ),
    ]


def card_in_hand(state: GameState, team_id: int, card_id: int) -> Card:
    for card in hand(state, team_id):
        if card.id == card_id:
            return card
    raise CardNotAvailable("that card is not in the hand", key="error.card_not_in_hand")


def discard_from_hand(
    state: GameState, ruleset: Ruleset, team_id: int, card_id: int
) -> list[Decision]:
    card = card_in_hand(state, team_id, card_id)
    move_card(state, card, CardZone.DISCARD)
    decisions: list[Decision] = [Notify(to_team(team_id), "hand.discarded", {"card": card.def_id})]
    decisions.extend(offer_next(state, ruleset))
    return decisions


def card_minutes(state: GameState, ruleset: Ruleset, def_id: str) -> float | None:
    """A time bonus card's minutes for this game (size, global variant); None for others."""
    card_def = ruleset.card(def_id)
    if card_def.kind != CardKind.TIME_BONUS or card_def.minutes is None:
        return None
    return scaled_minutes(state, ruleset, card_def.minutes)


def counted_bonuses(state: GameState, ruleset: Ruleset, team_id: int) -> list[float]:
    """The minutes each card of the hand adds at the end of a round, largest first.

    Each Duplicate copies the largest time bonus. A hand still over its limit counts only
    as many cards as the limit holds, the most valuable ones (those the hider would have
    kept had they sorted it in time).
    """
    values: list[float] = []
    duplicates = 0
    for card in hand(state, team_id):
        minutes = card_minutes(state, ruleset, card.def_id)
        if minutes is not None:
            values.append(minutes)
        elif ruleset.card(card.def_id).powerup == PowerupEffect.DUPLICATE:
            duplicates += 1
    best = max(values, default=0.0)
    counted = sorted(values + [best] * duplicates, reverse=True)
    return [m for m in counted[: hand_limit(state, ruleset, team_id)] if m]


def time_bonus_minutes(state: GameState, ruleset: Ruleset, team_id: int) -> float:
    """Minutes the hand adds at the end of a round (``counted_bonuses`` summed)."""
    return sum(counted_bonuses(state, ruleset, team_id))
