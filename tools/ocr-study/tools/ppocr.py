#!/usr/bin/env python3
"""PP-OCR det + rec with onnxruntime (one thread), own DB post-processing and CTC greedy decoding,
and the letter-height rule. Used to measure model/parameter choices before the Rust port.

usage: ppocr.py OUT.json --det v4|v5 --rec v4|v5 [--side 960] posters/out/p*.png
"""
import argparse
import json
import os
import time

import numpy as np
import onnxruntime as ort
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
M = os.path.join(HERE, "..", "models")
DET = {"v4": f"{M}/npm/package/assets/ch_PP-OCRv4_det_infer.onnx", "v5": f"{M}/v5/PP-OCRv5_mobile_det.onnx"}
REC = {"v4": (f"{M}/npm/package/assets/ch_PP-OCRv4_rec_infer.onnx", f"{M}/npm/package/assets/ppocr_keys_v1.txt"),
       "v5": (f"{M}/v5/PP-OCRv5_mobile_rec.onnx", f"{M}/v5/ppocr_dict_v5.txt")}
REC["v5"] = (REC["v5"][0], f"{M}/v5/ppocrv5_dict.txt")

MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)


def session(path):
    o = ort.SessionOptions()
    o.intra_op_num_threads = 1
    o.inter_op_num_threads = 1
    return ort.InferenceSession(path, o, providers=["CPUExecutionProvider"])


def label(binary):
    """4-connected components of a boolean map: (labels, count). Two-pass union-find on runs."""
    h, w = binary.shape
    lab = np.zeros((h, w), np.int32)
    parent = [0]

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    prev_runs = []
    for y in range(h):
        row = binary[y]
        d = np.diff(np.concatenate(([0], row.view(np.int8), [0])))
        starts, ends = np.where(d == 1)[0], np.where(d == -1)[0]
        runs = []
        j = 0
        for s, e in zip(starts, ends):
            l = None
            while j < len(prev_runs) and prev_runs[j][1] <= s:
                j += 1
            k = j
            while k < len(prev_runs) and prev_runs[k][0] < e:
                pl = find(prev_runs[k][2])
                if l is None:
                    l = pl
                elif pl != l:
                    parent[max(pl, l)] = min(pl, l)
                    l = min(pl, l)
                k += 1
            if l is None:
                l = len(parent)
                parent.append(l)
            lab[y, s:e] = l
            runs.append((s, e, l))
        prev_runs = runs
    roots = np.array([find(i) for i in range(len(parent))], np.int32)
    uniq, remap = np.unique(roots, return_inverse=True)
    return remap[lab].astype(np.int32), len(uniq) - 1


def detect(sess, rgb, side=960, thresh=0.3, box_thresh=0.6, unclip=1.5):
    H, W = rgb.shape[:2]
    s = min(1.0, side / max(H, W))
    h = max(32, int(round(H * s / 32)) * 32)
    w = max(32, int(round(W * s / 32)) * 32)
    img = np.asarray(Image.fromarray(rgb).resize((w, h), Image.BILINEAR), np.float32) / 255.0
    img = img[:, :, ::-1]  # BGR, as PaddleOCR reads with OpenCV
    x = ((img - MEAN) / STD).transpose(2, 0, 1)[None].astype(np.float32)
    prob = sess.run(None, {sess.get_inputs()[0].name: x})[0][0, 0]
    lab, n = label(prob > thresh)
    boxes = []
    if n == 0:
        return boxes, prob
    idx = lab.ravel()
    cnt = np.bincount(idx, minlength=n + 1)
    sums = np.bincount(idx, weights=prob.ravel(), minlength=n + 1)
    ys, xs = np.indices(lab.shape)
    big = 1 << 30
    x0 = np.full(n + 1, big); y0 = np.full(n + 1, big); x1 = np.full(n + 1, -1); y1 = np.full(n + 1, -1)
    np.minimum.at(x0, idx, xs.ravel()); np.minimum.at(y0, idx, ys.ravel())
    np.maximum.at(x1, idx, xs.ravel()); np.maximum.at(y1, idx, ys.ravel())
    sx, sy = W / w, H / h
    for k in range(1, n + 1):
        bw, bh = x1[k] - x0[k] + 1, y1[k] - y0[k] + 1
        if min(bw, bh) < 3 or sums[k] / cnt[k] < box_thresh:
            continue
        d = bw * bh * unclip / (2 * (bw + bh))
        bx0, by0 = max(0, (x0[k] - d) * sx), max(0, (y0[k] - d) * sy)
        bx1, by1 = min(W, (x1[k] + 1 + d) * sx), min(H, (y1[k] + 1 + d) * sy)
        boxes.append([bx0, by0, bx1, by1, float(sums[k] / cnt[k])])
    return boxes, prob


def recognise(sess, keys, rgb, box):
    x0, y0, x1, y1 = [int(round(v)) for v in box[:4]]
    crop = rgb[y0:y1, x0:x1]
    ch, cw = crop.shape[:2]
    if ch < 2 or cw < 2:
        return "", 0.0, None
    tw = max(8, min(3200, int(np.ceil(48 * cw / ch))))
    im = np.asarray(Image.fromarray(crop).resize((tw, 48), Image.BILINEAR), np.float32) / 255.0
    im = im[:, :, ::-1]
    x = ((im - 0.5) / 0.5).transpose(2, 0, 1)[None].astype(np.float32)
    out = sess.run(None, {sess.get_inputs()[0].name: x})[0][0]  # T x C
    best = out.argmax(1)
    p = out.max(1)
    chars, probs, cols = [], [], []
    prev = 0
    for t, c in enumerate(best):
        if c != 0 and c != prev:
            chars.append(keys[c - 1] if c - 1 < len(keys) else " ")
            probs.append(p[t])
            cols.append((t + 0.5) / len(best))
        prev = c
    text = "".join(halfwidth(c) for c in chars).strip()
    return text, float(np.mean(probs)) if probs else 0.0, cols


def halfwidth(c):
    o = ord(c)
    if 0xFF01 <= o <= 0xFF5E:
        return chr(o - 0xFEE0)
    return " " if o == 0x3000 else c


def otsu(v):
    hist = np.bincount(v.astype(np.uint8).ravel(), minlength=256).astype(np.float64)
    tot = hist.sum()
    w0 = np.cumsum(hist)
    m = np.cumsum(hist * np.arange(256))
    mt = m[-1]
    w1 = tot - w0
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (mt * w0 / tot - m) ** 2 / (w0 * w1)
    between[~np.isfinite(between)] = 0
    return int(between.argmax())


X_OVER_CAP = 0.74


def letter_height(rgb, box, text):
    """Rule: cap height. All-caps/digit lines: the band of rows dense with ink (accents, cedillas,
    commas are sparse rows and fall out); mixed case: the x-height band (rows dense with ink) divided
    by 0.74, the x-height/cap-height ratio of common poster faces (0.70 Times .. 0.77 Arial Bold)."""
    x0, y0, x1, y1 = [int(round(v)) for v in box[:4]]
    crop = rgb[y0:y1, x0:x1].astype(np.float32)
    if crop.shape[0] < 3 or crop.shape[1] < 3:
        return None
    g = crop @ np.array([0.299, 0.587, 0.114], np.float32)
    t = otsu(g)
    lo, hi = g[g <= t], g[g > t]
    if len(lo) == 0 or len(hi) == 0:
        return None
    # ink is the class that touches the box border less
    border = np.concatenate([g[0], g[-1], g[:, 0], g[:, -1]])
    ink_dark = (border > t).mean() > 0.5
    mi, mb = (lo.mean(), hi.mean()) if ink_dark else (hi.mean(), lo.mean())
    cov = np.clip((g - mb) / (mi - mb), 0, 1)
    prof = cov.sum(1)
    peak = np.percentile(prof, 90)
    if peak <= 0:
        return None
    caps = is_caps(prof, peak, text)
    tau = 0.3 if caps else 0.45
    core = prof >= tau * peak
    # the longest run of core rows
    best, cur, start, bs = 0, 0, 0, 0
    for i, c in enumerate(core):
        if c:
            if cur == 0:
                start = i
            cur += 1
            if cur > best:
                best, bs = cur, start
        else:
            cur = 0
    a, b = bs, bs + best - 1
    ref = np.median(prof[a:b + 1])
    hgt = best - 2 + min(1, prof[a] / ref) + min(1, prof[b] / ref)
    if a > 0:
        hgt += min(1, prof[a - 1] / ref) if prof[a - 1] < tau * peak else 0
    if b + 1 < len(prof):
        hgt += min(1, prof[b + 1] / ref) if prof[b + 1] < tau * peak else 0
    return (hgt if caps else hgt / X_OVER_CAP), caps


def longest_run(mask):
    best, cur, start, bs = 0, 0, 0, 0
    for i, c in enumerate(mask):
        if c:
            if cur == 0:
                start = i
            cur += 1
            if cur > best:
                best, bs = cur, start
        else:
            cur = 0
    return bs, bs + best - 1


ASCENDER_LOWER = set("bdfhkltàâéèêëîïôûùç")


def is_caps(prof, peak, text):
    """Capitals (and digits) or mixed case. The recogniser's case is unreliable on capitals whose
    lower-case shape is alike (C/c, O/o, É/é...), so the ink decides when the line has letters that
    reach above the x-height: the rows of the dense band (>= 0.5 peak) against the band grown upwards
    through rows with any ink (>= 0.03 peak). Ascenders and capitals of mixed case rise from the
    x-height band without a gap (ratio ~0.7); accents over capitals sit apart, after empty rows (~1)."""
    letters = [c for c in text if c.isalpha()]
    lower = [c for c in letters if c.islower()]
    if len(lower) < 0.4 * max(1, len(letters)):
        return True
    a, b = longest_run(prof >= 0.5 * peak)
    top = a
    while top > 0 and prof[top - 1] >= 0.03 * peak:
        top -= 1
    ratio = (b - a + 1) / (b - top + 1)
    tall = any(c in ASCENDER_LOWER or c.isupper() or c.isdigit() for c in text)
    if not tall:
        return False  # only x-height letters: the ink cannot tell
    return ratio >= 0.9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--det", default="v4")
    ap.add_argument("--rec", default="v4")
    ap.add_argument("--side", type=int, default=960)
    ap.add_argument("--box-thresh", type=float, default=0.6)
    ap.add_argument("--unclip", type=float, default=1.5)
    ap.add_argument("images", nargs="+")
    a = ap.parse_args()
    det = session(DET[a.det])
    rp, kp = REC[a.rec]
    rec = session(rp)
    keys = [l.rstrip("\n") for l in open(kp, encoding="utf-8")]
    res = {}
    for path in a.images:
        pid = os.path.splitext(os.path.basename(path))[0]
        rgb = np.asarray(Image.open(path).convert("RGB"))
        t0 = time.perf_counter()
        boxes, _ = detect(det, rgb, a.side, box_thresh=a.box_thresh, unclip=a.unclip)
        t1 = time.perf_counter()
        lines = []
        for b in boxes:
            text, conf, _ = recognise(rec, keys, rgb, b)
            lh = letter_height(rgb, b, text) if text else None
            if lh:
                lh, caps = lh
                if caps:
                    text = text.upper()
            lines.append({"box": [float(v) for v in b[:4]], "text": text, "conf": float(conf), "det_score": float(b[4]), "letter_height_px": float(lh) if lh else None})
        t2 = time.perf_counter()
        res[pid] = {"ms": (t2 - t0) * 1e3, "ms_det": (t1 - t0) * 1e3, "lines": lines}
        print(pid, f"{(t1 - t0) * 1e3:.0f}+{(t2 - t1) * 1e3:.0f} ms", len(lines), flush=True)
    json.dump(res, open(a.out, "w"), ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
