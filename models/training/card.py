"""Write the model card's results table from the evaluation report: ``python -m models.training.card``.

``make evaluate`` runs it after :mod:`models.training.evaluate`: the table between the markers
:data:`START` and :data:`END` in ``models/README.md`` is rebuilt from ``models/eval/report.json``, so the
card shows exactly what the committed report measured. ``--check`` only compares and exits 1 when the
card's table differs from the report's (a test runs it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from models.training.classes import MODELS_DIR

CARD = MODELS_DIR / "README.md"
REPORT = MODELS_DIR / "eval" / "report.json"
START = "<!-- results: written by python -m models.training.card from eval/report.json -->"
END = "<!-- results end -->"
PI_RATIO = 3.4  # a Raspberry Pi 5 runs the same ONNX model about this many times slower than the dev machine


class CardError(RuntimeError):
    """The report or the card cannot be read, or the card has no results markers."""


def _num(value: Any, digits: int = 3) -> str:
    return "n/a" if value is None else f"{float(value):.{digits}f}"


def _real(report: dict[str, Any], name: str, reading: str) -> dict[str, Any] | None:
    for row in report.get("real") or []:
        if row.get("name") == name and row.get("reading", "one pass") == reading:
            return dict(row)
    return None


def _target(report: dict[str, Any], key: str) -> str:
    value = (report.get("targets") or {}).get(key)
    return "" if value is None else f">= {value}"


def results_table(report: dict[str, Any]) -> str:
    """The card's one results table, from a ``report.json`` as written by :mod:`models.training.evaluate`."""
    conf, imgsz = report.get("conf"), report.get("imgsz")
    rows: list[tuple[str, str, str]] = []
    synth = report.get("synthetic")
    if synth:
        n = synth.get("images")
        rows += [
            (
                f"held-out designs, {n} synthetic photos of the training photos' size: mAP50 / mAP50-95",
                f"{_num(synth.get('map50'))} / {_num(synth.get('map50_95'))}",
                _target(report, "synthetic_map50"),
            ),
            (
                "the same photos, exact-hand rate, one pass (the target's measure)",
                f"**{_num(synth.get('exact_hand_rate'))}**",
                _target(report, "synthetic_exact_hand_rate"),
            ),
            (
                "the same, card precision / recall, one pass",
                f"{_num(synth.get('card_precision'))} / {_num(synth.get('card_recall'))}",
                "",
            ),
        ]
        if synth.get("tiled_exact_hand_rate") is not None:
            rows.append(
                (
                    "the same, exact-hand rate as the kiosk reads (auto tiling, turns, corner reader)",
                    f"**{_num(synth.get('tiled_exact_hand_rate'))}**",
                    "",
                )
            )
        scores = synth.get("tiled_scores_right") or synth.get("scores_right")
        if scores:
            how = "as the kiosk reads" if synth.get("tiled_scores_right") else "one pass"
            rows.append(
                (
                    f"the same, photos that would score right ({how}): Jhyap values / Seep points",
                    f"{_num(scores.get('jhyap'))} / {_num(scores.get('seep'))}",
                    "",
                )
            )
        corners = synth.get("corners")
        if corners and corners.get("corners"):
            total = corners["corners"]
            rows.append(
                (
                    f"the same, {total} corner indices: read right / missed, one pass",
                    f"{_num(corners['right'] / total)} / {_num(corners['missed'] / total)}",
                    "",
                )
            )
    camera = report.get("camera")
    if camera:
        share = camera["cards_right"] / max(1, camera["cards"])
        rows.append(
            (
                f"held-out designs at camera resolution, {camera['images']} photos at "
                f"{camera['long_side']} px, "
                "as the kiosk reads: exact-hand rate; cards right, extra",
                f"**{_num(camera['exact_hand_rate'])}**; {share:.1%}, {camera['extra']}",
                "",
            )
        )
    for name, key in (("ivr_edinburgh", "ivr_edinburgh_card_accuracy"), ("kaggle_cards53", "")):
        one, kiosk = _real(report, name, "one pass"), _real(report, name, "kiosk")
        if one or kiosk:
            images = (one or kiosk or {}).get("images")
            rows.append(
                (
                    f"real photos, {name} ({images} single cards): card accuracy, "
                    "one pass / as the kiosk reads",
                    f"{_num(one and one['value'])} / {_num(kiosk and kiosk['value'])}",
                    _target(report, key) if key else "",
                )
            )
    one, kiosk = (
        _real(report, "edje_pinochle/train", "one pass"),
        _real(report, "edje_pinochle/train", "kiosk"),
    )
    if one or kiosk:

        def pin(r: dict[str, Any] | None) -> str:
            if r is None:
                return "n/a"
            return f"{_num(r['value'])}, {_num(r['details'].get('false_detections_per_image'), 2)}"

        rows.append(
            (
                f"real photos, edje_pinochle ({(one or kiosk or {}).get('images')} photos): rank recall, "
                "false detections a photo; one pass / as the kiosk reads",
                f"{pin(one)} / {pin(kiosk)}",
                _target(report, "edje_pinochle_rank_recall"),
            )
        )
    timing = report.get("timing") or {}
    if timing.get("median_ms") is not None:
        ms = float(timing["median_ms"])
        rows.append(
            (
                "one pass, ONNX Runtime, 2 threads: median ms a photo on the dev machine (Raspberry Pi 5, "
                f"estimated x{PI_RATIO})",
                f"{ms:.1f} (~{ms * PI_RATIO:.0f})",
                "",
            )
        )
    lines = [
        f"Input {imgsz} x {imgsz}, confidence threshold {conf} (the kiosk's). Full report: "
        "[eval/report.md](eval/report.md).",
        "",
        "| measure | shipped models | target |",
        "|---|---|---|",
    ]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(lines)


def load_report(path: Path = REPORT) -> dict[str, Any]:
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CardError(f"cannot read the evaluation report {path}: {exc}") from exc
    if not isinstance(report, dict):
        raise CardError(f"{path} is not an evaluation report (a JSON object)")
    return report


def with_table(card: str, table: str, where: Path = CARD) -> str:
    """``card`` with the text between its results markers replaced by ``table``."""
    start, end = card.find(START), card.find(END)
    if start < 0 or end < start:
        raise CardError(f"{where} has no results markers ({START} ... {END})")
    return card[: start + len(START)] + "\n" + table + "\n" + card[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m models.training.card", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--report", type=Path, default=REPORT)
    parser.add_argument("--card", type=Path, default=CARD)
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when the card's table is not the report's"
    )
    args = parser.parse_args(argv)
    try:
        card = args.card.read_text(encoding="utf-8")
        new = with_table(card, results_table(load_report(args.report)), args.card)
    except OSError as exc:
        print(f"error: cannot read the model card {args.card}: {exc}", file=sys.stderr)
        return 2
    except CardError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        if new != card:
            print(
                f"{args.card}: the results table differs from {args.report}; "
                "run python -m models.training.card"
            )
            return 1
        print(f"{args.card}: the results table is the report's")
        return 0
    if new != card:
        args.card.write_text(new, encoding="utf-8")
    print(f"results table written into {args.card} from {args.report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
