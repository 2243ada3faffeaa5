"""himalaya's own example data, candidates and fit (issue 25): BandedRidgeCV,
or with more features than rows its multiple-kernel random search on the
bands' linear kernels (what himalaya recommends there; the same model).

Run by bench/himalaya_agree.R with /usr/bin/python3 and HIMALAYA_PATH (a
source tree of gallantlab/himalaya, never vendored here):
    python3 himalaya_example.py DIR N_KERNELS N_TARGETS N_TRAIN FEATURES N_ITER SEED
FEATURES is a comma-separated list of the features of each kernel.  Writes to
DIR: dims.txt, x.bin, y.bin (column-major float64), group.bin, gamma.bin
(candidates x groups: himalaya's Dirichlet samples, the first replaced by
the equal weighting, as its random search does), alpha.bin, fold.bin (KFold,
5 contiguous folds) and the fit's best_gamma.bin, best_alpha.bin, time.txt.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.environ.get("HIMALAYA_PATH", "/tmp/himalaya"))
from himalaya.backend import set_backend  # noqa: E402
from himalaya.kernel_ridge import generate_dirichlet_samples  # noqa: E402
from himalaya.kernel_ridge import solve_multiple_kernel_ridge_random_search  # noqa: E402
from himalaya.ridge import BandedRidgeCV  # noqa: E402
from himalaya.utils import generate_multikernel_dataset  # noqa: E402
from sklearn.model_selection import KFold  # noqa: E402

set_backend("numpy")
out, n_kernels, n_targets, n_train, features, n_iter, seed = sys.argv[1:8]
n_kernels, n_targets, n_train, n_iter, seed = map(int, (n_kernels, n_targets, n_train, n_iter, seed))
features = [int(f) for f in features.split(",")]
x, _, y, _, _, n_features_list = generate_multikernel_dataset(
    n_kernels=n_kernels, n_targets=n_targets, n_samples_train=n_train, n_samples_test=10,
    n_features_list=features, random_state=seed)
x = np.asarray(x, dtype=np.float64)
y = np.asarray(y, dtype=np.float64)
groups = np.concatenate([np.full(f, k) for k, f in enumerate(n_features_list)])
gammas = np.asarray(generate_dirichlet_samples(n_iter, n_kernels, concentration=[0.1, 1.0],
                                               random_state=seed), dtype=np.float64)
gammas[0] = 1.0 / n_kernels
alphas = np.logspace(-10, 10, 21)
cv = KFold(n_splits=5)
folds = np.zeros(n_train)
for k, (_, test) in enumerate(cv.split(x)):
    folds[test] = k
start = time.perf_counter()
if x.shape[1] > x.shape[0]:
    ks = np.stack([x[:, groups == k] @ x[:, groups == k].T for k in range(n_kernels)])
    deltas = solve_multiple_kernel_ridge_random_search(
        ks, y, n_iter=gammas, alphas=alphas, cv=cv, fit_intercept=True, return_weights="dual",
        progress_bar=False, jitter_alphas=False)[0]
else:
    model = BandedRidgeCV(groups=groups, fit_intercept=True, cv=cv,
                          solver_params=dict(n_iter=gammas, alphas=alphas, progress_bar=False,
                                             warn=False))
    model.fit(x, y)
    deltas = model.deltas_
elapsed = time.perf_counter() - start
deltas = np.asarray(deltas)
best_alpha = 1.0 / np.exp(deltas).sum(0)
best_gamma = np.exp(deltas) * best_alpha[None, :]


def write(name, a):
    np.asarray(a, dtype=np.float64).ravel(order="F").tofile(os.path.join(out, name))


with open(os.path.join(out, "dims.txt"), "w") as f:
    f.write("%d %d %d %d %d\n" % (x.shape[0], x.shape[1], y.shape[1], gammas.shape[0], n_kernels))
for name, a in [("x.bin", x), ("y.bin", y), ("group.bin", groups), ("gamma.bin", gammas),
                ("alpha.bin", alphas), ("fold.bin", folds), ("best_gamma.bin", best_gamma),
                ("best_alpha.bin", best_alpha)]:
    write(name, a)
with open(os.path.join(out, "time.txt"), "w") as f:
    f.write("%.6f\n" % elapsed)
