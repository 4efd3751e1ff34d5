#!/usr/bin/env python3
"""Coefficients of rlx__erf_poly in rlx.h (the AVX2 erf of the CPU backend).

erf(x)/x is an entire function of z = x^2. On z in [0, 16] (|x| <= 4; beyond, erf rounds to +-1 in float) it is
interpolated at Chebyshev points by a polynomial of degree 24 in t = z/8 - 1, converted to monomial form in t
and printed highest degree first (Horner order). Prints the largest error of x * p(t) against math.erf.
Needs numpy. Usage: python3 tools/gen_erf_poly.py
"""
import math

import numpy as np
from numpy.polynomial import chebyshev as C
from numpy.polynomial import polynomial as P

DEG = 24


def f(t):
    x = math.sqrt(8.0 * (t + 1.0))
    return math.erf(x) / x if x > 0 else 2.0 / math.sqrt(math.pi)


def main():
    p = C.cheb2poly(C.chebinterpolate(np.vectorize(f), DEG))
    ts = np.linspace(-1.0, 1.0, 200001)
    xs = np.sqrt(8.0 * (ts + 1.0))
    err = np.max(np.abs(xs * P.polyval(ts, p) - np.array([math.erf(x) for x in xs])))
    print(",\n".join("%.17g" % v for v in p[::-1]))
    print("max |x p(t) - erf(x)| = %.3g" % err)


if __name__ == "__main__":
    main()
