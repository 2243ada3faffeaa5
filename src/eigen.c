/* Step 2: the one eigendecomposition of a symmetric matrix, by LAPACK's dsyevr
   (MRRR); eigenvalues are returned largest first. */
#include "rlsc.h"

/* Eigenpairs of the symmetric n x n matrix `a` (its upper triangle), which is
   destroyed and must be finite: `values` (n) decreasing and the matching
   `vectors` (n x n), reordered in place, so no third n x n buffer is needed. */
void rlsc_symmetric_eigen(double *a, int n, double *values, double *vectors)
{
    if (n <= 0) return;
    int *isuppz = (int *) R_alloc(2 * (size_t) n, sizeof(int));
    double vl = 0.0, vu = 0.0, abstol = F77_CALL(dlamch)("S" FCONE);
    int il = 0, iu = 0, m = 0, info = 0, lwork = -1, liwork = -1, iwq = 0;
    double wq = 0.0;
    F77_CALL(dsyevr)("V", "A", "U", &n, a, &n, &vl, &vu, &il, &iu, &abstol, &m, values,
                     vectors, &n, isuppz, &wq, &lwork, &iwq, &liwork, &info
                     FCONE FCONE FCONE);
    if (info != 0) error("LAPACK dsyevr (workspace query) failed with info = %d", info);
    lwork = (int) wq;
    liwork = iwq;
    double *work = (double *) R_alloc(lwork, sizeof(double));
    int *iwork = (int *) R_alloc(liwork, sizeof(int));
    F77_CALL(dsyevr)("V", "A", "U", &n, a, &n, &vl, &vu, &il, &iu, &abstol, &m, values,
                     vectors, &n, isuppz, work, &lwork, iwork, &liwork, &info
                     FCONE FCONE FCONE);
    if (info != 0) error("LAPACK dsyevr failed with info = %d", info);
    if (m != n) error("LAPACK dsyevr found %d of %d eigenvalues", m, n);
    for (int k = 0; k < n / 2; k++) {     /* reverse to decreasing order, in place */
        int j = n - 1 - k;
        double t = values[k]; values[k] = values[j]; values[j] = t;
        double *ck = vectors + (size_t) n * k, *cj = vectors + (size_t) n * j;
        for (int i = 0; i < n; i++) { t = ck[i]; ck[i] = cj[i]; cj[i] = t; }
    }
}

SEXP rlsc_eigen(SEXP s)
{
    int n, nc;
    rlsc_check_double_matrix(s, "s", &n, &nc);
    if (n != nc) error("'s' must be square, not %d x %d", n, nc);

    const char *names[] = {"values", "vectors", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, allocVector(REALSXP, n));
    SET_VECTOR_ELT(out, 1, allocMatrix(REALSXP, n, n));
    if (n > 0) {
        double *a = (double *) R_alloc((size_t) n * n, sizeof(double));
        memcpy(a, REAL(s), sizeof(double) * (size_t) n * n);   /* dsyevr destroys its input */
        for (size_t k = 0; k < (size_t) n * n; k++)
            if (!R_FINITE(a[k])) error("'s' must be finite");
        rlsc_symmetric_eigen(a, n, REAL(VECTOR_ELT(out, 0)), REAL(VECTOR_ELT(out, 1)));
    }
    UNPROTECT(1);
    return out;
}
