"""Scripted films of a card table as the camera's small stream sees it, for the table watcher's tests, its
benchmark and the kiosk's demo: made with the synthetic renderer (``models.training.data``: its table
surfaces, its procedural card faces and backs, its players' hands), never downloaded.

A :class:`Film` is a list of :class:`Shot` (frames of one moment of a round, with what the watcher must
say there) played at ``fps``; :func:`round_film` scripts a whole Jhyap round (an empty table, dealing face
down, play with the draw and discard piles in the middle, the hands going down seat by seat with a pause
half laid, players still touching their cards, the still table, a hand passing over it, the cards being
collected) and :func:`piles_film` a Seep deal's two piles laid out. ``Film.expected_scans`` gives the frame
at which exactly one automatic scan is due: the first frame of the last still spell with every seat laid
that lies ``still_s`` after the spell began.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

SMALL_SIZE = (384, 216)
"""The film's frames: the Pi camera's small stream of a 16:9 still (``vision.cameras.lores_size``)."""


@dataclass(frozen=True)
class Card:
    """A card on the table: ``code`` face up (or ``None``: face down), its centre and turn (degrees)."""

    code: str | None
    x: float
    y: float
    angle: float


@dataclass
class Shot:
    """``frames`` frames of the table holding ``cards`` (and ``hands`` players' hands reaching in, drawn
    anew each frame: they move). ``laid``: every seat holds its cards face up."""

    name: str
    frames: int
    cards: tuple[Card, ...]
    hands: int = 0
    laid: bool = False


@dataclass
class Film:
    seats: tuple[tuple[float, float], ...]
    centre: tuple[float, float]
    shots: list[Shot] = field(default_factory=list)
    fps: float = 5.0
    surface: str = "felt"
    seed: int = 0
    shade: float = 0.0

    @property
    def length(self) -> int:
        return sum(s.frames for s in self.shots)

    def times(self) -> list[float]:
        return [i / self.fps for i in range(self.length)]

    def shot_at(self, index: int) -> Shot:
        for shot in self.shots:
            if index < shot.frames:
                return shot
            index -= shot.frames
        raise IndexError(index)

    def start_of(self, name: str) -> int:
        """The first frame of the shot called ``name``."""
        at = 0
        for shot in self.shots:
            if shot.name == name:
                return at
            at += shot.frames
        raise KeyError(name)

    def expected_scans(self, still_s: float = 1.0) -> list[int]:
        """The frames at which the watcher must scan: in each still spell with every seat laid (a run of
        shots without hands, after any with hands, on a table that changed since the last scan), the first
        frame ``still_s`` after the spell began."""
        out: list[int] = []
        at = 0
        last_read: tuple[Card, ...] | None = None
        spell_start: int | None = None
        spell_cards: tuple[Card, ...] | None = None
        for shot in self.shots:
            for k in range(shot.frames):
                i = at + k
                if shot.hands or shot.cards != spell_cards:
                    # a frame like the one before it begins a still spell: the one after this
                    spell_start = None
                    spell_cards = None if shot.hands else shot.cards
                    if not shot.hands:
                        spell_start = i + 1
                    continue
                elif spell_start is None:
                    spell_start = i
                if (
                    spell_start is not None
                    and shot.laid
                    and shot.cards != last_read
                    and (i - spell_start) / self.fps >= still_s - 1e-9
                ):
                    out.append(i)
                    last_read = shot.cards
            at += shot.frames
        return out


class Renderer:
    """Draws a film's frames: its table surface, the cards (faces and backs of one procedural deck), the
    hands, and a little sensor noise, at ``STILL_SIZE``; :meth:`small` is the camera's small stream."""

    def __init__(self, film: Film, size: tuple[int, int] = SMALL_SIZE) -> None:
        from models.training.data.textures import surface

        self.film = film
        self.w, self.h = size
        rng = np.random.default_rng([film.seed, 1])
        if film.surface == "white":  # a white tablecloth, as light as the cards' paper
            self.table = _white_cloth(rng, self.h, self.w)
        else:
            self.table = surface(rng, self.h, self.w, film.surface)
        # a still shadow (a lamp behind a shelf) over the far half of the table, hands and cards alike
        self.shade = np.ones((self.h, self.w, 1), np.float32)
        if film.shade > 0:
            edge = np.array([[0, 0], [self.w, 0], [self.w, int(0.42 * self.h)], [0, int(0.62 * self.h)]])
            mask = np.zeros((self.h, self.w), np.uint8)
            cv2.fillConvexPoly(mask, edge.astype(np.int32), 1)
            soft = cv2.GaussianBlur(mask.astype(np.float32), (0, 0), 3)
            self.shade = (1 - film.shade * soft)[..., None]
        self.card_h = 0.13 * self.h
        # Two procedural decks with dark backs (a light back dealt face down and left still looks like
        # cards to the watcher: vision.table.watch), drawn larger and shrunk as they are laid.
        self.painter = _painter((0, 3)[film.seed % 2], 96)
        self.scale = self.card_h * 0.72 / 96
        self._faces: dict[str | None, np.ndarray] = {}
        self._static: dict[tuple[Card, ...], np.ndarray] = {}

    def _face(self, code: str | None) -> np.ndarray:
        if code not in self._faces:
            face = self.painter.back() if code is None else self.painter.face(code)  # type: ignore[attr-defined]
            size = (max(2, round(face.shape[1] * self.scale)), max(2, round(face.shape[0] * self.scale)))
            self._faces[code] = cv2.resize(face, size, interpolation=cv2.INTER_AREA)
        return self._faces[code]

    def _laid(self, cards: tuple[Card, ...]) -> np.ndarray:
        if cards not in self._static:
            img = self.table.astype(np.float32)
            for card in cards:
                _paste(img, self._face(card.code), card.x * self.w, card.y * self.h, card.angle, 1.0)
            self._static[cards] = img.clip(0, 255).astype(np.uint8)
        return self._static[cards]

    def frame(self, index: int) -> np.ndarray:
        """Frame ``index`` in colour (BGR), as the live view shows it."""
        from models.training.data.textures import draw_hand

        shot = self.film.shot_at(index)
        img = self._laid(shot.cards).copy()
        rng = np.random.default_rng([self.film.seed, 2, index])
        owner = np.full((self.h, self.w), -1, np.int32)
        for k in range(shot.hands):
            # a player's hand over the table near a seat (turn by turn): drawn into a window round the
            # seat's cards, it reaches in from that window's edge
            sx, sy = self.film.seats[(index + k) % len(self.film.seats)]
            cx, cy = self.film.centre
            x, y = (cx + (sx - cx) * 0.75) * self.w, (cy + (sy - cy) * 0.75) * self.h
            half = int(self.card_h * 1.6)
            x0, y0 = max(0, int(x) - half), max(0, int(y) - half)
            x1, y1 = min(self.w, int(x) + half), min(self.h, int(y) + half)
            draw_hand(rng, img[y0:y1, x0:x1], owner[y0:y1, x0:x1], 0, self.card_h)
        if self.film.shade > 0:
            img = (img.astype(np.float32) * self.shade).astype(np.uint8)
        noise = rng.integers(-3, 4, img.shape[:2], dtype=np.int16)[..., None]  # the sensor's noise
        return (img.astype(np.int16) + noise).clip(0, 255).astype(np.uint8)

    def small(self, index: int) -> np.ndarray:
        """Frame ``index`` as the Pi camera's small stream gives it to the watcher: grey."""
        return cv2.cvtColor(self.frame(index), cv2.COLOR_BGR2GRAY)

    def frames(self) -> Iterator[np.ndarray]:
        for i in range(self.film.length):
            yield self.small(i)


def _white_cloth(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A white tablecloth (BGR uint8): near the cards' own white, a fine weave and soft light across it."""
    from models.training.data.textures import low_noise

    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    base = np.array([232, 236, 238], np.float32) * rng.uniform(0.96, 1.04)
    f = rng.uniform(1.2, 2.5)
    weave = (np.sin(xx * f) * np.sin(yy * f))[..., None]
    img = base * (1 + 0.03 * weave) * (0.93 + 0.1 * low_noise(rng, h, w, 150))[..., None]
    return np.asarray(img.clip(0, 255), np.uint8)


@functools.lru_cache(maxsize=4)
def _painter(index: int, width: int) -> object:
    from models.training.data.procedural import DeckPainter, deck_style, find_pip_fonts

    fonts = _latin_fonts()
    style = deck_style(2026, index, fonts, find_pip_fonts(), [])
    return DeckPainter(style, width, Path("/nonexistent"))


@functools.lru_cache(maxsize=1)
def _latin_fonts() -> tuple[Path, ...]:
    """A few of the system's fonts (reading every font's glyph table is slow): DejaVu and Liberation."""
    from models.training.data.procedural import find_fonts

    root = Path("/usr/share/fonts")
    few = [p for p in root.rglob("*.ttf") if p.name.startswith(("DejaVuSans", "LiberationSans"))]
    return tuple(sorted(few)[:6]) or tuple(find_fonts())


def _paste(img: np.ndarray, face: np.ndarray, cx: float, cy: float, angle: float, scale: float) -> None:
    """Draw a BGRA ``face`` centred at (cx, cy), turned ``angle`` degrees and scaled, onto float BGR
    ``img``."""
    fh, fw = face.shape[:2]
    m = cv2.getRotationMatrix2D((fw / 2, fh / 2), angle, scale)
    m[0, 2] += cx - fw / 2
    m[1, 2] += cy - fh / 2
    h, w = img.shape[:2]
    warped = cv2.warpAffine(face, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
    alpha = warped[:, :, 3:4].astype(np.float32) / 255
    img *= 1 - alpha
    img += warped[:, :, :3].astype(np.float32) * alpha


# -- scripting ----------------------------------------------------------------------------------------------


def _hand_cards(
    seat: tuple[float, float], centre: tuple[float, float], codes: Sequence[str | None], out: float = 0.62
) -> tuple[Card, ...]:
    """A hand laid in a row in front of ``seat``, ``out`` of the way from the centre, facing the seat."""
    sx, sy = seat
    cx, cy = centre
    vx, vy = (sx - cx) * 16 / 9, sy - cy  # in the frame's own proportions
    reach = math.hypot(vx, vy)
    ux, uy = vx / reach, vy / reach
    px, py = -uy, ux
    step = 0.085
    angle = math.degrees(math.atan2(ux, uy))  # the card's top points away from its player
    cards = []
    for k, code in enumerate(codes):
        off = (k - (len(codes) - 1) / 2) * step
        x = cx + (sx - cx) * out + px * off * 9 / 16
        y = cy + (sy - cy) * out + py * off
        cards.append(Card(code, x, y, angle))
    return tuple(cards)


def _piles(centre: tuple[float, float], discard: str) -> tuple[Card, ...]:
    cx, cy = centre
    return (
        Card(None, cx - 0.04, cy, 0.0),
        Card(None, cx - 0.038, cy - 0.004, 0.0),
        Card(discard, cx + 0.04, cy, 0.0),
    )


def round_film(
    hands: Sequence[Sequence[str]],
    seats: Sequence[tuple[float, float]],
    centre: tuple[float, float] = (0.5, 0.5),
    surface: str = "felt",
    seed: int = 0,
    fps: float = 5.0,
    shade: float = 0.0,
) -> Film:
    """A whole Jhyap round at a table: each seat's ``hands`` laid face up at the end (module docstring).
    ``surface`` ``"white"`` is a white tablecloth; ``shade`` darkens the far half by that share (a still
    shadow over the far seats)."""
    seats = tuple(seats)
    n = len(seats)
    film = Film(seats, centre, fps=fps, surface=surface, seed=seed, shade=shade)
    add = film.shots.append
    backs = [_hand_cards(s, centre, [None] * 3, out=0.5) for s in seats]
    piles = _piles(centre, "7D")
    faces = [_hand_cards(s, centre, h) for s, h in zip(seats, hands, strict=True)]
    add(Shot("empty", 8, ()))
    dealt: tuple[Card, ...] = ()
    for i in range(n):
        dealt = dealt + backs[i]
        add(Shot(f"deal {i + 1}", 2, dealt, hands=1))
    add(Shot("dealt", 8, dealt))  # the dealt cards lie face down a moment: backs are not cards to read
    add(Shot("pick up", 4, piles, hands=2))
    add(Shot("play", 10, piles, hands=1))
    add(Shot("play paused", 7, piles))  # only the piles in the middle
    laid = piles
    half = max(1, n // 2)
    for i in range(n):
        laid = laid + faces[i]
        add(Shot(f"laying {i + 1}", 2, laid, hands=1))
        if i == half - 1:
            add(Shot("half laid", 8, laid))  # a pause with half the hands down: not read
    add(Shot("touching", 5, laid, hands=2, laid=True))
    add(Shot("still", 9, laid, laid=True))
    add(Shot("passing hand", 2, laid, hands=1, laid=True))
    add(Shot("still again", 9, laid, laid=True))  # the same table: not read twice
    add(Shot("collecting", 4, piles, hands=2))
    add(Shot("collected", 8, piles))
    add(Shot("cleared", 3, (), hands=1))
    add(Shot("empty again", 8, ()))
    return film


def segment_film(
    name: str, hands: Sequence[Sequence[str]], seats: Sequence[tuple[float, float]], **kw: object
) -> Film:
    """One part of :func:`round_film` alone, from a still table before it: ``empty``, ``dealing``,
    ``play``, ``going down`` (laid and still: one scan), ``touching`` (hands on the laid cards, never still:
    none), ``collecting``."""
    whole = round_film(hands, seats, **kw)  # type: ignore[arg-type]
    parts = {
        "empty": ("empty", "empty"),
        "dealing": ("deal 1", "dealt"),
        "play": ("pick up", "play paused"),
        "going down": ("laying 1", "still"),
        "touching": ("touching", "touching"),
        "collecting": ("collecting", "empty again"),
    }
    first, last = parts[name]
    names = [s.name for s in whole.shots]
    i, j = names.index(first), names.index(last)
    before = whole.shots[i - 1] if i else whole.shots[0]
    lead = Shot("before", 6, before.cards, laid=before.laid)
    shots = [lead, *whole.shots[i : j + 1]]
    if name == "touching":
        shots = [Shot("before", 6, whole.shots[i].cards), *whole.shots[i : j + 1]]
    return Film(whole.seats, whole.centre, shots, whole.fps, whole.surface, whole.seed, whole.shade)


def piles_film(
    piles: Sequence[Sequence[str]],
    halves: Sequence[tuple[float, float]],
    centre: tuple[float, float] = (0.5, 0.5),
    surface: str = "wood",
    seed: int = 0,
    fps: float = 5.0,
) -> Film:
    """A Seep deal's end: each team's captured pile laid out on its half of the table."""
    film = Film(tuple(halves), centre, fps=fps, surface=surface, seed=seed)
    floor: tuple[Card, ...] = (Card("5H", centre[0], centre[1], 0.0),)
    laid = floor
    film.shots.append(Shot("play", 8, floor, hands=1))
    film.shots.append(Shot("floor", 6, floor))
    for i, (half, pile) in enumerate(zip(halves, piles, strict=True)):
        laid = laid + _hand_cards(half, centre, pile, out=0.6)
        film.shots.append(Shot(f"laying {i + 1}", 3, laid, hands=1))
    film.shots.append(Shot("still", 8, laid, laid=True))
    return film


def laying_film(
    hands: Sequence[Sequence[str]],
    seats: Sequence[tuple[float, float]],
    centre: tuple[float, float] = (0.5, 0.5),
    surface: str = "felt",
    seed: int = 0,
    fps: float = 4.0,
) -> Film:
    """A short film for the kiosk's demo: the table cleared and still (the watcher learns it, and is armed
    again after an earlier round), the hands laid seat by seat, hands still touching them, the still table."""
    seats = tuple(seats)
    film = Film(seats, centre, fps=fps, surface=surface, seed=seed)
    film.shots.append(Shot("cleared", 7, ()))
    laid: tuple[Card, ...] = ()
    for i, (seat, hand) in enumerate(zip(seats, hands, strict=True)):
        laid = laid + _hand_cards(seat, centre, hand)
        film.shots.append(Shot(f"laying {i + 1}", 1, laid, hands=1))
    film.shots.append(Shot("touching", 2, laid, hands=2, laid=True))
    film.shots.append(Shot("still", 12, laid, laid=True))
    return film


class FilmCamera:
    """A camera (:class:`vision.cameras.Camera`) that plays a film, for the kiosk's demo: each
    ``preview()`` is the film's next frame (the last one held once it has played), ``capture()`` the
    moment's frame enlarged to a still. Never used by the kiosk itself."""

    name = "scripted table"
    preview_gap = 0.0

    def __init__(self, film: Film | None = None) -> None:
        self._frames: list[np.ndarray] = []
        self._index = 0
        if film is not None:
            self.play(film)

    def play(self, film: Film) -> None:
        """Play ``film`` from its first frame on (its frames drawn now)."""
        renderer = Renderer(film)
        self._frames = [renderer.frame(i) for i in range(film.length)]
        self._index = 0

    @property
    def at(self) -> int:
        """The frame the last ``preview()`` gave."""
        return max(0, min(self._index, len(self._frames)) - 1)

    def open(self) -> None:
        pass

    def preview(self) -> np.ndarray:
        if not self._frames:
            raise RuntimeError("no film to play")
        frame = self._frames[min(self._index, len(self._frames) - 1)]
        self._index += 1
        return frame

    def capture(self) -> np.ndarray:
        frame = self._frames[self.at] if self._frames else np.zeros((216, 384, 3), np.uint8)
        return cv2.resize(frame, (frame.shape[1] * 4, frame.shape[0] * 4), interpolation=cv2.INTER_LINEAR)

    def close(self) -> None:
        pass

    def __enter__(self) -> FilmCamera:
        return self

    def __exit__(self, *_: object) -> None:
        pass
