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
