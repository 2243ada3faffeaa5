/* Step 3 setup of the primal engine: B = ((X - 1 s') - 1 c') V, one block of
   rows at a time, so no centered copy of X is ever made.  The rows are moved
   to the origin in two steps: the shift s is a representative row of the
   data (R/moments.R), so X - 1 s' is exact for columns with a large common
   offset, and the center c, the weighted mean of the shifted rows, is small
   and rounded only relative to the columns' spread (DESIGN.md, section 8).
   The blocks are independent: the threads take them in rounds, with an
   interrupt check after each round. */
#include "rlsc.h"

SEXP rlsc_project(SEXP x, SEXP shift, SEXP center, SEXP v, SEXP threads)
{
    int n, d, dv, r;
    rlsc_check_double_matrix(x, "x", &n, &d);
    if (!isNull(shift)) rlsc_check_double_vector(shift, "shift", d);
    rlsc_check_double_vector(center, "center", d);
    rlsc_check_double_matrix(v, "v", &dv, &r);
    if (dv != d) error("'v' must have %d rows, not %d", d, dv);
    int nth = rlsc_thread_count(threads);

    SEXP out = PROTECT(allocMatrix(REALSXP, n, r));
    if (n > 0 && r > 0) {
        const double *px = REAL(x), *pc = REAL(center), *pv = REAL(v);
        const double *ps = isNull(shift) ? NULL : REAL(shift);
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
                        double s = ps ? ps[j] : 0.0, c = pc[j], *o = bx + (size_t) nb * j;
                        for (int i = 0; i < nb; i++) o[i] = (col[i] - s) - c;
                    }
                    F77_CALL(dgemm)("N", "N", &nb, &r, &d, &one, bx, &nb, pv, &d,
                                    &zero, pb + i0, &n FCONE FCONE);
                }
                R_CheckUserInterrupt();
            }
        }
    }
    UNPROTECT(1);
    return out;
}
