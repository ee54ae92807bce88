"""The kiosk's brain without Kivy: which game is open, which screen it is on, and every confirmed action.

:class:`Kiosk` ties the record (:class:`~ui.store.Store`), the scorer (through :mod:`ui.logic.games`) and the
screen flows together. Every action that changes what was confirmed is written to the record at once; the
in-progress state (screen + flow) is saved as the game's draft after every step, so a kiosk killed at any
moment comes back on the same screen with the same cards.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scorer import ScorerError
from ui import i18n
from ui.i18n import _
from ui.logic import boards, games
from ui.logic.jhyap_round import JhyapRoundFlow
from ui.logic.new_game import NewGameForm
from ui.logic.scan import ScanResult
from ui.logic.seep_deal import SeepDealFlow
from ui.store import GameRecord, GameStatus, ScanRecord, Store
from vision.table.seats import SeatMap

ROUND = "round"  # the Jhyap round or the Seep deal being entered
RESULT = "result"  # the result of the last confirmed round/deal
GAME_OVER = "game_over"
CAMERA_SETTING = "camera"
LANGUAGE_SETTING = "language"  # "en", "ne" or "hi"; absent until the players choose (at first start)
DIGITS_SETTING = "digits"  # "western" (the default) or "devanagari"


@dataclass(frozen=True)
class Resumable:
    game_id: int
    text: str
    screen: str


class KioskError(RuntimeError):
    """An action that is not possible right now (the message says why)."""


@dataclass(eq=False)
class ShownScan:
    """A scan whose cards are in the round (and on screen) and whose photo and reading are not yet in the
    record. :meth:`Kiosk.keep_scan` writes them, from any thread (encoding the JPEG and syncing it to disk
    are the slow part); :meth:`Kiosk.scan_kept` then ties the record's scan to the round. A scan is not a
    confirmed round: a kiosk that stops before the scan is kept loses the scan, never a round."""

    result: ScanResult
    game_id: int
    number: int
    meta: dict[str, Any]  # the round's note of the scan (ui.logic.card_edit.scan_meta)
    record: ScanRecord | None = None
    photo_dropped: bool = False  # the disk had no room for the photo: the reading was kept without it
    error: Exception | None = None
    done: threading.Event = field(default_factory=threading.Event)
    _claimed: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def claim(self) -> bool:
        """True for the one caller that is to keep this scan."""
        with self._lock:
            first, self._claimed = not self._claimed, True
            return first


class Kiosk:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.game: GameRecord | None = None
        self.flow: JhyapRoundFlow | SeepDealFlow | None = None
        self.screen = "home"
        self.result_position: int | None = None
        # Told after every change that others may show (the phones' scoreboard): a confirmed, undone or
        # edited round, a game started, opened, closed or ended. Each must return at once.
        self.listeners: list[Callable[[], None]] = []
        self._unkept: list[ShownScan] = []  # scans shown and not yet tied to their round (show_scan)

    def changed(self) -> None:
        for listener in self.listeners:
            listener()

    # -- games ------------------------------------------------------------------------------------------
    @property
    def log(self) -> dict[str, Any]:
        if self.game is None:
            raise KioskError("no game is open")
        return self.game.log()

    @property
    def kind(self) -> str:
        if self.game is None:
            raise KioskError("no game is open")
        return self.game.kind

    def resumable(self) -> list[Resumable]:
        out = []
        for record in self.store.unfinished():
            line = boards.game_line(record)
            draft = self.store.draft(record.id)
            jhyap = record.kind == games.JHYAP
            if draft and draft.screen == RESULT:
                after = _("after round {n}") if jhyap else _("after deal {n}")
                where = after.format(n=i18n.num(len(record.entries)))
            else:
                where = (_("round {n}") if jhyap else _("deal {n}")).format(
                    n=i18n.num(len(record.entries) + 1)
                )
            kind = _("Jhyap") if jhyap else _("Seep")
            text = f"{kind} {i18n.num(line.started)}: {line.players} ({where})"
            out.append(Resumable(record.id, text, where))
        return out

    def new_form(self, kind: str) -> NewGameForm:
        return NewGameForm(kind, self.store.recent_names())

    def start(self, form: NewGameForm) -> int:
        new = form.build()
        game_id = self.store.create_game(new.kind, new.log)
        self.game = self.store.game(game_id)
        self._new_flow()
        self.screen = ROUND
        self.save()
        self.changed()
        return game_id

    def open(self, game_id: int) -> None:
        """Open a game where it was left (its draft), or at a fresh round."""
        self.game = self.store.game(game_id)
        self.changed()
        # A kiosk that lost power between recording the last round and marking the game over finishes it now.
        self._update_status()
        draft = self.store.draft(game_id)
        self.result_position = None
        if self.game.status is not GameStatus.PLAYING:
            self.flow = None
            self.screen = GAME_OVER
            return
        if draft is not None:
            state = dict(draft.state)
            flow_data = state.get("flow")
            try:
                if flow_data is not None:
                    self.flow = self._flow_from(flow_data)
                else:
                    self._new_flow()
            except (ScorerError, KeyError, ValueError, TypeError):
                self._new_flow()  # a draft that no longer fits the log: start the round afresh
            self.screen = draft.screen if draft.screen in (ROUND, RESULT) else ROUND
            position = state.get("result_position")
            if isinstance(position, int) and 0 <= position < len(self.game.entries):
                self.result_position = position  # the result of an edited round, shown again
            if self.screen == RESULT and not self.game.entries:
                self.screen = ROUND
        else:
            self._new_flow()
            self.screen = ROUND

    def close(self) -> None:
        self.finish_keeping()
        self.game, self.flow, self.screen = None, None, "home"
        self.changed()

    def _flow_from(self, data: dict[str, Any]) -> JhyapRoundFlow | SeepDealFlow:
        if self.kind == games.JHYAP:
            return JhyapRoundFlow.from_dict(self.log, data)
        return SeepDealFlow.from_dict(self.log, data)

    def _new_flow(self, edit_position: int | None = None) -> None:
        self.finish_keeping()  # the scans of the round it replaces are in the record first
        if self.kind == games.JHYAP:
            flow = JhyapRoundFlow(self.log, edit_position)
            anchor = self.store.setting(self._anchor_key())
            if anchor is not None:
                flow.seat_anchor, flow.seats_confirmed = anchor, True
            flow.seat_map = self.seat_map()
            self.flow = flow
        else:
            seep = SeepDealFlow(self.log, edit_position)
            halves = self._stored_seats(f"halves:{self._game_id()}")
            if halves is not None and len(halves) == 2:
                seep.halves = halves
            self.flow = seep

    # -- seats round the table (vision.table.seats), kept for the night
    # ------------------------------------------
    def _game_id(self) -> int:
        assert self.game is not None
        return self.game.id

    def _stored_seats(self, key: str) -> SeatMap | None:
        raw = self.store.setting(key)
        if not raw:
            return None
        try:
            data = json.loads(raw)
            return SeatMap.from_json(data)
        except (ValueError, TypeError):
            return None

    def seat_map(self) -> SeatMap | None:
        """Where this Jhyap game's players sit (one seat per player, in seating order): the game's own,
        else the seats of tonight's last game with as many players (the night's table), else None."""
        if self.game is None or self.kind != games.JHYAP:
            return None
        n = len(self.log["players"])
        own = self._stored_seats(f"seats:{self._game_id()}")
        if own is not None and len(own) == n:
            return own
        raw = self.store.setting(f"seats:night:{n}")
        if raw:
            try:
                data = json.loads(raw)
                tonight = {g.id for g in self.store.tonight()}
                if data.get("game") in tonight:
                    seats = SeatMap.from_json(data)
                    self.store.set_setting(f"seats:{self._game_id()}", json.dumps(seats.to_json()))
                    return seats
            except (ValueError, TypeError, AttributeError):
                return None
        return None

    @property
    def seats_needed(self) -> bool:
        """A Jhyap game whose seats are not known yet (the kiosk asks where everyone sits)."""
        return self.game is not None and self.kind == games.JHYAP and self.seat_map() is None

    def set_seats(self, seats: SeatMap) -> None:
        """Keep where everyone sits, for this game and tonight's next games with as many players; the round
        being entered takes them at its next scan."""
        if self.game is None or self.kind != games.JHYAP:
            raise KioskError("seats are for a Jhyap game")
        if len(seats) != len(self.log["players"]):
            raise KioskError(f"{len(seats)} seats for {len(self.log['players'])} players")
        data = seats.to_json()
        self.store.set_setting(f"seats:{self._game_id()}", json.dumps(data))
        self.store.set_setting(f"seats:night:{len(seats)}", json.dumps({**data, "game": self._game_id()}))
        if isinstance(self.flow, JhyapRoundFlow):
            self.flow.seat_map = seats
        self.save()

    def swap_halves(self) -> None:
        """Seep: the teams' piles lie on the other halves of the table (kept for the game)."""
        flow = self.seep
        flow.swap_halves()
        self.store.set_setting(f"halves:{self._game_id()}", json.dumps(flow.halves.to_json()))
        self.save()

    def _anchor_key(self) -> str:
        assert self.game is not None
        return f"seat_anchor:{self.game.id}"

    def save(self) -> None:
        """Save the in-progress state (screen + flow) as the game's draft."""
        if self.game is None or self.game.status is not GameStatus.PLAYING:
            return
        state = {"flow": self.flow.to_dict() if self.flow else None, "result_position": self.result_position}
        self.store.save_draft(self.game.id, self.screen, state)

    # -- the round / deal ---------------------------------------------------------------------------
    @property
    def jhyap(self) -> JhyapRoundFlow:
        if not isinstance(self.flow, JhyapRoundFlow):
            raise KioskError("no Jhyap round is being entered")
        return self.flow

    @property
    def seep(self) -> SeepDealFlow:
        if not isinstance(self.flow, SeepDealFlow):
            raise KioskError("no Seep deal is being entered")
        return self.flow

    def show_scan(self, result: ScanResult) -> ShownScan | None:
        """Put a scan's cards into the round now, writing nothing, so the players see the result at once.
        Returns the scan to keep (:meth:`keep_scan`, then :meth:`scan_kept` on this thread); None when the
        camera gave no photo (nothing to keep; its message is on the round)."""
        if self.game is None or self.flow is None:
            raise KioskError("no round is being entered")
        meta = self.flow.apply_scan(result)
        if meta is None:
            return None
        shown = ShownScan(result, self.game.id, self.flow.number, meta)
        self._unkept.append(shown)
        return shown

    def keep_scan(self, shown: ShownScan) -> None:
        """Write a shown scan's photo (as JPEG) and reading to the record. Any thread may call it (the
        store is thread-safe) and only the first call writes; a fault of the record is kept for
        :meth:`scan_kept` to raise on the kiosk's thread."""
        if not shown.claim():
            return
        try:
            dropped = self.store.photos_dropped
            shown.record = self.store.add_scan(
                shown.game_id,
                shown.number,
                shown.result.target,
                shown.result.photo_jpeg(),
                shown.result.detected_json(),
            )
            shown.photo_dropped = self.store.photos_dropped > dropped
        except Exception as exc:  # noqa: BLE001 - raised again on the kiosk's thread by scan_kept
            shown.error = exc
        finally:
            shown.done.set()

    def scan_kept(self, shown: ShownScan) -> None:
        """Tie a kept scan to its round (confirming the round confirms the scan) and save the draft; keep
        it first when no one has yet, wait when another thread is keeping it. Raises the record's fault
        that stopped it being kept. Once per scan; later calls do nothing."""
        if shown not in self._unkept:
            return
        self.keep_scan(shown)  # nothing when another thread has it
        shown.done.wait()
        self._unkept.remove(shown)
        if shown.error is not None:
            raise shown.error
        if shown.record is not None:
            shown.meta["scan_id"] = shown.record.id
            shown.meta["photo"] = str(shown.record.photo) if shown.record.photo else None
        self.save()

    @property
    def keeping(self) -> bool:
        """Whether a scan on screen is not yet tied to its round (its photo and reading being written)."""
        return bool(self._unkept)

    def finish_keeping(self) -> None:
        """Tie every scan shown so far to its round (waiting for those being kept): before a round is
        confirmed, replaced or left."""
        for shown in list(self._unkept):
            self.scan_kept(shown)

    def confirm_seats(self) -> None:
        flow = self.jhyap
        flow.confirm_seats()
        anchor = flow.seat_order[0] if flow.seat_order else None
        if anchor is not None:
            self.store.set_setting(self._anchor_key(), anchor)
        self.save()

    def confirm(self) -> None:
        """Record the round/deal the players confirmed; the scorer's result is then on the result screen."""
        if self.game is None or self.flow is None:
            raise KioskError("no round is being entered")
        self.finish_keeping()  # the scans of this round are in the record before the round is
        problems = self.flow.problems()
        if problems:
            raise KioskError(problems[0])
        entry = self.flow.entry()
        position = self.flow.edit_position
        scans = self.flow.scan_ids()
        confirmed = self._confirmed_cards()
        confirmations = [(sid, {"target": t, "cards": confirmed.get(t, confirmed)}) for sid, t in scans]
        # The round and what was confirmed for its photos go to the record in one transaction.
        if position is None:
            self.store.add_entry(self.game.id, entry, confirmed_scans=confirmations)
            self.result_position = None
        else:
            self.store.replace_entry(self.game.id, position, entry, confirmed_scans=confirmations)
            self.result_position = position
        self.game = self.store.game(self.game.id)
        self._update_status()
        self._new_flow()
        self.screen = RESULT
        self.save()
        self.changed()

    def _confirmed_cards(self) -> dict[str, Any]:
        flow = self.flow
        if isinstance(flow, JhyapRoundFlow):
            hands = flow.codes()
            return {"table": hands, **hands}
        assert isinstance(flow, SeepDealFlow)
        return {t: c for t, c in flow.codes().items()}

    def _update_status(self) -> None:
        assert self.game is not None
        if self.kind == games.JHYAP:
            state = games.jhyap_state(self.log)
            if state.finished and self.game.status is not GameStatus.FINISHED:
                self.store.set_status(self.game.id, GameStatus.FINISHED, state.winner)
            elif state.finished and self.game.winner != state.winner:
                self.store.set_status(self.game.id, GameStatus.FINISHED, state.winner)  # an edit changed it
            elif not state.finished and self.game.status is GameStatus.FINISHED:
                self.store.set_status(self.game.id, GameStatus.PLAYING)  # an edit re-opened the game
            self.game = self.store.game(self.game.id)

    def next_round(self) -> None:
        if self.game is None:
            raise KioskError("no game is open")
        if self.game.status is not GameStatus.PLAYING:
            self.screen = GAME_OVER
            return
        self.result_position = None
        if self.flow is None or self.flow.edit_position is not None:
            self._new_flow()
        self.screen = ROUND
        self.save()

    def undo_last(self) -> None:
        """Take back the last confirmed round/deal (it stays in the record's history)."""
        if self.game is None:
            raise KioskError("no game is open")
        if not self.game.entries:
            raise KioskError(_("There is no round to undo."))
        self.store.undo_last(self.game.id)
        self.game = self.store.game(self.game.id)
        self._new_flow()
        self.screen = ROUND
        self.save()
        self.changed()

    def edit(self, position: int) -> None:
        """Start editing an earlier round/deal; confirming it recomputes every later one."""
        if self.game is None:
            raise KioskError("no game is open")
        if not 0 <= position < len(self.game.entries):
            raise KioskError(_("There is no round {n}.").format(n=i18n.num(position + 1)))
        self._new_flow(position)
        self.screen = ROUND
        self.save()

    def cancel_edit(self) -> None:
        self._new_flow()
        self.screen = ROUND
        self.save()

    def end_game(self) -> None:
        """End a Seep game (or stop a Jhyap game early): the team with more baazis wins."""
        if self.game is None:
            raise KioskError("no game is open")
        self.finish_keeping()
        if self.kind == games.SEEP:
            winner = boards.seep_winner(self.log) if self.game.entries else None
            self.store.set_status(self.game.id, GameStatus.FINISHED, winner)
        else:
            self.store.set_status(self.game.id, GameStatus.ABANDONED, None)
        self.game = self.store.game(self.game.id)
        self.flow = None
        self.screen = GAME_OVER
        self.changed()

    # -- settings -----------------------------------------------------------------------------------
    def camera_spec(self, default: str = "auto") -> str:
        return self.store.setting(CAMERA_SETTING, default) or default

    def set_camera(self, spec: str) -> None:
        from vision.cameras import parse_spec

        parse_spec(spec)
        self.store.set_setting(CAMERA_SETTING, spec)

    def language(self) -> str | None:
        """The interface language chosen on this kiosk, or None before the players have chosen one."""
        code = self.store.setting(LANGUAGE_SETTING)
        return code if code in i18n.LANGUAGES else None

    def set_language(self, code: str) -> None:
        """Keep the players' language in the record and speak it from now on."""
        if code not in i18n.LANGUAGES:
            raise KioskError(f"unknown language {code!r}")
        self.store.set_setting(LANGUAGE_SETTING, code)
        i18n.set_language(code)
        i18n.save_choice(self.store.data_dir)

    def digits(self) -> str:
        style = self.store.setting(DIGITS_SETTING, i18n.WESTERN) or i18n.WESTERN
        return style if style in i18n.DIGIT_STYLES else i18n.WESTERN

    def set_digits(self, style: str) -> None:
        """Keep the digit style (Western or Devanagari) in the record and use it on every screen."""
        if style not in i18n.DIGIT_STYLES:
            raise KioskError(f"unknown digits {style!r}")
        self.store.set_setting(DIGITS_SETTING, style)
        i18n.set_digits(style)
        i18n.save_choice(self.store.data_dir)

    def apply_locale(self) -> None:
        """Speak the language and use the digits kept in the record (a kiosk where no language was chosen
        yet keeps the one in use)."""
        code = self.language()
        if code is not None and code != i18n.language():
            i18n.set_language(code)
        if self.digits() != i18n.digits():
            i18n.set_digits(self.digits())
