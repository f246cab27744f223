"""The local renderer's moving background: two travelling sine waves mixing three colours
picked from the render's seed, written straight into YUV 4:2:0 planes (see `render`)."""

from __future__ import annotations

import colorsys
import math
import random

import numpy as np
import numpy.typing as npt

from vidrouter.providers.local.overlay import even, rgb_to_yuv

_F32 = npt.NDArray[np.float32]
_U8 = npt.NDArray[np.uint8]

_BLAS_BAND_MNK = 200_000  # see Background: keeps each GEMM single-threaded in OpenBLAS


class Background:
    """Two travelling sine waves mixing three seed-picked colours.

    Each wave is ``sin(ax*x + ay*y + w*t + phi) = sin(A(x, t)) cos(B(y)) + cos(A) sin(B)``, so
    a colour plane (a linear mix of the waves, times a separable vignette for luma) is a rank-5
    matrix product ``columns(y) @ rows(x, t)``: a few small BLAS calls per frame instead of
    a per-pixel ``sin``.  Luma is full resolution, chroma half resolution.
    """

    def __init__(self, width: int, height: int, seed: int) -> None:
        rng = random.Random(seed)  # local instance: no global random state is touched
        short = min(width, height)
        hue = rng.random()
        hues = (hue, (hue + rng.uniform(0.18, 0.42)) % 1.0, (hue + rng.uniform(0.5, 0.8)) % 1.0)
        colours = np.array(
            [
                rgb_to_yuv(colorsys.hsv_to_rgb(h, rng.uniform(0.5, 0.8), rng.uniform(0.5, 0.85)))
                for h in hues
            ],
            dtype=np.float64,
        )
        # plane = base + d1 * (0.5 + 0.5 w1) + 0.8 * d2 * (0.5 + 0.5 w2)
        #       = const + e1 * w1 + e2 * w2                      (per Y/U/V channel)
        d1, d2 = colours[1] - colours[0], colours[2] - colours[0]
        self.e1, self.e2 = 0.5 * d1, 0.4 * d2
        self.const = colours[0] + 0.5 * d1 + 0.4 * d2

        # Pixel-centre coordinates normalised by the short side.
        x_full = (np.arange(width) + 0.5) / short
        y_full = (np.arange(height) + 0.5) / short
        x_half = (np.arange(width // 2) + 0.5) * 2.0 / short
        y_half = (np.arange(height // 2) + 0.5) * 2.0 / short

        # Per wave: (ax, speed, phase); column matrices [cos B1, sin B1, cos B2, sin B2, 1].
        self.waves: list[tuple[float, float, float]] = []
        cols_full, cols_half = [], []
        for _ in range(2):
            angle = rng.uniform(0.0, 2.0 * math.pi)
            freq = rng.uniform(2.0, 4.5)  # radians per short-side unit
            speed = rng.uniform(0.7, 1.6) * rng.choice((-1.0, 1.0))  # radians per second
            phase = rng.uniform(0.0, 2.0 * math.pi)
            ay = freq * math.sin(angle)
            self.waves.append((freq * math.cos(angle), speed, phase))
            cols_full += [np.cos(ay * y_full), np.sin(ay * y_full)]
            cols_half += [np.cos(ay * y_half), np.sin(ay * y_half)]
        cols_full.append(np.ones_like(y_full))
        cols_half.append(np.ones_like(y_half))

        # Separable vignette on luma: v(x, y) = vx(x) * vy(y), folded into the factors.
        vx = 1.0 - 0.5 * (x_full / x_full[-1] - 0.5) ** 2 * 1.8
        vy = 1.0 - 0.5 * (y_full / y_full[-1] - 0.5) ** 2 * 1.8
        self.cols_y: _F32 = (np.stack(cols_full, axis=1) * vy[:, None]).astype(np.float32)
        self.cols_c: _F32 = np.stack(cols_half, axis=1).astype(np.float32)
        self.x_full, self.x_half, self.vx = x_full, x_half, vx
        self.rows_y = np.empty((5, width), dtype=np.float32)
        self.rows_c = np.empty((5, width), dtype=np.float32)  # U then V, each width // 2
        # The products are evaluated in bands of rows small enough (m*n*k below OpenBLAS's
        # 65536*4 threshold) for BLAS to stay single-threaded: its spinning thread pool
        # otherwise fights x264's threads for the CPUs and slows the render by ~30%.
        # Bands also keep the float scratch buffer in cache for the clip/convert.
        self.band = max(2, min(64, even(_BLAS_BAND_MNK // (5 * width) - 1)))
        self.scratch: _F32 = np.empty((self.band, width), dtype=np.float32)

    def render(self, t: float, y_plane: _U8, u_plane: _U8, v_plane: _U8) -> None:
        """Write the background for time ``t`` into the three uint8 planes."""
        half = self.x_half.shape[0]
        for index, (ax, speed, phase) in enumerate(self.waves):
            shift = speed * t + phase
            a_full = ax * self.x_full + shift
            a_half = ax * self.x_half + shift
            sin_f, cos_f = np.sin(a_full), np.cos(a_full)
            sin_h, cos_h = np.sin(a_half), np.cos(a_half)
            amp = self.e1 if index == 0 else self.e2
            self.rows_y[2 * index] = amp[0] * sin_f * self.vx
            self.rows_y[2 * index + 1] = amp[0] * cos_f * self.vx
            for channel, start in ((1, 0), (2, half)):
                self.rows_c[2 * index, start : start + half] = amp[channel] * sin_h
                self.rows_c[2 * index + 1, start : start + half] = amp[channel] * cos_h
        self.rows_y[4] = self.const[0] * self.vx
        self.rows_c[4, :half] = self.const[1]
        self.rows_c[4, half:] = self.const[2]

        band = self.band
        for top in range(0, y_plane.shape[0], band):
            tmp = self._band(self.cols_y[top : top + band], self.rows_y)
            y_plane[top : top + band] = tmp
        for top in range(0, u_plane.shape[0], band):
            tmp = self._band(self.cols_c[top : top + band], self.rows_c)
            u_plane[top : top + band] = tmp[:, :half]
            v_plane[top : top + band] = tmp[:, half:]

    def _band(self, cols: _F32, rows: _F32) -> _F32:
        tmp = self.scratch[: cols.shape[0]]
        np.matmul(cols, rows, out=tmp)
        np.clip(tmp, 0.0, 255.0, out=tmp)
        return tmp
