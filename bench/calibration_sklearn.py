"""Platt scaling with 5-fold cross-fitting, as bench/calibration.R compares it.

For each split of a data set: scikit-learn's RidgeClassifier(alpha) (the
same ridge on the -1/+1 one-vs-all coding, lambda on the sum-of-squares
scale) wrapped in CalibratedClassifierCV(method="sigmoid", ensemble=False)
over the SAME calibration folds as rlsc's (PredefinedSplit): the held-out
decision values of the folds calibrate one sigmoid per class, applied to the
classifier refitted on all training rows, as rlsc applies its map.

usage: calibration_sklearn.py DIR   (DIR holds x.csv, y.csv, plan.csv, alpha.csv;
writes prob.csv: split, row, then one column per class)
"""
import sys
import numpy as np
from sklearn.linear_model import RidgeClassifier
from sklearn.calibration import CalibratedClassifierCV
from sklearn.model_selection import PredefinedSplit

d = sys.argv[1]
x = np.loadtxt(f"{d}/x.csv", delimiter=",", ndmin=2)
y = np.loadtxt(f"{d}/y.csv", delimiter=",", dtype=str)
plan = np.loadtxt(f"{d}/plan.csv", delimiter=",", dtype=int, ndmin=2)   # split, row, fold (0 = test)
alpha = np.loadtxt(f"{d}/alpha.csv", delimiter=",", ndmin=1)
out = []
for s in np.unique(plan[:, 0]):
    p = plan[plan[:, 0] == s]
    train = p[p[:, 2] > 0]
    test = p[p[:, 2] == 0]
    xtr, ytr = x[train[:, 1] - 1], y[train[:, 1] - 1]
    cv = PredefinedSplit(train[:, 2] - 1)
    cal = CalibratedClassifierCV(estimator=RidgeClassifier(alpha=alpha[s - 1]), method="sigmoid",
                                 cv=cv, ensemble=False)
    cal.fit(xtr, ytr)
    prob = cal.predict_proba(x[test[:, 1] - 1])
    for r, pr in zip(test[:, 1], prob):
        out.append([s, r] + list(pr))
np.savetxt(f"{d}/prob.csv", np.array(out), delimiter=",", fmt="%.17g")
