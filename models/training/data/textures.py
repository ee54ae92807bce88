"""Procedural table surfaces, clutter and camera/light effects for the synthetic photos (numpy + OpenCV)."""

from __future__ import annotations

import cv2
import numpy as np

Rng = np.random.Generator

SURFACES = ("felt", "wood", "cloth", "plain", "carpet", "pattern")

_FELT = [(40, 110, 35), (30, 80, 40), (120, 40, 30), (30, 60, 120), (60, 60, 60), (90, 50, 100), (20, 20, 25)]
_PLAIN = [
    (200, 200, 200),
    (150, 150, 155),
    (175, 160, 165),
    (225, 215, 195),
    (120, 110, 100),
    (235, 235, 232),
    (60, 60, 65),
    (170, 180, 190),
]


def low_noise(rng: Rng, h: int, w: int, cell: int) -> np.ndarray:
    """Smooth noise in [0, 1], varying over about ``cell`` pixels."""
    small = rng.random((max(2, h // cell + 2), max(2, w // cell + 2)), dtype=np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def _rgb(color: tuple[int, int, int]) -> np.ndarray:
    """Colours above are written RGB; images are BGR."""
    return np.array(color[::-1], np.float32)


def _jitter_color(rng: Rng, color: tuple[int, int, int], amount: float = 25) -> np.ndarray:
    return (_rgb(color) + rng.normal(0, amount, 3)).clip(0, 255).astype(np.float32)


def surface(rng: Rng, h: int, w: int, kind: str | None = None) -> np.ndarray:
    """A table surface (BGR uint8) of one of :data:`SURFACES`."""
    kind = kind or str(rng.choice(SURFACES, p=[0.22, 0.24, 0.16, 0.2, 0.1, 0.08]))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "felt":
        base = _jitter_color(rng, _FELT[rng.integers(len(_FELT))])
        img = base * (0.85 + 0.3 * low_noise(rng, h, w, 120))[..., None]
        img += rng.normal(0, rng.uniform(3, 9), (h, w, 1)).astype(np.float32)
    elif kind == "wood":
        dark = _jitter_color(rng, (90, 55, 30), 20) * rng.uniform(0.5, 1.3)
        light = _jitter_color(rng, (170, 120, 70), 25) * rng.uniform(0.7, 1.2)
        a = rng.uniform(0, np.pi)
        t = xx * np.cos(a) + yy * np.sin(a)
        warp = low_noise(rng, h, w, 80) * rng.uniform(20, 90)
        rings = 0.5 + 0.5 * np.sin((t + warp) * rng.uniform(0.03, 0.15))
        grain = low_noise(rng, h, w, 6)
        f = (0.7 * rings + 0.3 * grain)[..., None]
        img = dark * (1 - f) + light * f
        if rng.random() < 0.4:  # planks
            pw = rng.uniform(60, 200)
            seam = (np.abs((xx * np.sin(a) - yy * np.cos(a)) % pw) < 2)[..., None]
            img = np.where(seam, img * 0.55, img)
    elif kind == "cloth":
        c1 = _jitter_color(rng, _PLAIN[rng.integers(len(_PLAIN))], 40)
        style = rng.integers(3)
        if style == 0:  # gingham / checks
            c2 = _jitter_color(rng, (rng.integers(256), rng.integers(256), rng.integers(256)), 10)
            s = rng.uniform(12, 60)
            m = (((xx // s) + (yy // s)) % 2)[..., None]
            img = c1 * (1 - m) + (0.5 * c1 + 0.5 * c2) * m
        elif style == 1:  # stripes
            c2 = _jitter_color(rng, (rng.integers(256), rng.integers(256), rng.integers(256)), 10)
            s = rng.uniform(8, 50)
            m = ((xx if rng.random() < 0.5 else yy) // s % 2)[..., None]
            img = c1 * (1 - m) + c2 * m
        else:  # plain weave
            img = np.broadcast_to(c1, (h, w, 3)).copy()
        f = rng.uniform(0.8, 2.5)
        weave = (np.sin(xx * f) * np.sin(yy * f))[..., None]
        img = img * (1 + 0.06 * weave) * (0.9 + 0.2 * low_noise(rng, h, w, 150))[..., None]
    elif kind == "plain":
        base = _jitter_color(rng, _PLAIN[rng.integers(len(_PLAIN))], 20)
        gx, gy = rng.normal(0, 0.25, 2)
        grad = 1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)
        img = base * grad[..., None]
        img += rng.normal(0, rng.uniform(1, 5), (h, w, 1)).astype(np.float32)
    elif kind == "carpet":
        cell = int(rng.integers(2, 5))
        palette = np.stack([_jitter_color(rng, (150, 130, 100), 50) for _ in range(4)])
        idx = rng.integers(0, 4, (h // cell + 1, w // cell + 1))
        img = cv2.resize(palette[idx], (w, h), interpolation=cv2.INTER_NEAREST)[:h, :w]
        img = cv2.GaussianBlur(img, (3, 3), 0.8)
    else:  # "pattern": random shapes, like a printed tablecloth or a play mat
        img = np.broadcast_to(_jitter_color(rng, _PLAIN[rng.integers(len(_PLAIN))], 50), (h, w, 3)).copy()
        for _ in range(int(rng.integers(15, 80))):
            col = tuple(float(c) for c in rng.integers(0, 256, 3))
            cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
            r = int(rng.integers(5, max(6, w // 10)))
            if rng.random() < 0.5:
                cv2.circle(img, (cx, cy), r, col, -1, cv2.LINE_AA)
            else:
                cv2.rectangle(img, (cx, cy), (cx + r, cy + int(r * rng.uniform(0.3, 2))), col, -1)
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 2))
    return np.clip(img, 0, 255).astype(np.uint8)


def draw_clutter(rng: Rng, img: np.ndarray, mask: np.ndarray, label: int) -> None:
    """Draw one piece of clutter (coin, pen, note, phone, chip, die) into ``img``; mark it in ``mask``."""
    h, w = img.shape[:2]
    kind = int(rng.integers(6))
    cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
    size = rng.uniform(0.04, 0.14) * min(h, w)
    layer = np.zeros((h, w), np.uint8)
    col = tuple(float(c) for c in rng.integers(0, 256, 3))
    if kind == 0:  # coin or chip
        r = int(size * 0.5)
        cv2.circle(layer, (cx, cy), r, 255, -1, cv2.LINE_AA)
        metal = tuple(float(c) for c in (rng.uniform(60, 200) * np.array([0.7, 0.85, 1.0])))
        cv2.circle(img, (cx, cy), r, metal if rng.random() < 0.6 else col, -1, cv2.LINE_AA)
        cv2.circle(img, (cx, cy), max(1, int(r * 0.75)), tuple(c * 0.8 for c in metal), 1, cv2.LINE_AA)
    elif kind == 1:  # pen or pencil
        a = rng.uniform(0, np.pi)
        length = size * rng.uniform(2.5, 5)
        dx, dy = np.cos(a) * length / 2, np.sin(a) * length / 2
        p1, p2 = (int(cx - dx), int(cy - dy)), (int(cx + dx), int(cy + dy))
        t = max(2, int(size * 0.12))
        cv2.line(layer, p1, p2, 255, t, cv2.LINE_AA)
        cv2.line(img, p1, p2, col, t, cv2.LINE_AA)
    elif kind == 2:  # a note or score sheet with writing
        rw, rh = size * rng.uniform(1.5, 3), size * rng.uniform(1.5, 3)
        box = cv2.boxPoints(((cx, cy), (rw, rh), rng.uniform(0, 180))).astype(np.int32)
        cv2.fillConvexPoly(layer, box, 255, cv2.LINE_AA)
        paper = tuple(float(c) for c in rng.uniform(200, 250) * np.array([1.0, 1.0, rng.uniform(0.85, 1.0)]))
        cv2.fillConvexPoly(img, box, paper, cv2.LINE_AA)
        ink = (float(rng.integers(0, 80)), float(rng.integers(0, 80)), float(rng.integers(0, 200)))
        x0, y0 = box.min(axis=0)
        for i in range(int(rng.integers(1, 5))):
            text = "".join(rng.choice(list("0123456789 +-=AKQJ7Sep")) for _ in range(int(rng.integers(2, 7))))
            org = (int(x0 + 4), int(y0 + (i + 1) * size * 0.4))
            cv2.putText(img, text, org, int(rng.integers(0, 8)), size / 60, ink, 1, cv2.LINE_AA)
    elif kind == 3:  # phone
        rw, rh = size * 1.1, size * 2.2
        box = cv2.boxPoints(((cx, cy), (rw, rh), rng.uniform(0, 180))).astype(np.int32)
        cv2.fillConvexPoly(layer, box, 255, cv2.LINE_AA)
        cv2.fillConvexPoly(img, box, (20.0, 20.0, 25.0), cv2.LINE_AA)
    elif kind == 4:  # die
        s = size * 0.5
        box = cv2.boxPoints(((cx, cy), (s, s), rng.uniform(0, 90))).astype(np.int32)
        cv2.fillConvexPoly(layer, box, 255, cv2.LINE_AA)
        cv2.fillConvexPoly(img, box, (235.0, 235.0, 235.0) if rng.random() < 0.6 else col, cv2.LINE_AA)
        for _ in range(int(rng.integers(1, 7))):
            p = (int(cx + rng.uniform(-s / 3, s / 3)), int(cy + rng.uniform(-s / 3, s / 3)))
            cv2.circle(img, p, max(1, int(s / 10)), (10.0, 10.0, 10.0), -1, cv2.LINE_AA)
    else:  # a glass or cup seen from above
        r = int(size * 0.7)
        cv2.circle(layer, (cx, cy), r, 255, -1, cv2.LINE_AA)
        cv2.circle(img, (cx, cy), r, col, -1, cv2.LINE_AA)
        cv2.circle(img, (cx, cy), int(r * 0.8), tuple(c * 0.6 for c in col), -1, cv2.LINE_AA)
    mask[layer > 127] = label


def _apply_shadow(rng: Rng, img: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    pts = rng.uniform([-0.2 * w, -0.2 * h], [1.2 * w, 1.2 * h], (int(rng.integers(3, 7)), 2)).astype(np.int32)
    m = np.zeros((h, w), np.float32)
    cv2.fillPoly(m, [cv2.convexHull(pts)], 1.0)
    m = cv2.GaussianBlur(m, (0, 0), rng.uniform(4, 40))
    return img * (1 - rng.uniform(0.25, 0.6) * m)[..., None]


def camera(
    rng: Rng, img: np.ndarray, strength: float = 1.0, record: dict[str, float] | None = None
) -> np.ndarray:
    """Light and camera effects: uneven light, shadows, glare, colour cast, blur, noise, low resolution.

    ``record``, when given, receives what degraded the photo (the draws are the same either way):
    ``lowres`` (the scale it was shrunk to and back, 1 for none), ``blur`` (a Gaussian's sigma, 0 for none),
    ``motion`` (a motion blur's length in pixels, 0 for none) and ``noise`` (the noise's sigma).
    """
    h, w = img.shape[:2]
    out = img.astype(np.float32)
    xx = (np.arange(w, dtype=np.float32) / w - 0.5)[None, :]
    yy = (np.arange(h, dtype=np.float32) / h - 0.5)[:, None]
    # uneven light: a smooth gain field and a linear falloff
    gain = 1 + strength * rng.uniform(0, 0.5) * (low_noise(rng, h, w, max(h, w) // 3) - 0.5)
    gain += strength * rng.normal(0, 0.15) * xx + strength * rng.normal(0, 0.15) * yy
    if rng.random() < 0.25 * strength:  # glare: a bright soft spot
        cx, cy = rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5)
        r = rng.uniform(0.05, 0.3)
        blob = np.exp(-((xx - cx) ** 2 * (w / h) ** 2 + (yy - cy) ** 2) / (2 * r * r))
        glare = (rng.uniform(60, 200) * blob)[..., None]
    else:
        glare = None
    cast = (
        rng.normal(1, 0.07 * strength, 3).astype(np.float32) if rng.random() < 0.7 else np.ones(3, np.float32)
    )
    exposure = rng.uniform(0.75, 1.2)
    out *= gain[..., None] * (cast * exposure)
    out += rng.uniform(-20, 20)
    if glare is not None:
        out += glare
    if rng.random() < 0.35 * strength:
        out = _apply_shadow(rng, out)
    gamma = rng.uniform(0.75, 1.35)
    lut = (255 * (np.arange(256) / 255) ** gamma).clip(0, 255).astype(np.uint8)
    out8 = cv2.LUT(np.clip(out, 0, 255).astype(np.uint8), lut)
    lowres, blur, motion = 1.0, 0.0, 0
    if rng.random() < 0.25 * strength:  # a cheap camera: lose resolution
        f = lowres = rng.uniform(0.45, 0.85)
        small = cv2.resize(out8, (max(8, int(w * f)), max(8, int(h * f))), interpolation=cv2.INTER_AREA)
        out8 = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    r = rng.random()
    if r < 0.35 * strength:
        blur = rng.uniform(0.4, 1.4)
        out8 = cv2.GaussianBlur(out8, (0, 0), blur)
    elif r < 0.45 * strength:  # motion blur
        k = motion = int(rng.integers(3, 7))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        kernel = cv2.warpAffine(kernel, rot, (k, k))
        out8 = cv2.filter2D(out8, -1, kernel / max(kernel.sum(), 1e-6))
    sigma = rng.uniform(0, 9) * strength
    if record is not None:
        record.update(lowres=round(lowres, 3), blur=round(blur, 3), motion=motion, noise=round(sigma, 2))
    if sigma > 0.5:
        noise = rng.standard_normal((h, w, 3), dtype=np.float32) * sigma
        out8 = np.clip(out8.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    return out8


def random_perspective(rng: Rng, w: int, h: int, amount: float) -> np.ndarray:
    """A homography that tilts the camera a little: each image corner moves up to ``amount`` of the size."""
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = src + rng.uniform(-amount, amount, (4, 2)).astype(np.float32) * np.float32([w, h])
    return cv2.getPerspectiveTransform(src, dst).astype(np.float64)


# Skin tones (RGB), light to dark; each hand jitters its tone.
_SKIN = [
    (243, 208, 180),
    (232, 190, 150),
    (214, 165, 120),
    (190, 136, 95),
    (160, 110, 72),
    (120, 80, 52),
    (88, 58, 40),
]


def draw_hand(rng: Rng, img: np.ndarray, mask: np.ndarray, label: int, card_h: float) -> None:
    """A player's hand reaching in from an edge of the frame, over the cards; mark it in ``mask``.

    Sized from ``card_h`` (a card's height in pixels): the palm about a card high, fingers about 0.2 of a
    card wide. Some fingers are curled (short), the thumb is on either side, and the hand casts a soft
    shadow on the table and cards (the shadow hides nothing; the hand does).
    """
    h, w = img.shape[:2]
    edge = int(rng.integers(4))
    t = rng.uniform(0.1, 0.9)
    entry = [(t * w, 0.0), (w - 1.0, t * h), (t * w, h - 1.0), (0.0, t * h)][edge]
    inward = [np.pi / 2, np.pi, -np.pi / 2, 0.0][edge] + rng.uniform(-0.6, 0.6)
    d = np.array([np.cos(inward), np.sin(inward)])
    side = np.array([-d[1], d[0]])
    palm_w = rng.uniform(0.8, 1.05) * card_h
    finger_len = rng.uniform(0.5, 0.8) * card_h
    finger_w = rng.uniform(0.17, 0.23) * card_h
    knuckles = np.array(entry) + d * rng.uniform(0.1, 1.2) * card_h  # how far the palm reaches in
    wrist = np.array(entry) - d * card_h  # outside the frame
    layer = np.zeros((h, w), np.uint8)

    def capsule(a: np.ndarray, b: np.ndarray, width: float) -> None:
        pa, pb = tuple(int(round(v)) for v in a), tuple(int(round(v)) for v in b)
        cv2.line(layer, pa, pb, 255, max(2, int(round(width))), cv2.LINE_AA)

    capsule(wrist, knuckles - d * palm_w * 0.2, palm_w)
    tips = []
    spread = rng.uniform(0.0, 0.12)
    for i, rel in enumerate((0.85, 1.0, 0.92, 0.72)):  # index, middle, ring, little finger
        off = (i - 1.5) / 1.5 * (palm_w - finger_w) / 2
        ang = inward + (i - 1.5) * spread + rng.normal(0, 0.04)
        fd = np.array([np.cos(ang), np.sin(ang)])
        length = finger_len * rel * (rng.uniform(0.25, 0.5) if rng.random() < 0.25 else 1.0)
        base = knuckles + side * off - d * finger_w * 0.5
        tip = base + fd * length
        capsule(base, tip, finger_w * (0.85 if i == 3 else 1.0))
        tips.append((tip, fd))
    thumb_side = 1.0 if rng.random() < 0.5 else -1.0
    thumb_base = knuckles - d * palm_w * 0.55 + side * thumb_side * palm_w * 0.4
    thumb_ang = inward + thumb_side * rng.uniform(0.5, 1.1)
    thumb_tip = thumb_base + np.array([np.cos(thumb_ang), np.sin(thumb_ang)]) * finger_len * rng.uniform(
        0.55, 0.8
    )
    capsule(thumb_base, thumb_tip, finger_w * 1.15)
    if not layer.any():
        return
    # soft shadow of the hand held above the table
    off = rng.uniform(0.08, 0.3, 2) * card_h * rng.choice([-1, 1], 2)
    shifted = cv2.warpAffine(layer, np.float32([[1, 0, off[0]], [0, 1, off[1]]]), (w, h))
    shadow = cv2.GaussianBlur(shifted.astype(np.float32) / 255, (0, 0), max(1.0, 0.08 * card_h))
    img[:] = (
        (img.astype(np.float32) * (1 - rng.uniform(0.3, 0.55) * shadow[..., None]))
        .clip(0, 255)
        .astype(np.uint8)
    )
    # skin: one tone, lit from above (brighter along the middle of each finger), a little mottled
    tone = _jitter_color(rng, _SKIN[int(rng.integers(len(_SKIN)))], 12)
    inside = cv2.distanceTransform((layer > 127).astype(np.uint8), cv2.DIST_L2, 3)
    relief = np.clip(inside / max(1.0, finger_w * 0.5), 0, 1) ** 0.5
    shade = (0.72 + 0.33 * relief) * (0.94 + 0.12 * low_noise(rng, h, w, max(4, int(finger_w))))
    skin = tone[None, None, :] * shade[..., None]
    nails = np.zeros((h, w), np.uint8)  # a paler rounded patch at most finger tips
    for tip, fd in tips:
        if rng.random() < 0.7:
            c = tuple(int(v) for v in tip - fd * finger_w * 0.45)
            axes = (max(1, int(finger_w * 0.3)), max(1, int(finger_w * 0.22)))
            angle = float(np.degrees(np.arctan2(fd[1], fd[0])))
            cv2.ellipse(nails, c, axes, angle, 0, 360, 255, -1)
    k = (nails > 0)[..., None] * 0.35
    skin = skin * (1 - k) + np.float32([235, 225, 235]) * k
    alpha = cv2.GaussianBlur(layer.astype(np.float32) / 255, (0, 0), 0.7)[..., None]
    img[:] = (img.astype(np.float32) * (1 - alpha) + skin * alpha).clip(0, 255).astype(np.uint8)
    mask[layer > 127] = label
