"""Calibrates "the probability that a viewer looks at this region within the first second" from
the glance head's share of the region, on held-out images only, and reports its reliability.

For every image of both sets, the glance density comes from the readout whose training left the
image's fold out (held-out predictions, as `regard eval-saliency`). Regions per image: random
boxes of three sizes (2, 6 and 15 % of the image, aspect 1:2 to 2:1) and boxes of the same sizes
centred on the image's three strongest predicted peaks (where faces, text and salient objects
draw the eye). For each region, the observed value is the fraction of the image's viewers who
have at least one fixation starting within the first second inside it.

The model: p = 1 − exp(−k · sᵞ), s the glance share (for independent fixations, γ = 1 and k the
number of first-second fixations per viewer; fixations cluster, so both are fitted). It is fitted
by least squares on four folds and scored on the fifth, for each fold in turn; the reported
reliability (binned by predicted probability) and mean absolute calibration error are over the
held-out folds. The shipped constants are fitted on every region.

    python calibrate.py --osie DIR --eyecrowd DIR --readout /tmp/v3/v3-lite1-joint.pt --out DIR
"""

import argparse
import json
import os

import numpy as np
import torch
import torch.nn.functional as F

import backbone
from v3 import EyeSet, ReadoutV3, extract, onsets

SIZES = (0.02, 0.06, 0.15)
RANDOM_PER_SIZE = 4
PEAKS = 3
GRID = (64, 48)  # scoring grid (w, h) for shares: both sets are 4:3


def boxes(rng, density):
    """Regions of one image as (x0, y0, x1, y1) relative boxes, with their kind."""
    h, w = density.shape
    out = []
    for area in SIZES:
        for _ in range(RANDOM_PER_SIZE):
            aspect = np.exp(rng.uniform(np.log(0.5), np.log(2.0)))
            bw, bh = min(np.sqrt(area * aspect), 1.0), min(np.sqrt(area / aspect), 1.0)
            x0, y0 = rng.uniform(0, 1 - bw), rng.uniform(0, 1 - bh)
            out.append(((x0, y0, x0 + bw, y0 + bh), "random"))
    # The strongest peaks, at least a fifth of the image apart.
    d = density.copy()
    for _ in range(PEAKS):
        k = int(np.argmax(d))
        cy, cx = (k // w + 0.5) / h, (k % w + 0.5) / w
        for area in SIZES:
            b = np.sqrt(area)
            x0, y0 = min(max(cx - b / 2, 0), 1 - b), min(max(cy - b / 2, 0), 1 - b)
            out.append(((x0, y0, x0 + b, y0 + b), "peak"))
        yy, xx = np.mgrid[0:h, 0:w]
        d[((xx + 0.5) / w - cx) ** 2 + ((yy + 0.5) / h - cy) ** 2 < 0.2**2] = 0
    return out


def share(density, box):
    """Share of the density inside a relative box (cells by their centres)."""
    h, w = density.shape
    x0, y0, x1, y1 = box
    xs = (np.arange(w) + 0.5) / w
    ys = (np.arange(h) + 0.5) / h
    m = ((xs >= x0) & (xs < x1))[None, :] & ((ys >= y0) & (ys < y1))[:, None]
    return float(density[m].sum())


def observed(s, i, box):
    """Fraction of image i's viewers with a fixation starting within the first second in box."""
    e = s.images[i]
    x0, y0, x1, y1 = box
    seen, n = 0, 0
    for subj in e["subjects"]:
        subj = [f for f in subj if len(f) >= 2 and np.isfinite(f[0]) and np.isfinite(f[1])]
        if not subj:
            continue
        n += 1
        for f, t in zip(subj, onsets(subj)):
            x, y = (f[0] - 0.5) / e["width"], (f[1] - 0.5) / e["height"]
            if t < 1000.0 and x0 <= x < x1 and y0 <= y < y1:
                seen += 1
                break
    return seen / max(n, 1)


def model(s, k, g):
    return 1.0 - np.exp(-k * np.power(np.maximum(s, 1e-9), g))


def fit(s, o):
    """Least squares over a grid, then refined (two parameters: a grid is robust and enough)."""
    best = None
    for k in np.linspace(0.5, 12, 116):
        for g in np.linspace(0.3, 1.2, 91):
            e = float(np.mean((model(s, k, g) - o) ** 2))
            if best is None or e < best[0]:
                best = (e, k, g)
    return best[1], best[2]


def reliability(p, o, bins=10):
    """Per bin of predicted probability: count, mean predicted, mean observed; and the mean
    absolute calibration error (bins weighted by their counts)."""
    edges = np.linspace(0, 1, bins + 1)
    rows, err = [], 0.0
    for b in range(bins):
        m = (p >= edges[b]) & ((p < edges[b + 1]) if b < bins - 1 else (p <= 1))
        if m.sum() == 0:
            continue
        rows.append((int(m.sum()), float(p[m].mean()), float(o[m].mean())))
        err += m.sum() * abs(p[m].mean() - o[m].mean())
    return rows, err / len(p)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--osie", required=True)
    ap.add_argument("--eyecrowd", required=True)
    ap.add_argument("--readout", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    os.makedirs(a.out, exist_ok=True)
    ck = torch.load(a.readout)
    readouts = []
    for st in ck["folds"]:
        ro = ReadoutV3(ck["channels"], list(torch.split(st["mean"], ck["channels"])), list(torch.split(st["std"], ck["channels"])), tuple(ck["hidden"]))
        ro.load_state_dict(st)
        readouts.append(ro.eval())
    m = backbone.load(ck["backbone"])
    taps = backbone.taps_of(m)
    rng = np.random.default_rng(7)
    rows = []  # (fold, set, kind, share, observed)
    for si, (name, root) in enumerate((("OSIE", a.osie), ("EyeCrowd", a.eyecrowd))):
        s = EyeSet(name, root, a.limit)
        for i in range(len(s)):
            img = s.image(i)
            feats = extract(m, taps, [img], backbone.net_size(*img.size), False)
            fold = i % 5
            with torch.no_grad():
                p = torch.exp(readouts[fold]([f.float() for f in feats]))[:, 1:2]
                d = F.interpolate(p, size=(GRID[1], GRID[0]), mode="bilinear", align_corners=False)[0, 0].double().numpy()
            d = d / d.sum()
            for box, kind in boxes(rng, d):
                rows.append((fold, si, kind, share(d, box), observed(s, i, box)))
            if i % 100 == 0:
                print(f"{name} {i}/{len(s)}", flush=True)
    fold = np.array([r[0] for r in rows])
    sh = np.array([r[3] for r in rows])
    ob = np.array([r[4] for r in rows])
    kinds = np.array([r[2] for r in rows])
    sets = np.array([r[1] for r in rows])
    pred = np.zeros_like(sh)
    for k in range(5):
        kk, gg = fit(sh[fold != k], ob[fold != k])
        pred[fold == k] = model(sh[fold == k], kk, gg)
        print(f"fold {k}: k {kk:.3f} gamma {gg:.3f}")
    table, mace = reliability(pred, ob)
    print(f"held-out mean absolute calibration error over {len(ob)} regions: {mace:.4f}")
    by = {}
    for label, mask in (("random boxes", kinds == "random"), ("boxes on predicted peaks", kinds == "peak"), ("OSIE", sets == 0), ("EyeCrowd", sets == 1)):
        by[label] = reliability(pred[mask], ob[mask])[1]
        print(f"  {label}: {by[label]:.4f} ({int(mask.sum())} regions)")
    for n, pm, om in table:
        print(f"  bin: {n:6d} regions, predicted {pm:.3f}, observed {om:.3f}")
    k_all, g_all = fit(sh, ob)
    print(f"shipped constants (every region): k {k_all:.4f} gamma {g_all:.4f}")
    json.dump(
        {"k": round(k_all, 4), "gamma": round(g_all, 4), "mace": mace, "by": by, "bins": table, "regions": len(ob)},
        open(os.path.join(a.out, "calibration.json"), "w"),
        indent=1,
    )
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(4.2, 4.2), dpi=150)
        ax.plot([0, 1], [0, 1], color="#999", lw=1, ls="--", label="perfect calibration")
        ax.plot([r[1] for r in table], [r[2] for r in table], "o-", color="#c2410c", label="held-out regions, binned")
        ax.set_xlabel("predicted probability of a look within 1 s")
        ax.set_ylabel("observed fraction of viewers")
        ax.set_title(f"First-glance calibration (MACE {mace:.3f})", fontsize=10)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.legend(loc="upper left", fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, "glance-calibration.png"))
    except ImportError:
        print("matplotlib missing: no plot")


if __name__ == "__main__":
    main()
