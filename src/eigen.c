/* Step 2: the one eigendecomposition of a symmetric matrix, by LAPACK's dsyevr
   (MRRR), on a copy; eigenvalues are returned largest first. */
#include "rlsc.h"

SEXP rlsc_eigen(SEXP s)
{
    int n, nc;
    check_double_matrix(s, "s", &n, &nc);
    if (n != nc) error("'s' must be square, not %d x %d", n, nc);

    SEXP values = PROTECT(allocVector(REALSXP, n));
    SEXP vectors = PROTECT(allocMatrix(REALSXP, n, n));
    if (n > 0) {
        double *a = (double *) R_alloc((size_t) n * n, sizeof(double));
        memcpy(a, REAL(s), sizeof(double) * (size_t) n * n);   /* dsyevr destroys its input */
        for (size_t k = 0; k < (size_t) n * n; k++)
            if (!R_FINITE(a[k])) error("'s' must be finite");
        double *ev = (double *) R_alloc(n, sizeof(double));
        double *z = (double *) R_alloc((size_t) n * n, sizeof(double));
        int *isuppz = (int *) R_alloc(2 * (size_t) n, sizeof(int));
        double vl = 0.0, vu = 0.0, abstol = F77_CALL(dlamch)("S" FCONE);
        int il = 0, iu = 0, m = 0, info = 0, lwork = -1, liwork = -1, iwq = 0;
        double wq = 0.0;
        F77_CALL(dsyevr)("V", "A", "U", &n, a, &n, &vl, &vu, &il, &iu, &abstol, &m, ev,
                         z, &n, isuppz, &wq, &lwork, &iwq, &liwork, &info
                         FCONE FCONE FCONE);
        if (info != 0) error("LAPACK dsyevr (workspace query) failed with info = %d", info);
        lwork = (int) wq;
        liwork = iwq;
        double *work = (double *) R_alloc(lwork, sizeof(double));
        int *iwork = (int *) R_alloc(liwork, sizeof(int));
        F77_CALL(dsyevr)("V", "A", "U", &n, a, &n, &vl, &vu, &il, &iu, &abstol, &m, ev,
                         z, &n, isuppz, work, &lwork, iwork, &liwork, &info
                         FCONE FCONE FCONE);
        if (info != 0) error("LAPACK dsyevr failed with info = %d", info);
        double *pv = REAL(values), *pz = REAL(vectors);
        for (int k = 0; k < n; k++) {        /* reverse to decreasing order */
            pv[k] = ev[n - 1 - k];
            memcpy(pz + (size_t) n * k, z + (size_t) n * (n - 1 - k), sizeof(double) * n);
        }
    }
    SEXP out = PROTECT(allocVector(VECSXP, 2));
    SEXP nms = PROTECT(allocVector(STRSXP, 2));
    SET_VECTOR_ELT(out, 0, values);  SET_STRING_ELT(nms, 0, mkChar("values"));
    SET_VECTOR_ELT(out, 1, vectors); SET_STRING_ELT(nms, 1, mkChar("vectors"));
    setAttrib(out, R_NamesSymbol, nms);
    UNPROTECT(4);
    return out;
}
