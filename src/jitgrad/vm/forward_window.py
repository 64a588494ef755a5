"""The compiled im2col forward: a convolution's window unrolling as plain loops.

numpy copies the 7-D strided window view (ops/im2col.py) through its n-d iterator, one
inner loop per output row of Wo elements: ~60 us of a 3x3 convolution of an 8x8x16x16
batch whose whole forward in torch takes ~110 us. The loops below copy the same elements
(a copy: the values are numpy's bit for bit), a unit-stride row as one vectorised loop.
Like vm/forward.py, the op calls it only once the backward interpreter has loaded Numba.
"""

from __future__ import annotations

from ._numba import jit


@jit
def im2col(xp, N, C, Hp, Wp, G, kh, kw, sh, sw, dh, dw, Ho, Wo, rows, out):
    # pragma: no cover - compiled
    """out[n, g, (c, i, j), (ho, wo)] = xp[n, g * Cg + c, ho * sh + i * dh, wo * sw + j * dw]
    for xp the padded image [N, C, Hp, Wp] and out [N, G, rows, Ho * Wo] (rows >= Cg*kh*kw;
    the rows beyond are left alone), both flat and C-contiguous."""
    Cg = C // G
    S = Ho * Wo
    for n in range(N):
        for g in range(G):
            for c in range(Cg):
                plane = ((n * C + g * Cg + c) * Hp) * Wp
                for i in range(kh):
                    for j in range(kw):
                        r = (c * kh + i) * kw + j
                        dst = out[((n * G + g) * rows + r) * S:((n * G + g) * rows + r + 1) * S]
                        for ho in range(Ho):
                            start = plane + (ho * sh + i * dh) * Wp + j * dw
                            d = dst[ho * Wo:(ho + 1) * Wo]
                            if sw == 1:
                                s = xp[start:start + Wo]
                                for wo in range(Wo):
                                    d[wo] = s[wo]
                            else:
                                s = xp[start:start + (Wo - 1) * sw + 1]
                                for wo in range(Wo):
                                    d[wo] = s[wo * sw]


@jit
def repeat2d(x, rh, rw, out):  # pragma: no cover - compiled
    """out[n, c, h * rh + a, w * rw + b] = x[n, c, h, w] for x [N, C, H, W] and out
    [N, C, H * rh, W * rw], both C-contiguous: nearest upsampling by integer factors
    (ops/resample.py), numpy's two np.repeat calls in one pass (a copy: the values bit for
    bit). Each output row is written once from the input row, then copied rh - 1 times."""
    N, C, H, W = x.shape
    Wo = W * rw
    for n in range(N):
        for c in range(C):
            img = x[n, c]
            dst = out[n, c]
            for h in range(H):
                src = img[h]
                first = dst[h * rh]
                if rw == 2:
                    for w in range(W):
                        v = src[w]
                        first[2 * w] = v
                        first[2 * w + 1] = v
                else:
                    for w in range(W):
                        v = src[w]
                        for b in range(rw):
                            first[w * rw + b] = v
                for a in range(1, rh):
                    row = dst[h * rh + a]
                    for q in range(Wo):
                        row[q] = first[q]
