#!/usr/bin/env python3
"""Deterministic poster set for the OCR study (Regard, out-of-home creatives).

Writes posters/out/pNN.png and posters/out/pNN.json. Ground truth per line:
  box [x0, y0, x1, y1] in px (the line's ink box as rendered), text, case ("caps" when the
  line has no lowercase letter, "mixed" otherwise), cap_px and x_px (the font's cap height and
  x-height at the size used, from the outlines of 'H' and 'x' in the font file, in px), and
  group (lines sharing a group id are set in one font at one size).

Background photo material: EyeCrowd stimuli from /work/shared/datasets (study only, never
copied into any repository), or procedural textures (foliage, food, branches, tiles).
"""
import json
import math
import os
import random
import sys

import numpy as np
from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw, ImageFilter, ImageFont

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out")
PHOTOS = os.environ.get("REGARD_EYECROWD", "../shared/datasets/eyecrowd/stimuli")
F = "/usr/share/fonts/truetype/"
FONTS = {
    "bold": [F + "liberation/LiberationSans-Bold.ttf", F + "dejavu/DejaVuSans-Bold.ttf",
             F + "roboto/unhinted/RobotoTTF/Roboto-Black.ttf", F + "open-sans/OpenSans-ExtraBold.ttf",
             F + "noto/NotoSansDisplay-Bold.ttf", F + "liberation/LiberationSansNarrow-Bold.ttf",
             F + "open-sans/OpenSans-CondBold.ttf"],
    "regular": [F + "liberation/LiberationSans-Regular.ttf", F + "dejavu/DejaVuSans.ttf",
                F + "roboto/unhinted/RobotoTTF/Roboto-Regular.ttf", F + "open-sans/OpenSans-Regular.ttf",
                F + "noto/NotoSans-Regular.ttf"],
    "thin": [F + "roboto/unhinted/RobotoTTF/Roboto-Thin.ttf", F + "roboto/unhinted/RobotoTTF/Roboto-Light.ttf",
             F + "open-sans/OpenSans-Light.ttf", F + "dejavu/DejaVuSans-ExtraLight.ttf"],
    "serif": [F + "liberation/LiberationSerif-Bold.ttf", F + "noto/NotoSerif-Bold.ttf",
              F + "dejavu/DejaVuSerif-Bold.ttf", F + "noto/NotoSerifDisplay-Regular.ttf",
              F + "liberation/LiberationSerif-Regular.ttf"],
}

_metrics = {}


def metrics(path):
    """(cap height, x-height) as fractions of the em, from the glyph outlines of H and x."""
    if path not in _metrics:
        t = TTFont(path)
        upem = t["head"].unitsPerEm
        cmap = t.getBestCmap()
        gs = t.getGlyphSet()
        from fontTools.pens.boundsPen import BoundsPen

        def top(ch):
            pen = BoundsPen(gs)
            gs[cmap[ord(ch)]].draw(pen)
            return pen.bounds[3]

        _metrics[path] = (top("H") / upem, top("x") / upem)
    return _metrics[path]


HEADLINES = [
    "SOLDES D'HIVER", "NOUVEAU", "LE GOÛT DE L'ÉTÉ", "FRAÎCHEUR GARANTIE", "PRIX CASSÉS",
    "ÇA CHANGE TOUT", "100% NATUREL", "OFFRE SPÉCIALE", "L'ÉTÉ À LA PLAGE", "CŒUR FONDANT",
    "BIG SUMMER SALE", "FEEL THE SPEED", "BIENVENUE À BORD", "ÊTRE SOI", "DÉCOUVREZ PARIS",
    "GRANDE RENTRÉE", "FÊTE DES MÈRES", "BLACK FRIDAY", "PÂTISSERIE MAISON", "VOYAGEZ LÉGER",
]
SUBS = [
    "Découvrez notre sélection", "Crème brûlée à la française", "Prêt-à-porter femme et homme",
    "Cœur fondant au chocolat", "Une expérience unique", "Livraison offerte dès 49 €",
    "Fabriqué en France", "Hôtel & Spa au bord du lac", "La qualité à petit prix",
    "Nouvelle collection printemps", "Goûtez la différence", "Réservez dès maintenant",
    "Fresh ideas for your home", "Ouvert 7 jours sur 7", "Été comme hiver, ça roule",
    "Des légumes de saison", "Votre forfait mobile à prix doux", "Élégance et confort",
]
LEGAL = [
    "L'abus d'alcool est dangereux pour la santé, à consommer avec modération.",
    "Pour votre santé, mangez au moins cinq fruits et légumes par jour.",
    "Pour votre santé, pratiquez une activité physique régulière. www.mangerbouger.fr",
    "Offre valable du 2 au 15 mars 2026 dans la limite des stocks disponibles.",
]
PRICES = ["19,90 €", "9,99 €", "2,49 €", "149 €", "29,90 €", "-50%", "4,95 €"]
LOGOS = ["BOULANGA", "Vélocité", "KORALIS", "maisonnette", "Lumière", "NORDIK", "Écrin", "ZAPHO"]
CTA = ["www.soldes-hiver.fr", "En magasin et sur l'appli", "Dès le 12 mars", "Jusqu'au 31 août",
       "Plus d'infos sur regard.fr", "Scannez et gagnez"]

REDS = [(200, 16, 46), (220, 38, 38), (180, 20, 30), (230, 57, 70)]
COLOURS = [(20, 60, 140), (0, 110, 80), (250, 200, 40), (245, 240, 230), (30, 30, 30), (240, 120, 30),
           (90, 40, 120), (255, 255, 255), (200, 225, 240)]


def lum(c):
    return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]


def contrast_ink(bg, rnd):
    if lum(bg) < 140:
        return rnd.choice([(255, 255, 255), (255, 240, 200), (250, 220, 60)])
    return rnd.choice([(15, 15, 15), (20, 40, 90), (150, 10, 20)])


# ---------------------------------------------------------------- backgrounds / textures

def value_noise(rng, w, h, octaves=5, base=8):
    out = np.zeros((h, w), np.float32)
    amp, tot = 1.0, 0.0
    for o in range(octaves):
        n = base * 2 ** o
        g = rng.random((n + 1, n + 1)).astype(np.float32)
        img = Image.fromarray((g * 255).astype(np.uint8)).resize((w, h), Image.BICUBIC)
        out += amp * np.asarray(img, np.float32) / 255
        tot += amp
        amp *= 0.55
    return out / tot


def foliage(rng, w, h):
    n = value_noise(rng, w, h, 6, 6)
    n2 = value_noise(rng, w, h, 4, 40)
    v = np.clip((n * 0.7 + n2 * 0.6 - 0.35) * 1.6, 0, 1)
    r = 30 + 80 * v * n2
    g = 50 + 150 * v
    b = 20 + 50 * v * (1 - n)
    img = np.stack([r, g, b], -1)
    # leaves: many small bright/dark ellipses
    im = Image.fromarray(img.astype(np.uint8))
    d = ImageDraw.Draw(im)
    for _ in range(int(w * h / 900)):
        x, y = rng.integers(0, w), rng.integers(0, h)
        s = rng.integers(4, 16)
        c = tuple(int(v) for v in (rng.integers(20, 120), rng.integers(80, 220), rng.integers(10, 80)))
        d.ellipse([x, y, x + s * 2, y + s], fill=c)
    return im.filter(ImageFilter.GaussianBlur(0.8))


def food(rng, w, h):
    im = Image.new("RGB", (w, h), (235, 225, 205))
    d = ImageDraw.Draw(im)
    for _ in range(int(w * h / 6000)):
        x, y = rng.integers(-50, w), rng.integers(-50, h)
        s = int(rng.integers(20, 140))
        base = [(200, 80, 20), (150, 70, 30), (230, 180, 60), (180, 30, 30), (90, 140, 40), (240, 230, 200)][
            rng.integers(0, 6)]
        for k in range(6):
            f = 1 - k * 0.08
            c = tuple(int(min(255, v * f + 20 * k)) for v in base)
            a, b = x + k * s // 14, y + k * s // 14
            d.ellipse([a, b, max(a, x + s - k * s // 10), max(b, y + int(s * 0.8) - k * s // 10)], fill=c)
        for _ in range(6):  # seeds / crumbs
            sx, sy = x + rng.integers(0, max(1, s)), y + rng.integers(0, max(1, s))
            d.ellipse([sx, sy, sx + 4, sy + 3], fill=(250, 240, 200))
    return im.filter(ImageFilter.GaussianBlur(1.2))


def branches(rng, w, h):
    sky = np.linspace(0, 1, h)[:, None] * np.ones((1, w))
    img = np.stack([150 + 80 * sky, 190 + 50 * sky, 240 - 10 * sky], -1).astype(np.uint8)
    im = Image.fromarray(img)
    d = ImageDraw.Draw(im)

    def grow(x, y, ang, length, width, depth):
        if depth == 0 or width < 1:
            return
        x2, y2 = x + length * math.cos(ang), y + length * math.sin(ang)
        d.line([x, y, x2, y2], fill=(40, 30, 25), width=int(width))
        for _ in range(2 + (depth % 2)):
            grow(x2, y2, ang + rng.uniform(-0.8, 0.8), length * rng.uniform(0.6, 0.8), width * 0.7, depth - 1)

    for _ in range(5):
        grow(rng.uniform(0, w), h, -math.pi / 2 + rng.uniform(-0.4, 0.4), h * 0.25, w / 60, 8)
    # bicycle-like wheels and spokes
    for _ in range(3):
        cx, cy, r = rng.uniform(0, w), rng.uniform(h * 0.4, h), rng.uniform(h * 0.1, h * 0.2)
        d.ellipse([cx - r, cy - r, cx + r, cy + r], outline=(20, 20, 20), width=6)
        for a in range(0, 360, 12):
            d.line([cx, cy, cx + r * math.cos(math.radians(a)), cy + r * math.sin(math.radians(a))],
                   fill=(60, 60, 60), width=2)
    return im


def tiles(rng, w, h):
    im = Image.new("RGB", (w, h), (200, 190, 170))
    d = ImageDraw.Draw(im)
    s = int(rng.integers(18, 40))
    for y in range(0, h, s):
        off = (y // s % 2) * s // 2
        for x in range(-s, w, s * 2):
            c = int(rng.integers(120, 200))
            d.rectangle([x + off, y, x + off + 2 * s - 3, y + s - 3], fill=(c, c - 30, c - 60))
    return im


def photo(rng, w, h):
    names = sorted(os.listdir(PHOTOS))
    p = Image.open(os.path.join(PHOTOS, names[int(rng.integers(0, len(names)))])).convert("RGB")
    # cover-crop
    s = max(w / p.width, h / p.height)
    p = p.resize((max(w, int(p.width * s + 0.5)), max(h, int(p.height * s + 0.5))), Image.BICUBIC)
    x0, y0 = (p.width - w) // 2, (p.height - h) // 2
    return p.crop((x0, y0, x0 + w, y0 + h))


TEXTURES = {"photo": photo, "foliage": foliage, "food": food, "branches": branches, "tiles": tiles}


def gradient(w, h, c1, c2):
    t = np.linspace(0, 1, h)[:, None, None]
    img = np.array(c1)[None, None, :] * (1 - t) + np.array(c2)[None, None, :] * t
    return Image.fromarray(np.broadcast_to(img, (h, w, 3)).astype(np.uint8))


# ---------------------------------------------------------------- text

class Poster:
    def __init__(self, img):
        self.img = img
        self.d = ImageDraw.Draw(img)
        self.lines = []
        self.group = 0

    def text(self, xy, s, font_path, cap_px, fill, anchor="ls", shadow=None, group=None, spacing=0):
        """Draws s with its baseline at xy so that the font's cap height is cap_px; returns the box."""
        capf, xf = metrics(font_path)
        size = cap_px / capf
        font = ImageFont.truetype(font_path, size=max(1, round(size)))
        size = round(size)
        real_cap = capf * size
        x, y = xy
        if spacing:
            # letter-spaced logo: draw char by char
            boxes = []
            for ch in s:
                if shadow:
                    self.d.text((x + 3, y + 3), ch, font=font, fill=shadow, anchor="ls")
                self.d.text((x, y), ch, font=font, fill=fill, anchor="ls")
                b = self.d.textbbox((x, y), ch, font=font, anchor="ls")
                if ch != " ":
                    boxes.append(b)
                x += font.getlength(ch) + spacing
            box = [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
                   max(b[3] for b in boxes)]
        else:
            if shadow:
                self.d.text((x + max(2, size // 40), y + max(2, size // 40)), s, font=font, fill=shadow, anchor=anchor)
            self.d.text((x, y), s, font=font, fill=fill, anchor=anchor)
            box = list(self.d.textbbox((x, y), s, font=font, anchor=anchor))
        if group is None:
            self.group += 1
            group = self.group
        self.lines.append({
            "text": s, "box": [int(v) for v in box],
            "case": "mixed" if any(c.islower() for c in s) else "caps",
            "cap_px": round(real_cap, 2), "x_px": round(xf * size, 2), "font": os.path.basename(font_path),
            "font_size": size, "group": group,
        })
        return box, font

    def width(self, s, font_path, cap_px):
        capf, _ = metrics(font_path)
        font = ImageFont.truetype(font_path, size=round(cap_px / capf))
        return font.getlength(s)

    def fit_cap(self, s, font_path, cap_px, max_w):
        w = self.width(s, font_path, cap_px)
        return cap_px if w <= max_w else cap_px * max_w / w * 0.98


def make(i):
    rnd = random.Random(1000 + i)
    rng = np.random.default_rng(1000 + i)
    portrait = i % 3 != 2
    W, H = (1448, 2048) if portrait else (2048, rnd.choice([1024, 1536]))
    layout = ["photo_top", "photo_top", "flat", "gradient", "texture_top", "photo_full", "red_head"][i % 7]
    tex = ["photo", "foliage", "food", "branches", "tiles"][(i // 7 + i) % 5]
    bg = rnd.choice(COLOURS)
    split = int(H * rnd.uniform(0.45, 0.55))
    img = Image.new("RGB", (W, H), bg)
    if layout in ("photo_top", "texture_top", "red_head"):
        kind = "photo" if layout == "photo_top" else tex
        top = TEXTURES[kind](rng, W, split)
        img.paste(top, (0, 0))
        region = (0, split, W, H)
    elif layout == "gradient":
        img = gradient(W, H, rnd.choice(COLOURS), rnd.choice(COLOURS))
        region = (0, 0, W, H)
        kind = "gradient"
    elif layout == "photo_full":
        img = TEXTURES["photo"](rng, W, H)
        # darkened band for legibility in the lower third
        arr = np.asarray(img, np.float32)
        yb = int(H * 0.6)
        arr[yb:] *= 0.45
        img = Image.fromarray(arr.astype(np.uint8))
        region = (0, yb, W, H)
        bg = (40, 40, 40)
        kind = "photo"
    else:
        region = (0, 0, W, H)
        kind = "flat"
    P = Poster(img)
    x0, y0, x1, y1 = region
    margin = int(W * 0.06)
    maxw = W - 2 * margin
    rh = y1 - y0
    if layout == "red_head":
        red = rnd.choice(REDS)
        band = None  # drawn once the headline size is known
        bg_head = red
    else:
        bg_head = bg if layout not in ("gradient",) else tuple(int(v) for v in np.asarray(img)[(y0 + y1) // 2, W // 2])
    ink = (255, 255, 255) if layout == "red_head" else contrast_ink(bg_head, rnd)
    if layout == "photo_full":
        ink = (255, 255, 255)
    style = rnd.choice(["bold", "bold", "bold", "serif", "thin"])
    hfont = rnd.choice(FONTS[style])
    # headline: 1 or 2 lines of one size (bold capitals mostly)
    nhead = 2 if i % 2 == 0 else 1
    heads = rnd.sample(HEADLINES, nhead)
    cap = rnd.uniform(96, 132) if layout == "red_head" else rnd.uniform(60, 132) * (H / 2048)
    cap = min(P.fit_cap(h, hfont, cap, maxw) for h in heads)
    y = y0 + int(rh * 0.06) + cap
    group = 100
    if layout == "red_head":
        band = int(y0 + rh * 0.06 + cap * (1.5 * nhead - 0.5) + rh * 0.06)
        P.d.rectangle([0, y0, W, band], fill=red)
    for h in heads:
        align = "ms" if i % 4 in (0, 3) else "ls"
        x = W // 2 if align == "ms" else margin
        P.text((x, int(y)), h, hfont, cap, ink, anchor=align, group=group,
               shadow=(0, 0, 0) if layout == "photo_full" else None)
        y += cap * 1.5
    if layout == "red_head":
        y = band + rh * 0.04
        ink = contrast_ink(bg, rnd)
    # subhead: mixed case with accents
    sfont = rnd.choice(FONTS[rnd.choice(["regular", "thin", "bold", "serif"])])
    nsub = 2 if i % 5 in (1, 3) else 1
    subs = rnd.sample(SUBS, nsub)
    scap = rnd.uniform(34, 64) * (H / 2048)
    scap = min(P.fit_cap(s, sfont, scap, maxw) for s in subs)
    y += scap * 1.3
    for s in subs:
        P.text((margin, int(y)), s, sfont, scap, ink, group=200)
        y += scap * 1.9
    # price and logo on one row
    pfont = rnd.choice(FONTS["bold"])
    pcap = rnd.uniform(60, 110) * (H / 2048)
    y += pcap * 0.6
    if y + pcap < y1 - H * 0.06:
        P.text((margin, int(y + pcap)), rnd.choice(PRICES), pfont, pcap, ink)
        lfont = rnd.choice(FONTS["serif"] + FONTS["bold"])
        logo = rnd.choice(LOGOS)
        lcap = rnd.uniform(28, 50) * (H / 2048)
        lw = P.width(logo, lfont, lcap) + (len(logo) * lcap * 0.3 if i % 3 == 0 else 0)
        P.text((W - margin - lw, int(y + pcap)), logo, lfont, lcap, ink,
               spacing=lcap * 0.3 if i % 3 == 0 else 0)
        y += pcap * 1.6
    # call to action, small
    if y < y1 - H * 0.07:
        cfont = rnd.choice(FONTS["regular"])
        ccap = rnd.uniform(20, 30) * (H / 2048)
        P.text((margin, int(y + ccap)), rnd.choice(CTA), cfont, ccap, ink)
    # legal line ~1 % of the height at the bottom
    lfont = rnd.choice(FONTS["regular"])
    legal = rnd.choice(LEGAL)
    lcap = H * rnd.uniform(0.009, 0.012)
    lcap = P.fit_cap(legal, lfont, lcap, maxw)
    P.text((margin, int(y1 - H * 0.025)), legal, lfont, lcap, ink if layout != "photo_full" else (230, 230, 230))
    # a few posters: text overlaid on the photograph itself
    if layout == "photo_top" and i % 4 == 1:
        ofont = rnd.choice(FONTS["bold"])
        oc = rnd.uniform(50, 80) * (H / 2048)
        word = rnd.choice(["EXCLUSIF", "NOUVEAU", "OFFERT"])
        P.text((margin, int(split * 0.2 + oc)), word, ofont, oc, (255, 255, 255), shadow=(0, 0, 0))
    img = P.img
    bs = [l["box"] for l in P.lines]
    for a in range(len(bs)):
        for b in range(a + 1, len(bs)):
            A, B = bs[a], bs[b]
            if A[0] < B[2] and B[0] < A[2] and A[1] < B[3] and B[1] < A[3]:
                print(f"p{i:02d}: lines overlap:", P.lines[a]["text"], "/", P.lines[b]["text"])
        if bs[a][3] > H or bs[a][2] > W or bs[a][0] < 0:
            print(f"p{i:02d}: line outside:", P.lines[a]["text"])
    # mild JPEG-like softening as on real artwork exports
    meta = {"id": f"p{i:02d}", "width": W, "height": H, "layout": layout, "background": kind,
            "lines": P.lines}
    return img, meta


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 36
    os.makedirs(OUT, exist_ok=True)
    for i in range(n):
        img, meta = make(i)
        img.save(os.path.join(OUT, f"p{i:02d}.png"), optimize=False, compress_level=1)
        with open(os.path.join(OUT, f"p{i:02d}.json"), "w") as f:
            json.dump(meta, f, ensure_ascii=False, indent=1)
    print("wrote", n, "posters to", OUT)


if __name__ == "__main__":
    main()
