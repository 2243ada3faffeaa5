/* Step 2: the one eigendecomposition of a symmetric matrix, eigenvalues
   returned largest first.  The steps of LAPACK's dsyevr (MRRR), run here in
   blocks so that a long decomposition answers interrupts and uses the
   threads (DESIGN.md, sections 8 and 9):
     1. reduction to tridiagonal form T = Q' A Q, dsytrd's blocked loop
        (dlatrd on a panel of 32 columns, dsyr2k on the rest), one thread:
        its products are level-2 bound, and splitting them cost the
        reference BLAS more than a second core gave back;
     2. eigenpairs of T (dstemr, O(n^2); dsteqr if dstemr fails, as dsyevr
        falls back on other routines);
     3. back-transformation U = Q Z, 32 Householder reflectors at a time in
        the compact WY form I - V T V' (dlarft), with V' stored too so that
        both products run along columns (with the reference BLAS about twice
        the rate of dormtr's), pieces of 64 columns of Z in parallel, each
        taking a stage of consecutive blocks of reflectors in order.
   Every split that shapes a product depends on n only, never on the number
   of threads (the stages only group the blocks), so the result does not
   either.  Between blocks R_CheckUserInterrupt(), never
   inside a parallel region.  Scratch memory comes from R_alloc, so a jump out
   frees it. */
#include "rlsc.h"
#include <float.h>

/* dstemr is in every LAPACK that has dsyevr (which calls it), R's own
   included, but R_ext/Lapack.h does not declare it. */
extern void F77_NAME(dstemr)(const char *jobz, const char *range, const int *n, double *d,
                             double *e, const double *vl, const double *vu, const int *il,
                             const int *iu, int *m, double *w, double *z, const int *ldz,
                             const int *nzc, int *isuppz, int *tryrac, double *work,
                             const int *lwork, int *iwork, const int *liwork, int *info
                             FCLEN FCLEN);

/* columns per panel of the reduction, reflectors per block of the
   back-transformation (dsytrd's and dormtr's block size) */
#define PANEL 32
/* columns of Z (eigenvectors) per piece of the back-transformation */
#define PANEL_COLS 64
/* floating-point operations between two interrupt checks */
#define EIGEN_FLOPS 2e8
/* order from which a threaded BLAS held by the fit is lent its threads back:
   under OpenBLAS on 2 cores, one thread decomposed 500 x 500 as fast as two
   lent (24 ms) and 100 of them in a banded K-fold fit took 1 s less
   without the lend (10.0 against 11.0 s, 17.5 against 21.5 CPU s); at 800
   the lend saved 12% (103 against 117 ms) */
#define EIGEN_LEND_MIN 700

/* Columns per panel of the reduction: 32, fewer beyond n = 4096 so that a
   panel (2 n^2 nb operations in dlatrd and as many in dsyr2k) stays within a
   few EIGEN_FLOPS. */
static int panel_width(int n)
{
    double nb = PANEL * (4096.0 / n) * (4096.0 / n);
    return nb >= PANEL ? PANEL : nb <= 8 ? 8 : (int) nb;
}

/* The upper triangle of a (n x n) to tridiagonal form: d (n), e (n - 1),
   tau (n - 1), the reflectors left in a, as dsytrd("U") leaves them. */
static void tridiagonalize(double *a, int n, double *d, double *e, double *tau)
{
    int nb = panel_width(n), info = 0;
    int kk = nb >= n ? n : n - ((n - 1) / nb) * nb;   /* columns 1..kk: unblocked */
    if (kk < n) {
        double *w = (double *) R_alloc((size_t) n * nb, sizeof(double));
        const double one = 1.0, minus_one = -1.0;
        for (int i = n - nb + 1; i >= kk + 1; i -= nb) {   /* 1-based, as in dsytrd */
            int ni = i + nb - 1, im1 = i - 1;
            F77_CALL(dlatrd)("U", &ni, &nb, a, &n, e, tau, w, &n FCONE);
            F77_CALL(dsyr2k)("U", "N", &im1, &nb, &minus_one, a + (size_t) n * (i - 1), &n,
                             w, &n, &one, a, &n FCONE FCONE);
            for (int j = i; j <= i + nb - 1; j++) {
                a[(j - 2) + (size_t) n * (j - 1)] = e[j - 2];
                d[j - 1] = a[(j - 1) + (size_t) n * (j - 1)];
            }
            R_CheckUserInterrupt();
        }
    }
    F77_CALL(dsytd2)("U", &kk, a, &n, d, e, tau, &info FCONE);
    if (info != 0) error("LAPACK dsytd2 failed with info = %d", info);
}

/* Eigenpairs of the tridiagonal (d, e): values ascending, z (n x n).  d and e
   are destroyed; e must have room for n elements. */
static void tridiagonal_eigen(double *d, double *e, int n, double *values, double *z)
{
    double *d0 = (double *) R_alloc(n, sizeof(double)), *e0 = (double *) R_alloc(n, sizeof(double));
    memcpy(d0, d, sizeof(double) * n);
    memcpy(e0, e, sizeof(double) * n);
    int *isuppz = (int *) R_alloc(2 * (size_t) n, sizeof(int));
    double vl = 0.0, vu = 0.0, wq = 0.0;
    int il = 0, iu = 0, m = 0, tryrac = 1, lwork = -1, liwork = -1, iwq = 0, info = 0;
    F77_CALL(dstemr)("V", "A", &n, d, e, &vl, &vu, &il, &iu, &m, values, z, &n, &n, isuppz,
                     &tryrac, &wq, &lwork, &iwq, &liwork, &info FCONE FCONE);
    if (info != 0) error("LAPACK dstemr (workspace query) failed with info = %d", info);
    lwork = (int) wq;
    liwork = iwq;
    double *work = (double *) R_alloc(lwork > 0 ? lwork : 1, sizeof(double));
    int *iwork = (int *) R_alloc(liwork > 0 ? liwork : 1, sizeof(int));
    F77_CALL(dstemr)("V", "A", &n, d, e, &vl, &vu, &il, &iu, &m, values, z, &n, &n, isuppz,
                     &tryrac, work, &lwork, iwork, &liwork, &info FCONE FCONE);
    if (info == 0 && m == n) return;
    /* MRRR declined (rare): implicit QL on the saved tridiagonal, as dsyevr
       would fall back on bisection and inverse iteration */
    R_CheckUserInterrupt();
    double *w2 = (double *) R_alloc(2 * (size_t) n > 2 ? 2 * (size_t) n - 2 : 1, sizeof(double));
    F77_CALL(dsteqr)("I", &n, d0, e0, z, &n, w2, &info FCONE);
    if (info != 0) error("LAPACK dsteqr failed with info = %d (after dstemr found %d of %d)",
                         info, m, n);
    memcpy(values, d0, sizeof(double) * n);
}

/* U = Q Z for the Q of tridiagonalize(): Q = H(n-1) ... H(1), reflector i
   (1-based) is v = (A(1:i-1, i+1), 1, 0, ...).  Blocks of PANEL reflectors,
   H(i0) first: with V their m x ib matrix (m = i0 + ib - 1 rows, the unit
   and zero entries written out) and T from dlarft("Backward"), the block is
   I - V T V', so Z <- Z - V (T (V' Z)).  V' is stored too, so that both
   products run along columns (with the reference BLAS, at the rate of a
   long dgemm); the columns of Z go in pieces of PANEL_COLS.  The columns
   are independent, so consecutive blocks go in stages of about EIGEN_FLOPS
   per thread, each piece taking the stage's blocks in order: a matrix of a
   few hundred rows is one parallel region, not one per block (which, each
   a fraction of a millisecond, made two threads 3 to 5 times slower than
   one on a loaded machine).  Every column meets the same products in the
   same order whatever the stages, so they change no result. */
static void back_transform(const double *a, int n, const double *tau, double *z, int nth)
{
    int k = n - 1;
    if (k < 1) return;
    int npieces = (n + PANEL_COLS - 1) / PANEL_COLS, nblocks = (k + PANEL - 1) / PANEL;
    double budget = EIGEN_FLOPS * nth;
    /* a stage's V (and V') hold sum m ib <= budget / (4 n) doubles, or one
       block, and never more than all the blocks hold (at n = 5 the budget
       alone asked R_alloc for 80 MB twice, and each call took milliseconds) */
    size_t cap = (size_t) n * PANEL, fit = (size_t) (budget / (4.0 * n)), all = 0;
    for (int i0 = 1; i0 <= k; i0 += PANEL) {
        int ib = k - i0 + 1 < PANEL ? k - i0 + 1 : PANEL;
        all += (size_t) (i0 + ib - 1) * ib;
    }
    if (fit > all) fit = all;
    if (fit > cap) cap = fit;
    double *v = (double *) R_alloc(cap, sizeof(double));
    double *vt = (double *) R_alloc(cap, sizeof(double));
    double *t = (double *) R_alloc((size_t) PANEL * PANEL * nblocks, sizeof(double));
    int *bi0 = (int *) R_alloc(3 * (size_t) nblocks, sizeof(int)), *bib = bi0 + nblocks,
        *bm = bib + nblocks;
    size_t *boff = (size_t *) R_alloc(nblocks, sizeof(size_t));
    double *wk = (double *) R_alloc((size_t) PANEL * PANEL_COLS * nth, sizeof(double));
    for (int s0 = 1; s0 <= k;) {   /* 1-based first reflector of the stage */
        int nbk = 0;
        size_t off = 0;
        double flops = 0.0;
        for (int i0 = s0; i0 <= k; i0 += PANEL) {
            int ib = k - i0 + 1 < PANEL ? k - i0 + 1 : PANEL, m = i0 + ib - 1;
            double f = 4.0 * n * (double) m * ib;
            if (nbk > 0 && (flops + f > budget || off + (size_t) m * ib > cap)) break;
            double *vb = v + off, *vtb = vt + off, *tb = t + (size_t) PANEL * PANEL * nbk;
            for (int j = 0; j < ib; j++) {          /* reflector i0 + j: rows 1..i0+j */
                int len = i0 + j - 1;               /* stored entries */
                double *vj = vb + (size_t) m * j;
                memcpy(vj, a + (size_t) n * (i0 + j), sizeof(double) * len);
                vj[len] = 1.0;
                for (int r = len + 1; r < m; r++) vj[r] = 0.0;
                for (int r = 0; r < m; r++) vtb[j + (size_t) ib * r] = vj[r];
            }
            F77_CALL(dlarft)("B", "C", &m, &ib, vb, &m, tau + (i0 - 1), tb, &ib FCONE FCONE);
            bi0[nbk] = i0, bib[nbk] = ib, bm[nbk] = m, boff[nbk] = off;
            nbk++;
            off += (size_t) m * ib;
            flops += f;
        }
        s0 = bi0[nbk - 1] + bib[nbk - 1];
        /* rounds of pieces of about EIGEN_FLOPS per thread (all of them
           when the stage holds several blocks) */
        double per_piece = flops * PANEL_COLS / n;
        int per_round = (int) (budget / per_piece);
        if (per_round < nth) per_round = nth;
        for (int p0 = 0; p0 < npieces; p0 += per_round) {
            int p1 = p0 + per_round < npieces ? p0 + per_round : npieces;
            int par = rlsc_parallel(nth, p1 - p0, (p1 - p0) * per_piece);
            RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
            for (int p = p0; p < p1; p++) {
                int c0 = p * PANEL_COLS, nc = n - c0 < PANEL_COLS ? n - c0 : PANEL_COLS;
                double *w = wk + (size_t) PANEL * PANEL_COLS * rlsc_thread_id();
                double *zp = z + (size_t) n * c0;
                const double one = 1.0, zero = 0.0, minus_one = -1.0;
                for (int bk = 0; bk < nbk; bk++) {
                    int ib = bib[bk], m = bm[bk];
                    const double *vb = v + boff[bk], *vtb = vt + boff[bk],
                        *tb = t + (size_t) PANEL * PANEL * bk;
                    F77_CALL(dgemm)("N", "N", &ib, &nc, &m, &one, vtb, &ib, zp, &n, &zero, w, &ib
                                    FCONE FCONE);
                    F77_CALL(dtrmm)("L", "L", "N", "N", &ib, &nc, &one, tb, &ib, w, &ib
                                    FCONE FCONE FCONE FCONE);
                    F77_CALL(dgemm)("N", "N", &m, &nc, &ib, &minus_one, vb, &m, w, &ib, &one, zp, &n
                                    FCONE FCONE);
                }
            }
            R_CheckUserInterrupt();
        }
    }
}

/* Eigenpairs of the symmetric n x n matrix `a` (its upper triangle), which is
   destroyed and must be finite: `values` (n) decreasing and the matching
   `vectors` (n x n), with `nth` threads.  A matrix whose largest entry is
   outside the range where the reduction is safe is scaled by a power of two
   first (exact), as dsyevr scales it. */
void rlsc_symmetric_eigen(double *a, int n, double *values, double *vectors, int nth)
{
    if (n <= 0) return;
    double top = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++) {
            double v = fabs(a[i + (size_t) n * j]);
            if (v > top) top = v;
        }
    double small = sqrt(DBL_MIN / DBL_EPSILON), big = 1.0 / sqrt(sqrt(DBL_MIN));
    int shift = 0;
    if (top > 0.0 && (top < small || top > big)) {
        shift = -ilogb(top);
        for (int j = 0; j < n; j++)
            for (int i = 0; i <= j; i++) a[i + (size_t) n * j] = ldexp(a[i + (size_t) n * j], shift);
    }
    double *d = (double *) R_alloc(n, sizeof(double)), *e = (double *) R_alloc(n, sizeof(double));
    double *tau = (double *) R_alloc(n, sizeof(double));
    /* a threaded BLAS held by the fit runs these steps with its own threads,
       the package's staying out (a few hundred rows are too few for either) */
    int lent = n >= EIGEN_LEND_MIN ? rlsc_blas_lend() : 0;
    if (lent > 1) nth = 1;
    memset(e, 0, sizeof(double) * n);
    memset(tau, 0, sizeof(double) * n);
    tridiagonalize(a, n, d, e, tau);
    R_CheckUserInterrupt();
    tridiagonal_eigen(d, e, n, values, vectors);
    R_CheckUserInterrupt();
    back_transform(a, n, tau, vectors, nth);
    rlsc_blas_unlend(lent);
    for (int k = 0; k < n / 2; k++) {     /* reverse to decreasing order, in place */
        int j = n - 1 - k;
        double t = values[k]; values[k] = values[j]; values[j] = t;
        double *ck = vectors + (size_t) n * k, *cj = vectors + (size_t) n * j;
        for (int i = 0; i < n; i++) { t = ck[i]; ck[i] = cj[i]; cj[i] = t; }
    }
    if (shift)
        for (int k = 0; k < n; k++) values[k] = ldexp(values[k], -shift);
}

SEXP rlsc_eigen(SEXP s, SEXP threads)
{
    int n, nc;
    rlsc_check_double_matrix(s, "s", &n, &nc);
    if (n != nc) error("'s' must be square, not %d x %d", n, nc);
    int nth = rlsc_thread_count(threads);

    const char *names[] = {"values", "vectors", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, allocVector(REALSXP, n));
    SET_VECTOR_ELT(out, 1, allocMatrix(REALSXP, n, n));
    if (n > 0) {
        double *a = (double *) R_alloc((size_t) n * n, sizeof(double));
        memcpy(a, REAL(s), sizeof(double) * (size_t) n * n);   /* LAPACK destroys its input */
        for (size_t k = 0; k < (size_t) n * n; k++)
            if (!R_FINITE(a[k])) error("'s' must be finite");
        rlsc_symmetric_eigen(a, n, REAL(VECTOR_ELT(out, 0)), REAL(VECTOR_ELT(out, 1)), nth);
    }
    UNPROTECT(1);
    return out;
}
