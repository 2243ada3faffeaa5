# scikit-learn's efficient LOO over a grid of alphas (RidgeCV, or
# RidgeClassifierCV for class labels), timed on data written by bench/peers.R.
#
#   python3 bench/sklearn_loo.py DIR N D T KIND REPS
#
# DIR holds x.bin (N x D, column-major doubles, as R writes a matrix),
# y.bin (N x T doubles, or N class labels for KIND = class) and alpha.bin.
# Prints the median seconds of REPS fits (without storing the LOO values),
# then, from one more fit with store_cv_values=True, the LOO mean squared
# error at each alpha (over rows and response columns; for classes over the
# -1/+1 one-vs-all columns, as rlsc codes them), in the order of alpha.bin.
import statistics
import sys
import time

import numpy as np
from sklearn.linear_model import RidgeClassifierCV, RidgeCV

d, n, p, nt, kind, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), \
    sys.argv[5], int(sys.argv[6])
x = np.fromfile(d + "/x.bin").reshape((p, n)).T.copy()
y = np.fromfile(d + "/y.bin")
y = y.reshape((nt, n)).T.copy() if nt > 1 and kind != "class" else y
if kind == "class":
    y = y.astype(int)
alphas = np.fromfile(d + "/alpha.bin")
model = RidgeClassifierCV if kind == "class" else RidgeCV


def fit(store):
    return model(alphas=alphas, fit_intercept=True, store_cv_values=store).fit(x, y)


times = []
for _ in range(reps):
    t0 = time.perf_counter()
    fit(False)
    times.append(time.perf_counter() - t0)
print(statistics.median(times))
cv = fit(True).cv_values_
cv = cv.reshape((n, -1, len(alphas)))   # rows x responses x alphas
print(" ".join(repr(v) for v in cv.mean(axis=(0, 1))))
