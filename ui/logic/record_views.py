"""What the Players, Nights, player and night's story screens show, as plain Python (no Kivy).

Every figure comes from :mod:`ui.logic.alltime` (the scorer's facts of the record's games); these classes
only word them in the players' language and keep what the screen is doing (renaming, merging).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import Enum

from ui.i18n import _, ngettext, num
from ui.logic import boards
from ui.logic.alltime import NightStory, PlayerRecord, Records
from ui.logic.new_game import MAX_NAME
from ui.store import GameRecord, Player, Store, StoreError


def date_text(date: dt.date) -> str:
    """A night's date as the screens write it: 2026-11-20 (in the kiosk's digits)."""
    return num(date.isoformat())


def percent(rate: float | None) -> str:
    return "-" if rate is None else num(f"{rate * 100:.0f}") + "%"


# -- the night's story ---------------------------------------------------------------------------------


def story_lines(story: NightStory) -> list[str]:
    """The night in a few sentences: its winner, the best call, the biggest comeback, the most sweeps."""
    lines: list[str] = []
    if story.winners:
        names = " & ".join(story.winners)
        lines.append(_("Winner of the night: {names}").format(names=names))
        lines.append(ngettext("{n} game won", "{n} games won", story.wins).format(n=num(story.wins)))
    else:
        lines.append(_("No game was won."))
    call = story.best_call
    if call is not None:
        lines.append(
            _("Best call: {name} called on {hand}, {margin} under the next hand (round {round})").format(
                name=call.name, hand=num(call.hand), margin=num(call.margin), round=num(call.round)
            )
        )
    if story.comeback is not None:
        name, points = story.comeback
        lines.append(
            _("Biggest comeback: {name} won from {points} points behind").format(
                name=name, points=num(points)
            )
        )
    if story.sweeps is not None:
        team, n = story.sweeps
        lines.append(
            ngettext("Most sweeps: {names}, {n} sweep", "Most sweeps: {names}, {n} sweeps", n).format(
                names=" & ".join(team), n=num(n)
            )
        )
    return lines


# -- nights ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NightRow:
    date: dt.date
    text: str  # "2026-11-20 · 3 games", then "Winners: Asha, Raj & Meera" on a line of its own


def night_rows(records: Records) -> list[NightRow]:
    rows = []
    for line in records.all_time.nights:
        games = ngettext("{n} game", "{n} games", line.games).format(n=num(line.games))
        text = f"{date_text(line.date)}  \u00b7  {games}"
        if line.winners:  # on a line of its own: the names may be long
            text += "\n" + _("Winners: {names}").format(names=", ".join(dict.fromkeys(line.winners)))
        rows.append(NightRow(line.date, text))
    return rows


def all_time_rows(records: Records) -> list[list[str]]:
    """The all-time standings as a table: the header, then each player (most games won first) with their
    games played, won and win rate (Jhyap and Seep together)."""
    rows = [[_("Player"), _("Played"), _("Won"), _("Win rate")]]
    for p in records.all_time.players:
        rate = p.won / p.played if p.played else None
        rows.append([p.name, num(p.played), num(p.won), percent(rate)])
    return rows


@dataclass(frozen=True)
class NightView:
    """One past night as Tonight shows tonight: its games and standings, and its story."""

    date: dt.date
    games: tuple[boards.GameLine, ...]
    standings: tuple[boards.Standing, ...]
    story: tuple[str, ...]


def night_view(records: Records, date: dt.date) -> NightView:
    games: list[GameRecord] = [g.record for g in records.night_games(date)]
    return NightView(
        date=date,
        games=tuple(boards.game_line(g) for g in games),
        standings=tuple(boards.standings(games)),
        story=tuple(story_lines(records.story(date))),
    )


# -- a player's page ---------------------------------------------------------------------------------


def player_lines(record: PlayerRecord) -> list[str]:
    """A player's record in sentences: Jhyap, then Seep (a game they never played is left out)."""
    j, s = record.jhyap, record.seep
    lines: list[str] = []
    if j.played:
        lines.append(
            _("Jhyap: {played} played, {won} won ({rate})").format(
                played=num(j.played), won=num(j.won), rate=percent(j.win_rate)
            )
        )
        lines.append(
            _("Calls: {made}, successful: {held}; penalties: {penalties}").format(
                made=num(j.calls), held=num(j.calls_won), penalties=num(j.penalties)
            )
        )
        average = "-" if j.average_hand is None else num(f"{j.average_hand:.1f}")
        lines.append(
            _("Went out: {n}; average hand at the end of a round: {average}").format(
                n=num(j.eliminations), average=average
            )
        )
        if j.best_comeback:
            lines.append(
                _("Best comeback: won from {points} points behind").format(points=num(j.best_comeback))
            )
    if s.played:
        lines.append(
            _("Seep: {played} played, {won} won ({rate}); baazis: {baazis}, sweeps: {sweeps}").format(
                played=num(s.played),
                won=num(s.won),
                rate=percent(s.win_rate),
                baazis=num(s.baazis),
                sweeps=num(s.sweeps),
            )
        )
    return lines


def player_nights(record: PlayerRecord, last: int = 5) -> list[str]:
    """Their last nights: "2026-11-20: won 2 of 3"."""
    return [
        _("{date}: won {won} of {played}").format(
            date=date_text(n.date), won=num(n.won), played=num(n.played)
        )
        for n in record.nights[:last]
    ]


# -- the Players screen -------------------------------------------------------------------------------


class Mode(Enum):
    LIST = "list"
    RENAME = "rename"  # typing the new name of ``selected``
    MERGE = "merge"  # choosing the other name of ``selected``
    CONFIRM_MERGE = "confirm_merge"  # asking before ``other`` becomes ``selected``


class PlayersForm:
    """The Players screen: every player (most recent night first), one selected; rename it, or merge
    another name into it. The record's refusals come back as the players' sentences in ``message``."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.mode = Mode.LIST
        self.selected: int | None = None
        self.other: int | None = None
        self.message = ""
        self.players: list[Player] = []
        self.reload()

    def reload(self) -> None:
        self.players = self.store.players()

    def name(self, player_id: int | None) -> str:
        for p in self.players:
            if p.id == player_id:
                return p.name
        return ""

    def row_text(self, player: Player) -> str:
        games = ngettext("{n} game", "{n} games", player.games).format(n=num(player.games))
        return f"{player.name}  \u00b7  {games}"

    def choose(self, player_id: int) -> None:
        """A tap on a player: select it, or (merging) the other name to merge into it."""
        self.message = ""
        if self.mode is Mode.MERGE and self.selected is not None:
            if player_id == self.selected:
                self.message = _("Tap the other name of {name}.").format(name=self.name(self.selected))
                return
            self.other = player_id
            self.mode = Mode.CONFIRM_MERGE
            return
        self.selected = player_id
        self.mode = Mode.LIST

    def start_rename(self) -> None:
        if self.selected is not None:
            self.mode, self.message = Mode.RENAME, ""

    def start_merge(self) -> None:
        if self.selected is not None:
            self.mode = Mode.MERGE
            self.message = _("Tap the other name of {name}.").format(name=self.name(self.selected))

    def cancel(self) -> None:
        self.mode, self.other, self.message = Mode.LIST, None, ""

    def merge_question(self) -> str:
        return _("{other} and {name} are one player: every game of {other} becomes {name}'s.").format(
            other=self.name(self.other), name=self.name(self.selected)
        )

    def rename(self, new_name: str) -> bool:
        """Rename the selected player; False (and ``message`` says why) when the record refuses."""
        if self.selected is None:
            return False
        tidy = " ".join(new_name.split())
        if not tidy:
            self.message = _("Type a name first.")
            return False
        if len(tidy) > MAX_NAME:
            self.message = _("{name} is too long (at most {n} letters).").format(name=tidy, n=num(MAX_NAME))
            return False
        taken = [p for p in self.players if p.name.casefold() == tidy.casefold() and p.id != self.selected]
        if taken:
            self.message = _("{name} is another player already: merge the two instead.").format(
                name=taken[0].name
            )
            return False
        try:
            self.store.rename_player(self.selected, tidy)
        except StoreError as exc:
            self.message = str(exc)
            return False
        self.mode, self.message = Mode.LIST, ""
        self.reload()
        return True

    def merge(self) -> bool:
        """Merge ``other`` into ``selected``; False (``message`` says why) for two players of one game."""
        if self.selected is None or self.other is None:
            return False
        keep, gone = self.name(self.selected), self.name(self.other)
        if self.played_together(self.selected, self.other):
            self.message = _("{a} and {b} played in the same game: they are two players.").format(
                a=keep, b=gone
            )
            self.mode, self.other = Mode.LIST, None
            return False
        self.store.merge_players(self.selected, self.other)
        self.mode, self.other, self.message = Mode.LIST, None, ""
        self.reload()
        return True

    def played_together(self, a: int, b: int) -> bool:
        return any(a in seats and b in seats for seats in self.store.seating().values())
