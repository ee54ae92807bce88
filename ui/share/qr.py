"""The page's address as a QR code (segno), a PNG the kiosk shows so a phone's camera opens the page."""

from __future__ import annotations

import io

import segno


def qr_png(url: str, scale: int = 8, dark: str = "#000000", light: str = "#ffffff") -> bytes:
    """A PNG of ``url`` as a QR code (error correction M, the standard 4-module quiet zone)."""
    code = segno.make(url, error="m", micro=False)
    out = io.BytesIO()
    code.save(out, kind="png", scale=scale, border=4, dark=dark, light=light)
    return out.getvalue()
