/* Step 3 setup of the primal engine: B = (X - 1 c') V, one block of centered
   rows at a time, so no centered copy of X is ever made.  The blocks are
   independent: the threads take them in rounds, with an interrupt check
   after each round.  With weights w (else NULL), the weighted mean of the
   rows of B is then subtracted from them, in place in this fresh result (no
   n x r temporary): c is the weighted mean rounded to doubles, and with a
   large common offset its rounding error, the same in every row, costs digits
   of 1 - h wherever h is near 1 (DESIGN.md, section 8).  Each column's mean
   is summed in row order by one thread, so the result does not depend on
   the number of threads. */
#include "rlsc.h"

SEXP rlsc_project(SEXP x, SEXP center, SEXP v, SEXP w, SEXP threads)
{
    int n, d, dv, r;
    rlsc_check_double_matrix(x, "x", &n, &d);
    rlsc_check_double_vector(center, "center", d);
    rlsc_check_double_matrix(v, "v", &dv, &r);
    if (dv != d) error("'v' must have %d rows, not %d", d, dv);
    if (!isNull(w)) rlsc_check_double_vector(w, "w", n);
    int nth = rlsc_thread_count(threads);

    SEXP out = PROTECT(allocMatrix(REALSXP, n, r));
    if (n > 0 && r > 0) {
        const double *px = REAL(x), *pc = REAL(center), *pv = REAL(v);
        double *pb = REAL(out);
        if (d == 0) {
            memset(pb, 0, sizeof(double) * (size_t) n * r);
        } else {
            int nb_max = rlsc_parallel_block_rows(n, d);
            int nblocks = (n + nb_max - 1) / nb_max;
            int per_round = 2 * nth < nblocks ? 2 * nth : nblocks;
            double *buf = (double *) R_alloc((size_t) nb_max * d * nth, sizeof(double));
            for (int b0 = 0; b0 < nblocks; b0 += per_round) {
                int b1 = b0 + per_round < nblocks ? b0 + per_round : nblocks;
                int par = rlsc_parallel(nth, b1 - b0, 2.0 * (b1 - b0) * nb_max * (double) d * r);
                RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
                for (int b = b0; b < b1; b++) {
                    int i0 = b * nb_max, nb = n - i0 < nb_max ? n - i0 : nb_max;
                    double *bx = buf + (size_t) nb_max * d * rlsc_thread_id();
                    const double one = 1.0, zero = 0.0;
                    for (int j = 0; j < d; j++) {
                        const double *col = px + (size_t) n * j + i0;
                        double *o = bx + (size_t) nb * j;
                        for (int i = 0; i < nb; i++) o[i] = col[i] - pc[j];
                    }
                    F77_CALL(dgemm)("N", "N", &nb, &r, &d, &one, bx, &nb, pv, &d,
                                    &zero, pb + i0, &n FCONE FCONE);
                }
                R_CheckUserInterrupt();
            }
        }
        if (!isNull(w)) {
            const double *pw = REAL(w);
            long double sw = 0.0;
            for (int i = 0; i < n; i++) sw += pw[i];
            int par = rlsc_parallel(nth, r, 2.0 * n * (double) r);
            RLSC_OMP(omp parallel for num_threads(nth) schedule(static) if (par))
            for (int k = 0; k < r; k++) {
                double *col = pb + (size_t) n * k;
                long double sum = 0.0;
                for (int i = 0; i < n; i++) sum += (long double) pw[i] * col[i];
                double mean = sw > 0.0 ? (double) (sum / sw) : 0.0;
                for (int i = 0; i < n; i++) col[i] -= mean;
            }
        }
    }
    UNPROTECT(1);
    return out;
}
