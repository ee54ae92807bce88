"""The card designs (SVG decks installed from Debian) that the synthetic photos are made from.

Two families of files, with different element ids:

* ``kdegames-card-data-kf5``: ``/usr/share/carddecks/svg-*/*.svgz``, ids like ``7_spade``, ``king_club``;
* ``aisleriot`` (``gnome-cards-data``): ``/usr/share/aisleriot/cards/*.svgz``, ids like ``spade_7``,
  ``joker_red``.

A third family, :data:`Family.PROCEDURAL`, are the decks drawn by :mod:`models.training.data.procedural`
straight into the
face cache (``proc-00``, ``proc-01``, ...): :func:`procedural_decks` lists those present in a faces folder,
always as training designs.

Each :class:`Deck` names its design group (the same artwork shipped twice, e.g. Dondorf in both packages, is
one group) and its split. Whole groups are held out for validation, so no artwork of a validation design is
ever seen in training. Decks that do not use French suits (German, Swiss, Italian tarot suits) or that render
wrongly are not listed; ``svg-konqi-modern`` is excluded for its license.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

from models.training.classes import JOKER
from scorer.cards import CARD_CODES

KDE_ROOT = Path("/usr/share/carddecks")
AISLERIOT_ROOT = Path("/usr/share/aisleriot/cards")

_RANK_WORDS = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
_SUIT_WORDS = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}


class Family(enum.Enum):
    """Which package (and so which id scheme) a deck comes from."""

    KDE = "kde"
    AISLERIOT = "aisleriot"
    PROCEDURAL = (
        "procedural"  # drawn by models.training.data.procedural; ``path`` is the deck's folder of faces
    )


class Split(enum.Enum):
    """Whether a design is used for training or held out for validation."""

    TRAIN = "train"
    VAL = "val"


@dataclass(frozen=True)
class Deck:
    """One SVG deck file and how to find each card inside it."""

    name: str
    family: Family
    path: Path
    group: str
    split: Split
    joker_ids: tuple[str, ...] = ()
    four_corners: bool = False  # the index is printed in all four corners (Dondorf), not just two

    def element_id(self, code: str) -> str:
        """The SVG element id of card ``code`` (not the joker: see :attr:`joker_ids`)."""
        if code == JOKER or code not in CARD_CODES:
            raise ValueError(f"deck {self.name}: no single element id for card code {code!r}")
        if self.family is Family.PROCEDURAL:
            raise ValueError(f"deck {self.name} is drawn, not an SVG file: no element ids")
        rank, suit = code[:-1], code[-1]
        rank_word, suit_word = _RANK_WORDS.get(rank, rank), _SUIT_WORDS[suit]
        if self.family is Family.KDE:
            return f"{rank_word}_{suit_word}"
        return f"{suit_word}_{rank_word}"

    def back_id(self) -> str:
        return "back"


def _kde(
    name: str,
    file: str,
    group: str,
    split: Split = Split.TRAIN,
    jokers: tuple[str, ...] = (),
    four: bool = False,
) -> Deck:
    return Deck(name, Family.KDE, KDE_ROOT / f"svg-{name}" / file, group, split, jokers, four)


def _ais(
    name: str,
    group: str,
    split: Split = Split.TRAIN,
    jokers: tuple[str, ...] = ("joker_red",),
    four: bool = False,
) -> Deck:
    return Deck(f"ais-{name}", Family.AISLERIOT, AISLERIOT_ROOT / f"{name}.svgz", group, split, jokers, four)


_RB = ("joker_red", "joker_black")

# Validation designs: "anglo-modern" (the 2-colour and the 4-colour file) and "tigullio" (KDE's
# tigullio-international and aisleriot's tigullio). Everything else trains.
#
# Left out, after looking at the renders: svg-konqi-modern (license); svg-future (cards drawn sideways) and
# svg-xskat-french (rsvg cannot size it); the oxygen family (rank in the top-right corner, suit elsewhere: no
# corner index); tango and tango_nuevo (rank and suit pip at opposite ends of the top edge); ancient_french,
# berlin, lattmann, rheinland, slavic_costumes (French/German/Russian indices R D V 1, B D, Д В); German,
# Swiss and tarot-suited decks; guyenne-classic (court cards without an index).
# The Dondorf jokers carry no corner mark, so they are not used.
ALL_DECKS: tuple[Deck, ...] = (
    _kde("ancient-egyptians", "Ancient_Egyptians.svgz", "ancient-egyptians"),
    _kde("dondorf", "dondorf.svgz", "dondorf", four=True),
    _kde("gm-paris", "paris.svgz", "paris"),
    _kde("jolly-royal", "jolly-royal.svgz", "jolly-royal"),
    _kde("nicu-ornamental", "ornamental.svgz", "nicu-ornamental", jokers=("red_joker", "black_joker")),
    _kde("nicu-white", "white.svgz", "nicu-white", jokers=("red_joker", "black_joker")),
    _kde("penguins", "penguins.svgz", "penguins"),
    _kde("standard", "standard.svgz", "standard"),
    _kde("tigullio-international", "tigullio-international.svgz", "tigullio", Split.VAL),
    _ais("anglo", "anglo", jokers=_RB),
    _ais("anglo_bitmap", "anglo", jokers=_RB),
    _ais("anglo_modern", "anglo-modern", Split.VAL, jokers=_RB),
    _ais("anglo_modern_4_color", "anglo-modern", Split.VAL, jokers=_RB),
    _ais("anglo_poker", "anglo-poker", jokers=_RB),
    _ais("atlasnye", "atlasnye", jokers=_RB),
    _ais("bellot", "bellot", jokers=_RB),
    _ais("dondorf", "dondorf", jokers=(), four=True),
    _ais("gnomangelo", "gnomangelo", jokers=_RB),
    _ais("gnomangelo_bitmap", "gnomangelo", jokers=_RB),
    _ais("neoclassical", "neoclassical", jokers=_RB),
    _ais("neoclassical_4_color", "neoclassical", jokers=_RB),
    _ais("orell", "orell", jokers=_RB),
    _ais("ornamental", "nicu-ornamental", jokers=_RB),
    _ais("paris", "paris", jokers=_RB),
    _ais("plastic", "plastic", jokers=_RB),
    _ais("simplistic", "simplistic", jokers=_RB),
    _ais("tigullio", "tigullio", Split.VAL, jokers=_RB),
)


def decks_by_name() -> dict[str, Deck]:
    return {d.name: d for d in ALL_DECKS}


PROCEDURAL_PREFIX = "proc-"
# Procedural decks drawn for training (proc-00 ... proc-191, by models.training.data.faces: 64 of each
# generation, see
# models.training.data.procedural.SECOND_GENERATION and THIRD_GENERATION).
PROCEDURAL_TRAINED = 192


def procedural_decks(faces_dir: Path) -> tuple[Deck, ...]:
    """The procedural decks rendered in ``faces_dir`` (``proc-NN`` folders with a corners.json), sorted.

    Each is its own design group and always a training design (validation keeps the held-out SVG designs).
    """
    if not faces_dir.is_dir():
        return ()
    dirs = sorted(
        d
        for d in faces_dir.iterdir()
        if d.name.startswith(PROCEDURAL_PREFIX)
        and d.name[len(PROCEDURAL_PREFIX) :].isdigit()
        and (d / "corners.json").is_file()
    )
    return tuple(Deck(d.name, Family.PROCEDURAL, d, d.name, Split.TRAIN, (JOKER,)) for d in dirs)


def installed_decks(decks: tuple[Deck, ...] = ALL_DECKS, faces_dir: Path | None = None) -> tuple[Deck, ...]:
    """The listed decks whose SVG file exists on this machine, then the procedural decks in ``faces_dir``.

    With ``faces_dir``, an SVG deck whose faces are rendered there (its ``corners.json``) counts as installed
    even where its SVG file is not (a face cache carried to a machine without the Debian card packages).
    """

    def cached(d: Deck) -> bool:
        return faces_dir is not None and (faces_dir / d.name / "corners.json").is_file()

    svg = tuple(d for d in decks if d.path.is_file() or cached(d))
    return svg + (procedural_decks(faces_dir) if faces_dir is not None else ())
