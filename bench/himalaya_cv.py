# himalaya's RidgeCV (one alpha per target, over fixed folds), timed on the
# data bench/targets.R writes; himalaya from a source tree (HIMALAYA_PATH).
#
#   python3 bench/himalaya_cv.py HIMALAYA DIR N D T REPS
#
# DIR holds x.bin (N x D, column-major doubles, as R writes a matrix),
# y.bin (N x T), alpha.bin and folds.bin (fold of each row, 0-based).
# Prints the seconds of each of REPS fits on one line, then the chosen alpha
# of each target (of the last fit).
import sys
import time

import numpy as np

himalaya, d, n, p, nt, reps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), \
    int(sys.argv[5]), int(sys.argv[6])
sys.path.insert(0, himalaya)
from himalaya.backend import set_backend  # noqa: E402
from himalaya.ridge import RidgeCV  # noqa: E402
from sklearn.model_selection import PredefinedSplit  # noqa: E402

set_backend("numpy")
x = np.fromfile(d + "/x.bin").reshape((p, n)).T.copy()
y = np.fromfile(d + "/y.bin").reshape((nt, n)).T.copy()
alphas = np.fromfile(d + "/alpha.bin")
folds = np.fromfile(d + "/folds.bin").astype(int)
cv = PredefinedSplit(folds)

times = []
model = None
for _ in range(reps):
    t0 = time.perf_counter()
    model = RidgeCV(alphas=alphas, fit_intercept=True, cv=cv).fit(x, y)
    times.append(time.perf_counter() - t0)
print(" ".join(repr(t) for t in times))
print(" ".join(repr(float(a)) for a in np.asarray(model.best_alphas_)))
