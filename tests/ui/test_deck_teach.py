"""The teach-deck screen's logic (ui.logic.deck_teach): five photos matched, confirmed, corrected, saved
whole; the deck chosen in Settings; a game's confirmed scans added to the deck."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from ui.logic.deck_teach import (
    STEPS,
    DeckTeacher,
    add_game_scans,
    choose_deck,
    chosen_deck,
    deck_label,
)
from ui.store import Store
from vision.base.types import Detection
from vision.deck.shelf import DeckShelf
from vision.reader.corners import DEFAULT_READER, CornerReader
from vision.runtimes.fake import FakeDetector

pytestmark = pytest.mark.skipif(not DEFAULT_READER.is_file(), reason="models/reader.onnx not exported")

W, H, SIZE = 1600, 500, 40.0


Box = tuple[float, float, float, float]


def corner_boxes(k: int) -> tuple[Box, Box]:
    x = 40 + k * 115
    return (x, 100, x + SIZE, 100 + SIZE), (x + 60, 300, x + 60 + SIZE, 300 + SIZE)


def row_photo(codes: list[str], seed: int) -> np.ndarray:
    """A photo whose corners show each code written out (a deck the reader never saw)."""
    rng = np.random.default_rng(seed)
    image: np.ndarray = np.full((H, W, 3), 200, np.uint8) + rng.integers(0, 20, (H, W, 3), np.uint8)
    for k, code in enumerate(codes):
        colour = {"S": (20, 20, 20), "H": (0, 0, 210), "D": (200, 60, 0), "C": (0, 140, 0)}[code[-1]]
        for box in corner_boxes(k):
            x0, y0 = int(box[0]), int(box[1])
            cv2.putText(image, code[:-1], (x0 + 2, y0 + 20), cv2.FONT_HERSHEY_SIMPLEX, 0.7, colour, 2)
            cv2.putText(image, code[-1], (x0 + 8, y0 + 38), cv2.FONT_HERSHEY_PLAIN, 1.2, colour, 2)
    return image


def detections(read: list[str]) -> list[Detection]:
    return [Detection(code, 0.9, box) for k, code in enumerate(read) for box in corner_boxes(k)]


class Kiosk:
    """The camera and the detector the teach screen is given: photos of the layout as laid, read as
    ``readings`` (the fake detector's scripted corners) by a detector with the shipped corner reader."""

    def __init__(self, laid: list[list[str]], readings: list[list[str]]) -> None:
        self.photos = [row_photo(codes, k) for k, codes in enumerate(laid)]
        self.fake = FakeDetector(*[detections(r) for r in readings])
        self.fake.reader = CornerReader(DEFAULT_READER, threads=1)  # type: ignore[attr-defined]
        self.taken = 0

    def capture(self) -> np.ndarray:
        photo = self.photos[self.taken % len(self.photos)]
        self.taken += 1
        return photo

    def detector(self) -> Any:
        return self.fake


SUITS = [list(step.codes) for step in STEPS[:4]]


def teacher(tmp_path: Path, kiosk: Kiosk) -> DeckTeacher:
    t = DeckTeacher(DeckShelf(tmp_path), kiosk.detector, kiosk.capture)
    assert t.set_name("Family deck")
    return t


@pytest.mark.slow
def test_a_deck_is_taught_from_four_rows_confirmed_and_saved_whole(tmp_path: Path) -> None:
    read = [list(s) for s in SUITS]
    read[1][2] = "5H"  # the deck's 3 of hearts looks like a 5 to the reader
    t = teacher(tmp_path, Kiosk(SUITS, read))
    assert t.progress() == "Photo 1 of 5" and "ace on the left" in t.instructions()
    for k in range(4):
        assert t.take(), t.message
        cards = t.cards()
        assert len(cards) == 13
        if k == 1:
            assert cards[2] == ("3\u2665", "read as 5\u2665")
        t.confirm()
    assert t.current.key == "JK" and not t.done
    t.skip()  # a deck without jokers
    assert t.done and t.save(), t.message
    shelf = DeckShelf(tmp_path)
    assert shelf.names() == ["Family deck"]
    assert len(shelf.info("Family deck")["cards"]) == 52


def test_a_card_laid_out_of_order_is_corrected_before_confirming(tmp_path: Path) -> None:
    laid = [list(s) for s in SUITS]
    laid[0][3], laid[0][4] = "5S", "4S"  # two cards swapped in the row
    t = teacher(tmp_path, Kiosk(laid, laid))
    assert t.take()
    assert [c for c, _ in t.cards()][3:5] == ["4\u2660", "5\u2660"]  # as asked; the reader saw 5 and 4
    t.fix(3, "5S")
    t.fix(4, "4S")
    assert [c for c, note in t.cards()][3:5] == ["5\u2660", "4\u2660"]
    assert all(note == "" for _, note in t.cards())


def test_a_photo_of_the_wrong_suit_is_refused_and_nothing_is_saved(tmp_path: Path) -> None:
    t = teacher(tmp_path, Kiosk([SUITS[1]], [SUITS[1]]))  # hearts laid where spades were asked
    assert not t.take()
    assert "right suit" in t.message and t.cards() == []
    with pytest.raises(ValueError):
        t.confirm()
    assert not t.save() and DeckShelf(tmp_path).names() == []
    assert not (tmp_path / "decks").exists() or list((tmp_path / "decks").iterdir()) == []


def test_a_photo_missing_cards_asks_to_lay_them_apart(tmp_path: Path) -> None:
    t = teacher(tmp_path, Kiosk([SUITS[0][:12]], [SUITS[0][:12]]))
    assert not t.take()
    assert "Lay them apart" in t.message


def test_a_camera_failure_asks_to_take_the_photo_again(tmp_path: Path) -> None:
    def broken() -> np.ndarray:
        raise RuntimeError("no camera")

    t = DeckTeacher(DeckShelf(tmp_path), Kiosk(SUITS, SUITS).detector, broken)
    assert not t.take() and "Take photo again" in t.message and not t.busy


def test_a_deck_name_must_be_plain(tmp_path: Path) -> None:
    t = DeckTeacher(DeckShelf(tmp_path), lambda: None, lambda: None)
    assert not t.set_name("standard") and t.message
    assert not t.set_name("../x")
    assert t.set_name(" Red deck ") and t.name == "Red deck"


def test_the_chosen_deck_is_kept_in_the_record(tmp_path: Path) -> None:
    store = Store(tmp_path)
    assert chosen_deck(store) == "" and deck_label("") == "Standard"
    choose_deck(store, "Family deck")
    store.close()
    store = Store(tmp_path)
    assert chosen_deck(store) == "Family deck"
    assert deck_label("Family deck") == "Our deck: Family deck"
    choose_deck(store, "")
    assert chosen_deck(store) == ""


@pytest.mark.slow
def test_a_games_confirmed_scans_corrections_included_are_added_to_the_deck(tmp_path: Path) -> None:
    kiosk = Kiosk(SUITS, SUITS)
    t = teacher(tmp_path / "data", kiosk)
    for _ in range(4):
        assert t.take(), t.message
        t.confirm()
    t.skip()
    assert t.save(), t.message
    store = Store(tmp_path / "data")
    game = store.create_game("jhyap", {"players": ["A", "B"]})
    photo = row_photo(["3H", "7C", "KD"], 9)
    jpeg = bytes(cv2.imencode(".jpg", photo)[1])
    detected = {
        "cards": [
            {"code": c, "box": [b[0][0], b[0][1], b[1][2], b[1][3]]}
            for c, b in zip(["5H", "7C", "KD"], [corner_boxes(k) for k in range(3)], strict=True)
        ]
    }
    scan = store.add_scan(game, 1, "A", jpeg, detected)
    confirmed = {"target": "A", "cards": ["3H", "7C", "KD"]}  # the 5H was a 3H
    round_ = {"caller": "B", "hands": {"A": confirmed["cards"], "B": ["AS"]}}
    store.add_entry(game, round_, confirmed_scans=[(scan.id, confirmed)])  # as the kiosk confirms a round
    kiosk.fake = FakeDetector(detections(["5H", "7C", "KD"]))
    kiosk.fake.reader = CornerReader(DEFAULT_READER, threads=1)  # type: ignore[attr-defined]
    shelf = DeckShelf(tmp_path / "data")
    before = shelf.info("Family deck")["corners"]
    added = add_game_scans(shelf, "Family deck", store.scans(game), kiosk.fake)
    assert (added.scans, added.cards, added.added) == (1, 3, True)
    memory = shelf.load("Family deck", kiosk.fake.reader)  # type: ignore[attr-defined]
    assert len(memory.codes) == before + 6
    assert memory.codes[-6:] == ("3H", "3H", "7C", "7C", "KD", "KD")


@pytest.mark.slow
def test_a_suit_whose_photo_cannot_be_used_is_left_out_and_the_rest_taught(tmp_path: Path) -> None:
    laid = [SUITS[0][:12], *SUITS[1:]]  # the spades' photo shows 12 cards, whatever is done
    t = teacher(tmp_path, Kiosk([laid[0], laid[0], *laid[1:]], [laid[0], laid[0], *laid[1:]]))
    assert not t.can_skip
    assert not t.take() and t.can_skip and "Skip" in t.message
    assert not t.take() and t.can_skip  # a retake that fails again: still the players' choice
    t.skip()
    assert t.current.key == "H" and "left out" in t.message and t.left_out() == ["Spades"]
    for _ in range(3):
        assert t.take(), t.message
        t.confirm()
    t.skip()  # no jokers
    assert t.done and t.save(), t.message
    shelf = DeckShelf(tmp_path)
    assert len(shelf.info("Family deck")["cards"]) == 39
    kept = shelf.taught_cards("Family deck")  # the photos go with the deck, for deck train
    assert len(kept) == 39 and {code for _, _, code, _ in kept} == {c for s in SUITS[1:] for c in s}
