"""Scores: the longest single hiding run wins; two-team variants score seeking times."""

from __future__ import annotations

from typing import Any

from hideseek_chat.rules.state import GameState, Mode, Round


def round_seeker_times(state: GameState, round_: Round) -> list[dict[str, Any]]:
    """Two-team games: each seeker team's seeking time in this round (bonuses applied)."""
    if state.settings.mode == Mode.STANDARD:
        return []
    rows = []
    for catch in state.catches:
        if catch.round_number != round_.number:
            continue
        seconds = _seeking_seconds(state, round_, catch.seconds, catch.bonus_minutes)
        rows.append(
            {"team": state.team(catch.team_id).name, "team_id": catch.team_id, "seconds": seconds}
        )
    return sorted(rows, key=lambda r: r["seconds"])


def _seeking_seconds(state: GameState, round_: Round, seconds: float, own_bonus: float) -> float:
    if state.settings.mode == Mode.TEAMS_POINTS:
        # The team's own time bonuses take time off its seeking time.
        return max(0.0, seconds - 60 * own_bonus)
    # Racing for the lowest time: the hider's bonuses and curse penalties count against both.
    return seconds + 60 * ((round_.bonus_minutes or 0.0) + round_.penalty_minutes)


def scoreboard(state: GameState) -> dict[str, Any]:
    """Every team's score and the winners (more than one winner is a tie)."""
    mode = state.settings.mode
    rows: list[dict[str, Any]] = []
    for team in state.teams:
        if mode == Mode.STANDARD:
            finished = [r for r in state.rounds if r.hider_team_id == team.id]
            finished = [r for r in finished if r.total_seconds is not None]
            runs: list[float] = [r.total_seconds or 0.0 for r in finished]
            row: dict[str, Any] = {
                "team": team.name,
                "team_id": team.id,
                "score": max(runs, default=None),
                "runs": runs,
            }
            if finished:  # how the best run adds up, for the final scores
                best_run = max(finished, key=lambda r: r.total_seconds or 0.0)
                row["hidden_seconds"] = best_run.hiding_seconds or 0.0
                row["bonus_minutes"] = best_run.bonus_minutes or 0.0
                row["penalty_minutes"] = best_run.penalty_minutes
            rows.append(row)
        elif mode == Mode.TEAMS_POINTS:
            points = 0
            for round_ in state.rounds:
                times = round_seeker_times(state, round_)
                if times and round_.ended_at is not None:
                    best = times[0]["seconds"]
                    points += any(
                        run["team_id"] == team.id and run["seconds"] == best for run in times
                    )
            rows.append({"team": team.name, "team_id": team.id, "score": points})
        else:
            best_time = None
            for round_ in state.rounds:
                if round_.ended_at is None:
                    continue
                for row in round_seeker_times(state, round_):
                    if row["team_id"] == team.id and (
                        best_time is None or row["seconds"] < best_time
                    ):
                        best_time = row["seconds"]
            rows.append({"team": team.name, "team_id": team.id, "score": best_time})
    for row in rows:
        row["members"] = [p.name for p in state.players if p.team_id == row["team_id"]]
    scored = [r for r in rows if r["score"] is not None]
    if not scored:
        return {"mode": mode.value, "rows": rows, "winners": []}
    if mode == Mode.TEAMS_TIME:
        best = min(r["score"] for r in scored)
        rows.sort(key=lambda r: (r["score"] is None, r["score"] or 0))
    else:
        best = max(r["score"] for r in scored)
        rows.sort(key=lambda r: (r["score"] is None, -(r["score"] or 0)))
    winners = [r["team"] for r in scored if r["score"] == best]
    return {"mode": mode.value, "rows": rows, "winners": winners, "tie": len(winners) > 1}
