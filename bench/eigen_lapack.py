# LAPACK's symmetric eigensolvers through SciPy, on the matrix written by
# bench/eigen.R, on the same system BLAS and LAPACK as R:
#
#   python3 bench/eigen_lapack.py FILE N DRIVER
#
# FILE holds the N x N matrix (doubles); DRIVER is "evd" (dsyevd, divide and
# conquer) or "evr" (dsyevr, MRRR: what R's eigen() calls).  Prints the
# seconds of one decomposition, then the orthogonality max|V'V - I| and the
# relative residual max|AV - V diag(values)| / max|values|.
import sys
import time

import numpy as np
from scipy.linalg import eigh

path, n, driver = sys.argv[1], int(sys.argv[2]), sys.argv[3]
a = np.fromfile(path).reshape((n, n))
t0 = time.perf_counter()
values, vectors = eigh(a, driver=driver, check_finite=False)
seconds = time.perf_counter() - t0
orth = np.abs(vectors.T @ vectors - np.eye(n)).max()
resid = np.abs(a @ vectors - vectors * values).max() / np.abs(values).max()
print(seconds)
print(orth, resid)
