"""Reading an eye-tracking set in the OSIE layout (fixations.json + stimuli/), with the same
conventions as the Rust evaluation (crates/server/src/cli/attention/osie.rs): images in file-name
order, image i in fold i mod k, fixations 1-based and rescaled to 0-based pixels of any size."""

import json
import os

import numpy as np


class Dataset:
    def __init__(self, root, limit=None):
        self.root = root
        with open(os.path.join(root, "fixations.json")) as f:
            meta = json.load(f)
        images = sorted(meta["images"], key=lambda e: e["file"])
        self.images = images[:limit] if limit else images

    def path(self, i):
        return os.path.join(self.root, "stimuli", self.images[i]["file"])

    def points(self, i, w, h):
        """All viewers' fixations of image i as integer (x, y) at size w × h (N×2 array)."""
        e = self.images[i]
        pts = [f for s in e["subjects"] for f in s if len(f) >= 2 and np.isfinite(f[0]) and np.isfinite(f[1])]
        a = np.array(pts, dtype=np.float64)[:, :2]
        x = np.clip(np.floor((a[:, 0] - 0.5) / e["width"] * w), 0, w - 1)
        y = np.clip(np.floor((a[:, 1] - 0.5) / e["height"] * h), 0, h - 1)
        return np.stack([x, y], 1).astype(np.int64)

    def rel_points(self, i):
        """All fixations of image i as positions relative to the image (0..1), N×2."""
        e = self.images[i]
        pts = [f for s in e["subjects"] for f in s if len(f) >= 2 and np.isfinite(f[0]) and np.isfinite(f[1])]
        a = np.array(pts, dtype=np.float64)[:, :2]
        return np.clip(np.stack([(a[:, 0] - 0.5) / e["width"], (a[:, 1] - 0.5) / e["height"]], 1), 0, 1 - 1e-9)
