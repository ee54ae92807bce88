"""The game-night record: one SQLite file (stdlib sqlite3, WAL) plus the scan photos beside it.

The record is event-sourced. A game row holds the game's definition (the scorer's JSON game log without its
rounds or deals); every confirmed action is one row in ``events`` (``add`` a round/deal, ``undo`` the
last one, ``edit`` an earlier one), committed in its own transaction the moment the players confirm it. The
current log is the fold of those events, so an edit or an undo never destroys what was there before.
In-progress state (the screen a game is on, the current scan, the cards typed so far) lives in ``drafts`` so
that a restart resumes exactly where the kiosk was. Each scan keeps its photo (a JPEG in ``photos/`` beside
the database), what the detector read and what the players confirmed.

The store never computes a score: it keeps what was confirmed, and the scorer turns it into numbers.

Faults of the disk or the file are :class:`RecordFault` errors that say which (:class:`Fault`): a record
with corrupt pages, a database of another program (refused by name and never changed), a record of a newer
TableTally, a full disk, a record the kiosk may not write. The record is checked before anything is written
to it. A full disk drops the scan photo before anything else: the scan is kept without its photo, and
:meth:`Store.delete_old_photos` makes room. A corrupt record is set aside (renamed, never deleted) by
:func:`set_aside`, which first exports every game it can still read.
"""

from ui.store.faults import Fault, RecordFault, StoreError, fault_of
from ui.store.files import (
    DB_NAME,
    ENV_DATA_DIR,
    NIGHT_STARTS_HOUR,
    PHOTOS_DIR,
    PRIVATE_DIR,
    PRIVATE_FILE,
    default_data_dir,
    night_of,
    night_start,
)
from ui.store.nights import Night
from ui.store.photos import PHOTO_RESERVE, delete_photos_before
from ui.store.players import Player
from ui.store.record import Store
from ui.store.recovery import export_readable, set_aside
from ui.store.schema import APPLICATION_ID, SCHEMA_VERSION, check_record
from ui.store.values import Draft, EventAction, GameRecord, GameStatus, ScanRecord, fold_events

__all__ = [
    "APPLICATION_ID",
    "DB_NAME",
    "ENV_DATA_DIR",
    "NIGHT_STARTS_HOUR",
    "PHOTOS_DIR",
    "PHOTO_RESERVE",
    "PRIVATE_DIR",
    "PRIVATE_FILE",
    "SCHEMA_VERSION",
    "Draft",
    "EventAction",
    "Fault",
    "GameRecord",
    "GameStatus",
    "Night",
    "Player",
    "RecordFault",
    "ScanRecord",
    "Store",
    "StoreError",
    "check_record",
    "default_data_dir",
    "delete_photos_before",
    "export_readable",
    "fault_of",
    "fold_events",
    "night_of",
    "night_start",
    "set_aside",
]
