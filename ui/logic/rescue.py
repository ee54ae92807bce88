"""Saving the games of a record, damaged or not, as files, and taking them back into a fresh record.

:func:`save_games` reads the record with :func:`ui.store.salvage.salvage` (past broken indexes, table by
table, page by page) and writes each game read whole as its JSON game log and its CSV of rounds or deals
(:func:`ui.logic.boards.export_game`, as Tonight's export does). A game read only in part (an action that
could not be read may be its own) is written too, under ``incomplete/``, and is not counted as saved.
:func:`take_back` brings the saved games into a record through ``tabletally import``'s own code.
``tabletally export`` and the fault screen's "Start a fresh record" both use them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ui.logic.boards import export_game
from ui.logic.record_import import import_log
from ui.store import GameRecord, Store
from ui.store.files import private_dir
from ui.store.salvage import Depth, Salvage, salvage

INCOMPLETE = "incomplete"


@dataclass(frozen=True)
class Saved:
    """What :func:`save_games` wrote: the games saved whole (and their rounds or deals), the files, and
    what it could not save."""

    folder: Path
    games: tuple[GameRecord, ...]
    files: tuple[Path, ...]
    not_saved: int  # games not saved whole: read in part, lost, or refused by the scorer
    lost_rounds: int  # rounds and deals known to be in games not saved whole
    unread_actions: int  # confirmed actions (rounds, undos, edits) that could not be read at all
    depth: Depth
    problems: tuple[str, ...]

    @property
    def rounds(self) -> int:
        return sum(len(g.entries) for g in self.games)

    @property
    def total(self) -> int:
        return len(self.games) + self.not_saved

    @property
    def complete(self) -> bool:
        """Every game saved whole and no action missing."""
        return self.not_saved == 0 and self.unread_actions == 0


def save_games(db_path: Path, folder: Path, private: bool = False) -> Saved:
    """Write every game ``db_path`` still holds into ``folder`` (see the module's text); the record is only
    read. ``private``: the folders are the record's own (0700), as in the data directory."""
    found: Salvage = salvage(db_path)
    if private:
        private_dir(folder)
        if found.partial:
            private_dir(folder / INCOMPLETE)
    saved: list[GameRecord] = []
    files: list[Path] = []
    problems = list(found.problems)
    not_saved, lost_rounds = found.not_saved, found.lost_rounds
    for record in found.games:
        try:
            files.extend(export_game(record, folder))
        except (ValueError, KeyError, TypeError) as exc:  # the scorer refuses its log (ScorerError)
            problems.append(f"game {record.id}: {exc}")
            not_saved += 1
            lost_rounds += len(record.entries)
            continue
        saved.append(record)
    for record in found.partial:
        lost_rounds += len(record.entries)
        try:
            files.extend(export_game(record, folder / INCOMPLETE))
        except (ValueError, KeyError, TypeError) as exc:
            problems.append(f"game {record.id} (read in part): {exc}")
    return Saved(
        folder,
        tuple(saved),
        tuple(files),
        not_saved,
        lost_rounds,
        found.unread_actions,
        found.depth,
        tuple(problems),
    )


def take_back(store: Store, saved: Saved) -> int:
    """Bring the games saved whole into ``store``'s record through the import of exported logs
    (:func:`ui.logic.record_import.import_log`, as ``tabletally import`` does: checked by the scorer, a game
    already there not doubled), each with its date; a game still being played, or set aside, keeps that
    status, so the players can carry on with it. Returns how many games were added."""
    added = 0
    for record in saved.games:
        done = import_log(store, record.log(), record.created, f"game {record.id}")
        added += done.added
        if done.added and store.game(done.game_id).status is not record.status:
            store.set_status(done.game_id, record.status, record.winner)
    return added
