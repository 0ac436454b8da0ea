#!/usr/bin/env python3
"""Tesseract 5 (CLI, fra+eng, TSV) as a candidate: lines = words grouped by (block, par, line),
words of confidence < MINCONF dropped; letter height by the same rule as ppocr.py.
usage: tess.py OUT.json PSM posters/out/p*.png"""
import json
import os
import subprocess
import sys
import time

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ppocr import letter_height  # noqa: E402

MINCONF = 40


def main():
    out, psm, imgs = sys.argv[1], sys.argv[2], sys.argv[3:]
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    res = {}
    for path in imgs:
        pid = os.path.splitext(os.path.basename(path))[0]
        t0 = time.perf_counter()
        tsv = subprocess.run(["tesseract", path, "-", "-l", "fra+eng", "--psm", psm, "tsv"], env=env,
                             capture_output=True, text=True).stdout
        ms = (time.perf_counter() - t0) * 1e3
        lines = {}
        for row in tsv.splitlines()[1:]:
            f = row.split("\t")
            if len(f) < 12 or f[0] != "5":
                continue
            conf, text = float(f[10]), f[11].strip()
            if not text or conf < MINCONF:
                continue
            key = (f[2], f[3], f[4])
            x, y, w, h = map(int, f[6:10])
            lines.setdefault(key, []).append((x, y, x + w, y + h, text))
        rgb = np.asarray(Image.open(path).convert("RGB"))
        ls = []
        for ws in lines.values():
            ws.sort()
            box = [min(w[0] for w in ws), min(w[1] for w in ws), max(w[2] for w in ws), max(w[3] for w in ws)]
            text = " ".join(w[4] for w in ws)
            pad = 0.2 * (box[3] - box[1])
            mbox = [max(0, box[0] - pad), max(0, box[1] - pad), min(rgb.shape[1], box[2] + pad),
                    min(rgb.shape[0], box[3] + pad)]
            lh = letter_height(rgb, mbox, text)
            lh = lh[0] if lh else None
            ls.append({"box": box, "text": text, "letter_height_px": float(lh) if lh else None})
        res[pid] = {"ms": ms, "lines": ls}
        print(pid, f"{ms:.0f} ms", len(ls), flush=True)
    json.dump(res, open(out, "w"), ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
