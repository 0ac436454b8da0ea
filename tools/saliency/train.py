"""Trains the readout on cached backbone features (extract.py) by maximising the log-likelihood
of the fixations, with k-fold cross-validation split by image (image i in fold i mod k, as
`regard eval-saliency`), early stopping on a validation part of the training folds, and
augmentation (left-right flips, crops, other input scales). Prints the six metrics and the
information gain per fold and their mean, then trains on every image and saves the readout.

    python train.py --dataset ../../../shared/datasets/osie [--scales 384,320] [--save-folds folds.pt] [--out readout.pt]
"""

import argparse
import math
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

import metrics
from extract import DEFAULT_CACHE, cache_path
from osie import Dataset
from readout import Readout

EVAL_SCALE = 384


class Variant:
    """Cached features of every image at one input size, flipped or not."""

    def __init__(self, cache, long_side, flip):
        z = np.load(cache_path(cache, long_side, flip))
        self.levels = [z[f"arr_{k}"] for k in range(4)]
        self.long_side, self.flip = long_side, flip

    def batch(self, idx):
        return [torch.from_numpy(lv[idx].astype(np.float32)) for lv in self.levels]


def feature_stats(v, idx):
    """Per-channel mean and standard deviation of each level over the given images."""
    mean, std = [], []
    for lv in v.levels:
        x = lv[idx].astype(np.float32)
        mean.append(torch.from_numpy(x.mean((0, 2, 3))))
        std.append(torch.from_numpy(x.std((0, 2, 3)) + 1e-3))
    return mean, std


def crop(feats, rng, min_frac=0.75):
    """Random crop of all levels, aligned on the stride-32 grid; returns the crop and its box in
    stride-8 cells (x0, y0, w, h)."""
    h32, w32 = feats[2].shape[-2:]
    ch = rng.integers(math.ceil(min_frac * h32), h32 + 1)
    cw = rng.integers(math.ceil(min_frac * w32), w32 + 1)
    y0, x0 = rng.integers(0, h32 - ch + 1), rng.integers(0, w32 - cw + 1)
    out = []
    for f, k in zip(feats, (4, 2, 1, 1)):
        out.append(f[..., y0 * k : (y0 + ch) * k, x0 * k : (x0 + cw) * k])
    return out, (x0 * 4, y0 * 4, cw * 4, ch * 4)


def nll(logp, rels, flip, box=None):
    """Mean negative log-likelihood per fixation (nats) and the number of fixations; `rels` are
    the images' fixations relative to the full image; `box` = (x0, y0, w, h, full_w, full_h) of a
    crop, in stride-8 cells."""
    _, h, w = logp.shape
    total, n = 0.0, 0
    for b, r in enumerate(rels):
        x = (1.0 - r[:, 0]) if flip else r[:, 0]
        y = r[:, 1]
        if box is None:
            cx, cy = np.floor(x * w), np.floor(y * h)
        else:
            x0, y0, _, _, full_w, full_h = box
            cx, cy = np.floor(x * full_w) - x0, np.floor(y * full_h) - y0
        keep = (cx >= 0) & (cx < w) & (cy >= 0) & (cy < h)
        if keep.sum() == 0:
            continue
        cx = torch.from_numpy(cx[keep].astype(np.int64))
        cy = torch.from_numpy(cy[keep].astype(np.int64))
        total = total - logp[b, cy, cx].sum()
        n += int(keep.sum())
    return total / max(n, 1), n


def info_gain(model, v, idx, rels):
    """Information gain over a uniform map, bits per fixation, at the evaluation scale."""
    model.eval()
    with torch.no_grad():
        tot, n = 0.0, 0
        for s in range(0, len(idx), 32):
            b = idx[s : s + 32]
            logp = model(v.batch(b))
            loss, k = nll(logp, [rels[i] for i in b], v.flip)
            hw = logp.shape[1] * logp.shape[2]
            tot += (-float(loss) + math.log(hw)) * k
            n += k
    return tot / n / math.log(2)


def train(model, variants, idx, rels, val_idx, ev, epochs, patience, lr, wd, use_crop, seed, feature_flip=False):
    """Adam on the training images; returns the best state (by validation information gain, if
    a validation set is given) and its epoch."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    l1 = [p for c in model.l1 for p in c.parameters()]
    rest = [p for n, p in model.named_parameters() if not n.startswith("l1.")]
    opt = torch.optim.Adam([{"params": l1, "weight_decay": wd}, {"params": rest, "weight_decay": 0.0}], lr=lr)
    best, best_ig, best_ep, log = None, -1e9, 0, []
    for ep in range(1, epochs + 1):
        model.train()
        order = rng.permutation(idx)
        for s in range(0, len(order), 16):
            b = np.sort(order[s : s + 16])
            v = variants[rng.integers(len(variants))]
            feats = v.batch(b)
            flip = v.flip
            if feature_flip and rng.random() < 0.5:
                # Mirrored feature maps stand in for the features of the mirrored image.
                feats = [torch.flip(f, [-1]) for f in feats]
                flip = not flip
            fh, fw = feats[0].shape[-2:]
            box = None
            if use_crop and rng.random() < 0.5:
                feats, (x0, y0, cw, ch) = crop(feats, rng)
                box = (x0, y0, cw, ch, fw, fh)
            logp = model(feats)
            loss, _ = nll(logp, [rels[i] for i in b], flip, box)
            opt.zero_grad()
            loss.backward()
            opt.step()
        if val_idx is not None:
            ig = info_gain(model, ev, val_idx, rels)
            log.append(ig)
            if ig > best_ig:
                best_ig, best_ep = ig, ep
                best = {k: t.clone() for k, t in model.state_dict().items()}
            elif ep - best_ep >= patience:
                break
    if val_idx is None:
        return model.state_dict(), epochs, log
    model.load_state_dict(best)
    return best, best_ep, log


def density_at(model, v, i, w, h):
    """Predicted density of image i, bilinearly upsampled to w × h (sums to 1)."""
    model.eval()
    with torch.no_grad():
        p = torch.exp(model(v.batch([i])))[None]
        d = F.interpolate(p, size=(h, w), mode="bilinear", align_corners=False)[0, 0].double().numpy()
    return d / d.sum()


def evaluate(density_fn, ds, idx, all_points, eval_long=800):
    """Mean of the six metrics over images `idx`; sAUC negatives are all other images'
    fixations (rescaled to this image's size)."""
    out = []
    for i in idx:
        e = ds.images[i]
        s = eval_long / max(e["width"], e["height"])
        w, h = round(e["width"] * s), round(e["height"] * s)
        fix = ds.points(i, w, h)
        others = np.concatenate([ds.points(j, w, h) for j in range(len(ds.images)) if j != i]) if all_points is None else all_points(i, w, h)
        out.append(metrics.score_all(density_fn(i, w, h), fix, others, 0.03 * max(w, h)))
    return np.mean(out, 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--cache", default=DEFAULT_CACHE)
    ap.add_argument("--scales", default="384")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--patience", type=int, default=6)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--wd", type=float, default=1e-3)
    ap.add_argument("--hidden", default="8,16")
    ap.add_argument("--no-crop", action="store_true")
    ap.add_argument("--no-flip", action="store_true", help="do not use the features of flipped images")
    ap.add_argument("--feature-flip", action="store_true", help="mirror feature maps as flip augmentation")
    ap.add_argument("--no-metrics", action="store_true", help="information gain only (fast)")
    ap.add_argument("--centre-check", action="store_true", help="also score the centre baseline")
    ap.add_argument("--out", help="train on every image and save the readout here")
    ap.add_argument("--save-folds", help="save the cross-validation folds' readouts here (export.py ships them as an ensemble)")
    ap.add_argument("--final-epochs", type=int, help="skip cross-validation: train on every image for this many epochs")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int, help="only the first N images (quick checks)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    hidden = tuple(int(x) for x in a.hidden.split(","))
    ds = Dataset(a.dataset, a.limit)
    n = len(ds.images)
    rels = [ds.rel_points(i) for i in range(n)]
    scales = [int(s) for s in a.scales.split(",")]
    # Every cached variant of the chosen sizes: unflipped, and the mirrored images' features
    # where extract.py made them (unless --no-flip).
    variants = [
        Variant(a.cache, s, f)
        for s in scales
        for f in (False, True)
        if not (f and a.no_flip) and (not f or os.path.exists(cache_path(a.cache, s, True)))
    ]
    print("variants: " + ", ".join(f"{v.long_side}{' mirrored' if v.flip else ''}" for v in variants))
    ev = next(v for v in variants if v.long_side == EVAL_SCALE and not v.flip)
    # sAUC negatives: every image's fixations at 800 × 600 (OSIE's images all have that size).
    pts = [ds.points(i, 800, 600) for i in range(n)]
    cum = {i: np.concatenate(pts[:i] + pts[i + 1 :]) for i in range(n)} if not a.no_metrics else None

    def others(i, w, h):
        return cum[i]

    print(f"config: scales={scales} flips={not a.no_flip} feature_flip={a.feature_flip} crops={not a.no_crop} hidden={hidden} lr={a.lr} wd={a.wd}")
    if a.centre_check:
        u = (np.arange(800) + 0.5) / 800 - 0.5
        v = (np.arange(600) + 0.5) / 600 - 0.5
        g = np.exp(-0.5 * ((u[None, :] / 0.25) ** 2 + (v[:, None] / 0.25) ** 2))
        print("centre baseline", np.round(evaluate(lambda i, w, h: g, ds, range(n), others), 3))
    folds = np.arange(n) % a.folds
    rows, epochs, states = [], [], []
    for k in range(0 if a.final_epochs else a.folds):
        t0 = time.time()
        tr = np.where(folds != k)[0]
        te = np.where(folds == k)[0]
        # Early stopping on a quarter of the training images.
        val = tr[(tr // a.folds) % 4 == 0]
        fit = tr[(tr // a.folds) % 4 != 0]
        mean, std = feature_stats(ev, tr)
        model = Readout(mean, std, hidden)
        _, ep, log = train(model, variants, fit, rels, val, ev, a.epochs, a.patience, a.lr, a.wd, not a.no_crop, k, a.feature_flip)
        epochs.append(ep)
        states.append({k: t.clone() for k, t in model.state_dict().items()})
        ig_tr = info_gain(model, ev, fit, rels)
        ig = info_gain(model, ev, te, rels)
        m = np.full(6, np.nan) if a.no_metrics else evaluate(lambda i, w, h: density_at(model, ev, i, w, h), ds, te, others)
        rows.append(np.concatenate([m, [ig, ig_tr]]))
        print(
            f"fold {k}: best epoch {ep} (val IG by epoch {np.round(log, 3).tolist()}), "
            f"test IG {ig:.3f} bits/fix (train {ig_tr:.3f}); "
            + " ".join(f"{nm} {x:.3f}" for nm, x in zip(metrics.NAMES, m))
            + f"  sigma {math.exp(float(model.log_sigma)):.4f} centre {np.round(model.centre.detach().numpy(), 2).tolist()}"
            + f"  [{time.time() - t0:.0f} s]",
            flush=True,
        )
    r = np.array(rows) if rows else np.full((1, 8), np.nan)
    print("mean   : " + " ".join(f"{nm} {x:.3f}" for nm, x in zip(metrics.NAMES + ["IG", "IG-train"], r.mean(0))))
    if a.save_folds and states:
        torch.save({"folds": states, "fold_epochs": epochs, "hidden": hidden, "config": vars(a)}, a.save_folds)
        print(f"saved the {len(states)} folds' readouts to {a.save_folds}")
    if a.out:
        ep = a.final_epochs or int(np.median(epochs))
        mean, std = feature_stats(ev, np.arange(n))
        model = Readout(mean, std, hidden)
        train(model, variants, np.arange(n), rels, None, ev, ep, 0, a.lr, a.wd, not a.no_crop, 99, a.feature_flip)
        torch.save({"state": model.state_dict(), "hidden": hidden, "epochs": ep, "config": vars(a)}, a.out)
        print(f"trained on all {n} images for {ep} epochs; saved {a.out}")


if __name__ == "__main__":
    main()
