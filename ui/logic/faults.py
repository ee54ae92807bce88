"""When the record's disk or file fails: what the players read and what they can do, as plain Python.

A :class:`~ui.store.RecordFault` (or any other :class:`~ui.store.StoreError` at start) becomes a
:class:`Problem`: a title, sentences that say what happened, that what was confirmed is safe, and what to do,
and the actions the screen offers. :class:`FaultFlow` runs those actions against the data folder: delete old
photos (a full disk), set a damaged record aside and start a fresh one (after the players confirm), try
again. The Kivy screen (``ui.fault_screen``) only draws it.
"""

from __future__ import annotations

import datetime as dt
import getpass
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from ui.i18n import _, ngettext, num
from ui.logic.rescue import Saved, save_games, take_back
from ui.store import (
    DB_NAME,
    Fault,
    RecordFault,
    Store,
    StoreError,
    delete_photos_before,
    night_start,
    set_aside,
)


class Action(Enum):
    RETRY = "retry"  # try again (after the fix the screen names)
    START = "start"  # start the kiosk again (on the fresh record)
    BACK = "back"  # go back to the game (the fault did not stop it)
    DELETE_PHOTOS = "delete_photos"  # make room: the photos of earlier nights
    FRESH_RECORD = "fresh_record"  # set the damaged record aside (asks first)
    CONFIRM_FRESH = "confirm_fresh"  # yes: set it aside and start a fresh one
    CANCEL = "cancel"  # no: keep looking at the problem


def action_label(action: Action) -> str:
    return {
        Action.RETRY: _("Try again"),
        Action.START: _("Start"),
        Action.BACK: _("Back to the game"),
        Action.DELETE_PHOTOS: _("Delete old photos"),
        Action.FRESH_RECORD: _("Start a fresh record"),
        Action.CONFIRM_FRESH: _("Set it aside and start fresh"),
        Action.CANCEL: _("Cancel"),
    }[action]


@dataclass(frozen=True)
class Problem:
    """What the fault screen shows: ``lines`` in order (what happened, what is safe, what to do)."""

    fault: Fault | None
    title: str
    lines: tuple[str, ...]
    actions: tuple[Action, ...]
    path: Path


def _size(n_bytes: int) -> str:
    if n_bytes >= 1024 * 1024:
        return _("{n} MB").format(n=num(round(n_bytes / (1024 * 1024), 1)))
    return _("{n} KB").format(n=num(max(1, round(n_bytes / 1024))))


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid()) if hasattr(os, "getuid") else "you"


def read_only_filesystem(folder: Path) -> bool:
    """Whether the file system holding ``folder`` is mounted read-only (POSIX; False where unknown)."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def photo_usage(data_dir: Path) -> tuple[int, int]:
    """(photos, bytes) in the data folder's photos/ (readable without the record)."""
    count = size = 0
    for path in (data_dir / "photos").glob("*.jpg"):
        try:
            size += path.stat().st_size
        except OSError:
            continue
        count += 1
    return count, size


def problem_for(exc: StoreError, data_dir: Path, in_game: bool = False) -> Problem:
    """The problem screen for ``exc``. ``in_game``: the kiosk is running (the players can go back to it)."""
    fault = exc.fault if isinstance(exc, RecordFault) else None
    path = exc.path if isinstance(exc, RecordFault) else data_dir / DB_NAME
    safe = _("Every round and deal confirmed so far is safe.")
    again = (Action.BACK,) if in_game else (Action.RETRY,)
    if fault is Fault.CORRUPT:
        return Problem(
            fault,
            _("The game record is damaged"),
            (
                _("Part of the record on the SD card cannot be read ({file}).").format(file=path.name),
                _(
                    "Nothing is deleted: the damaged file is kept under a new name, and every game that can "
                    "still be read is exported to the exports folder."
                ),
                _("Start a fresh record to keep playing, or switch off and have the card checked."),
            ),
            (Action.FRESH_RECORD, Action.RETRY),
            path,
        )
    if fault is Fault.FOREIGN:
        return Problem(
            fault,
            _("This is not a TableTally record"),
            (
                _("The file {file} belongs to another program. TableTally has not changed it.").format(
                    file=str(path)
                ),
                _(
                    "Move that file somewhere else, or start TableTally with another data folder "
                    "(--data-dir or TABLETALLY_DATA_DIR)."
                ),
            ),
            (Action.RETRY,),
            path,
        )
    if fault is Fault.NEWER:
        return Problem(
            fault,
            _("This record is from a newer TableTally"),
            (
                _("A newer version of TableTally wrote {file}. This version has not changed it.").format(
                    file=str(path)
                ),
                _("Update TableTally (sudo deploy/update.sh on the Pi), then try again."),
            ),
            (Action.RETRY,),
            path,
        )
    if fault is Fault.FULL:
        count, size = photo_usage(data_dir)
        lines = [_("There is no room left on the SD card for the record or the photos."), safe]
        actions: tuple[Action, ...] = again
        if count:
            lines.append(
                ngettext(
                    "{n} scan photo uses {size}: delete the photos of earlier nights to make room.",
                    "{n} scan photos use {size}: delete the photos of earlier nights to make room.",
                    count,
                ).format(n=num(count), size=_size(size))
            )
            actions = (Action.DELETE_PHOTOS, *again)
        else:
            lines.append(
                _("Ask whoever set up this TableTally to make room on the card; tonight's scores are safe.")
            )
        return Problem(fault, _("The SD card is full"), tuple(lines), actions, path)
    if fault is Fault.READ_ONLY:
        folder = path if path.is_dir() else path.parent
        if read_only_filesystem(folder):  # chown cannot help: the card (or its mount) is read-only
            return Problem(
                fault,
                _("The SD card is read-only"),
                (
                    _("The card holding the record ({folder}) can be read but not written.").format(
                        folder=str(folder)
                    ),
                    safe,
                    _(
                        "A failing card often turns read-only: copy the data folder off now, then replace "
                        "the card."
                    ),
                ),
                again,
                path,
            )
        return Problem(
            fault,
            _("TableTally may not write its record"),
            (
                _("The record in {folder} is read-only for this account.").format(folder=str(folder)),
                safe,
                _("Give it back to the kiosk's account: sudo chown -R {user} {folder}").format(
                    user=_user(), folder=str(folder)
                ),
            ),
            again,
            path,
        )
    if fault is Fault.BUSY:
        return Problem(
            fault,
            _("The record is in use"),
            (_("Another program has the record open and locked."), safe, _("Close it, then try again.")),
            again,
            path,
        )
    if fault is Fault.IO:
        return Problem(
            fault,
            _("The SD card failed"),
            (
                _("The card did not read or write the record."),
                _("Switch off, reseat or replace the card, then run: tabletally doctor"),
            ),
            again,
            path,
        )
    # Any other StoreError: its message is English for whoever fixes it, so it stays in the kiosk's log (the
    # kiosk prints it there before this screen shows) and the players read sentences in their language.
    return Problem(
        None,
        _("The record cannot be opened"),
        (
            _("TableTally could not use its record. The details are in the kiosk's log."),
            _("Run tabletally doctor to find out why."),
        ),
        again,
        path,
    )


class FaultFlow:
    """The fault screen's state: the problem shown, a question waiting for a yes, the last outcome."""

    def __init__(
        self,
        exc: StoreError,
        data_dir: Path,
        store: Store | None = None,
        clock: Callable[[], dt.datetime] = dt.datetime.now,
    ) -> None:
        self.exc = exc
        self.data_dir = data_dir
        self.store = store
        self.clock = clock
        self.problem = problem_for(exc, data_dir, in_game=store is not None)
        self.asking = False  # the players tapped "Start a fresh record": the screen asks to confirm
        self.outcome: str | None = None  # what the last action did, in the players' words
        self.set_aside_as: Path | None = None  # where the damaged record went: the kiosk restarts fresh

    @property
    def actions(self) -> tuple[Action, ...]:
        if self.asking:
            return (Action.CANCEL, Action.CONFIRM_FRESH)
        return self.problem.actions

    @property
    def question(self) -> str | None:
        if not self.asking:
            return None
        return _("Set the damaged record aside and start a fresh one? It is renamed, not deleted.")

    def act(self, action: Action) -> bool:
        """Do ``action``; True when the kiosk should restart (or go back to the game) now."""
        if action is Action.FRESH_RECORD:
            self.asking = True
            return False
        if action is Action.CANCEL:
            self.asking = False
            return False
        if action is Action.CONFIRM_FRESH:
            if self.store is not None:
                self.store.close()
            aside, lines = self._fresh_record()
            self.set_aside_as = aside
            self.asking = False
            self.problem = Problem(
                None,
                _("A fresh record is ready"),
                (*lines, _("The kiosk starts again on the fresh record.")),
                (Action.START,),
                aside,
            )
            self.outcome = None
            return False
        if action is Action.DELETE_PHOTOS:
            if self.store is not None:
                count, freed = self.store.delete_old_photos()
            else:
                count, freed = delete_photos_before(self.data_dir, night_start(self.clock()))
            self.outcome = ngettext(
                "{n} photo deleted, {size} freed.", "{n} photos deleted, {size} freed.", count
            ).format(n=num(count), size=_size(freed))
            self.problem = problem_for(self.exc, self.data_dir, in_game=self.store is not None)
            return False
        return True  # RETRY, START, BACK

    def _fresh_record(self) -> tuple[Path, list[str]]:
        """Save every game the damaged record still holds (JSON logs and CSVs, ui.logic.rescue), set it
        aside, start the fresh record and take the games saved whole back into it. Returns the file set
        aside and what the players read: how many games and rounds were saved, how many could not be."""
        saved: list[Saved] = []

        def export(db_path: Path, folder: Path) -> list[Path]:
            saved.append(save_games(db_path, folder, private=True))
            return list(saved[0].files)

        aside, _files = set_aside(self.data_dir, self.clock, export)
        found = saved[0]
        for problem in found.problems:  # for whoever looks at the kiosk's log
            print(f"tabletally: damaged record {aside.name}: {problem}", file=sys.stderr)
        lines = [
            _("The damaged record is kept as {file}.").format(file=aside.name),
            _("Saved: {games} of {total} games, with {rounds} rounds and deals.").format(
                games=num(len(found.games)), total=num(found.total), rounds=num(found.rounds)
            ),
        ]
        if found.not_saved:
            lines.append(
                _(
                    "Could not be saved whole: {games} games ({rounds} rounds and deals); what could be "
                    "read is in the exports folder."
                ).format(games=num(found.not_saved), rounds=num(found.lost_rounds))
            )
        if found.games:
            try:
                fresh = Store(self.data_dir, clock=self.clock)
                try:
                    take_back(fresh, found)
                finally:
                    fresh.close()
                lines.append(_("The saved games are back in the fresh record."))
            except (StoreError, ValueError) as exc:
                print(
                    f"tabletally: the fresh record did not take the saved games back: {exc}", file=sys.stderr
                )
                lines.append(
                    _("The saved games are in the exports folder; the fresh record could not take them back.")
                )
        return aside, lines

    def fix_failed(self, exc: StoreError) -> None:
        """The fix itself failed (the folder is read-only too, say): the outcome says so and what to do, in
        the players' words; ``exc``'s own message is for the log (the screen prints it there)."""
        self.asking = False
        what = problem_for(exc, self.data_dir, in_game=self.store is not None)
        self.outcome = " ".join((_("That did not work."), *what.lines))
