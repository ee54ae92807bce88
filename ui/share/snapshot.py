"""What the phones see: tonight's scoreboard as plain JSON-ready data, built from the kiosk's board logic.

Every number comes from :mod:`ui.logic.boards` (which reads the scorer's state through :mod:`ui.logic.games`);
nothing here adds up a point. Numbers stay JSON numbers; ``digits`` gives the ten digits the kiosk writes
them in (its Settings, through :func:`ui.i18n.digits_in`), and the page writes every number with those;
``language`` is the kiosk's language, which the page reloads to speak when it changes.
Only tonight is shown: the game the kiosk has open (else tonight's latest game), tonight's games and
standings, and the night's story so far (:mod:`ui.logic.alltime`, worded by :mod:`ui.logic.record_views`).
No photos, no scans, nothing from earlier nights.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ui.i18n import digits_in, language
from ui.logic import alltime, boards, games
from ui.logic.record_views import story_lines
from ui.logic.scan import card_label
from ui.store import GameRecord, GameStatus, Store, night_of

STATUS = {GameStatus.PLAYING: "playing", GameStatus.FINISHED: "finished", GameStatus.ABANDONED: "stopped"}


def current_game(records: Sequence[GameRecord], open_id: int | None, store: Store) -> GameRecord | None:
    """The game the phones follow: the one open on the kiosk, else tonight's game being played, else
    tonight's latest."""
    if open_id is not None:
        for record in records:
            if record.id == open_id:
                return record
        return store.game(open_id)  # resumed tonight from an earlier night: the table is playing it now
    playing = [r for r in records if r.status is GameStatus.PLAYING]
    if playing:
        return playing[-1]
    return records[-1] if records else None


def _jhyap(log: dict[str, Any], board: boards.Board) -> dict[str, Any]:
    out: dict[str, Any] = {
        "max_score": board.max_score,
        "players": [
            {
                "name": r.name,
                "total": r.total,
                "to_go": r.to_go,
                "out": r.eliminated,
                "deals": r.is_dealer and not board.finished,
                "starts": r.is_starter and not board.finished,
            }
            for r in board.rows
        ],
        "last": None,
    }
    if board.entries:
        result = boards.jhyap_round_result(log)
        hands = log["rounds"][-1].get("hands", {})
        caller = log["rounds"][-1].get("caller")
        out["last"] = {
            "number": result.number,
            "headline": result.headline,
            "caller": caller,
            "lines": [
                {
                    "name": line.name,
                    "cards": [{"code": c, "label": card_label(c)} for c in hands.get(line.name, [])],
                    "hand": line.hand,
                    "points": line.points,
                    "total": line.total,
                    "note": line.note,
                }
                for line in result.lines
            ],
        }
        out["next"] = result.next_text
    return out


def _seep(log: dict[str, Any], board: boards.Board) -> dict[str, Any]:
    out: dict[str, Any] = {
        "lead_text": board.lead_text,
        "teams": [
            {
                "team": t.team,
                "name": boards.team_name(log, t.team),
                "players": list(t.players),
                "baazis": t.baazis,
                "leading_by": t.leading_by,
                "last_points": t.last_points,
            }
            for t in board.teams
        ],
        "last": None,
    }
    if board.entries:
        deal = boards.seep_deal_result(log)
        out["last"] = {
            "number": deal.number,
            "lines": [
                {"name": name, "cards": cards, "sweeps": sweeps, "points": points}
                for name, cards, sweeps, points in deal.lines
            ],
            "lead_text": deal.lead_text,
            "baazi_text": deal.baazi_text,
        }
    return out


def game_view(record: GameRecord) -> dict[str, Any]:
    """One game as the phone page shows it."""
    log = record.log()
    board = boards.board(log)  # once: each board replays the game's log through the scorer
    if record.kind == games.JHYAP:
        series = board.series
    else:
        series = {boards.team_name(log, t): values for t, values in board.series.items()}
    view: dict[str, Any] = {
        "id": record.id,
        "kind": record.kind,
        "title": board.title,
        "status": STATUS[record.status],
        "winner": record.winner if record.status is GameStatus.FINISHED else None,
        "started": record.created.strftime("%H:%M"),
        "entries": board.entries,
        "chart": {"series": series, "limit": board.max_score if record.kind == games.JHYAP else 0},
    }
    view[record.kind] = _jhyap(log, board) if record.kind == games.JHYAP else _seep(log, board)
    return view


def tonight_story(store: Store, records: Sequence[GameRecord]) -> list[str]:
    """Tonight's story so far, in sentences (none before the first game)."""
    if not records:
        return []
    names = {p.id: p.name for p in store.players()}
    facts = alltime.game_facts(records, store.seating(), names)
    return story_lines(alltime.story(night_of(store.clock()), facts))


def snapshot(store: Store, open_id: int | None) -> dict[str, Any]:
    """Tonight as the phones see it (without the version, which the server adds)."""
    records = store.tonight()
    game = current_game(records, open_id, store)
    lines = [boards.game_line(r) for r in records]
    return {
        "night": night_of(store.clock()).isoformat(),
        "digits": digits_in("0123456789"),  # the kiosk's digits (Settings): the page writes numbers in them
        "language": language(),  # the page's words are in the language it was opened in: else it reloads
        "game": game_view(game) if game is not None else None,
        "tonight": {
            "games": [
                {
                    "id": g.game_id,
                    "kind": g.kind,
                    "players": g.players,
                    "status": g.status,
                    "winner": g.winner,
                    "entries": g.entries,
                    "started": g.started,
                }
                for g in reversed(lines)
            ],
            "standings": [
                {"name": s.name, "played": s.played, "won": s.won, "baazis": s.baazis}
                for s in boards.standings(records)
            ],
            "story": tonight_story(store, records),
        },
    }
