/* Step 3 setup of the primal engine: B = (X - 1 c') V, one block of centered
   rows at a time, so no centered copy of X is ever made. */
#include "rlsc.h"

SEXP rlsc_project(SEXP x, SEXP center, SEXP v)
{
    int n, d, dv, r;
    rlsc_check_double_matrix(x, "x", &n, &d);
    rlsc_check_double_vector(center, "center", d);
    rlsc_check_double_matrix(v, "v", &dv, &r);
    if (dv != d) error("'v' must have %d rows, not %d", d, dv);

    SEXP out = PROTECT(allocMatrix(REALSXP, n, r));
    if (n > 0 && r > 0) {
        const double *px = REAL(x), *pc = REAL(center), *pv = REAL(v);
        double *pb = REAL(out);
        if (d == 0) {
            memset(pb, 0, sizeof(double) * (size_t) n * r);
        } else {
            int nb_max = rlsc_block_rows(n, d, BLOCK_DOUBLES);
            double *buf = (double *) R_alloc((size_t) nb_max * d, sizeof(double));
            const double one = 1.0, zero = 0.0;
            for (int i0 = 0; i0 < n; i0 += nb_max) {
                int nb = n - i0 < nb_max ? n - i0 : nb_max;
                for (int j = 0; j < d; j++) {
                    const double *col = px + (size_t) n * j + i0;
                    double *o = buf + (size_t) nb * j;
                    for (int i = 0; i < nb; i++) o[i] = col[i] - pc[j];
                }
                F77_CALL(dgemm)("N", "N", &nb, &r, &d, &one, buf, &nb, pv, &d,
                                &zero, pb + i0, &n FCONE FCONE);
                R_CheckUserInterrupt();
            }
        }
    }
    UNPROTECT(1);
    return out;
}
