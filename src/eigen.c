/* Step 2: the one eigendecomposition of a symmetric matrix, eigenvalues
   returned largest first.  The steps of LAPACK's dsyevr (MRRR), run here in
   blocks so that a long decomposition answers interrupts and uses the
   threads (DESIGN.md, sections 8 and 9):
     1. reduction to tridiagonal form T = Q' A Q, dsytrd's blocked loop
        (dlatrd on a panel of 32 columns, dsyr2k on the rest), one thread:
        its products are level-2 bound, and splitting them cost the
        reference BLAS more than a second core gave back (from
        EIGEN_LEND_MIN rows a threaded BLAS held by the fit runs it with
        its own threads);
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
   inside a parallel region.  Scratch memory comes from rlsc_scratch(), so a
   jump out frees it (scratch.c). */
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
/* floating-point operations (9 n^3 a matrix) per thread in a round of
   eigen_list(): about 0.2 s */
#define EIGEN_ROUND_FLOPS 1e10
/* order from which a threaded BLAS held by the fit is lent its threads back
   for the reduction: under OpenBLAS on 2 cores, one thread decomposed
   500 x 500 as fast as two lent (24 ms) and 100 of them in a banded K-fold
   fit took 1 s less without the lend (10.0 against 11.0 s, 17.5 against
   21.5 CPU s); at 800 the lend saved 12% (103 against 117 ms).  Only for
   the reduction: the back-transformation on the package's threads, pieces
   of 64 columns each applying a stage of blocks while in cache, took half
   the time of the lent BLAS's products over all of Z at once (n = 2000:
   0.27 against 0.55 s; n = 1000: 33 against 79 ms) */
#define EIGEN_LEND_MIN 700

/* Columns per panel of the reduction: 32, fewer beyond n = 4096 so that a
   panel (2 n^2 nb operations in dlatrd and as many in dsyr2k) stays within a
   few EIGEN_FLOPS. */
static int panel_width(int n)
{
    double nb = PANEL * (4096.0 / n) * (4096.0 / n);
    return nb >= PANEL ? PANEL : nb <= 8 ? 8 : (int) nb;
}

/* The scratch of one decomposition of order n, its back-transformation on
   nth threads, set up before any step runs (no allocation in threads:
   rlsc_eigen_list() runs whole decompositions in them, each thread on
   scratch of its own).  `cap`: the doubles of a stage's V (and V'), at most
   what a stage of about EIGEN_FLOPS per thread uses and never more than all
   the blocks hold (at n = 5 the budget alone asked for 80 MB twice, and each
   call took milliseconds).  dstemr's workspace is its documented minimum for
   eigenvectors, 18 n doubles and 10 n integers, which its workspace query
   returns as the optimum too (the query cannot run in a thread). */
typedef struct {
    double *d, *e, *tau, *panel, *d0, *e0, *work, *w2, *v, *vt, *t, *wk;
    int *isuppz, *iwork, *bi0;
    size_t *boff, cap;
    int nth;
} eigen_scratch;

/* the doubles, integers and offsets of that scratch */
typedef struct { size_t doubles, ints, offsets; } scratch_size;

static size_t stage_cap(int n, int nth)
{
    int k = n - 1 > 0 ? n - 1 : 0;
    size_t cap = (size_t) n * PANEL, fit = (size_t) (EIGEN_FLOPS * nth / (4.0 * (n > 0 ? n : 1))), all = 0;
    for (int i0 = 1; i0 <= k; i0 += PANEL) {
        int ib = k - i0 + 1 < PANEL ? k - i0 + 1 : PANEL;
        all += (size_t) (i0 + ib - 1) * ib;
    }
    if (fit > all) fit = all;
    return fit > cap ? fit : cap;
}

/* Lays the scratch of order n out in the pools dp, ip and sp (NULL: only
   counts), returning its size. */
static scratch_size eigen_scratch_bind(eigen_scratch *sc, int n, int nth, double *dp, int *ip, size_t *sp)
{
    int k = n - 1 > 0 ? n - 1 : 0, nblocks = (k + PANEL - 1) / PANEL;
    size_t sn = n > 0 ? n : 1, nbk = nblocks > 0 ? nblocks : 1, cap = stage_cap(n, nth);
    size_t dn[] = {sn, sn, sn, sn * panel_width(n > 0 ? n : 1), sn, sn, 18 * sn, 2 * sn, cap, cap,
                   (size_t) PANEL * PANEL * nbk, (size_t) PANEL * PANEL_COLS * nth};
    size_t in[] = {2 * sn, 10 * sn, 3 * nbk};
    scratch_size size = {0, 0, nbk};
    double **dptr[] = {&sc->d, &sc->e, &sc->tau, &sc->panel, &sc->d0, &sc->e0, &sc->work, &sc->w2,
                       &sc->v, &sc->vt, &sc->t, &sc->wk};
    int **iptr[] = {&sc->isuppz, &sc->iwork, &sc->bi0};
    for (int i = 0; i < 12; i++) {
        if (dp) *dptr[i] = dp + size.doubles;
        size.doubles += dn[i];
    }
    for (int i = 0; i < 3; i++) {
        if (ip) *iptr[i] = ip + size.ints;
        size.ints += in[i];
    }
    if (sp) sc->boff = sp;
    sc->nth = nth;
    sc->cap = cap;
    return size;
}

static void eigen_scratch_alloc(eigen_scratch *sc, int n, int nth, SEXP held)
{
    scratch_size size = eigen_scratch_bind(sc, n, nth, NULL, NULL, NULL);
    eigen_scratch_bind(sc, n, nth, (double *) rlsc_scratch(held, size.doubles, sizeof(double)),
                       (int *) rlsc_scratch(held, size.ints, sizeof(int)),
                       (size_t *) rlsc_scratch(held, size.offsets, sizeof(size_t)));
}

/* The upper triangle of a (n x n) to tridiagonal form: d (n), e (n - 1),
   tau (n - 1), the reflectors left in a, as dsytrd("U") leaves them.
   `check`: answer interrupts between panels (never in a thread).  Returns
   dsytd2's info. */
static int tridiagonalize(double *a, int n, eigen_scratch *sc, int check)
{
    double *d = sc->d, *e = sc->e, *tau = sc->tau;
    int nb = panel_width(n), info = 0;
    int kk = nb >= n ? n : n - ((n - 1) / nb) * nb;   /* columns 1..kk: unblocked */
    if (kk < n) {
        double *w = sc->panel;
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
            if (check) R_CheckUserInterrupt();
        }
    }
    F77_CALL(dsytd2)("U", &kk, a, &n, d, e, tau, &info FCONE);
    return info;
}

/* Eigenpairs of the tridiagonal (sc->d, sc->e): values ascending, z (n x n).
   d and e are destroyed; e has room for n elements.  Returns 0, or the
   failure: dsteqr's info (MRRR having found *found of n). */
static int tridiagonal_eigen(eigen_scratch *sc, int n, double *values, double *z, int *found)
{
    double *d = sc->d, *e = sc->e;
    memcpy(sc->d0, d, sizeof(double) * n);
    memcpy(sc->e0, e, sizeof(double) * n);
    double vl = 0.0, vu = 0.0;
    int il = 0, iu = 0, m = 0, tryrac = 1, lwork = 18 * n, liwork = 10 * n, info = 0;
    F77_CALL(dstemr)("V", "A", &n, d, e, &vl, &vu, &il, &iu, &m, values, z, &n, &n, sc->isuppz,
                     &tryrac, sc->work, &lwork, sc->iwork, &liwork, &info FCONE FCONE);
    *found = m;
    if (info == 0 && m == n) return 0;
    /* MRRR declined (rare): implicit QL on the saved tridiagonal, as dsyevr
       would fall back on bisection and inverse iteration */
    F77_CALL(dsteqr)("I", &n, sc->d0, sc->e0, z, &n, sc->w2, &info FCONE);
    if (info != 0) return info;
    memcpy(values, sc->d0, sizeof(double) * n);
    return 0;
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
   same order whatever the stages, so they change no result.  `check` as
   in tridiagonalize(). */
static void back_transform(const double *a, int n, eigen_scratch *sc, double *z, int check)
{
    int k = n - 1, nth = sc->nth;
    if (k < 1) return;
    int npieces = (n + PANEL_COLS - 1) / PANEL_COLS;
    double budget = EIGEN_FLOPS * nth;
    size_t cap = sc->cap;
    const double *tau = sc->tau;
    double *v = sc->v, *vt = sc->vt, *t = sc->t, *wk = sc->wk;
    int *bi0 = sc->bi0, nblocks = (k + PANEL - 1) / PANEL, *bib = bi0 + nblocks, *bm = bib + nblocks;
    size_t *boff = sc->boff;
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
                double *w = wk + (size_t) PANEL * PANEL_COLS * (par ? rlsc_thread_id() : 0);
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
            if (check) R_CheckUserInterrupt();
        }
    }
}

/* The shift that brings a matrix whose largest entry is outside the range
   where the reduction is safe into it (a power of two: exact), as dsyevr
   scales it; 0 when none is needed. */
static int safe_shift(double *a, int n)
{
    double top = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++) {
            double v = fabs(a[i + (size_t) n * j]);
            if (v > top) top = v;
        }
    double small = sqrt(DBL_MIN / DBL_EPSILON), big = 1.0 / sqrt(sqrt(DBL_MIN));
    if (!(top > 0.0) || (top >= small && top <= big)) return 0;
    int shift = -ilogb(top);
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++) a[i + (size_t) n * j] = ldexp(a[i + (size_t) n * j], shift);
    return shift;
}

/* The three steps on scratch `sc`, values reversed to decreasing order and
   scaled back; `lend`: a threaded BLAS held by the fit runs the reduction
   with its threads.  No R API unless `check` (then interrupts are
   answered): returns 0, or a failure for eigen_failure() to report. */
typedef struct { int step, info, found; } eigen_status;

static eigen_status decompose(double *a, int n, double *values, double *vectors, eigen_scratch *sc,
                              int check, int lend)
{
    eigen_status st = {0, 0, 0};
    int shift = safe_shift(a, n);
    memset(sc->e, 0, sizeof(double) * n);
    memset(sc->tau, 0, sizeof(double) * n);
    int lent = lend ? rlsc_blas_lend() : 0;
    st.info = tridiagonalize(a, n, sc, check);
    rlsc_blas_unlend(lent);
    if (st.info != 0) { st.step = 1; return st; }
    if (check) R_CheckUserInterrupt();
    st.info = tridiagonal_eigen(sc, n, values, vectors, &st.found);
    if (st.info != 0) { st.step = 2; return st; }
    if (check) R_CheckUserInterrupt();
    back_transform(a, n, sc, vectors, check);
    for (int k = 0; k < n / 2; k++) {     /* reverse to decreasing order, in place */
        int j = n - 1 - k;
        double t = values[k]; values[k] = values[j]; values[j] = t;
        double *ck = vectors + (size_t) n * k, *cj = vectors + (size_t) n * j;
        for (int i = 0; i < n; i++) { t = ck[i]; ck[i] = cj[i]; cj[i] = t; }
    }
    if (shift)
        for (int k = 0; k < n; k++) values[k] = ldexp(values[k], -shift);
    return st;
}

static void eigen_failure(eigen_status st)
{
    if (st.step == 1) error("LAPACK dsytd2 failed with info = %d", st.info);
    if (st.step == 2) error("LAPACK dsteqr failed with info = %d (after dstemr found %d eigenpairs)",
                            st.info, st.found);
}

/* Eigenpairs of the symmetric n x n matrix `a` (its upper triangle), which is
   destroyed and must be finite: `values` (n) decreasing and the matching
   `vectors` (n x n), with `nth` threads. */
void rlsc_symmetric_eigen(double *a, int n, double *values, double *vectors, int nth)
{
    if (n <= 0) return;
    eigen_scratch sc;
    SEXP held = PROTECT(rlsc_scratch_new());
    eigen_scratch_alloc(&sc, n, nth, held);
    eigen_status st = decompose(a, n, values, vectors, &sc, 1, n >= EIGEN_LEND_MIN);
    rlsc_scratch_free(held);
    UNPROTECT(1);
    eigen_failure(st);
}

/* The order of `s`, a square double matrix. */
static int square_order(SEXP s, const char *name)
{
    int n, nc;
    rlsc_check_double_matrix(s, name, &n, &nc);
    if (n != nc) error("'%s' must be square, not %d x %d", name, n, nc);
    return n;
}

/* src (n x n) copied into a, for LAPACK, which destroys its input; whether
   every element is finite.  No R API: the threads of rlsc_eigen_list() call
   it. */
static int finite_copy(double *a, const double *src, int n)
{
    size_t nn = (size_t) n * n;
    memcpy(a, src, sizeof(double) * nn);
    int ok = 1;
    for (size_t k = 0; k < nn; k++) ok &= R_FINITE(a[k]);
    return ok;
}

/* The matrix `s` (square, double, finite) copied for LAPACK into scratch of
   `held`; its order in *n. */
static double *eigen_input(SEXP s, const char *name, int *n, SEXP held)
{
    *n = square_order(s, name);
    double *a = (double *) rlsc_scratch(held, (size_t) *n * *n, sizeof(double));
    if (!finite_copy(a, REAL(s), *n)) error("'%s' must be finite", name);
    return a;
}

static SEXP eigen_output(int n)
{
    const char *names[] = {"values", "vectors", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, allocVector(REALSXP, n));
    SET_VECTOR_ELT(out, 1, allocMatrix(REALSXP, n, n));
    UNPROTECT(1);
    return out;
}

SEXP rlsc_eigen(SEXP s, SEXP threads)
{
    int n, nth = rlsc_thread_count(threads);
    SEXP held = PROTECT(rlsc_scratch_new());
    double *a = eigen_input(s, "s", &n, held);
    SEXP out = PROTECT(eigen_output(n));
    rlsc_symmetric_eigen(a, n, REAL(VECTOR_ELT(out, 0)), REAL(VECTOR_ELT(out, 1)), nth);
    rlsc_scratch_free(held);
    UNPROTECT(2);
    return out;
}

/* The eigendecompositions of a list of matrices, each as rlsc_eigen() gives
   it.  Matrices below EIGEN_LEND_MIN go whole to the threads, one thread
   each (the folds of K-fold, a banded candidate's: one thread decomposes
   500 x 500 about as fast as two, so two at once take half the time), in
   rounds of about EIGEN_ROUND_FLOPS per thread with interrupts answered
   between rounds (a round of matrices of 500 rows: about 0.2 s); larger
   ones one after the other with every thread.  Each matrix meets the same
   products in the same order either way (the back-transformation's pieces
   depend on n only), so the results are those of rlsc_eigen().  The
   threads also copy their matrices (LAPACK destroys its input) and check
   them: a matrix that is not finite is not decomposed, and the first one
   in the list is the error after its round.  Each thread has one copy and
   one scratch, sized for the largest matrix: the memory of two
   decompositions, not of the list.  (A time limit, which R checks on every
   few interrupt checks only, may pass unnoticed during a short list.) */
SEXP rlsc_eigen_list(SEXP s, SEXP threads)
{
    if (TYPEOF(s) != VECSXP) error("'s' must be a list of matrices");
    int count = length(s), nth = rlsc_thread_count(threads);
    SEXP out = PROTECT(allocVector(VECSXP, count));
    SEXP held = PROTECT(rlsc_scratch_new());
    int *n = (int *) rlsc_scratch(held, count, sizeof(int));
    double flops = 0.0;
    int small = 1;
    for (int j = 0; j < count; j++) {
        char name[32];
        snprintf(name, sizeof name, "s[[%d]]", j + 1);
        n[j] = square_order(VECTOR_ELT(s, j), name);
        SET_VECTOR_ELT(out, j, eigen_output(n[j]));
        small = small && n[j] < EIGEN_LEND_MIN;
        flops += 9.0 * n[j] * (double) n[j] * n[j];
    }
    if (!small || !rlsc_parallel(nth, count, flops)) {
        for (int j = 0; j < count; j++) {
            char name[32];
            snprintf(name, sizeof name, "s[[%d]]", j + 1);
            SEXP copy = PROTECT(rlsc_scratch_new());   /* (one matrix's copy at a time) */
            double *a = eigen_input(VECTOR_ELT(s, j), name, &n[j], copy);
            SEXP o = VECTOR_ELT(out, j);
            rlsc_symmetric_eigen(a, n[j], REAL(VECTOR_ELT(o, 0)), REAL(VECTOR_ELT(o, 1)), nth);
            rlsc_scratch_free(copy);
            UNPROTECT(1);
        }
        rlsc_scratch_free(held);
        UNPROTECT(2);
        return out;
    }
    /* per thread: a copy of its matrix and the scratch, sized for the
       largest matrix (each laid out for its own order, as alone) */
    eigen_status *st = (eigen_status *) rlsc_scratch(held, count, sizeof(eigen_status));
    const double **in = (const double **) rlsc_scratch(held, count, sizeof(double *));
    double **values = (double **) rlsc_scratch(held, count, sizeof(double *)),
        **vectors = (double **) rlsc_scratch(held, count, sizeof(double *));
    int *finite = (int *) rlsc_scratch(held, count, sizeof(int));
    scratch_size most = {1, 1, 1};
    size_t square = 1;
    for (int j = 0; j < count; j++) {
        eigen_scratch probe;
        scratch_size size = eigen_scratch_bind(&probe, n[j], 1, NULL, NULL, NULL);
        if (size.doubles > most.doubles) most.doubles = size.doubles;
        if (size.ints > most.ints) most.ints = size.ints;
        if (size.offsets > most.offsets) most.offsets = size.offsets;
        if ((size_t) n[j] * n[j] > square) square = (size_t) n[j] * n[j];
        in[j] = REAL(VECTOR_ELT(s, j));
        values[j] = REAL(VECTOR_ELT(VECTOR_ELT(out, j), 0));
        vectors[j] = REAL(VECTOR_ELT(VECTOR_ELT(out, j), 1));
    }
    double *dpool = (double *) rlsc_scratch(held, (size_t) nth * (most.doubles + square), sizeof(double));
    int *ipool = (int *) rlsc_scratch(held, (size_t) nth * most.ints, sizeof(int));
    size_t *spool = (size_t *) rlsc_scratch(held, (size_t) nth * most.offsets, sizeof(size_t));
    for (int j0 = 0; j0 < count;) {
        int j1 = j0;
        for (double round = 0.0; j1 < count && (j1 == j0 || round < EIGEN_ROUND_FLOPS * nth); j1++)
            round += 9.0 * n[j1] * (double) n[j1] * n[j1];
        RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1))
        for (int j = j0; j < j1; j++) {
            int id = rlsc_thread_id();
            double *dp = dpool + (size_t) id * (most.doubles + square), *a = dp + most.doubles;
            eigen_scratch sc;
            eigen_scratch_bind(&sc, n[j], 1, dp, ipool + (size_t) id * most.ints,
                               spool + (size_t) id * most.offsets);
            finite[j] = finite_copy(a, in[j], n[j]);
            eigen_status none = {0, 0, 0};
            st[j] = finite[j] && n[j] > 0 ? decompose(a, n[j], values[j], vectors[j], &sc, 0, 0) : none;
        }
        for (int j = j0; j < j1; j++) {
            if (!finite[j]) error("'s[[%d]]' must be finite", j + 1);
            eigen_failure(st[j]);
        }
        R_CheckUserInterrupt();
        j0 = j1;
    }
    rlsc_scratch_free(held);
    UNPROTECT(2);
    return out;
}
