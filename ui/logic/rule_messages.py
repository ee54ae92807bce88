"""The rules engine's refusals and the camera's problems, in the players' words and language.

The scorer (pure, English, no I/O) explains a refused round or deal in one sentence that names the round
and the bad input, e.g. ``round 3: caller Asha's hand totals 7, over the call limit of 5``. The kiosk shows
the refusals a table can actually run into (too many copies of a card, a caller above the limit, a hand
above the hand limit, a joker or a doubled card in Seep, missing point cards, two first-play sweeps) as a
translated sentence with the same facts; anything else is shown as the scorer wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from ui import i18n
from ui.i18n import _, ngettext, num
from ui.logic.card_words import card_label


def _cards(codes: str) -> str:
    return " ".join(card_label(code) for code in codes.split())


def _over_decks(m: re.Match[str]) -> str:
    decks = int(m["decks"] or 1)
    copies = int(m["copies"])
    text = ngettext(
        "{card} appears {count} times across the hands, but {decks} deck holds only {copies}.",
        "{card} appears {count} times across the hands, but {decks} decks hold only {copies}.",
        decks,
    )
    return text.format(
        card=card_label(m["card"]), count=num(m["count"]), decks=num(decks), copies=num(copies)
    )


def _call_limit(m: re.Match[str]) -> str:
    return _("{caller} called with {total} in hand, over the call limit of {limit}.").format(
        caller=m["caller"], total=num(m["total"]), limit=num(m["limit"])
    )


def _hand_limit(m: re.Match[str]) -> str:
    return over_hand_limit({m["player"]: int(m["count"])}, int(m["limit"]))


def over_hand_limit(counts: Mapping[str, int], limit: int) -> str:
    """The hands over the hand limit, every one named with its count (the scorer's refusal names the
    first it finds; a table with two such hands is told of both)."""
    if len(counts) == 1:
        ((player, count),) = counts.items()
        return _("{player}'s hand holds {count} cards, over the hand limit of {limit}.").format(
            player=player, count=num(count), limit=num(limit)
        )
    hands = ", ".join(
        ngettext("{player} {count} card", "{player} {count} cards", count).format(
            player=player, count=num(count)
        )
        for player, count in counts.items()
    )
    return _("These hands hold more than the hand limit of {limit}: {hands}.").format(
        limit=num(limit), hands=hands
    )


def _joker(m: re.Match[str]) -> str:
    return _("Team {team} has a joker, but Seep is played without jokers.").format(team=m["team"])


def _twice(m: re.Match[str]) -> str:
    return _("Cards listed twice: {cards}.").format(cards=_cards(m["cards"]))


def _missing(m: re.Match[str]) -> str:
    return _("Point cards missing from both teams: {cards}.").format(cards=_cards(m["cards"]))


def _first_sweeps(m: re.Match[str]) -> str:
    return _("{n} sweeps on the first play, but a deal has only one first play.").format(n=num(m["n"]))


def _last_sweeps(m: re.Match[str]) -> str:
    return _("{n} sweeps on the last play, but a deal has only one last play.").format(n=num(m["n"]))


def _no_cards_swept(m: re.Match[str]) -> str:
    return _("Team {team} has a sweep but took no cards: a sweep takes the cards on the table.").format(
        team=m["team"]
    )


def _too_many_sweeps(m: re.Match[str]) -> str:
    return _("{n} sweeps in one deal, but at most {most} fit: after a sweep the table is empty.").format(
        n=num(m["n"]), most=num(m["most"])
    )


_WHERE = r"^(?:round|deal) \d+: "
_RULES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (
        re.compile(
            _WHERE + r"(?P<card>\S+) appears (?P<count>\d+) times across the hands, "
            r"but (?:1 deck holds|(?P<decks>\d+) decks hold) only (?P<copies>\d+)$"
        ),
        _over_decks,
    ),
    (
        re.compile(
            _WHERE
            + r"caller (?P<caller>.+)'s hand totals (?P<total>\d+), over the call limit of (?P<limit>\d+)$"
        ),
        _call_limit,
    ),
    (
        re.compile(
            _WHERE
            + r"(?P<player>.+)'s hand holds (?P<count>\d+) cards, over the hand limit of (?P<limit>\d+)"
        ),
        _hand_limit,
    ),
    (re.compile(_WHERE + r"team (?P<team>\S+) captured a joker, but Seep is played without jokers$"), _joker),
    (re.compile(_WHERE + r"cards listed twice: (?P<cards>.+)$"), _twice),
    (re.compile(_WHERE + r"point cards missing from both teams' captures: (?P<cards>.+)$"), _missing),
    (
        re.compile(_WHERE + r"(?P<n>\d+) sweeps on the first play; a deal has only one first play$"),
        _first_sweeps,
    ),
    (
        re.compile(_WHERE + r"(?P<n>\d+) sweeps on the last play; a deal has only one last play$"),
        _last_sweeps,
    ),
    (re.compile(_WHERE + r"team (?P<team>\S+) has \d+ sweeps? but captured no card; "), _no_cards_swept),
    (
        re.compile(_WHERE + r"(?P<n>\d+) sweeps \(.*\), but a deal has at most (?P<most>\d+): "),
        _too_many_sweeps,
    ),
)


def explain(message: str) -> str:
    """The scorer's refusal `message` as the kiosk shows it, in the language in use."""
    for pattern, say in _RULES:
        m = pattern.match(message)
        if m:
            return say(m)
    return message


# -- the camera and the photo -----------------------------------------------------------------------------
# The vision layer's reasons for a scan without cards (vision.cameras.CameraError, vision.pipeline's photo
# checks), as the scanner's message shows them after "The camera did not give a photo:" or "Could not read
# the cards:".


def _camera_name(name: str) -> str:
    m = re.fullmatch(r"(webcam|Pi camera) (\d+)", name)
    if m is None:
        return name
    what = _("webcam {n}") if m[1] == "webcam" else _("Pi camera {n}")
    return what.format(n=num(m[2]))


_Reasons = tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...]

# Reasons that name a file path: reworded in every language, English too, since no player's screen shows a
# path (the folder is on the technician's page, and in `tabletally doctor` and `tabletally cameras`).
_PATHS: _Reasons = (
    (
        re.compile(r"^photo folder .+ does not exist\.?$"),
        lambda m: _("The camera's photo folder does not exist."),
    ),
    (
        re.compile(r"^photo folder .+ holds no images \(.*\)\.?$"),
        lambda m: _("The camera's photo folder holds no photos."),
    ),
)

_PHOTO: _Reasons = (
    (
        re.compile(r"^(?P<cam>.+) could not be opened \(not connected, or in use by another app\)\.?$"),
        lambda m: _("{camera} could not be opened: it is not connected, or another program uses it.").format(
            camera=_camera_name(m["cam"])
        ),
    ),
    (
        re.compile(r"^(?P<cam>.+) opened but delivers no pictures\.?$"),
        lambda m: _("{camera} opened but gives no pictures.").format(camera=_camera_name(m["cam"])),
    ),
    (
        re.compile(r"^(?P<cam>.+) stopped delivering pictures \(unplugged\?\); check it and retry\.?$"),
        lambda m: _("{camera} stopped giving pictures: is it unplugged?").format(
            camera=_camera_name(m["cam"])
        ),
    ),
    (
        re.compile(r"^(?P<cam>.+): no camera connected to the camera port \(libcamera found \d+\)\.?$"),
        lambda m: _("{camera}: no camera is connected to the camera port.").format(
            camera=_camera_name(m["cam"])
        ),
    ),
    (
        re.compile(r"^(?P<cam>.+) stopped responding \(.*\); check the ribbon cable and retry\.?$"),
        lambda m: _("{camera} stopped responding: check its ribbon cable.").format(
            camera=_camera_name(m["cam"])
        ),
    ),
    (
        re.compile(r"^(?P<cam>.+) returned an unusable picture \(shape .*\); retry\.?$"),
        lambda m: _("{camera} gave an unusable picture.").format(camera=_camera_name(m["cam"])),
    ),
    (re.compile(r"^no camera available: .*$"), lambda m: _("No camera was found.")),
    (
        re.compile(r"^the Pi camera needs picamera2, which is not installed .*$"),
        lambda m: _("The Pi camera's software is not installed."),
    ),
    (
        re.compile(r"^(?:.*: )?the photo is blank \(.*\); is the lens covered or the light off\?$"),
        lambda m: _("the photo is one flat colour: is the lens covered or the light off?"),
    ),
    (
        re.compile(r"^(?:.*: )?(?P<w>\d+)x(?P<h>\d+) pixels is too small to hold readable cards\.?$"),
        lambda m: _("the photo is too small to read cards."),
    ),
)


def explain_photo(reason: str) -> str:
    """Why a scan gave no photo or no cards, in the language in use. In English the vision layer's own words
    are kept (they carry the details a technician wants) unless they name a file path; a reason not listed
    here is shown as written."""
    reasons = _PATHS if i18n.language() == i18n.DEFAULT_LANGUAGE else _PATHS + _PHOTO
    for pattern, say in reasons:
        m = pattern.match(reason)
        if m:
            return say(m)
    return reason
