"""Packs what v3.py needs onto a machine that has PyTorch but neither the data sets nor the
backbone packages, within a small transfer: both sets' images area-averaged to 384 × 288 (both
are 4:3) as WebP, their fixations gzipped, and the backbones' ImageNet weights as float16 without
the classifier. v3.py reads the copy with `--compact DIR/backbones`; its 320 and 448 px scale
augmentation is then resized from the 384 px copy (close to, not exactly, what the originals give).

    python gpu_pack.py --osie DIR --eyecrowd DIR --backbones lite0,lite1 --out DIR
"""

import argparse
import gzip
import os
import shutil

import torch
from PIL import Image

from backbone import load, net_size


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--osie", required=True)
    ap.add_argument("--eyecrowd", required=True)
    ap.add_argument("--backbones", default="lite0,lite1")
    ap.add_argument("--quality", type=int, default=85)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    for name, root in (("osie", a.osie), ("eyecrowd", a.eyecrowd)):
        dst = os.path.join(a.out, name)
        os.makedirs(os.path.join(dst, "stimuli"), exist_ok=True)
        with open(os.path.join(root, "fixations.json"), "rb") as f, gzip.open(os.path.join(dst, "fixations.json.gz"), "wb") as g:
            shutil.copyfileobj(f, g)
        for fn in sorted(os.listdir(os.path.join(root, "stimuli"))):
            img = Image.open(os.path.join(root, "stimuli", fn)).convert("RGB")
            img = img.resize(net_size(*img.size, 384), Image.BOX)
            # The file keeps its name (fixations.json refers to it); PIL reads WebP whatever the suffix.
            img.save(os.path.join(dst, "stimuli", fn), "WEBP", quality=a.quality)
    os.makedirs(os.path.join(a.out, "backbones"), exist_ok=True)
    for bb in a.backbones.split(","):
        m = load(bb)
        sd = {k: v.half() for k, v in m.state_dict().items() if not k.startswith("_fc.")}
        torch.save(sd, os.path.join(a.out, "backbones", f"{bb}.pt"))


if __name__ == "__main__":
    main()
