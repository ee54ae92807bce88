"""The table watcher (vision.table.watch) on scripted films of a round (vision.devtools.table_film, made with
the synthetic renderer) and on the demo photos: exactly one automatic scan, at the right frame."""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.base.errors import InvalidValueError
from vision.devtools.table_film import Film, Renderer, Shot, piles_film, round_film, segment_film
from vision.table.watch import TableWatcher, WatchRules, WatchState, seat_regions

HANDS = [["AS", "2H"], ["KS", "QH", "9C"], ["10D", "JC", "8S"], ["5C", "6D"], ["JK"]]
DEMO = Path(__file__).resolve().parents[2] / "vision" / "demo"
PHOTOS = sorted(json.loads((DEMO / "truth.json").read_text()))


def ring(n: int) -> tuple[tuple[float, float], ...]:
    """``n`` seats round a table, the kiosk at the bottom (as vision.table.seats.layout places them)."""
    angles = [math.radians(90 + (i + 0.5) * 360 / n) for i in range(n)]
    return tuple((0.5 + 0.36 * math.cos(a), 0.5 + 0.36 * math.sin(a)) for a in angles)


@functools.lru_cache(maxsize=32)
def frames_of(kind: str, n: int, surface: str, seed: int, part: str = "") -> tuple[Film, list[np.ndarray]]:
    seats = ring(n)
    if kind == "round":
        film = round_film(HANDS[:n], seats, surface=surface, seed=seed)
    elif kind == "segment":
        film = segment_film(part, HANDS[:n], seats, surface=surface, seed=seed)
    else:
        film = piles_film([["AS", "2S", "3S", "10D"], ["KS", "AH", "QS"]], seats, surface=surface, seed=seed)
    renderer = Renderer(film)
    return film, list(renderer.frames())


def scans(film: Film, frames: list[np.ndarray], rules: WatchRules | None = None) -> list[int]:
    watcher = TableWatcher(seat_regions(film.seats, film.centre), rules)
    return [i for i, (f, t) in enumerate(zip(frames, film.times(), strict=True)) if watcher.feed(f, t).scan]


@pytest.mark.parametrize(
    ("n", "surface", "seed"),
    [(4, "felt", 1), (3, "wood", 2), (2, "carpet", 3), (5, "felt", 4), (4, "wood", 5)],
)
def test_a_whole_round_is_read_once_when_the_cards_are_down_and_still(
    n: int, surface: str, seed: int
) -> None:
    film, frames = frames_of("round", n, surface, seed)
    expected = film.expected_scans()
    assert len(expected) == 1
    assert film.shot_at(expected[0]).name == "still"
    # a second after the hands left the laid cards (the first frame without them is still a change)
    assert expected[0] == film.start_of("still") + 1 + 5
    assert scans(film, frames) == expected


@pytest.mark.parametrize(
    ("part", "wanted"),
    [("empty", 0), ("dealing", 0), ("play", 0), ("going down", 1), ("touching", 0), ("collecting", 0)],
)
def test_each_part_of_a_round(part: str, wanted: int) -> None:
    film, frames = frames_of("segment", 4, "felt", 6, part)
    expected = film.expected_scans()
    assert len(expected) == wanted
    assert scans(film, frames) == expected


def test_the_same_still_table_is_not_read_twice_and_a_changed_one_is() -> None:
    film, frames = frames_of("round", 4, "wood", 7)
    watcher = TableWatcher(seat_regions(film.seats))
    states = [watcher.feed(f, t).state for f, t in zip(frames, film.times(), strict=True)]
    read = film.expected_scans()[0]
    again = film.start_of("still again")
    assert states[read] is WatchState.SCAN
    assert set(states[read + 1 : film.start_of("collecting")]) == {WatchState.READ}  # the hand passing over
    assert WatchState.SCAN not in states[again:]
    assert states[-1] is WatchState.WAITING  # the cards collected, the table learnt empty: armed again
    assert watcher.armed


def test_hold_still_while_hands_touch_the_laid_cards() -> None:
    film, frames = frames_of("round", 4, "felt", 1)
    watcher = TableWatcher(seat_regions(film.seats))
    looks = [watcher.feed(f, t) for f, t in zip(frames, film.times(), strict=True)]
    still = film.start_of("still")
    assert WatchState.HOLD in {look.state for look in looks[still : still + 5]}
    assert all(look.moving > watcher.rules.moving for look in looks[film.start_of("touching") : still])
    assert not any(look.scan for look in looks[: film.expected_scans()[0]])


def test_a_tap_on_scan_reads_the_table_so_the_watcher_does_not() -> None:
    film, frames = frames_of("round", 4, "felt", 1)
    watcher = TableWatcher(seat_regions(film.seats))
    tapped = film.start_of("still") + 2
    got = []
    for i, (f, t) in enumerate(zip(frames, film.times(), strict=True)):
        if watcher.feed(f, t).scan:
            got.append(i)
        if i == tapped:
            watcher.read_now()
    assert got == []


def test_seep_piles_are_read_once_laid_out() -> None:
    film, frames = frames_of("piles", 2, "wood", 8)
    assert scans(film, frames) == film.expected_scans() == [film.start_of("still") + 6]


@pytest.mark.parametrize(
    ("n", "surface", "seed", "shade"),
    [
        (4, "white", 1, 0.0),  # a white tablecloth, as light as the cards
        (3, "white", 2, 0.0),
        (5, "white", 3, 0.0),
        (4, "plain", 14, 0.0),  # light plain tables and a light cloth
        (4, "cloth", 15, 0.0),
        (4, "felt", 1, 0.55),  # the far hands in a shadow darker than paper
        (4, "wood", 2, 0.6),
        (4, "felt", 6, 0.7),
        (3, "white", 4, 0.5),  # a white cloth half in shadow
    ],
)
def test_light_tables_and_hands_in_shadow_are_read_once_at_the_right_frame(
    n: int, surface: str, seed: int, shade: float
) -> None:
    film = round_film(HANDS[:n], ring(n), surface=surface, seed=seed, shade=shade)
    frames = list(Renderer(film).frames())
    assert scans(film, frames) == film.expected_scans() == [film.start_of("still") + 1 + 5]


@pytest.mark.parametrize(("surface", "seed"), [("plain", 23), ("pattern", 23)])
def test_tables_it_cannot_read_by_itself_never_give_a_wrong_scan(surface: str, seed: int) -> None:
    """Two tables where the watcher misses the laid hands (the players tap Scan): plain-23's hands at one
    seat barely differ from the table at the small stream's size, and on pattern-23 the table learnt with
    the dealt backs on it differs from the table they leave. Never read at any other moment."""
    film, frames = frames_of("round", 4, surface, seed)
    assert set(scans(film, frames)) <= set(film.expected_scans())


def test_lighting_that_changes_over_the_whole_table_is_learnt_not_read() -> None:
    film, frames = frames_of("segment", 4, "felt", 6, "empty")
    watcher = TableWatcher(seat_regions(film.seats))
    t = 0.0
    for f in frames:
        assert not watcher.feed(f, t).scan
        t += 0.2
    brighter = [cv2.add(f, 60) for f in frames]  # a lamp switched on
    for f in brighter:
        assert not watcher.feed(f, t).scan
        t += 0.2


# -- the demo photos -------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def empty_table(name: str) -> np.ndarray:
    """The demo photo's own table without its cards: the photo drawn again as ui.devtools.demo_photos drew
    it (the same plan, seed and draw, so the same surface, light, shadows and camera) with every card
    transparent, and stored as it stores photos (JPEG)."""
    from models.training.data.scenes import Face, render_scene
    from ui.devtools import demo_photos

    truth = json.loads((DEMO / "truth.json").read_text())[name]
    plan = demo_photos.photo_plan()
    index = [entry[0] for entry in plan].index(name)
    glass = np.zeros((140, 100, 4), np.uint8)  # a card with nothing on it: draws nothing, not even a shadow
    rng = np.random.default_rng(62 * 1000 + index * 100 + int(truth["draw"]))  # write_demos' seed
    placements = []
    for codes, seat, reach in plan[index][2]:
        if codes:
            placements += demo_photos._lay([Face("", c, glass, ()) for c in codes], seat, reach, rng)
    tilt = float(rng.uniform(0, 0.03))
    image, _labels, _seen = render_scene(
        rng, placements, demo_photos.WIDTH, demo_photos.HEIGHT, tilt, clutter=0
    )
    jpeg = demo_photos._jpeg(image)
    assert jpeg is not None
    decoded = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert decoded is not None
    return np.asarray(decoded)


def demo_film(name: str) -> tuple[list[tuple[float, float, float, float]], list[np.ndarray], int]:
    """Frames from a demo photo: its table without the cards (:func:`empty_table`), players' hands, the
    photo's cards laid, then still. The photos lay each hand in front of a seat of the kiosk's default
    layout (a Seep deal's piles on the near and far halves): the regions are those seats'
    (:func:`seat_regions`), for the seats that hold cards. Returns the regions, the grey frames at the
    small stream's size, and the first frame of the still table."""
    from models.training.data.textures import draw_hand

    photo = cv2.imread(str(DEMO / name))
    assert photo is not None
    truth = json.loads((DEMO / "truth.json").read_text())[name]
    if truth.get("players"):
        seats = [ring(int(truth["players"]))[i] for i, hand in enumerate(truth["hands"]) if hand]
        regions = list(seat_regions(seats))
    else:  # the Seep halves (ui.logic.seep_deal.HALVES): near, far
        regions = list(seat_regions([(0.5, 0.8), (0.5, 0.2)], middle=0.0))
    size = (384, round(384 * photo.shape[0] / photo.shape[1]))
    small = cv2.resize(photo, size, interpolation=cv2.INTER_AREA)
    empty = cv2.resize(empty_table(name), size, interpolation=cv2.INTER_AREA)
    h, w = small.shape[:2]
    rng = np.random.default_rng(5)
    frames: list[np.ndarray] = [empty] * 6
    for k, base in enumerate((empty, empty, small, small, small)):  # hands lay the cards, seat by seat
        frame = base.copy()
        x0, y0, x1, y1 = regions[k % len(regions)]
        window = (slice(int(y0 * h), int(y1 * h)), slice(int(x0 * w), int(x1 * w)))
        owner = np.full((h, w), -1, np.int32)
        draw_hand(rng, frame[window], owner[window], 0, 0.25 * h)
        frames.append(frame)
    still = len(frames)
    frames += [small] * 10
    return regions, [cv2.cvtColor(f, cv2.COLOR_BGR2GRAY) for f in frames], still


@pytest.mark.parametrize("name", PHOTOS)
def test_demo_photos_are_read_once_when_their_cards_go_down(name: str) -> None:
    """Every demo photo, whatever its table: round1 on a white table with a glare, round3's and round6's
    hands partly in a shadow darker than paper, the Seep deals' piles filling most of their halves."""
    regions, frames, still = demo_film(name)
    watcher = TableWatcher(regions)
    got = [i for i, f in enumerate(frames) if watcher.feed(f, i / 5).scan]
    assert got == [still + 1 + 5]


def test_the_empty_demo_table_is_the_photo_without_its_cards() -> None:
    """The drawn-again empty table matches its photo away from the cards (the same table, light, shadow
    and camera), so the watcher sees only the cards change."""
    photo = cv2.imread(str(DEMO / "round3.jpg"))
    assert photo is not None
    empty = empty_table("round3.jpg")
    diff = cv2.absdiff(photo, empty).max(axis=2)
    assert float(np.median(diff)) <= 12  # JPEG and sensor noise: most of the photo is bare table
    assert float(np.percentile(diff, 97)) > 60  # where the cards lie


def test_a_table_already_laid_when_watching_begins_is_not_read() -> None:
    """The kiosk opens the round's screen while the last round's cards still lie there: not read again."""
    regions, frames, still = demo_film("round4.jpg")
    watcher = TableWatcher(regions)
    laid = frames[still:] + frames[still + 1 : still + 3] + frames[still:]
    assert not any(watcher.feed(f, i / 5).scan for i, f in enumerate(laid))


def test_seat_regions_and_bad_input() -> None:
    regions = seat_regions(ring(4))
    assert len(regions) == 4
    for x0, y0, x1, y1 in regions:
        assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1
        assert not (x0 < 0.5 < x1 and y0 < 0.5 < y1)  # the middle (the piles) is no seat's
    with pytest.raises(InvalidValueError, match="centre"):
        seat_regions([(0.5, 0.5), (0.1, 0.1)])
    with pytest.raises(InvalidValueError, match="inside the frame"):
        TableWatcher([(0.5, 0.5, 0.4, 0.9)])
    with pytest.raises(InvalidValueError, match="uint8"):
        TableWatcher(regions).feed(np.zeros((10, 10), np.float32), 0.0)
    with pytest.raises(InvalidValueError, match="still_s"):
        WatchRules(still_s=-1)


def test_a_film_knows_when_its_scan_is_due() -> None:
    film = Film(ring(2), (0.5, 0.5), [Shot("hands", 2, (), hands=1), Shot("still", 10, (), laid=True)])
    assert film.expected_scans() == [2 + 1 + 5]


def test_a_tap_while_hands_are_still_over_the_table_reads_the_table_they_leave() -> None:
    film, frames = frames_of("round", 4, "felt", 1)
    watcher = TableWatcher(seat_regions(film.seats))
    tapped = film.start_of("touching") + 1
    states = []
    for i, (f, t) in enumerate(zip(frames, film.times(), strict=True)):
        states.append(watcher.feed(f, t).state)
        if i == tapped:
            watcher.read_now()
    assert WatchState.SCAN not in states
    assert states[film.start_of("collected") - 1] is WatchState.READ
    assert states[-1] is WatchState.WAITING
