"""make pi-check's judgements (deploy/pi-check.sh): what the Debian arm64 root did against what this machine
did in the same run. Plain files in, one line per finding out, exit 1 on any difference. It imports
nothing of TableTally, so it runs with any Python 3.

    python ui/devtools/pi_check.py detect HERE.json THERE.json   # the same cards in every demo photo
    python ui/devtools/pi_check.py doctor DOCTOR.json            # the doctor says the camera is missing
    python ui/devtools/pi_check.py kiosk HERE.json THERE.json    # the home screen, with the same words
    python ui/devtools/pi_check.py security SECURITY.txt 4.0     # systemd-analyze security at most 4.0
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

CONFIDENCE_GAP = 0.05  # a card's confidence there may differ this much from here (other CPU, same model)


def _cards(reading: dict[str, Any]) -> Counter[str]:
    return Counter(card["code"] + ("?" if card.get("uncertain") else "") for card in reading["cards"])


def detect(here_file: str, there_file: str) -> list[str]:
    """Differences between two ``tabletally detect --json`` outputs: photo by photo, the card codes (with
    their doubt) and the hands; confidences only when far apart."""
    here = {Path(r["image"]).name: r for r in json.loads(Path(here_file).read_text(encoding="utf-8"))}
    there = {Path(r["image"]).name: r for r in json.loads(Path(there_file).read_text(encoding="utf-8"))}
    problems = [f"{name}: read here, not there" for name in sorted(set(here) - set(there))]
    problems += [f"{name}: read there, not here" for name in sorted(set(there) - set(here))]
    for name in sorted(set(here) & set(there)):
        a, b = _cards(here[name]), _cards(there[name])
        if a != b:
            here_only, there_only = sorted((a - b).elements()), sorted((b - a).elements())
            problems.append(f"{name}: cards differ: here only {here_only}, there only {there_only}")
            continue
        if here[name].get("hands") != there[name].get("hands"):
            problems.append(
                f"{name}: the same cards, other hands: {here[name]['hands']} / {there[name]['hands']}"
            )
        gaps = [
            abs(x["confidence"] - y["confidence"])
            for x, y in zip(
                sorted(here[name]["cards"], key=lambda c: (c["code"], c["box"])),
                sorted(there[name]["cards"], key=lambda c: (c["code"], c["box"])),
                strict=True,
            )
        ]
        if gaps and max(gaps) > CONFIDENCE_GAP:
            problems.append(f"{name}: a confidence differs by {max(gaps):.3f}")
        print(
            f"{name}: {sum(a.values())} cards, the same there (largest confidence gap "
            f"{max(gaps, default=0.0):.4f}; {here[name]['ms']:.0f} ms here, {there[name]['ms']:.0f} ms there)"
        )
    if not here:
        problems.append("no photo was read")
    return problems


def doctor(report_file: str) -> list[str]:
    """The doctor's JSON: it ran, and its camera check is a problem that says no camera was found."""
    report = json.loads(Path(report_file).read_text(encoding="utf-8"))
    checks = {c["name"]: c for c in report["checks"]}
    for check in report["checks"]:
        print(f"{check['name']}: {check['status']}: {check['summary']}")
    camera = checks.get("camera")
    if camera is None:
        return ["the doctor has no camera check"]
    problems = []
    if camera["status"] == "ok":
        problems.append(f"the doctor found a camera where there is none: {camera['summary']}")
    if "no camera" not in camera["summary"].lower():
        problems.append(f"the camera check does not say plainly that there is no camera: {camera['summary']}")
    if not camera.get("fix", "").strip():
        problems.append("the camera check says nothing about what to do")
    if report.get("ok") is not False:
        problems.append("the doctor reports all well without a camera")
    return problems


def kiosk(here_file: str, there_file: str) -> list[str]:
    """The KIOSK lines of ui/devtools/kiosk_shot.py: both on the home screen, showing the same words."""
    here = json.loads(Path(here_file).read_text(encoding="utf-8").removeprefix("KIOSK "))
    there = json.loads(Path(there_file).read_text(encoding="utf-8").removeprefix("KIOSK "))
    if "error" in there:
        return [f"the kiosk there: {there['error']}"]
    problems = []
    if there.get("screen") != "home":
        problems.append(
            f"the kiosk there shows the {there.get('screen')!r} screen, not home: {there.get('words')}"
        )
    if there.get("words") != here.get("words"):
        problems.append(f"other words there: {there.get('words')} / here: {here.get('words')}")
    if there.get("size") != here.get("size"):
        problems.append(f"another window size there: {there.get('size')} / here {here.get('size')}")
    print(f"kiosk there: {there.get('screen')} screen after {there.get('seconds')} s: {there.get('words')}")
    return problems


def security(output_file: str, limit: str) -> list[str]:
    """``systemd-analyze security``'s overall exposure, at most ``limit``."""
    text = Path(output_file).read_text(encoding="utf-8")
    match = re.search(r"Overall exposure level for \S+: (\d+(?:\.\d+)?)", text)
    if match is None:
        return ["no overall exposure level in systemd-analyze security's output"]
    print(f"exposure {match.group(1)} (at most {limit})")
    return [] if float(match.group(1)) <= float(limit) else [f"exposure {match.group(1)} is over {limit}"]


def main(argv: list[str]) -> int:
    judges: dict[str, Callable[..., list[str]]] = {
        "detect": detect,
        "doctor": doctor,
        "kiosk": kiosk,
        "security": security,
    }
    if not argv or argv[0] not in judges:
        print(__doc__, file=sys.stderr)
        return 2
    problems = judges[argv[0]](*argv[1:])
    for problem in problems:
        print(f"pi-check: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
