"""Colour measures for the kiosk's design checks: WCAG contrast, and how far apart two colours stay for a
viewer with deuteranopia.

- :func:`contrast`: the WCAG 2 contrast ratio of two sRGB colours (4.5:1 is AA for text).
- :func:`deuteranopia`: an sRGB colour as a deuteranope sees it, by the Machado, Oliveira and Fernandes
  (2009) simulation at severity 1.0, applied to linear RGB.
- :func:`ciede2000`: the CIEDE2000 colour difference of two sRGB colours (CIELAB, D65).
- :func:`deutan_distance`: CIEDE2000 between two colours after both are simulated for deuteranopia, the
  measure the players' colours are held to (``ui/README.md``, Design).

Colours are RGB(A) tuples of floats 0-1, as Kivy takes them; alpha is ignored.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Colour = Sequence[float]

# Machado et al. 2009, deuteranomaly at severity 1.0 (deuteranopia), on linear RGB.
MACHADO_DEUTERANOPIA = (
    (0.367322, 0.860646, -0.227968),
    (0.280085, 0.672501, 0.047413),
    (-0.011820, 0.042940, 0.968881),
)


def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _encoded(c: float) -> float:
    c = min(1.0, max(0.0, c))
    return 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


def luminance(colour: Colour) -> float:
    """WCAG relative luminance of an sRGB colour."""
    r, g, b = (_linear(float(c)) for c in colour[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: Colour, b: Colour) -> float:
    """The WCAG 2 contrast ratio of two colours, 1 to 21."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def blend(fg: Colour, bg: Colour) -> tuple[float, float, float]:
    """``fg`` with its alpha laid over an opaque ``bg``."""
    alpha = float(fg[3]) if len(fg) > 3 else 1.0
    return tuple(float(f) * alpha + float(g) * (1 - alpha) for f, g in zip(fg[:3], bg[:3], strict=True))  # type: ignore[return-value]


def deuteranopia(colour: Colour) -> tuple[float, float, float]:
    """The colour as a deuteranope sees it (Machado 2009, severity 1.0)."""
    lin = [_linear(float(c)) for c in colour[:3]]
    out = [sum(m * v for m, v in zip(row, lin, strict=True)) for row in MACHADO_DEUTERANOPIA]
    return (_encoded(out[0]), _encoded(out[1]), _encoded(out[2]))


def lab(colour: Colour) -> tuple[float, float, float]:
    """CIELAB (D65) of an sRGB colour."""
    r, g, b = (_linear(float(c)) for c in colour[:3])
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def ciede2000(a: Colour, b: Colour) -> float:
    """The CIEDE2000 difference of two sRGB colours (kL = kC = kH = 1)."""
    l1, a1, b1 = lab(a)
    l2, a2, b2 = lab(b)
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    c_bar7 = ((c1 + c2) / 2) ** 7
    g = 0.5 * (1 - math.sqrt(c_bar7 / (c_bar7 + 25**7)))
    a1p, a2p = a1 * (1 + g), a2 * (1 + g)
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl = l2 - l1
    dc = c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    elif abs(h2p - h1p) <= 180:
        dh = h2p - h1p
    else:
        dh = h2p - h1p - 360 if h2p > h1p else h2p - h1p + 360
    dhh = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar = (l1 + l2) / 2
    c_bar = (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_bar - 30))
        + 0.24 * math.cos(math.radians(2 * h_bar))
        + 0.32 * math.cos(math.radians(3 * h_bar + 6))
        - 0.20 * math.cos(math.radians(4 * h_bar - 63))
    )
    d_theta = 30 * math.exp(-(((h_bar - 275) / 25) ** 2))
    rc = 2 * math.sqrt(c_bar**7 / (c_bar**7 + 25**7))
    sl = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    sc = 1 + 0.045 * c_bar
    sh = 1 + 0.015 * c_bar * t
    rt = -math.sin(math.radians(2 * d_theta)) * rc
    return math.sqrt((dl / sl) ** 2 + (dc / sc) ** 2 + (dhh / sh) ** 2 + rt * (dc / sc) * (dhh / sh))


def deutan_distance(a: Colour, b: Colour) -> float:
    """CIEDE2000 between ``a`` and ``b`` as a deuteranope sees them."""
    return ciede2000(deuteranopia(a), deuteranopia(b))


def closest_pair(colours: Sequence[Colour]) -> tuple[float, int, int]:
    """The smallest deuteranopia distance between any two of ``colours``, and which two."""
    best = (math.inf, -1, -1)
    for i in range(len(colours)):
        for j in range(i + 1, len(colours)):
            best = min(best, (deutan_distance(colours[i], colours[j]), i, j))
    return best
