"""himalaya's BandedRidgeCV on the data bench/banded.R writes (issue 25).

Run by bench/banded.R (and tests of agreement) with /usr/bin/python3 and
himalaya's source tree on PYTHONPATH (HIMALAYA_PATH; never vendored here):
    python3 himalaya_banded.py DIR
DIR holds x.bin (n x d, column-major float64), y.bin (n x T), alpha.bin,
gamma.bin (candidates x groups), group.bin (group of each column, 0-based),
fold.bin (fold of each row, 0-based) and dims.txt ("n d T C G"); writes
time.txt (seconds of fit(), elapsed and CPU), best_gamma.bin (groups x T), best_alpha.bin (T)
and cv_scores.bin (candidates x T).
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.environ.get("HIMALAYA_PATH", "/tmp/himalaya"))
from himalaya.backend import set_backend  # noqa: E402
from himalaya.ridge import BandedRidgeCV  # noqa: E402
from sklearn.model_selection import PredefinedSplit  # noqa: E402

set_backend("numpy")
d_ = sys.argv[1]
n, d, t, c, g = [int(v) for v in open(os.path.join(d_, "dims.txt")).read().split()]


def read(name, shape):
    return np.fromfile(os.path.join(d_, name), dtype=np.float64).reshape(shape, order="F")


x = read("x.bin", (n, d))
y = read("y.bin", (n, t))
alphas = np.fromfile(os.path.join(d_, "alpha.bin"), dtype=np.float64)
gammas = read("gamma.bin", (c, g))
groups = np.fromfile(os.path.join(d_, "group.bin"), dtype=np.float64).astype(int)
folds = np.fromfile(os.path.join(d_, "fold.bin"), dtype=np.float64).astype(int)

model = BandedRidgeCV(groups=groups, fit_intercept=True, cv=PredefinedSplit(folds),
                      solver_params=dict(n_iter=gammas, alphas=alphas, progress_bar=False,
                                         warn=False))
start = time.perf_counter()
cpu = time.process_time()
model.fit(x, y)
elapsed = time.perf_counter() - start
cpu = time.process_time() - cpu
deltas = np.asarray(model.deltas_)
best_alpha = 1.0 / np.exp(deltas).sum(0)
best_gamma = np.exp(deltas) * best_alpha[None, :]
with open(os.path.join(d_, "time.txt"), "w") as f:
    f.write("%.6f %.6f\n" % (elapsed, cpu))
np.asfortranarray(best_gamma).T.ravel().tofile(os.path.join(d_, "best_gamma.bin"))
best_alpha.tofile(os.path.join(d_, "best_alpha.bin"))
np.asarray(model.cv_scores_).T.ravel().tofile(os.path.join(d_, "cv_scores.bin"))
