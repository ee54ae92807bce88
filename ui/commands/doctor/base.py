"""What every check of the doctor reports: a :class:`Check`, its :class:`Status` and :class:`CheckName`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

MB = 1024 * 1024


class Status(Enum):
    OK = "ok"
    WARN = "warning"
    FAIL = "problem"


class CheckName(Enum):
    CAMERA = "camera"
    MODEL = "model"
    DISPLAY = "display"
    DATABASE = "database"
    DISK = "disk"
    SHARING = "sharing"  # only reported when "Scores on phones" is switched on
    RUNTIME = "runtime"  # which runtime installed reads the model fastest on this device
    PLACEMENT = "placement"  # the camera's height, from one photo (--photo, or the kiosk's camera)


@dataclass(frozen=True)
class Check:
    """The outcome of one check: a status, one sentence, how to fix it, and measured facts."""

    name: CheckName
    status: Status
    summary: str
    fix: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.summary.strip():
            raise ValueError(f"check {self.name.value} needs a summary")
        if self.status is not Status.OK and not self.fix.strip():
            raise ValueError(f"check {self.name.value} is {self.status.value} but says nothing about a fix")

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name.value,
            "status": self.status.value,
            "summary": self.summary,
            "fix": self.fix,
            "details": dict(self.details),
        }
