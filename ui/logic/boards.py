"""Scoreboard, round result, game over and Tonight, as plain data built from the scorer's state.

Nothing here adds up points: totals, eliminations, leads and baazis are read off the scorer's state; the
only arithmetic is presentation (how far a total is from the elimination line, counting what happened).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ui.i18n import N_, _, ngettext, num
from ui.logic import games
from ui.store import GameRecord, GameStatus


@dataclass(frozen=True)
class PlayerRow:
    name: str
    total: int
    to_go: int
    eliminated: bool
    is_dealer: bool = False
    is_starter: bool = False


@dataclass(frozen=True)
class TeamRow:
    team: str
    players: tuple[str, ...]
    baazis: int
    leading_by: int
    last_points: int | None


@dataclass(frozen=True)
class Board:
    kind: str
    title: str
    rows: tuple[PlayerRow, ...] = ()
    teams: tuple[TeamRow, ...] = ()
    series: dict[str, list[int]] = field(default_factory=dict)
    max_score: int = 0
    finished: bool = False
    winner: str | None = None
    entries: int = 0
    lead_text: str = ""


def jhyap_board(log: dict[str, Any]) -> Board:
    state = games.jhyap_state(log)
    game = games.jhyap_game(log)
    max_score = game.rules.max_score
    rows = [
        PlayerRow(
            name=p,
            total=state.totals[p],
            to_go=max(0, max_score - state.totals[p]),
            eliminated=p in state.eliminated,
            is_dealer=p == state.next_dealer,
            is_starter=p == state.next_starter,
        )
        for p in game.players
    ]
    rows.sort(key=lambda r: (r.eliminated, r.total))
    series = {p: [0] + [r.totals[p] for r in state.rounds] for p in game.players}
    return Board(
        kind=games.JHYAP,
        title=_("Round {n}").format(n=num(len(state.rounds))) if state.rounds else _("No rounds yet"),
        rows=tuple(rows),
        series=series,
        max_score=max_score,
        finished=state.finished,
        winner=state.winner,
        entries=len(state.rounds),
    )


NEAR_OUT = 25  # a player this close to the elimination line (or closer) is marked as near going out


@dataclass(frozen=True)
class TotalTile:
    """One player's running total as the screens between rounds show it, in seating order."""

    name: str
    colour: int  # the player's colour index (seating order), as the check screen outlines their cards
    total: int
    to_go: int  # points left before going out (0 once out)
    last_points: int | None  # what the last round added (None before the first round, or once out)
    out_round: int | None  # the round the player went out in
    near_out: bool
    deals: bool
    starts: bool


def out_rounds(state: Any) -> dict[str, int]:
    """The round each eliminated player went out in."""
    out: dict[str, int] = {}
    for r in state.rounds:
        for name in r.eliminated:
            out.setdefault(name, r.number)
    return out


def total_tiles(log: dict[str, Any]) -> tuple[TotalTile, ...]:
    """Every player's running total, the distance to going out, the last round's points, who deals and
    who starts next, in seating order (each player finds their own place on the screen)."""
    state = games.jhyap_state(log)
    game = games.jhyap_game(log)
    max_score = game.rules.max_score
    out = out_rounds(state)
    last = state.rounds[-1] if state.rounds else None
    tiles = []
    for i, p in enumerate(game.players):
        total = state.totals[p]
        gone = p in out
        to_go = 0 if gone else max(0, max_score - total)
        tiles.append(
            TotalTile(
                name=p,
                colour=i,
                total=total,
                to_go=to_go,
                last_points=last.points.get(p) if last is not None and p in last.points else None,
                out_round=out.get(p),
                near_out=not gone and to_go <= NEAR_OUT,
                deals=not state.finished and p == state.next_dealer,
                starts=not state.finished and p == state.next_starter,
            )
        )
    return tuple(tiles)


def tile_notes(tile: TotalTile, short: bool = False) -> list[str]:
    """The small words beside a player's big total, in two lines: out (and when), or how far from going
    out; then the last round's points and whether they deal or start (``short``: the points alone, "+29",
    where the tile is narrow)."""
    if tile.out_round is not None:
        return [_("Out in round {n}").format(n=num(tile.out_round))]
    second = []
    if tile.last_points is not None:
        points = f"+{num(tile.last_points)}"
        second.append(points if short else _("last round {points}").format(points=points))
    if tile.deals:
        second.append(_("deals"))
    if tile.starts:
        second.append(_("starts"))
    return [_("{n} to go").format(n=num(tile.to_go)), "  ".join(second)]


@dataclass(frozen=True)
class TeamTile:
    """A Seep team between deals: its players, its lead in points (0 when behind or level) and baazis."""

    team: str
    players: tuple[str, ...]
    lead: int
    baazis: int
    last_points: int | None
    deals: bool


def team_tiles(log: dict[str, Any]) -> tuple[TeamTile, ...]:
    state = games.seep_state(log)
    last = state.deals[-1] if state.deals else None
    dealer = seep_dealer(log, len(state.deals) + 1)
    return tuple(
        TeamTile(
            team=t,
            players=tuple(log["teams"][t]),
            lead=state.lead.points if state.lead.team == t else 0,
            baazis=state.baazis[t],
            last_points=last.points[t] if last else None,
            deals=dealer in log["teams"][t],
        )
        for t in log["teams"]
    )


def team_name(log: dict[str, Any], team: str) -> str:
    return " & ".join(log["teams"][team])


def seep_seating(log: dict[str, Any]) -> list[str]:
    """The four Seep players round the table, partners opposite: A's first, B's first, A's second, B's."""
    a, b = log["teams"]["A"], log["teams"]["B"]
    return [a[0], b[0], a[1], b[1]]


def seep_dealer(log: dict[str, Any], number: int) -> str:
    """Who deals deal ``number`` (from 1): the first seat deals first, then the deal passes round the table
    in seating order (the kiosk shows it; the scorer does not depend on it)."""
    seats = seep_seating(log)
    return seats[(number - 1) % len(seats)]


def seep_board(log: dict[str, Any]) -> Board:
    state = games.seep_state(log)
    lead = state.lead
    last = state.deals[-1] if state.deals else None
    teams = tuple(
        TeamRow(
            team=t,
            players=tuple(log["teams"][t]),
            baazis=state.baazis[t],
            leading_by=lead.points if lead.team == t else 0,
            last_points=last.points[t] if last else None,
        )
        for t in log["teams"]
    )
    series = {t: [0] for t in log["teams"]}
    for d in state.deals:
        for t in log["teams"]:
            series[t].append(d.lead.points if d.lead.team == t else 0)
    lead_text = _lead_text(log, lead.team, lead.points)
    return Board(
        kind=games.SEEP,
        title=_("Deal {n}").format(n=num(len(state.deals))) if state.deals else _("No deals yet"),
        teams=teams,
        series=series,
        entries=len(state.deals),
        lead_text=lead_text,
    )


def _lead_text(log: dict[str, Any], team: str | None, points: int) -> str:
    if team is None:
        return _("Level")
    return _("{team} lead by {points}").format(team=team_name(log, team), points=num(points))


def board(log: dict[str, Any]) -> Board:
    return jhyap_board(log) if log["game"] == games.JHYAP else seep_board(log)


# -- the round result -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ResultLine:
    name: str
    hand: int | None
    points: int | None
    total: int
    note: str


@dataclass(frozen=True)
class RoundResult:
    number: int
    headline: str
    lines: tuple[ResultLine, ...]
    next_text: str
    finished: bool
    winner: str | None


def jhyap_round_result(log: dict[str, Any], position: int | None = None) -> RoundResult:
    """The result of one round (default: the last) as the scorer computed it."""
    state = games.jhyap_state(log)
    result = state.rounds[position if position is not None else -1]
    caller = result.caller
    if result.caller_won:
        headline = _("{caller} called Jhyap and made it: {points} points").format(
            caller=caller, points=num(0)
        )
    else:
        points = result.points[caller]
        headline = ngettext(
            "{caller} called Jhyap and lost: {points} point (penalty)",
            "{caller} called Jhyap and lost: {points} points (penalty)",
            points,
        ).format(caller=caller, points=num(points))
    lines = []
    for name in log["players"]:
        notes = []
        if name == caller:
            notes.append(_("called"))
        if name in result.halved:
            notes.append(_("halved to {total}").format(total=num(result.totals[name])))
        if name in result.eliminated:
            notes.append(_("OUT"))
        lines.append(
            ResultLine(
                name=name,
                hand=result.hand_totals.get(name),
                points=result.points.get(name),
                total=result.totals[name],
                note=", ".join(notes),
            )
        )
    is_last = position is None or position == len(state.rounds) - 1
    if state.finished and is_last:
        next_text = (
            _("{winner} wins the game!").format(winner=state.winner)
            if state.winner
            else _("The game ends without a winner.")
        )
    elif is_last:
        next_text = _("Next: {dealer} deals, {starter} starts.").format(
            dealer=state.next_dealer, starter=state.next_starter
        )
    else:
        next_text = _("{starter} started round {n}.").format(
            starter=result.next_starter, n=num(result.number + 1)
        )
    finished = state.finished and is_last
    return RoundResult(result.number, headline, tuple(lines), next_text, finished, state.winner)


@dataclass(frozen=True)
class DealResult:
    number: int
    lines: tuple[tuple[str, int, int, int], ...]  # team name, card points, sweep points, deal points
    lead_text: str
    baazi_text: str | None
    baazis: tuple[tuple[str, int], ...]


def seep_deal_result(log: dict[str, Any], position: int | None = None) -> DealResult:
    state = games.seep_state(log)
    d = state.deals[position if position is not None else -1]
    lines = tuple((team_name(log, t), d.card_points[t], d.sweep_points[t], d.points[t]) for t in log["teams"])
    lead_text = _lead_text(log, d.lead.team, d.lead.points)
    baazi_text = None
    if d.baazi is not None:
        why = (
            _("the other team scored under the minimum")
            if d.baazi.reason.value == "under_minimum"
            else _("their lead reached the baazi line")
        )
        baazi_text = _("Baazi to {team}: {why}.").format(team=team_name(log, d.baazi.winner), why=why)
    baazis = tuple((team_name(log, t), state.baazis[t]) for t in log["teams"])
    return DealResult(d.number, lines, lead_text, baazi_text, baazis)


# -- game over ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameStats:
    winner: str | None
    headline: str
    facts: tuple[str, ...]


def game_stats(log: dict[str, Any]) -> GameStats:
    facts: list[str] = []
    if log["game"] == games.JHYAP:
        state = games.jhyap_state(log)
        calls: dict[str, list[int]] = {}
        for r in state.rounds:
            calls.setdefault(r.caller, [0, 0])[0 if r.caller_won else 1] += 1
        n = len(state.rounds)
        facts.append(ngettext("{n} round played", "{n} rounds played", n).format(n=num(n)))
        for name, (won, lost) in sorted(calls.items(), key=lambda kv: -kv[1][0]):
            made = ngettext("{n} successful call", "{n} successful calls", won).format(n=num(won))
            paid = ngettext("{n} penalty", "{n} penalties", lost).format(n=num(lost))
            facts.append(f"{name}: {made}, {paid}")
        halvings = sum(len(r.halved) for r in state.rounds)
        if halvings:
            facts.append(ngettext("{n} halving", "{n} halvings", halvings).format(n=num(halvings)))
        winner = state.winner
        headline = (
            _("{winner} wins!").format(winner=winner)
            if winner
            else _("No winner: the last players went out together")
        )
        return GameStats(winner, headline, tuple(facts))
    seep = games.seep_state(log)
    sweeps: dict[str, int] = {t: 0 for t in log["teams"]}
    for deal in log["deals"]:
        for s in deal.get("sweeps", []):
            sweeps[s["team"]] += 1
    n = len(seep.deals)
    facts.append(ngettext("{n} deal played", "{n} deals played", n).format(n=num(n)))
    for t in log["teams"]:
        b, s = seep.baazis[t], sweeps[t]
        baazis = ngettext("{n} baazi", "{n} baazis", b).format(n=num(b))
        swept = ngettext("{n} sweep", "{n} sweeps", s).format(n=num(s))
        facts.append(f"{team_name(log, t)}: {baazis}, {swept}")
    winner = seep_winner(log)
    if winner:
        headline = _("{winner} win!").format(winner=winner)
    elif seep.lead.team is not None:
        # No baazi decided it, but a team was ahead when the game ended: say so, not "level".
        headline = _("{team} ahead by {points}, no baazi won").format(
            team=team_name(log, seep.lead.team), points=num(seep.lead.points)
        )
        if any(seep.baazis.values()):
            headline = _("Baazis level; {team} ahead by {points}").format(
                team=team_name(log, seep.lead.team), points=num(seep.lead.points)
            )
    else:
        headline = _("The baazis are level")
    return GameStats(winner, headline, tuple(facts))


@dataclass(frozen=True)
class FinalLine:
    """A player's line in the game-over table: place by finish, final total, the round they went out in."""

    place: int
    name: str
    colour: int
    total: int
    out_round: int | None
    winner: bool


def final_table(log: dict[str, Any]) -> tuple[FinalLine, ...]:
    """Every Jhyap player by finish: the winner, then those still in (lowest total first), then those who
    went out, the last to go first (players out in the same round by their totals)."""
    state = games.jhyap_state(log)
    players = list(log["players"])
    out = out_rounds(state)
    last_round = len(state.rounds) + 1

    def key(p: str) -> tuple[int, int, int]:
        return (0 if p == state.winner else 1, -out.get(p, last_round), state.totals[p])

    order = sorted(players, key=key)
    return tuple(
        FinalLine(place, p, players.index(p), state.totals[p], out.get(p), p == state.winner)
        for place, p in enumerate(order, 1)
    )


def seep_winner(log: dict[str, Any]) -> str | None:
    """The team ahead on baazis (the scorer's game facts), by its players' names; None when level."""
    ahead = games.facts(log).winner
    return None if ahead is None else team_name(log, ahead)


# -- tonight -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameLine:
    game_id: int
    kind: str
    players: str
    status: str
    winner: str | None
    entries: int
    started: str


@dataclass(frozen=True)
class Standing:
    name: str
    played: int
    won: int
    baazis: int


def game_line(record: GameRecord) -> GameLine:
    if record.kind == games.JHYAP:
        players = ", ".join(record.definition["players"])
    else:
        teams = (team_name(dict(record.definition), "A"), team_name(dict(record.definition), "B"))
        players = _("{a} v {b}").format(a=teams[0], b=teams[1])
    # Marked for the catalogs; the screen translates them (a GameLine may outlive a language switch).
    status = {
        GameStatus.PLAYING: N_("playing"),
        GameStatus.FINISHED: N_("finished"),
        GameStatus.ABANDONED: N_("stopped"),
    }
    return GameLine(
        game_id=record.id,
        kind=record.kind,
        players=players,
        status=status[record.status],
        winner=record.winner,
        entries=len(record.entries),
        started=record.created.strftime("%H:%M"),
    )


def standings(records: Sequence[GameRecord]) -> list[Standing]:
    """Across the night: games played, games won, and Seep baazis, per player (most wins first)."""
    table: dict[str, list[int]] = {}
    for record in records:
        log = record.log()
        for name in record.names:
            table.setdefault(name, [0, 0, 0])[0] += 1
        if record.status is GameStatus.FINISHED and record.winner:
            winners = record.winner.split(" & ") if record.kind == games.SEEP else [record.winner]
            for name in winners:
                if name in table:
                    table[name][1] += 1
        if record.kind == games.SEEP and record.entries:
            state = games.seep_state(log)
            for team, members in log["teams"].items():
                for name in members:
                    table[name][2] += state.baazis[team]
    rows = [Standing(n, p, w, b) for n, (p, w, b) in table.items()]
    rows.sort(key=lambda s: (-s.won, -s.baazis, s.name.casefold()))
    return rows


def rounds_csv(log: dict[str, Any]) -> str:
    """A CSV of the rounds (Jhyap) or deals (Seep), with the scorer's numbers. Its headers and values are
    language-neutral (English keys, Western digits) whatever language the kiosk speaks."""
    out = io.StringIO()
    writer = csv.writer(out)
    if log["game"] == games.JHYAP:
        state = games.jhyap_state(log)
        players = log["players"]
        writer.writerow(
            ["round", "dealer", "caller", "caller_won"]
            + [f"{p} {what}" for p in players for what in ("cards", "hand", "points", "total")]
            + ["halved", "eliminated", "next_starter"]
        )
        for entry, r in zip(log["rounds"], state.rounds, strict=True):
            row: list[Any] = [r.number, r.dealer, r.caller, "yes" if r.caller_won else "no"]
            for p in players:
                cards = " ".join(entry["hands"].get(p, []))
                row += [cards, r.hand_totals.get(p, ""), r.points.get(p, ""), r.totals[p]]
            row += [" ".join(r.halved), " ".join(r.eliminated), r.next_starter or ""]
            writer.writerow(row)
    else:
        teams = list(log["teams"])
        writer.writerow(
            ["deal"]
            + [f"{t} {what}" for t in teams for what in ("card_points", "sweep_points", "points")]
            + ["lead_team", "lead_points", "baazi", "baazi_reason"]
        )
        for d in games.seep_state(log).deals:
            row = [d.number]
            for t in teams:
                row += [d.card_points[t], d.sweep_points[t], d.points[t]]
            row += [d.lead.team or "", d.lead.points]
            row += [d.baazi.winner, d.baazi.reason.value] if d.baazi else ["", ""]
            writer.writerow(row)
    return out.getvalue()


def export_game(record: GameRecord, folder: Path) -> tuple[Path, Path]:
    """Write a game's JSON game log (for ``tabletally replay``) and its CSV of rounds into ``folder``.

    The CSV is UTF-8 with a byte-order mark, so spreadsheets read names in Devanagari right."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{record.created.strftime('%Y-%m-%d')}-game{record.id}-{record.kind}"
    log = games.canonical_log(record.log())
    json_path = folder / f"{stem}.json"
    csv_path = folder / f"{stem}.csv"
    json_path.write_text(json.dumps(log, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    csv_path.write_text(rounds_csv(record.log()), encoding="utf-8-sig", newline="")
    return json_path, csv_path
