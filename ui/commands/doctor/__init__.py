"""Check that this machine can run the TableTally kiosk, and say in plain words what to fix.

Five checks: the camera (is one connected and found by libcamera?), the card model (is the file there,
does ONNX Runtime load it, does it read the three known cards of the bundled test photo, and how long does
a photo take?), the display (a desktop session, or a screen on the KMS/DRM driver, and a touch panel), the
database (does it open, pass SQLite's integrity check, accept writes?) and the free disk space. Then, when
they apply: the phones' scoreboard, the faster runtime on this device, and the camera's placement (from one
photo, ``--photo PATH`` or one taken with the kiosk's camera: the corners' size and whether to lower or
raise the camera, vision.table.placement).

On an installed Pi the settings come from /etc/tabletally/kiosk.env (written by deploy/install.sh), so the
doctor looks at the same data directory and display the kiosk uses. Stop the kiosk first (sudo systemctl
stop tabletally-kiosk) if you want the camera check to open the camera: only one program can use it.

Exit status: 0 when nothing is wrong (warnings allowed), 1 when some check found a problem.
With --json one object is printed: {"ok": bool, "checks": [{"name", "status", "summary", "fix", "details"}]}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ui.commands.doctor.base import MB, Check, CheckName, Status
from ui.commands.doctor.camera import CAMERA_FIX, camera_photo, check_camera
from ui.commands.doctor.database import check_database
from ui.commands.doctor.disk import DISK_FAIL_MB, DISK_WARN_MB, check_disk
from ui.commands.doctor.display import NO_SCREEN_FIX, check_display
from ui.commands.doctor.model import (
    MODEL_MISSING_FIX,
    SLOW_PHOTO_MS,
    TEST_PHOTO,
    PipelineReader,
    ReferencePhoto,
    bundled_test_photos,
    check_model,
    default_model_path,
    load_reader,
)
from ui.commands.doctor.placement import check_placement
from ui.commands.doctor.probes import Probes, real_probes
from ui.commands.doctor.runtime import check_runtime
from ui.commands.doctor.settings import (
    DB_NAME,
    ENV_FILE,
    SERVICE,
    kiosk_environment,
    read_env_file,
    record_settings,
    resolve_data_dir,
)
from ui.commands.doctor.sharing import SHARE_DEFAULT_PORT, SHARE_DROP_IN, check_sharing

__all__ = [
    "CAMERA_FIX",
    "DB_NAME",
    "DISK_FAIL_MB",
    "DISK_WARN_MB",
    "ENV_FILE",
    "MB",
    "MODEL_MISSING_FIX",
    "NO_SCREEN_FIX",
    "SERVICE",
    "SHARE_DEFAULT_PORT",
    "SHARE_DROP_IN",
    "SLOW_PHOTO_MS",
    "TEST_PHOTO",
    "Check",
    "CheckName",
    "PipelineReader",
    "Probes",
    "ReferencePhoto",
    "Status",
    "add_arguments",
    "bundled_test_photos",
    "camera_photo",
    "check_camera",
    "check_database",
    "check_disk",
    "check_display",
    "check_model",
    "check_placement",
    "check_runtime",
    "check_sharing",
    "default_model_path",
    "format_report",
    "kiosk_environment",
    "load_reader",
    "read_env_file",
    "real_probes",
    "resolve_data_dir",
    "run",
    "run_checks",
]


def run_checks(
    probes: Probes,
    env: Mapping[str, str],
    data_dir: Path,
    model_path: Path,
    skip: frozenset[CheckName] = frozenset(),
    photo: Path | None = None,
) -> list[Check]:
    """Every check not in ``skip``, in the order camera, model, display, database, disk (then sharing,
    runtime, placement). ``photo``: judge the camera's place by this photo, not by one from the camera."""
    checks: list[Check] = []
    if CheckName.CAMERA not in skip:
        checks.append(check_camera(probes.list_cameras, probes.kiosk_running()))
    if CheckName.MODEL not in skip:
        checks.append(
            check_model(
                model_path, probes.load_detector, probes.test_photos(), probes.read_image, probes.blank_image
            )
        )
    if CheckName.DISPLAY not in skip:
        checks.append(check_display(env, probes.drm_root, probes.input_root, probes.dev_root, probes.x11_dir))
    if CheckName.DATABASE not in skip:
        checks.append(check_database(data_dir, probes.disk_usage))
    if CheckName.DISK not in skip:
        checks.append(check_disk(data_dir, probes.disk_usage))
    if CheckName.SHARING not in skip:
        installed = (probes.share_drop_in.parent.parent / SERVICE).exists()  # the kiosk's unit, installed
        sharing = check_sharing(data_dir, env, probes.lan_addresses, probes.share_drop_in, installed)
        if sharing is not None:
            checks.append(sharing)
    if CheckName.RUNTIME not in skip and probes.time_runtimes is not None:
        checks.append(check_runtime(probes.time_runtimes, env))
    if CheckName.PLACEMENT not in skip and (photo is not None or probes.placement_photo is not None):
        take: Callable[[], tuple[Any, str, str | None] | None]
        if photo is not None:
            take = lambda: (probes.read_image(photo), photo.name, None)  # noqa: E731
        else:
            spec = record_settings(data_dir).get("camera") or "auto"
            take = lambda: probes.placement_photo(spec)  # type: ignore[misc]  # noqa: E731
        placement = check_placement(take, probes.load_detector, model_path)
        if placement is not None:
            checks.append(placement)
    return checks


def format_report(checks: Sequence[Check], width: int = 100) -> str:
    labels = {Status.OK: "ok", Status.WARN: "warning", Status.FAIL: "PROBLEM"}
    lines = ["TableTally doctor"]
    indent = " " * 21
    for check in checks:
        head = f"  {labels[check.status]:<8} {check.name.value:<9} "
        lines.append(textwrap.fill(check.summary, width, initial_indent=head, subsequent_indent=indent))
        if check.fix:
            fix = "fix: " + check.fix
            lines.append(textwrap.fill(fix, width, initial_indent=indent, subsequent_indent=indent))
    problems = sum(c.status is Status.FAIL for c in checks)
    warnings = sum(c.status is Status.WARN for c in checks)
    if problems:
        lines.append(
            f"{problems} problem(s), {warnings} warning(s): "
            "fix the problems above, then run tabletally doctor again."
        )
    elif warnings:
        lines.append(f"No problems; {warnings} warning(s) above. The kiosk can run.")
    else:
        lines.append("Everything the kiosk needs is in place.")
    return "\n".join(lines) + "\n"


def _check_name(text: str) -> CheckName:
    try:
        return CheckName(text)
    except ValueError:
        names = ", ".join(n.value for n in CheckName)
        raise argparse.ArgumentTypeError(f"unknown check {text!r}; the checks are {names}") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--data-dir", type=Path, help="data directory (default: the kiosk's, see above)")
    parser.add_argument(
        "--model",
        type=Path,
        help="model file (default: the kiosk's: $TABLETALLY_MODEL, else models/cards.onnx in the package)",
    )
    parser.add_argument(
        "--env-file", type=Path, default=ENV_FILE, help=f"the installed kiosk's settings (default {ENV_FILE})"
    )
    parser.add_argument(
        "--skip",
        type=_check_name,
        action="append",
        default=[],
        metavar="CHECK",
        help="leave out a check: camera, model, display, database or disk (repeatable)",
    )
    parser.add_argument(
        "--photo",
        type=Path,
        help="judge the camera's height by this photo (a card at each seat) instead of one from the camera",
    )


def run(
    args: argparse.Namespace, probes: Probes | None = None, environ: Mapping[str, str] | None = None
) -> int:
    env = kiosk_environment(os.environ if environ is None else environ, args.env_file)
    data_dir = resolve_data_dir(args.data_dir, env)
    try:
        probes = probes or real_probes()
        model_path = args.model.expanduser() if args.model else default_model_path(env)
    except ImportError as exc:
        print(f"tabletally doctor: TableTally's vision libraries do not load: {exc}", file=sys.stderr)
        print(
            "  fix: reinstall (sudo deploy/install.sh) so the venv has OpenCV, ONNX Runtime and numpy",
            file=sys.stderr,
        )
        return 1
    photo = getattr(args, "photo", None)
    checks = run_checks(probes, env, data_dir, model_path, frozenset(args.skip), photo and photo.expanduser())
    ok = all(c.status is not Status.FAIL for c in checks)
    if args.json:
        sys.stdout.write(json.dumps({"ok": ok, "checks": [c.as_dict() for c in checks]}, indent=2) + "\n")
    else:
        sys.stdout.write(format_report(checks))
    return 0 if ok else 1
