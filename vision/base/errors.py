"""The errors vision raises on purpose, all under :class:`VisionError`.

A caller that shows a person what went wrong catches the one it can act on: :class:`CameraError` (retry,
check the cable), :class:`ImageError` (take or choose another photo), :class:`ModelError` (the model files
are missing or broken). :class:`InvalidValueError` is a programming or settings mistake (a box with
x2 < x1, a confidence over 1, ``rotations=3``); it is also a ``ValueError``, so code that caught the
bare ``ValueError`` vision raised before keeps working.
"""

from __future__ import annotations

__all__ = ["CameraError", "ImageError", "InvalidValueError", "ModelError", "VisionError"]


class VisionError(Exception):
    """Base class of every error the vision runtime raises on purpose."""


class CameraError(VisionError):
    """A camera could not be opened, or stopped delivering pictures. Callers may retry."""


class ModelError(VisionError):
    """The detection model is missing, corrupt or does not match what the runtime expects."""


class ImageError(VisionError):
    """A photo is missing, unreadable, empty or blank."""


class InvalidValueError(VisionError, ValueError):
    """A value vision was given is out of its range or of the wrong kind; the message names it."""
