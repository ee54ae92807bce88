"""The runtime check: which installed runtime reads the card model fastest on this device, and which one
the kiosk uses."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ui.commands.doctor.base import Check, CheckName, Status
from ui.commands.doctor.model import MODEL_MISSING_FIX


def time_runtimes() -> Mapping[str, float | str]:
    """One model pass on the bundled photos with each runtime on this device, each in a child process of
    its own (vision.runtimes.choice.time_runtimes_apart: the installer's choice times the same way)."""
    from vision.runtimes.choice import time_runtimes_apart

    return time_runtimes_apart()


def check_runtime(time_runtimes: Callable[[], Mapping[str, float | str]], env: Mapping[str, str]) -> Check:
    """Time one pass of the card model with each runtime on this device, and say which the kiosk reads with
    (``$TABLETALLY_RUNTIME``, as the installer chose it, else ONNX Runtime) and why; a warning when the
    choice the installer would make now (vision.runtimes.choice.choose_runtime) is another."""
    from vision.runtimes.choice import AS_GOOD, NAMES, RUNTIME_ENV, choose_runtime

    chosen = (env.get(RUNTIME_ENV) or "onnx").strip().lower()
    times = time_runtimes()
    measured = {k: float(v) for k, v in times.items() if isinstance(v, float | int)}
    details: dict[str, Any] = {f"{k}_ms": round(v, 1) for k, v in measured.items()}
    details.update({f"{k}_error": v for k, v in times.items() if isinstance(v, str)})
    details["kiosk_uses"] = chosen
    if not measured:
        return Check(
            CheckName.RUNTIME, Status.WARN, "no runtime could run the card model", MODEL_MISSING_FIX, details
        )
    best, why = choose_runtime(times)
    details["best_here"] = best
    where = f"set in {RUNTIME_ENV}" if env.get(RUNTIME_ENV) else "the default"
    name = NAMES.get(chosen, chosen)
    if chosen == best or (chosen in measured and measured[chosen] <= AS_GOOD * min(measured.values())):
        return Check(
            CheckName.RUNTIME,
            Status.OK,
            f"the kiosk reads with {name} ({where}); one pass: {why}",
            details=details,
        )
    return Check(
        CheckName.RUNTIME,
        Status.WARN,
        f"the kiosk reads with {name} ({where}), but {NAMES.get(best, best)} is faster here; one pass: {why}",
        "Run the installer again (sudo deploy/install.sh: it times each and writes the fastest into "
        f"/etc/tabletally/kiosk.env), or put {RUNTIME_ENV}={best} in /etc/tabletally/local.env; then restart "
        "the kiosk (sudo systemctl restart tabletally-kiosk).",
        details,
    )
