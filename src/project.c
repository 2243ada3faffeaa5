/* Step 3 setup of the primal engine: B = ((X - 1 s') - 1 c') V, one block of
   rows at a time, so no centered copy of X is ever made.  The rows are moved
   to the origin in two steps: the shift s is a representative row of the
   data (R/moments.R), so X - 1 s' is exact for columns with a large common
   offset, and the center c, the weighted mean of the shifted rows, is small
   and rounded only relative to the columns' spread (DESIGN.md, section 8).
   The blocks are independent: the threads take them in rounds, with an
   interrupt check after each round.  With `rows`, the rows of x projected
   are those (a fold's held-out rows), gathered block by block, never
   copied whole. */
#include "rlsc.h"

/* doubles of a thread's centered block: 4 MB, more than L2 holds.  The
   product of the block with v runs faster the more rows it has, under the
   reference BLAS as under OpenBLAS: with 2^17 (about 131 rows at
   d = 1000) the projection of 2000 x 1000 took 52 ms against 46 ms
   (OpenBLAS) and 390 ms against 356 ms (reference BLAS), of 20000 x 200
   23 against 20 ms and 160 against 142 ms. */
#define PROJECT_DOUBLES (1 << 19)

SEXP rlsc_project(SEXP x, SEXP shift, SEXP center, SEXP v, SEXP rows, SEXP threads)
{
    int n, d, dv, r, nx;
    rlsc_check_double_matrix(x, "x", &nx, &d);
    n = isNull(rows) ? nx : rlsc_check_rows(rows, nx);
    const int *pr = isNull(rows) ? NULL : INTEGER(rows);
    if (!isNull(shift)) rlsc_check_double_vector(shift, "shift", d);
    rlsc_check_double_vector(center, "center", d);
    rlsc_check_double_matrix(v, "v", &dv, &r);
    if (dv != d) error("'v' must have %d rows, not %d", d, dv);
    int nth = rlsc_thread_count(threads);

    SEXP out = PROTECT(allocMatrix(REALSXP, n, r));
    SEXP held = PROTECT(rlsc_scratch_new());
    if (n > 0 && r > 0) {
        const double *px = REAL(x), *pc = REAL(center), *pv = REAL(v);
        const double *ps = isNull(shift) ? NULL : REAL(shift);
        double *pb = REAL(out);
        if (d == 0) {
            memset(pb, 0, sizeof(double) * (size_t) n * r);
        } else {
            int nb_max = rlsc_parallel_block_rows(n, d, PROJECT_DOUBLES);
            int nblocks = (n + nb_max - 1) / nb_max;
            /* rounds of about 2e8 operations per thread, at least two
               blocks per thread: few parallel regions */
            double block_flops = 2.0 * nb_max * (double) d * r + (double) nb_max * d;
            double want = 2e8 * nth / block_flops;
            int per_round = want < 2 * nth ? 2 * nth : want > nblocks ? nblocks : (int) want;
            if (per_round > nblocks) per_round = nblocks;
            double *buf = (double *) rlsc_scratch(held, (size_t) nb_max * d * nth, sizeof(double));
            for (int b0 = 0; b0 < nblocks; b0 += per_round) {
                int b1 = b0 + per_round < nblocks ? b0 + per_round : nblocks;
                int par = rlsc_parallel(nth, b1 - b0, 2.0 * (b1 - b0) * nb_max * (double) d * r);
                RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
                for (int b = b0; b < b1; b++) {
                    int i0 = b * nb_max, nb = n - i0 < nb_max ? n - i0 : nb_max;
                    double *bx = buf + (size_t) nb_max * d * rlsc_thread_id();
                    const double one = 1.0, zero = 0.0;
                    for (int j = 0; j < d; j++) {
                        double s = ps ? ps[j] : 0.0, c = pc[j], *o = bx + (size_t) nb * j;
                        if (pr) {
                            const double *col = px + (size_t) nx * j;
                            for (int i = 0; i < nb; i++) o[i] = (col[pr[i0 + i] - 1] - s) - c;
                        } else {
                            const double *col = px + (size_t) n * j + i0;
                            for (int i = 0; i < nb; i++) o[i] = (col[i] - s) - c;
                        }
                    }
                    F77_CALL(dgemm)("N", "N", &nb, &r, &d, &one, bx, &nb, pv, &d,
                                    &zero, pb + i0, &n FCONE FCONE);
                }
                R_CheckUserInterrupt();
            }
        }
    }
    rlsc_scratch_free(held);
    UNPROTECT(2);
    return out;
}

/* a' b (k x m times k x p: m x p), the products of the moments or residuals
   with the eigenvectors (R/primal.R, R/dual.R): in pieces of 64 columns of b
   computed by the threads (R's crossprod() runs on one thread of a held
   BLAS, and thousands of response columns make it a large product).  The
   pieces depend on p only. */
SEXP rlsc_crossprod(SEXP a, SEXP b, SEXP threads)
{
    int k, m, kb, p;
    rlsc_check_double_matrix(a, "a", &k, &m);
    rlsc_check_double_matrix(b, "b", &kb, &p);
    if (kb != k) error("'b' must have %d rows, not %d", k, kb);
    int nth = rlsc_thread_count(threads);
    SEXP out = PROTECT(allocMatrix(REALSXP, m, p));
    double *po = REAL(out);
    if ((size_t) m * p > 0 && k == 0) memset(po, 0, sizeof(double) * (size_t) m * p);
    if ((size_t) m * p > 0 && k > 0) {
        const double *pa = REAL(a), *pb = REAL(b);
        int np = (p + 63) / 64;
        int par = rlsc_parallel(nth, np, 2.0 * k * (double) m * p);
        RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
        for (int q = 0; q < np; q++) {
            int c0 = q * 64, w = p - c0 < 64 ? p - c0 : 64;
            const double one = 1.0, zero = 0.0;
            F77_CALL(dgemm)("T", "N", &m, &w, &k, &one, pa, &k, pb + (size_t) k * c0, &k, &zero,
                            po + (size_t) m * c0, &m FCONE FCONE);
        }
    }
    UNPROTECT(1);
    return out;
}
