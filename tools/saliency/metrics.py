"""The six saliency metrics, with the same definitions as crates/vision/src/metrics.rs
(MIT/Tübingen benchmark): AUC-Judd, shuffled AUC, NSS, CC, KLD, SIM.

Fixations are (x, y) integer pixel positions at the map's size; a pixel fixated several times
counts once for AUC, sAUC and NSS. The density map blurs one unit per fixation by a Gaussian.
"""

import numpy as np

EPS = 2.2204e-16


def _unique(w, fix):
    return np.unique(fix[:, 1] * w + fix[:, 0])


_BLUR_CACHE = {}


def _blur_matrix(n, sigma):
    """n × n matrix of a Gaussian blur (cut at 3σ), each row renormalised to the part of the
    kernel inside the image (normalised borders)."""
    key = (n, float(sigma))
    if key not in _BLUR_CACHE:
        i = np.arange(n)
        d = i[:, None] - i[None, :]
        k = np.exp(-0.5 * (d / sigma) ** 2) * (np.abs(d) <= int(np.ceil(3 * sigma)))
        _BLUR_CACHE[key] = k / k.sum(1, keepdims=True)
    return _BLUR_CACHE[key]


def gaussian_blur(img, sigma):
    """Separable Gaussian blur, kernel cut at 3 sigma, borders normalised."""
    h, w = img.shape
    return _blur_matrix(h, sigma) @ img @ _blur_matrix(w, sigma).T


def density(w, h, fix, sigma):
    """Fixation density: one unit per fixation, blurred (a sum of separable Gaussians, so
    computed as (blurred rows at the fixations' y) × (blurred columns at their x))."""
    kv = _blur_matrix(h, sigma)[:, fix[:, 1]]
    kh = _blur_matrix(w, sigma)[:, fix[:, 0]]
    return kv @ kh.T


def auc_judd(s, fix):
    flat = s.ravel()
    idx = _unique(s.shape[1], fix)
    n_fix, n_pix = len(idx), flat.size
    th = np.sort(flat[idx])[::-1]
    # Number of pixels with value >= each threshold.
    sorted_all = np.sort(flat)
    above = n_pix - np.searchsorted(sorted_all, th, side="left")
    tp = np.arange(1, n_fix + 1) / n_fix
    fp = (above - np.arange(1, n_fix + 1)) / (n_pix - n_fix)
    tp = np.concatenate([[0.0], tp, [1.0]])
    fp = np.concatenate([[0.0], fp, [1.0]])
    return float(np.sum((fp[1:] - fp[:-1]) * (tp[1:] + tp[:-1]) / 2))


def auc_shuffled(s, fix, others):
    pos = s.ravel()[_unique(s.shape[1], fix)]
    neg = np.sort(s[others[:, 1], others[:, 0]])
    below = np.searchsorted(neg, pos, side="left")
    upto = np.searchsorted(neg, pos, side="right")
    return float((below + 0.5 * (upto - below)).sum() / (len(pos) * len(neg)))


def nss(s, fix):
    sd = s.std(ddof=1)
    if sd == 0:
        return 0.0
    z = (s - s.mean()) / sd
    return float(z.ravel()[_unique(s.shape[1], fix)].mean())


def cc(s, d):
    a = s - s.mean()
    b = d - d.mean()
    den = np.sqrt((a * a).sum() * (b * b).sum())
    return float((a * b).sum() / den) if den > 0 else 0.0


def kld(s, d):
    q = s / s.sum()
    p = d / d.sum()
    return float((p * np.log(EPS + p / (q + EPS))).sum())


def sim(s, d):
    def prep(a):
        a = (a - a.min()) / max(a.max() - a.min(), 1e-300)
        return a / max(a.sum(), 1e-300)

    return float(np.minimum(prep(s), prep(d)).sum())


NAMES = ["AUC-Judd", "sAUC", "NSS", "CC", "KLD", "SIM"]


def score_all(s, fix, others, sigma):
    """All six metrics of map `s` (H×W) against integer fixations `fix` (N×2, x y)."""
    h, w = s.shape
    d = density(w, h, fix, sigma)
    return np.array(
        [auc_judd(s, fix), auc_shuffled(s, fix, others), nss(s, fix), cc(s, d), kld(s, d), sim(s, d)]
    )
