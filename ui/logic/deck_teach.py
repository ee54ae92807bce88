"""Teaching the kiosk our deck: the teach-deck screen's steps, the deck chosen in Settings, a game's
confirmed scans added to the deck. No Kivy here; the screen in ``ui.app`` only draws this state.

The players lay their deck out in five photos, in the order the screen shows: each suit, ace to king in a
row (two rows where the table is small: the second continues the first), then the jokers. Each photo is
read with the standard reading and matched to that order (:func:`vision.teach.read_photo`); the screen shows
every card as taught and what the reader saw, a player can correct a card laid differently, confirms the
photo, and at the end the deck is saved whole (:class:`vision.deck.shelf.DeckShelf`) or nothing is. A suit
whose photo cannot be used (no card found, more cards than laid out) can be left out after a failed photo:
the players are told which suit to teach again later, and the rest is taught. The photos are kept with the
deck, for teaching the card detector itself later (``tabletally deck train``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ui.i18n import N_, _
from ui.logic.scan import card_label

DECK_SETTING = "deck"  # the record's setting: the taught deck the kiosk reads with ("" or absent: standard)
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


@dataclass(frozen=True)
class Step:
    """One photo of the layout: what to lay out (``codes`` left to right; the jokers' step takes one or
    two) and how the screen names it."""

    key: str
    title: str  # N_ text
    codes: tuple[str, ...]
    optional: bool = False


STEPS: tuple[Step, ...] = (
    Step("S", N_("Spades"), tuple(r + "S" for r in RANKS)),
    Step("H", N_("Hearts"), tuple(r + "H" for r in RANKS)),
    Step("D", N_("Diamonds"), tuple(r + "D" for r in RANKS)),
    Step("C", N_("Clubs"), tuple(r + "C" for r in RANKS)),
    Step("JK", N_("Jokers"), ("JK", "JK"), optional=True),
)


@dataclass
class Taken:
    """A step's photo and its cards as matched (codes as the players confirm them)."""

    image: Any
    matches: list[Any]
    seconds: float


@dataclass
class DeckTeacher:
    """The teach-deck screen's state.

    ``detector()`` gives the loaded detector (the kiosk's scanner's), ``capture()`` takes a photo with the
    kiosk's camera; ``shelf`` is the data directory's :class:`vision.deck.shelf.DeckShelf`."""

    shelf: Any
    detector: Callable[[], Any]
    capture: Callable[[], Any]
    name: str = ""
    step: int = 0
    taken: dict[int, Taken] = field(default_factory=dict)
    confirmed: set[int] = field(default_factory=set)
    skipped: set[int] = field(default_factory=set)
    failed: set[int] = field(default_factory=set)  # steps whose last photo could not be used
    message: str = ""  # the last problem, for the players (empty: none)
    busy: bool = False

    # -- naming ---------------------------------------------------------------------------------------
    def set_name(self, text: str) -> bool:
        """Take ``text`` as the deck's name; False (and ``message`` says why) when it cannot name a deck."""
        from vision.deck.memory import DeckError
        from vision.deck.shelf import check_deck_name

        try:
            self.name = check_deck_name(text)
        except DeckError:
            self.message = _("Give the deck a short name of letters and digits (not \u201cstandard\u201d).")
            return False
        self.message = ""
        return True

    @property
    def exists(self) -> bool:
        return bool(self.name) and self.name in self.shelf.names()

    # -- the current step -----------------------------------------------------------------------------
    @property
    def current(self) -> Step:
        return STEPS[self.step]

    def instructions(self) -> str:
        """What to lay out for the current step, calmly."""
        step = self.current
        if step.key == "JK":
            return _("Last photo: lay the jokers side by side, face up. No jokers in your deck? Tap Skip.")
        return _(
            "Lay all thirteen {suit} face up in one row, ace on the left, then 2 to 10, jack, queen, "
            "king. If the row does not fit, make a second row below the first. Then tap Take photo."
        ).format(suit=_(step.title).lower())

    def layout(self) -> list[str]:
        """The cards of the current step as shown in the picture of what to lay out."""
        return [card_label(c) for c in self.current.codes]

    def take(self) -> bool:
        """Take the current step's photo and read it (slow: run it off the UI thread). False (and
        ``message``) when the camera failed or the photo does not show the step's cards."""
        self.busy = True
        try:
            try:
                image = self.capture()
            except Exception as exc:  # noqa: BLE001 - any camera failure: the players retry
                self.message = _("The camera did not give a photo ({reason}). Tap Take photo again.").format(
                    reason=str(exc).strip() or type(exc).__name__
                )
                return False
            return self.read(image)
        finally:
            self.busy = False

    def read(self, image: Any) -> bool:
        """Read ``image`` as the current step's photo (see :meth:`take`)."""
        from vision.base.errors import VisionError
        from vision.deck.memory import DeckError
        from vision.teach import TeachPhoto, read_photo

        step = self.current
        start = time.perf_counter()
        counts = (2, 1) if step.key == "JK" else (len(step.codes),)
        problem = ""
        for n in counts:
            photo = TeachPhoto(f"{self.name or 'deck'}-{step.key}.jpg", image, step.codes[:n])
            try:
                matches = read_photo(photo, self.detector())
            except DeckError as exc:
                problem = problem or exc.problems[0]
                continue
            except VisionError as exc:
                problem = str(exc)
                break
            self.taken[self.step] = Taken(image, matches, time.perf_counter() - start)
            self.confirmed.discard(self.step)
            self.failed.discard(self.step)
            self.message = ""
            return True
        self.taken.pop(self.step, None)
        self.failed.add(self.step)
        self.message = explain(problem)
        if not self.current.optional:
            self.message += " " + _("Or tap Skip to leave this suit out and teach the others.")
        return False

    def cards(self) -> list[tuple[str, str]]:
        """The current photo's cards as taught, each with a note: "" where the reader agrees, else what it
        saw ("read as 5H": the reason to teach it)."""
        taken = self.taken.get(self.step)
        if taken is None:
            return []
        return [
            (
                card_label(m.code),
                "" if m.code == m.read else _("read as {card}").format(card=card_label(m.read)),
            )
            for m in taken.matches
        ]

    def fix(self, index: int, code: str) -> None:
        """A player says card ``index`` of the current photo is ``code`` (it was laid out of order)."""
        from dataclasses import replace

        from vision.base.types import CARD_CODES

        if code not in CARD_CODES:
            raise ValueError(f"unknown card code {code!r}")
        taken = self.taken[self.step]
        taken.matches[index] = replace(taken.matches[index], code=code)
        self.confirmed.discard(self.step)

    def confirm(self) -> None:
        """The players confirm the current photo's cards; on to the next step."""
        if self.step not in self.taken:
            raise ValueError("no photo taken for this step")
        self.confirmed.add(self.step)
        self.skipped.discard(self.step)
        self._advance()

    @property
    def can_skip(self) -> bool:
        """Whether the current step may be left out: the jokers always, a suit once its photo could not be
        used (and none is taken since)."""
        return self.current.optional or (self.step in self.failed and self.step not in self.taken)

    def skip(self) -> None:
        """Leave out the current step (a deck without jokers; a suit whose photo could not be used: the
        players are told to teach it again later)."""
        if not self.can_skip:
            raise ValueError(f"step {self.current.key} cannot be skipped")
        step = self.current
        self.skipped.add(self.step)
        self.taken.pop(self.step, None)
        self.confirmed.discard(self.step)
        self._advance()
        if not step.optional:
            self.message = _(
                "{suit} left out: the deck is taught without them. Teach it again later."
            ).format(suit=_(step.title))

    def left_out(self) -> list[str]:
        """The suits left out, in the players' words."""
        return [_(STEPS[i].title) for i in sorted(self.skipped) if not STEPS[i].optional]

    def retake(self) -> None:
        self.taken.pop(self.step, None)
        self.confirmed.discard(self.step)
        self.message = ""

    def back(self) -> None:
        self.step = max(0, self.step - 1)
        self.message = ""

    def _advance(self) -> None:
        self.message = ""
        if self.step < len(STEPS) - 1:
            self.step += 1

    @property
    def done(self) -> bool:
        """Every step confirmed (or, for the jokers, skipped): the deck can be saved."""
        return all(i in self.confirmed or i in self.skipped for i in range(len(STEPS)))

    def progress(self) -> str:
        return _("Photo {n} of {total}").format(n=self.step + 1, total=len(STEPS))

    # -- saving ---------------------------------------------------------------------------------------
    def save(self) -> bool:
        """Build the deck from the confirmed photos and save it whole (replacing a deck of that name);
        False (and ``message``) when it cannot be taught: nothing is saved then."""
        from vision.deck.memory import DeckError
        from vision.teach import memory_from

        if not self.done or not self.name:
            self.message = _("Take and confirm every photo first.")
            return False
        taught = [(self.taken[i].image, self.taken[i].matches) for i in sorted(self.confirmed)]
        photos = [(m[0].photo, image, m) for image, m in taught if m]
        try:
            reader = self.detector().reader
            if reader is None:
                raise DeckError("the corner reader is off")
            memory = memory_from(self.name, taught, reader)
            self.shelf.save(memory, replace=self.exists, photos=photos)
        except DeckError as exc:
            self.message = explain(exc.problems[0])
            return False
        self.message = ""
        return True


def explain(problem: str) -> str:
    """A teaching problem (vision.deck.memory's English) as the players read it: what to do about it."""
    if "found no card" in problem:
        return _("No card was found in the photo. Check that the cards lie face up in view, then retake.")
    if "a single-card photo" in problem or "expected" in problem:
        return _(
            "The photo does not show the cards asked for, one each. Lay them apart, face up, in one row "
            "(or two), then retake."
        )
    if "read as other cards" in problem:
        return _("These look like other cards. Is it the right suit, laid ace to king from the left?")
    if "look the same" in problem:
        return _("Two photos show the same cards. Check each photo's suit and retake the wrong one.")
    return _("The deck could not be taught: {problem}").format(problem=problem)


# -- the deck the kiosk reads with ---------------------------------------------------------------------


def chosen_deck(store: Any) -> str:
    """The taught deck chosen in Settings ("" for the standard reading)."""
    return str(store.setting(DECK_SETTING, "") or "")


def choose_deck(store: Any, name: str) -> None:
    """Read with deck ``name`` from now on ("" for the standard reading); kept in the record."""
    store.set_setting(DECK_SETTING, name)


def deck_label(name: str) -> str:
    return _("Our deck: {name}").format(name=name) if name else _("Standard")


# -- a game's confirmed scans ----------------------------------------------------------------------------


def _codes(cards: Any) -> list[str]:
    """The card codes of a scan's confirmed cards: a list of codes, or hands (a dict of lists)."""
    if isinstance(cards, dict):
        seen: dict[int, list[str]] = {}
        for value in cards.values():  # a table's hands appear twice (per seat and under "table")
            if isinstance(value, list):
                seen[id(value)] = [str(c) for c in value]
            elif isinstance(value, dict):
                return _codes(value)
        return [c for codes in seen.values() for c in codes]
    if isinstance(cards, list):
        return [c for item in cards for c in (_codes(item) if isinstance(item, list | dict) else [str(item)])]
    return []


@dataclass(frozen=True)
class GameCards:
    """What a game's scans can add to a deck: its photos read again, cards kept as confirmed."""

    scans: int
    cards: int
    added: bool


def add_game_scans(shelf: Any, deck: str, scans: Sequence[Any], detector: Any) -> GameCards:
    """Add the cards the players confirmed in ``scans`` (a game's :class:`ui.store.ScanRecord`\\ s with
    their photos), corrections included, to the taught ``deck`` (:func:`vision.teach.confirmed_matches`).
    Scans without a photo or a confirmation are passed over. A DeckError when the deck is unknown or the
    cards would spoil it (nothing is saved then)."""
    from vision.base.errors import ImageError
    from vision.base.photo import load_image
    from vision.teach import confirmed_matches, memory_from

    reader = detector.reader
    memory = shelf.load(deck, reader)
    taught = []
    used = 0
    for scan in scans:
        if scan.photo is None or not scan.confirmed or not scan.detected:
            continue
        try:
            image = load_image(scan.photo)
        except ImageError:
            continue
        detected = [
            (str(c["code"]), (float(c["box"][0]), float(c["box"][1]), float(c["box"][2]), float(c["box"][3])))
            for c in scan.detected.get("cards", [])
            if c.get("box")
        ]
        kept = scan.confirmed.get("cards") if isinstance(scan.confirmed, dict) else scan.confirmed
        confirmed = _codes(kept)
        matches = confirmed_matches(image, detected, confirmed, detector, scan.photo.name)
        if matches:
            taught.append((image, matches))
            used += 1
    if not taught:
        return GameCards(0, 0, False)
    merged = memory_from(deck, taught, reader, into=memory)
    shelf.save(merged, replace=True)
    return GameCards(used, sum(len(m) for _, m in taught), True)
