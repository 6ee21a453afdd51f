"""Every rule of the two-player botnet game, with plain values."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hideseek_chat.rules.botnet import (
    ALL_CELLS,
    BotnetViolation,
    DeviceClaimed,
    Ending,
    Match,
    ProxyMoved,
    Resigned,
    Stage,
    apply,
    cell_name,
    distance,
    neighbours,
    new_match,
    parse_cell,
    replay,
)


def c(name: str) -> tuple[int, int]:
    return parse_cell(name)


def turn(match: Match, move: str, claim: str) -> Match:
    seat = match.to_move
    match = apply(match, ProxyMoved(seat, c(move)))
    return apply(match, DeviceClaimed(seat, c(claim)))


def refused(match: Match, event: object) -> str:
    with pytest.raises(BotnetViolation) as err:
        apply(match, event)  # type: ignore[arg-type]
    return err.value.key


# ----------------------------------------------------------------- the grid


def test_cells_are_named_column_then_row() -> None:
    assert c("a1") == (0, 0)
    assert c("h8") == (7, 7)
    assert c(" E6 ") == (4, 5)
    assert c("6e") == (4, 5)
    assert [cell_name(cell) for cell in ALL_CELLS[:3]] == ["a1", "b1", "c1"]
    assert len(ALL_CELLS) == 64


@pytest.mark.parametrize("text", ["", "i1", "a0", "a9", "a", "e66", "ee", "11", "a1;drop"])
def test_a_name_that_is_no_device_is_refused(text: str) -> None:
    with pytest.raises(BotnetViolation) as err:
        parse_cell(text)
    assert err.value.key == "botnet.bad_cell"


def test_neighbours_share_a_side_never_a_corner() -> None:
    assert sorted(neighbours(c("d4"))) == sorted([c("d5"), c("e4"), c("d3"), c("c4")])
    assert sorted(neighbours(c("a1"))) == sorted([c("a2"), c("b1")])
    assert c("e5") not in neighbours(c("d4"))
    assert distance(c("e3"), c("e6")) == 3
    assert distance(c("a1"), c("b2")) == 2


# ----------------------------------------------------------------- the start


def test_start_positions_follow_the_side_panels() -> None:
    match = new_match(1)
    assert match.proxy(0) == c("h1") and match.proxy(1) == c("a8")
    assert match.botnets == ((c("f3"),), (c("c6"),))
    assert match.to_move == 1 and match.stage == Stage.MOVE and match.turns_left == 1


def test_a_seat_outside_the_two_is_refused() -> None:
    with pytest.raises(ValueError):
        new_match(2)


# ----------------------------------------------------------------- hide: the proxy


def test_proxy_moves_to_a_free_neighbour_then_must_claim() -> None:
    match = apply(new_match(0), ProxyMoved(0, c("g1")))
    assert match.proxy(0) == c("g1")
    assert match.paths[0] == (c("h1"), c("g1"))
    assert match.stage == Stage.CLAIM
    assert refused(match, ProxyMoved(0, c("f1"))) == "botnet.claim_first"


def test_proxy_may_not_stay_jump_or_go_diagonally() -> None:
    match = new_match(0)
    assert refused(match, ProxyMoved(0, c("h1"))) == "botnet.must_move"
    assert refused(match, ProxyMoved(0, c("g2"))) == "botnet.not_neighbour"
    assert refused(match, ProxyMoved(0, c("h3"))) == "botnet.not_neighbour"


def test_proxy_may_not_enter_either_botnet() -> None:
    match = replace(new_match(0), botnets=((c("f3"), c("g2")), (c("c6"), c("g1"))))
    match = replace(match, paths=((c("h1"), c("h2")), (c("a8"),)))
    assert refused(match, ProxyMoved(0, c("g2"))) == "botnet.into_own_botnet"
    match = replace(match, paths=((c("h2"), c("h1")), (c("a8"),)))
    assert refused(match, ProxyMoved(0, c("g1"))) == "botnet.into_their_botnet"
    assert refused(match, ProxyMoved(0, c("h2"))) == "botnet.visited"
    assert match.legal_moves(0) == []


def test_proxy_may_not_enter_the_opponents_botnet() -> None:
    match = new_match(1)
    match = turn(match, "a7", "g1")  # seat 1 claims g1, next to seat 0's proxy, skipping
    assert match.to_move == 0
    assert refused(match, ProxyMoved(0, c("g1"))) == "botnet.into_their_botnet"


def test_proxy_may_not_return_where_it_has_been() -> None:
    match = turn(new_match(0), "g1", "f2")
    match = turn(match, "a7", "b6")
    match = turn(match, "g2", "f4")
    match = turn(match, "a6", "b5")
    assert refused(match, ProxyMoved(0, c("g1"))) == "botnet.visited"
    assert match.legal_moves(0) == [c("g3"), c("h2")]


def test_proxy_may_share_a_device_with_the_other_proxy() -> None:
    match = replace(new_match(0), paths=((c("d4"),), (c("d5"),)))
    assert c("d5") in match.legal_moves(0)
    assert apply(match, ProxyMoved(0, c("d5"))).proxy(0) == c("d5")


# ----------------------------------------------------------------- seek: the botnet


def test_claiming_a_neighbour_of_the_botnet_is_free() -> None:
    match = turn(new_match(0), "g1", "f4")
    assert match.botnets[0] == (c("f3"), c("f4"))
    assert match.to_move == 1 and match.turns_left == 1 and match.owed == (0, 0)
    assert match.turns == 1


def test_claim_must_be_an_unclaimed_device() -> None:
    match = apply(new_match(0), ProxyMoved(0, c("g1")))
    assert refused(match, DeviceClaimed(0, c("f3"))) == "botnet.claimed_own"
    assert refused(match, DeviceClaimed(0, c("c6"))) == "botnet.claimed_theirs"


def test_claim_before_moving_is_refused() -> None:
    assert refused(new_match(0), DeviceClaimed(0, c("f4"))) == "botnet.move_first"


def test_only_the_player_to_move_acts() -> None:
    match = new_match(0)
    assert refused(match, ProxyMoved(1, c("a7"))) == "botnet.not_your_turn"
    match = apply(match, ProxyMoved(0, c("g1")))
    assert refused(match, DeviceClaimed(1, c("c5"))) == "botnet.not_your_turn"


def test_the_rulebook_example_e3_to_e6_gives_three_turns_in_a_row() -> None:
    match = replace(new_match(0), botnets=((c("e3"),), (c("c6"),)))
    assert match.skipped(0, c("e6")) == 2
    match = turn(match, "g1", "e6")
    assert match.to_move == 1 and match.turns_left == 3
    match = turn(match, "b8", "c7")
    assert match.to_move == 1 and match.turns_left == 2
    match = turn(match, "c8", "b6")
    assert match.to_move == 1 and match.turns_left == 1
    match = turn(match, "d8", "d6")
    assert match.to_move == 0 and match.turns_left == 1 and match.owed == (0, 0)


def test_distance_counts_to_the_nearest_botnet_device() -> None:
    match = replace(new_match(0), botnets=((c("a1"), c("e3")), (c("c6"),)))
    assert match.skipped(0, c("e5")) == 1  # two from e3, however far from a1
    assert match.skipped(0, c("e4")) == 0
    assert match.skipped(0, c("f4")) == 1  # a diagonal is two steps


def test_a_costly_claim_during_extra_turns_hands_over_and_banks_the_rest() -> None:
    match = replace(new_match(1), turns_left=3)
    match = turn(match, "a7", "c5")  # free: next to c6
    assert match.to_move == 1 and match.turns_left == 2
    match = turn(match, "a6", "c2")  # three from c5: two skipped
    # seat 0 plays its turn and two extra before seat 1 plays the turn it has left
    assert match.to_move == 0 and match.turns_left == 3 and match.owed == (0, 1)
    match = turn(match, "g1", "f4")
    match = turn(match, "g2", "f5")
    match = turn(match, "g3", "f6")
    assert match.to_move == 1 and match.turns_left == 2 and match.owed == (0, 0)


def test_a_costly_claim_by_both_players_adds_up() -> None:
    match = turn(new_match(0), "g1", "f6")  # f6 is three from f3: two skipped
    assert match.to_move == 1 and match.turns_left == 3
    match = turn(match, "b8", "c3")  # c3 is three from c6: two skipped
    assert match.to_move == 0 and match.turns_left == 3 and match.owed == (0, 2)


# ----------------------------------------------------------------- winning


def test_claiming_the_device_under_the_opponents_proxy_wins() -> None:
    match = turn(new_match(0), "g1", "f2")
    match = apply(match, ProxyMoved(1, c("a7")))
    assert match.proxy(0) == c("g1")
    match = apply(match, DeviceClaimed(1, c("g1")))
    assert match.is_over and match.winner == 1 and match.ending == Ending.FOUND
    assert refused(match, ProxyMoved(0, c("h2"))) == "botnet.over"


def test_claiming_where_the_proxy_was_before_does_not_win() -> None:
    match = turn(new_match(0), "g1", "f2")
    match = turn(match, "a7", "h1")  # seat 0's proxy left h1
    assert not match.is_over


def test_an_opponent_with_no_legal_move_loses_when_their_turn_comes() -> None:
    # seat 0's proxy on a1 with b1 visited; seat 1 claims a2, its last way out.
    match = replace(
        new_match(1),
        paths=((c("c1"), c("b1"), c("a1")), (c("a8"),)),
        botnets=((c("f3"),), (c("a3"),)),
    )
    assert match.legal_moves(0) == [c("a2")]
    match = turn(match, "a7", "a2")
    assert match.is_over and match.winner == 1 and match.ending == Ending.STUCK


def test_a_player_trapped_during_their_own_run_loses() -> None:
    match = replace(
        new_match(0),
        turns_left=2,
        paths=((c("b1"), c("a1")), (c("a8"),)),
        botnets=((c("f3"),), (c("a3"), c("b2"))),
    )
    # seat 0 moves into a2, a dead end, and claims; its second turn finds no move.
    match = apply(match, ProxyMoved(0, c("a2")))
    match = apply(match, DeviceClaimed(0, c("f4")))
    assert match.is_over and match.winner == 1 and match.ending == Ending.STUCK


def test_resigning_hands_the_win_to_the_other_player_at_any_time() -> None:
    match = apply(new_match(0), ProxyMoved(0, c("g1")))
    match = apply(match, Resigned(1))
    assert match.winner == 0 and match.ending == Ending.RESIGNED


def test_replay_rebuilds_the_match_and_refuses_a_bad_history() -> None:
    events = [ProxyMoved(0, c("g1")), DeviceClaimed(0, c("f4")), ProxyMoved(1, c("b8"))]
    match = replay(0, events)  # type: ignore[arg-type]
    assert match.paths[1] == (c("a8"), c("b8")) and match.stage == Stage.CLAIM
    with pytest.raises(BotnetViolation):
        replay(0, [ProxyMoved(0, c("h3"))])


# ----------------------------------------------------------------- properties


@st.composite
def games(draw: st.DrawFn) -> tuple[Match, list[object]]:
    """A match played with random legal and illegal attempts, as players would send them."""
    match = new_match(draw(st.integers(0, 1)))
    tried: list[object] = []
    for _ in range(draw(st.integers(0, 160))):
        if match.is_over:
            break
        seat = draw(st.integers(0, 1)) if draw(st.booleans()) else match.to_move
        cell = draw(st.sampled_from(ALL_CELLS))
        if match.stage == Stage.MOVE and match.legal_moves(match.to_move) and draw(st.booleans()):
            cell = draw(st.sampled_from(match.legal_moves(match.to_move)))
        if match.stage == Stage.CLAIM and draw(st.booleans()):
            free = [x for x in ALL_CELLS if match.owner(x) is None]
            cell = draw(st.sampled_from(free))
        event = (
            ProxyMoved(seat, cell)
            if draw(st.booleans()) or match.stage == Stage.MOVE
            else DeviceClaimed(seat, cell)
        )
        try:
            match = apply(match, event)
            tried.append(event)
        except BotnetViolation:
            pass
    return match, tried


@settings(max_examples=300, deadline=None)
@given(games())
def test_a_proxys_recorded_path_is_always_legal(game: tuple[Match, list[object]]) -> None:
    match, events = game
    botnets = [{c("f3")}, {c("c6")}]
    paths: list[list[tuple[int, int]]] = [[c("h1")], [c("a8")]]
    for event in events:
        if isinstance(event, DeviceClaimed):
            botnets[event.seat].add(event.cell)
        elif isinstance(event, ProxyMoved):
            path = paths[event.seat]
            assert distance(path[-1], event.cell) == 1  # a side-sharing neighbour
            assert event.cell not in path  # never occupied before
            assert event.cell not in botnets[0] | botnets[1]  # in no botnet when entered
            path.append(event.cell)
    assert [list(p) for p in match.paths] == paths


@settings(max_examples=200, deadline=None)
@given(games())
def test_devices_belong_to_one_botnet_and_turns_stay_positive(
    game: tuple[Match, list[object]],
) -> None:
    match, _ = game
    assert not set(match.botnets[0]) & set(match.botnets[1])
    assert all(len(set(b)) == len(b) for b in match.botnets)
    assert match.turns_left >= 1 and min(match.owed) >= 0
    if not match.is_over:
        assert match.legal_moves(match.to_move) or match.stage == Stage.CLAIM
    elif match.ending == Ending.STUCK:
        assert match.winner is not None
        assert not match.legal_moves(1 - match.winner)
