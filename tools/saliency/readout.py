"""The readout: from the backbone's four feature maps to a log-density over the stride-8 grid.

Per level, a 1×1 convolution to `hidden[0]` channels (the per-channel standardisation is part of
it), upsampled bilinearly (half-pixel centres) to the stride-8 grid and summed, softplus; a 1×1
convolution to `hidden[1]` channels, softplus; a 1×1 convolution to one channel. That map is
blurred by a Gaussian whose σ is learned (a fraction of the grid's longer side; normalised at the
borders), a learned centre bias w_u2·u² + w_v2·v² + w_v·v is added (u, v: offsets from the centre
in units of width and height), and a softmax over the grid gives the predicted fixation density.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from backbone import CHANNELS


class Readout(nn.Module):
    def __init__(self, mean, std, hidden=(8, 16)):
        super().__init__()
        self.register_buffer("mean", torch.cat(mean))
        self.register_buffer("std", torch.cat(std))
        self.l1 = nn.ModuleList([nn.Conv2d(c, hidden[0], 1, bias=False) for c in CHANNELS])
        self.b1 = nn.Parameter(torch.zeros(hidden[0]))
        self.l2 = nn.Conv2d(hidden[0], hidden[1], 1)
        self.l3 = nn.Conv2d(hidden[1], 1, 1)
        self.log_sigma = nn.Parameter(torch.tensor(math.log(0.03)))
        self.centre = nn.Parameter(torch.tensor([-5.0, -7.0, 0.0]))

    def standardise(self, feats):
        out, o = [], 0
        for f, c in zip(feats, CHANNELS):
            out.append((f - self.mean[o : o + c, None, None]) / self.std[o : o + c, None, None])
            o += c
        return out

    def logits(self, feats):
        """Score map on the stride-8 grid (N×1×H×W) before blur and centre bias."""
        feats = self.standardise(feats)
        h, w = feats[0].shape[-2:]
        s = self.b1[None, :, None, None]
        for f, conv in zip(feats, self.l1):
            y = conv(f)
            if y.shape[-2:] != (h, w):
                y = F.interpolate(y, size=(h, w), mode="bilinear", align_corners=False)
            s = s + y
        s = F.softplus(s)
        s = F.softplus(self.l2(s))
        return self.l3(s)

    def forward(self, feats):
        """Log-density over the stride-8 grid, N×H×W (each image's exp sums to 1)."""
        s = self.logits(feats)
        n, _, h, w = s.shape
        s = blur(s, torch.exp(self.log_sigma) * max(h, w))
        s = s[:, 0] + centre_bias(self.centre, h, w, s.device)
        return F.log_softmax(s.reshape(n, -1), 1).reshape(n, h, w)


def gaussian_kernel(sigma, radius):
    x = torch.arange(-radius, radius + 1, dtype=torch.float32)
    k = torch.exp(-0.5 * (x / sigma) ** 2)
    return k / k.sum()


def blur_radius(sigma_cells):
    if torch.is_tensor(sigma_cells):
        sigma_cells = sigma_cells.detach()
    return max(1, int(math.ceil(3.0 * float(sigma_cells))))


def blur(s, sigma_cells):
    """Separable Gaussian blur of N×1×H×W with zero padding, divided by the blurred ones (so
    the borders are normalised); kernel cut at 3σ (at least radius 1)."""
    r = blur_radius(sigma_cells)
    k = gaussian_kernel(sigma_cells, r)
    kh = k.view(1, 1, 1, -1)
    kv = k.view(1, 1, -1, 1)

    def sep(x):
        x = F.conv2d(x, kh, padding=(0, r))
        return F.conv2d(x, kv, padding=(r, 0))

    ones = torch.ones_like(s[:1])
    return sep(s) / sep(ones)


def centre_bias(c, h, w, device=None):
    v = (torch.arange(h, dtype=torch.float32, device=device) + 0.5) / h - 0.5
    u = (torch.arange(w, dtype=torch.float32, device=device) + 0.5) / w - 0.5
    return c[0] * u[None, :] ** 2 + c[1] * v[:, None] ** 2 + c[2] * v[:, None]
