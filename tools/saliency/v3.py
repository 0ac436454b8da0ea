"""Attention model v3: training and the cross-set comparison of its options, on one machine
(a GPU if there is one, else the CPU).

For every backbone named, it extracts the frozen network's features of both eye-tracking sets
(OSIE and EyeCrowd, at 384 px on the longer side, mirrored, and at 320 and 448 px as scale
augmentation), then trains readouts with two heads:

- **full**: the density of all fixations (about three seconds of free viewing), as v2;
- **glance**: the density of the fixations that *start within the first second* (onsets are the
  cumulative durations of the earlier fixations plus one saccade time each, see `onsets`).

Each head's map is softmax(content + prior): the content comes from the features; the prior is
a centre bias c0·u² + c1·v² + c2·v (u, v: offsets from the centre in units of width and height),
either learned jointly with the content (`joint`, as v2) or fitted first on the training
fixations alone and then frozen (`separate`), so that the content readout cannot take over the
training set's composition.

Options are compared across sets: trained on OSIE (a quarter of it held out for early stopping)
and scored on all of EyeCrowd, and the other way round. The shipped readouts are the five folds
of a cross-validation over the union of both sets (image i of each set in fold i mod 5, as
`regard eval-saliency`).

    python v3.py --osie DIR --eyecrowd DIR --backbones lite0,lite1 --out DIR [--limit N]
"""

import argparse
import json
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image

import backbone

# Milliseconds added per saccade between two fixations when onsets are computed from durations.
SACCADE_MS = 30.0
GLANCE_MS = 1000.0
EVAL_SCALE = 384
SCALES = (384, 320, 448)
DEV = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def onsets(fixations, saccade_ms=SACCADE_MS):
    """Onset (ms from the image's appearance) of each fixation of one viewer, in viewing order:
    the fourth value where the set records one; else the first starts at 0 and each later one
    after the earlier durations and one saccade each (as `regard eval-saliency --glance`)."""
    out, t = [], 0.0
    for f in fixations:
        out.append(f[3] if len(f) > 3 and np.isfinite(f[3]) else t)
        t += (f[2] if len(f) > 2 and np.isfinite(f[2]) else 0.0) + saccade_ms
    return out


# ---------------------------------------------------------------------------------------------
# Data


class EyeSet:
    """One set in the OSIE layout: fixations.json ({"images": [{file, width, height, subjects:
    [[[x, y, duration_ms], ...] per viewer]}]}) and stimuli/. Images in file-name order."""

    def __init__(self, name, root, limit=None):
        self.name, self.root = name, root
        path = os.path.join(root, "fixations.json")
        if os.path.exists(path + ".gz"):
            import gzip

            with gzip.open(path + ".gz", "rt") as f:
                images = sorted(json.load(f)["images"], key=lambda e: e["file"])
        else:
            with open(path) as f:
                images = sorted(json.load(f)["images"], key=lambda e: e["file"])
        self.images = images[:limit] if limit else images
        # Per image: relative positions (0..1) of all fixations, and a mask of those starting
        # within the first second.
        self.rel, self.early = [], []
        for e in self.images:
            pts, early = [], []
            for s in e["subjects"]:
                s = [f for f in s if len(f) >= 2 and np.isfinite(f[0]) and np.isfinite(f[1])]
                for f, t in zip(s, onsets(s)):
                    pts.append(((f[0] - 0.5) / e["width"], (f[1] - 0.5) / e["height"]))
                    early.append(t < GLANCE_MS)
            self.rel.append(np.clip(np.array(pts, dtype=np.float64).reshape(-1, 2), 0, 1 - 1e-9))
            self.early.append(np.array(early, dtype=bool))

    def __len__(self):
        return len(self.images)

    def image(self, i):
        return Image.open(os.path.join(self.root, "stimuli", self.images[i]["file"])).convert("RGB")

    def points(self, i, w, h, early=False):
        """Integer pixel positions at w × h (as osie.Dataset.points), all or first-second only."""
        r = self.rel[i][self.early[i]] if early else self.rel[i]
        x = np.clip(np.floor(r[:, 0] * w), 0, w - 1)
        y = np.clip(np.floor(r[:, 1] * h), 0, h - 1)
        return np.stack([x, y], 1).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# Features


def extract(m, taps, imgs, size, flip):
    """Features of every image resized to `size` (list of 4 float16 tensors N×C×H×W on DEV);
    both sets are 4:3, so one size serves every image."""
    levels = None
    for k, img in enumerate(imgs):
        if flip:
            img = img.transpose(Image.FLIP_LEFT_RIGHT)
        f = backbone.features(m, taps, backbone.to_input(img, size).to(DEV))
        if levels is None:
            levels = [torch.empty((len(imgs),) + t.shape[1:], dtype=torch.float16, device=DEV) for t in f]
        for lv, t in zip(levels, f):
            lv[k] = t[0].half()
    return levels


# ---------------------------------------------------------------------------------------------
# Readout with two heads


def gaussian_kernel(sigma, radius, device):
    x = torch.arange(-radius, radius + 1, dtype=torch.float32, device=device)
    k = torch.exp(-0.5 * (x / sigma) ** 2)
    return k / k.sum()


def blur(s, sigma_cells):
    """Separable Gaussian blur of N×1×H×W, zero padding divided by the blurred ones (normalised
    borders), cut at 3σ (radius ≥ 1); the same as readout.blur and the Rust inference."""
    r = max(1, int(math.ceil(3.0 * float(sigma_cells.detach() if torch.is_tensor(sigma_cells) else sigma_cells))))
    k = gaussian_kernel(sigma_cells, r, s.device)

    def sep(x):
        x = F.conv2d(x, k.view(1, 1, 1, -1), padding=(0, r))
        return F.conv2d(x, k.view(1, 1, -1, 1), padding=(r, 0))

    return sep(s) / sep(torch.ones_like(s[:1]))


def centre_grid(c, h, w):
    v = (torch.arange(h, dtype=torch.float32, device=c.device) + 0.5) / h - 0.5
    u = (torch.arange(w, dtype=torch.float32, device=c.device) + 0.5) / w - 0.5
    return c[0] * u[None, :] ** 2 + c[1] * v[:, None] ** 2 + c[2] * v[:, None]


HEADS = ("full", "glance")


class ReadoutV3(nn.Module):
    """Per level a 1×1 layer to hidden[0] (standardisation folded in at export), upsampled to
    the stride-8 grid and summed, softplus; 1×1 to hidden[1], softplus; 1×1 to one map per head.
    Per head: a Gaussian blur of learned width, plus the centre prior, softmax over the grid."""

    def __init__(self, channels, mean, std, hidden=(8, 16)):
        super().__init__()
        self.channels = tuple(channels)
        self.register_buffer("mean", torch.cat(mean))
        self.register_buffer("std", torch.cat(std))
        self.l1 = nn.ModuleList([nn.Conv2d(c, hidden[0], 1, bias=False) for c in channels])
        self.b1 = nn.Parameter(torch.zeros(hidden[0]))
        self.l2 = nn.Conv2d(hidden[0], hidden[1], 1)
        self.l3 = nn.Conv2d(hidden[1], len(HEADS), 1)
        self.log_sigma = nn.Parameter(torch.full((len(HEADS),), math.log(0.03)))
        self.centre = nn.Parameter(torch.tensor([[-5.0, -7.0, 0.0]] * len(HEADS)))

    def content(self, feats):
        out, o = [], 0
        h, w = feats[0].shape[-2:]
        s = self.b1[None, :, None, None]
        for f, conv, c in zip(feats, self.l1, self.channels):
            f = (f.float() - self.mean[o : o + c, None, None]) / self.std[o : o + c, None, None]
            o += c
            y = conv(f)
            if y.shape[-2:] != (h, w):
                y = F.interpolate(y, size=(h, w), mode="bilinear", align_corners=False)
            s = s + y
        s = F.softplus(s)
        s = F.softplus(self.l2(s))
        return self.l3(s)

    def forward(self, feats, prior_only=False):
        """Log-densities N×heads×H×W."""
        s = self.content(feats)
        n, k, h, w = s.shape
        out = []
        for j in range(k):
            sj = torch.zeros_like(s[:, j : j + 1]) if prior_only else blur(s[:, j : j + 1], torch.exp(self.log_sigma[j]) * max(h, w))
            sj = sj[:, 0] + centre_grid(self.centre[j], h, w)
            out.append(F.log_softmax(sj.reshape(n, -1), 1).reshape(n, h, w))
        return torch.stack(out, 1)


# ---------------------------------------------------------------------------------------------
# Training


class Pool:
    """Both sets' features (per variant: 4 tensors over the concatenated images) and fixations."""

    def __init__(self, sets, variants):
        self.sets = sets
        self.variants = variants  # {(long_side, flip): [4 tensors]}
        self.owner = []  # (set index, image index) per global image
        for si, s in enumerate(sets):
            self.owner += [(si, i) for i in range(len(s))]

    def fix(self, g, head):
        si, i = self.owner[g]
        s = self.sets[si]
        return s.rel[i][s.early[i]] if head == 1 else s.rel[i]


def nll(logp, pool, idx, flip, box, weights):
    """Mean negative log-likelihood per fixation of each head, summed with `weights`."""
    n, k, h, w = logp.shape
    total = 0.0
    for j in range(k):
        if weights[j] == 0:
            continue
        cells, count = [], 0
        for b, g in enumerate(idx):
            r = pool.fix(g, j)
            if len(r) == 0:
                continue
            x = (1.0 - r[:, 0]) if flip else r[:, 0]
            y = r[:, 1]
            if box is None:
                cx, cy = np.floor(x * w), np.floor(y * h)
            else:
                x0, y0, full_w, full_h = box
                cx, cy = np.floor(x * full_w) - x0, np.floor(y * full_h) - y0
            keep = (cx >= 0) & (cx < w) & (cy >= 0) & (cy < h)
            cells.append(((b * k + j) * h + cy[keep]) * w + cx[keep])
        if not cells:
            continue
        c = torch.from_numpy(np.concatenate(cells).astype(np.int64)).to(logp.device)
        if len(c) == 0:
            continue
        total = total - weights[j] * logp.reshape(-1)[c].mean()
    return total


def crop(feats, rng, min_frac=0.75):
    h32, w32 = feats[2].shape[-2:]
    ch = rng.integers(math.ceil(min_frac * h32), h32 + 1)
    cw = rng.integers(math.ceil(min_frac * w32), w32 + 1)
    y0, x0 = rng.integers(0, h32 - ch + 1), rng.integers(0, w32 - cw + 1)
    out = [f[..., y0 * s : (y0 + ch) * s, x0 * s : (x0 + cw) * s] for f, s in zip(feats, (4, 2, 1, 1))]
    return out, (x0 * 4, y0 * 4)


def stats(pool, idx):
    mean, std = [], []
    for lv in pool.variants[(EVAL_SCALE, False)]:
        x = lv[idx].float()
        mean.append(x.mean((0, 2, 3)))
        std.append(x.std((0, 2, 3)) + 1e-3)
    return mean, std


def info_gain(model, pool, idx, head):
    """Bits per fixation over a uniform map, at the evaluation scale, for one head."""
    model.eval()
    feats_all = pool.variants[(EVAL_SCALE, False)]
    tot, n = 0.0, 0
    with torch.no_grad():
        for s in range(0, len(idx), 64):
            b = idx[s : s + 64]
            logp = model([lv[b] for lv in feats_all])
            w = [0.0] * len(HEADS)
            w[head] = 1.0
            k = sum(len(pool.fix(g, head)) for g in b)
            tot += (-float(nll(logp, pool, b, False, None, w)) + math.log(logp.shape[2] * logp.shape[3])) * k
            n += k
    return tot / max(n, 1) / math.log(2)


def fit_prior(model, pool, idx, steps=300):
    """Fits each head's centre prior alone (content ignored) by maximum likelihood."""
    opt = torch.optim.Adam([model.centre], lr=0.05)
    feats = [lv[idx[:1]] for lv in pool.variants[(EVAL_SCALE, False)]]
    # The prior does not depend on the image: one grid, every training fixation.
    for _ in range(steps):
        logp = model(feats, prior_only=True)[0]
        loss = 0.0
        for j in range(len(HEADS)):
            r = np.concatenate([pool.fix(g, j) for g in idx])
            h, w = logp.shape[1:]
            c = torch.from_numpy((np.floor(r[:, 1] * h) * w + np.floor(r[:, 0] * w)).astype(np.int64)).to(DEV)
            loss = loss - logp[j].reshape(-1)[c].mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def train(pool, fit_idx, val_idx, channels, cfg, seed):
    """Trains one readout; early stopping on the validation images' information gain (both
    heads summed). Returns the model at its best epoch and that epoch."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    mean, std = stats(pool, np.sort(np.concatenate([fit_idx, val_idx])))
    model = ReadoutV3(channels, mean, std, cfg["hidden"]).to(DEV)
    if cfg["prior"] == "separate":
        fit_prior(model, pool, fit_idx)
        model.centre.requires_grad_(False)
    l1 = [p for c in model.l1 for p in c.parameters()]
    rest = [p for n, p in model.named_parameters() if not n.startswith("l1.") and p.requires_grad]
    opt = torch.optim.Adam([{"params": l1, "weight_decay": cfg["wd"]}, {"params": rest, "weight_decay": 0.0}], lr=cfg["lr"])
    keys = [k for k in pool.variants]
    best, best_score, best_ep = None, -1e9, 0
    weights = (1.0, cfg["glance_weight"])
    for ep in range(1, cfg["epochs"] + 1):
        model.train()
        order = rng.permutation(fit_idx)
        for s in range(0, len(order), 16):
            b = np.sort(order[s : s + 16])
            key = keys[rng.integers(len(keys))]
            feats = [lv[b] for lv in pool.variants[key]]
            flip = key[1]
            if rng.random() < 0.5:
                feats = [torch.flip(f, [-1]) for f in feats]
                flip = not flip
            fh, fw = feats[0].shape[-2:]
            box = None
            if rng.random() < 0.5:
                feats, (x0, y0) = crop(feats, rng)
                box = (x0, y0, fw, fh)
            loss = nll(model(feats), pool, b, flip, box, weights)
            opt.zero_grad()
            loss.backward()
            opt.step()
        score = info_gain(model, pool, val_idx, 0) + info_gain(model, pool, val_idx, 1)
        if score > best_score:
            best_score, best_ep = score, ep
            best = {k: t.detach().clone() for k, t in model.state_dict().items()}
        elif ep - best_ep >= cfg["patience"]:
            break
    model.load_state_dict(best)
    return model, best_ep


# ---------------------------------------------------------------------------------------------
# Scores (same definitions as metrics.py and crates/vision/src/metrics.rs), on the device


def scores(d, fix, neg_idx):
    """AUC-Judd, sAUC and NSS of map d (H×W tensor) at integer fixations fix (N×2, x y);
    neg_idx: flat pixel indices of the other images' fixations (sAUC negatives)."""
    h, w = d.shape
    flat = d.reshape(-1).double()
    idx = torch.unique(torch.from_numpy(fix[:, 1] * w + fix[:, 0]).to(d.device))
    n_fix, n_pix = len(idx), flat.numel()
    th = torch.sort(flat[idx], descending=True).values
    sorted_all = torch.sort(flat).values
    above = n_pix - torch.searchsorted(sorted_all, th, right=False)
    ar = torch.arange(1, n_fix + 1, device=d.device, dtype=torch.float64)
    tp = torch.cat([torch.zeros(1, device=d.device, dtype=torch.float64), ar / n_fix, torch.ones(1, device=d.device, dtype=torch.float64)])
    fp = torch.cat([torch.zeros(1, device=d.device, dtype=torch.float64), (above - ar) / (n_pix - n_fix), torch.ones(1, device=d.device, dtype=torch.float64)])
    auc = float(((fp[1:] - fp[:-1]) * (tp[1:] + tp[:-1]) / 2).sum())
    pos = flat[idx]
    neg = torch.sort(flat[neg_idx]).values
    below = torch.searchsorted(neg, pos, right=False)
    upto = torch.searchsorted(neg, pos, right=True)
    sauc = float((below + 0.5 * (upto - below)).sum() / (len(pos) * len(neg)))
    sd = flat.std()
    nss = float(((flat[idx] - flat.mean()) / sd).mean()) if sd > 0 else 0.0
    return np.array([auc, sauc, nss])


def evaluate(density_fn, s, idx, early, eval_w=800, eval_h=600):
    """Mean AUC-Judd, sAUC, NSS over images idx of set s, scored at 800 × 600 (both sets are
    4:3) against all fixations or the first-second ones; sAUC negatives: the other images'
    fixations of the same kind."""
    pts = [s.points(i, eval_w, eval_h, early) for i in range(len(s))]
    flat = [torch.from_numpy(p[:, 1] * eval_w + p[:, 0]).to(DEV) for p in pts]
    allf = torch.cat(flat)
    offs = np.cumsum([0] + [len(p) for p in pts])
    out = []
    for i in idx:
        if len(pts[i]) == 0:
            continue
        neg = torch.cat([allf[: offs[i]], allf[offs[i + 1] :]])
        out.append(scores(density_fn(i, eval_w, eval_h), pts[i], neg))
    return np.mean(out, 0)


def model_density(model, pool, base, head):
    feats_all = pool.variants[(EVAL_SCALE, False)]

    def fn(i, w, h):
        with torch.no_grad():
            g = base + i
            p = torch.exp(model([lv[[g]] for lv in feats_all]))[:, head : head + 1]
            return F.interpolate(p, size=(h, w), mode="bilinear", align_corners=False)[0, 0]

    return fn


def centre_density(w, h):
    u = (torch.arange(w, device=DEV, dtype=torch.float32) + 0.5) / w - 0.5
    v = (torch.arange(h, device=DEV, dtype=torch.float32) + 0.5) / h - 0.5
    return torch.exp(-0.5 * ((u[None, :] / 0.25) ** 2 + (v[:, None] / 0.25) ** 2))


# ---------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--osie", required=True)
    ap.add_argument("--eyecrowd", required=True)
    ap.add_argument("--backbones", default="lite0")
    ap.add_argument("--configs", default="separate", help="comma-separated prior modes to compare: joint, separate")
    ap.add_argument("--hidden", default="8,16")
    ap.add_argument("--final", default="", help="backbone:prior pairs whose union 5-fold readouts are saved besides the best's")
    ap.add_argument("--no-final", action="store_true", help="compare options only; save no readouts")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--patience", type=int, default=5)
    ap.add_argument("--out", required=True)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--compact", help="folder of gpu_pack.py's float16 backbones")
    ap.add_argument("--budget-s", type=float, default=1e9, help="skip optional work after this many seconds")
    a = ap.parse_args()
    t0 = time.time()
    torch.set_num_threads(os.cpu_count() or 2)
    os.makedirs(a.out, exist_ok=True)
    sets = [EyeSet("OSIE", a.osie, a.limit), EyeSet("EyeCrowd", a.eyecrowd, a.limit)]
    for s in sets:
        n_all = sum(len(r) for r in s.rel)
        n_early = sum(int(e.sum()) for e in s.early)
        print(f"{s.name}: {len(s)} images, {n_all} fixations, {n_early} starting within {GLANCE_MS:.0f} ms", flush=True)
    imgs = [[s.image(i) for i in range(len(s))] for s in sets]
    base = [0, len(sets[0])]
    hidden = tuple(int(x) for x in a.hidden.split(","))
    results = []
    log = open(os.path.join(a.out, "v3-results.txt"), "a")

    def report(line):
        print(line, flush=True)
        log.write(line + "\n")
        log.flush()

    # Baselines: centre-only on each set, for both fixation kinds.
    for si, s in enumerate(sets):
        for early in (False, True):
            m = evaluate(lambda i, w, h: centre_density(w, h), s, range(len(s)), early)
            report(f"baseline centre {s.name} {'glance' if early else 'full'}: AUC {m[0]:.3f} sAUC {m[1]:.3f} NSS {m[2]:.3f}")
    pools = {}
    for bb in a.backbones.split(","):
        t1 = time.time()
        m = backbone.load(bb, a.compact).to(DEV)
        taps = backbone.taps_of(m)
        variants = {}
        for ls in SCALES:
            for flip in (False, True) if ls == EVAL_SCALE else (False,):
                size = backbone.net_size(*imgs[0][0].size, ls)
                per = [extract(m, taps, im, size, flip) for im in imgs]
                variants[(ls, flip)] = [torch.cat([p[k] for p in per]) for k in range(4)]
        channels = [t.shape[1] for t in variants[(EVAL_SCALE, False)]]
        pools[bb] = (Pool(sets, variants), channels, taps)
        report(f"{bb}: taps {taps}, channels {channels}, features in {time.time() - t1:.0f} s")
        del m
    cfg0 = dict(hidden=hidden, lr=3e-3, wd=1e-3, epochs=a.epochs, patience=a.patience, glance_weight=1.0)
    n0, n1 = len(sets[0]), len(sets[1])
    all0 = np.arange(n0)
    all1 = np.arange(n0, n0 + n1)
    table = {}
    for bb in a.backbones.split(","):
        pool, channels, taps = pools[bb]
        for prior in a.configs.split(","):
            cfg = dict(cfg0, prior=prior)
            row = {}
            for src, dst, name in ((0, 1, "OSIE→EyeCrowd"), (1, 0, "EyeCrowd→OSIE")):
                t1 = time.time()
                tr = all0 if src == 0 else all1
                val = tr[(np.arange(len(tr)) % 4) == 0]
                fit = tr[(np.arange(len(tr)) % 4) != 0]
                model, ep = train(pool, fit, val, channels, cfg, seed=src)
                te = sets[dst]
                full = evaluate(model_density(model, pool, base[dst], 0), te, range(len(te)), False)
                gl = evaluate(model_density(model, pool, base[dst], 1), te, range(len(te)), True)
                fullmap_early = evaluate(model_density(model, pool, base[dst], 0), te, range(len(te)), True)
                row[name] = (full, gl, fullmap_early)
                report(
                    f"{bb} {prior} hidden={hidden} {name}: epoch {ep}; full AUC {full[0]:.3f} sAUC {full[1]:.3f} NSS {full[2]:.3f}; "
                    f"glance AUC {gl[0]:.3f} sAUC {gl[1]:.3f} NSS {gl[2]:.3f} (full map on first-second fixations: AUC {fullmap_early[0]:.3f} NSS {fullmap_early[2]:.3f}); "
                    f"sigma {np.round(torch.exp(model.log_sigma).tolist(), 4).tolist()} centre {np.round(model.centre.detach().cpu().numpy(), 2).tolist()} [{time.time() - t1:.0f} s]"
                )
            table[(bb, prior)] = row
            if time.time() - t0 > a.budget_s:
                report("budget reached: skipping the remaining options")
                break
        if time.time() - t0 > a.budget_s:
            break
    # The best option: mean over both directions of full NSS + glance NSS.
    best = max(table, key=lambda k: sum(v[0][2] + v[1][2] for v in table[k].values()))
    report(f"best by cross-set NSS (full + glance): {best}")
    finals = [best] + [tuple(x.split(":")) for x in a.final.split(",") if x and tuple(x.split(":")) != best]
    for bb, prior in [] if a.no_final else finals:
        pool, channels, taps = pools[bb]
        cfg = dict(cfg0, prior=prior)
        folds = np.concatenate([np.arange(n0) % 5, np.arange(n1) % 5])
        states, eps, rows = [], [], []
        for k in range(5):
            t1 = time.time()
            tr = np.where(folds != k)[0]
            te = np.where(folds == k)[0]
            val = tr[(np.arange(len(tr)) % 4) == 0]
            fit = tr[(np.arange(len(tr)) % 4) != 0]
            model, ep = train(pool, fit, val, channels, cfg, seed=100 + k)
            states.append({n: t.detach().cpu() for n, t in model.state_dict().items()})
            eps.append(ep)
            r = []
            for si, s in enumerate(sets):
                ids = [g - base[si] for g in te if (g >= base[si] and g < base[si] + len(s))]
                r.append(np.concatenate([
                    evaluate(model_density(model, pool, base[si], 0), s, ids, False),
                    evaluate(model_density(model, pool, base[si], 1), s, ids, True),
                ]))
            rows.append(r)
            report(f"union fold {k} {bb} {prior}: epoch {ep}; " + "; ".join(
                f"{s.name} full AUC {x[0]:.3f} sAUC {x[1]:.3f} NSS {x[2]:.3f} glance AUC {x[3]:.3f} NSS {x[5]:.3f}" for s, x in zip(sets, r)
            ) + f" [{time.time() - t1:.0f} s]")
        mean = np.mean(np.array(rows), 0)
        report(f"union 5-fold {bb} {prior} mean: " + "; ".join(
            f"{s.name} full AUC {x[0]:.3f} sAUC {x[1]:.3f} NSS {x[2]:.3f} glance AUC {x[3]:.3f} sAUC {x[4]:.3f} NSS {x[5]:.3f}" for s, x in zip(sets, mean)
        ))
        torch.save(
            {"folds": states, "fold_epochs": eps, "hidden": hidden, "backbone": bb, "taps": taps, "channels": channels,
             "prior": prior, "heads": HEADS, "saccade_ms": SACCADE_MS, "glance_ms": GLANCE_MS, "config": vars(a)},
            os.path.join(a.out, f"v3-{bb}-{prior}.pt"),
        )
    report(f"done in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
