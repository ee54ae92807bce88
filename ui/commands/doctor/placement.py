"""The placement check: is the camera hanging at the right height? Judged from one photo, read as a scan
reads it (vision.table.placement says what to change; this check only reports it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ui.commands.doctor.base import Check, CheckName, Status


def check_placement(
    take_photo: Callable[[], tuple[Any, str, str | None] | None],
    load: Callable[[Path], Any],
    model_path: Path,
) -> Check | None:
    """Is the camera hanging at the right height? One photo (of the table with a card at each seat) read as
    a scan reads it: the corner size in the photo and in the model's input, and what to change
    (vision.table.placement). None when there is no photo to judge (no camera: the camera check says so)."""
    from vision.table.placement import GOOD_MODEL_PX, Verdict, lens_for
    from vision.table.placement import check_placement as judge

    try:
        taken = take_photo()
    except Exception as exc:
        return Check(
            CheckName.PLACEMENT,
            Status.WARN,
            f"no photo to judge the camera's height by: {exc}",
            "Stop the kiosk first (sudo systemctl stop tabletally-kiosk), or give a photo of the table: "
            "tabletally doctor --photo PHOTO.",
        )
    if taken is None:
        return None
    image, source, model = taken
    try:
        reader = load(model_path)
        cards = reader.cards(image)
    except Exception as exc:
        return Check(
            CheckName.PLACEMENT,
            Status.WARN,
            f"{source}: the photo could not be read ({exc})",
            "See the model check above.",
        )
    h, w = image.shape[:2]
    placement = judge(cards, w, h, None, int(getattr(reader, "imgsz", 576) or 576), lens_for(model))
    details: dict[str, Any] = {
        "photo": source,
        "size": [w, h],
        "verdict": str(placement.verdict),
        "cards": len(cards),
        "corner_px": None if placement.corner_px is None else round(placement.corner_px, 1),
        "model_px": None if placement.model_px is None else round(placement.model_px, 1),
        "aim_model_px": GOOD_MODEL_PX,
    }
    if placement.height_m is not None:
        details.update(height_m=round(placement.height_m, 2), view_m=round(placement.view_m or 0.0, 2))
    if placement.target_m is not None:
        details["target_m"] = round(placement.target_m, 2)
    advice, _, numbers = placement.summary().partition("; ")
    if placement.verdict is Verdict.FINE:
        return Check(CheckName.PLACEMENT, Status.OK, f"{source}: {numbers}: {advice}", details=details)
    return Check(
        CheckName.PLACEMENT,
        Status.WARN,
        f"{source}: {numbers}",
        advice[0].upper() + advice[1:] + ". The kiosk's camera check (Settings) shows it seat by seat.",
        details,
    )
