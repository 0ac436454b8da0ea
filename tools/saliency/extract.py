"""Extracts the frozen backbone's features for every image of an OSIE-layout set, at one input
size, unflipped and (unless --no-flip) flipped left-right, into a cache file (float16) for readout training.

    python extract.py --dataset ../../../shared/datasets/osie --long-side 384 [--no-flip] [--cache DIR]
"""

import argparse
import os
import time

import numpy as np
import torch
from PIL import Image

import backbone
from osie import Dataset

DEFAULT_CACHE = "/tmp/regard-saliency-deep"


def cache_path(cache, long_side, flip):
    return os.path.join(cache, f"features-{long_side}{'-flip' if flip else ''}.npz")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--long-side", type=int, default=backbone.NET_LONG_SIDE)
    ap.add_argument("--cache", default=DEFAULT_CACHE)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--no-flip", action="store_true", help="only the unflipped images (training mirrors their feature maps)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    os.makedirs(a.cache, exist_ok=True)
    ds = Dataset(a.dataset, a.limit)
    m = backbone.load()
    for flip in (False,) if a.no_flip else (False, True):
        levels = [[] for _ in backbone.CHANNELS]
        t0 = time.time()
        for i in range(len(ds.images)):
            img = Image.open(ds.path(i)).convert("RGB")
            if flip:
                img = img.transpose(Image.FLIP_LEFT_RIGHT)
            x = backbone.to_input(img, backbone.net_size(*img.size, a.long_side))
            for lv, f in zip(levels, backbone.features(m, x)):
                lv.append(f[0].numpy().astype(np.float16))
            if i % 100 == 0:
                print(f"{a.long_side} flip={flip} {i}/{len(ds.images)} {time.time() - t0:.0f} s", flush=True)
        np.savez(cache_path(a.cache, a.long_side, flip), *[np.stack(lv) for lv in levels])


if __name__ == "__main__":
    main()
