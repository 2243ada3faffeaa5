/* The dual (kernel-form) Gram matrix K = A A' with A = diag(sqrt(w)) (X - 1 c'),
   restricted to the rows of positive weight.  Built from blocks of columns, so
   no centered copy of X is made; only the upper triangle is computed (dsyrk). */
#include "rlsc.h"

SEXP rlsc_dual_gram(SEXP x, SEXP w, SEXP center)
{
    int n, d;
    check_double_matrix(x, "x", &n, &d);
    check_double_vector(w, "w", n);
    check_double_vector(center, "center", d);
    const double *px = REAL(x), *pw = REAL(w), *pc = REAL(center);

    int m = 0;
    for (int i = 0; i < n; i++) {
        if (!(pw[i] >= 0.0) || !R_FINITE(pw[i]))
            error("'w' must be finite and non-negative");
        if (pw[i] > 0.0) m++;
    }
    int *rows = (int *) R_alloc(m > 0 ? m : 1, sizeof(int));
    double *s = (double *) R_alloc(m > 0 ? m : 1, sizeof(double));
    for (int i = 0, k = 0; i < n; i++)
        if (pw[i] > 0.0) { rows[k] = i; s[k] = sqrt(pw[i]); k++; }

    SEXP out = PROTECT(allocMatrix(REALSXP, m, m));
    double *K = REAL(out);
    memset(K, 0, sizeof(double) * (size_t) m * m);
    if (m > 0 && d > 0) {
        int cb_max = block_rows(d, m, BLOCK_DOUBLES);     /* columns per block */
        double *buf = (double *) R_alloc((size_t) m * cb_max, sizeof(double));
        const double one = 1.0;
        for (int j0 = 0; j0 < d; j0 += cb_max) {
            int cb = d - j0 < cb_max ? d - j0 : cb_max;
            for (int j = 0; j < cb; j++) {
                const double *col = px + (size_t) n * (j0 + j);
                double cj = pc[j0 + j], *o = buf + (size_t) m * j;
                for (int k = 0; k < m; k++) o[k] = s[k] * (col[rows[k]] - cj);
            }
            F77_CALL(dsyrk)("U", "N", &m, &cb, &one, buf, &m, &one, K, &m FCONE FCONE);
        }
        for (int j = 0; j < m; j++)
            for (int i = j + 1; i < m; i++) K[i + (size_t) m * j] = K[j + (size_t) m * i];
    }
    UNPROTECT(1);
    return out;
}
