/* The loss of the calibration map of class probabilities (R/calibrate.R,
   fit_map()): the weighted cross-entropy of p = softmax(eta) against Platt's
   targets, with eta_ij = a_j + b_j f_ij (a_1 = 0; slopes b only on the
   classes `slopes`), its gradient and its Hessian in the parameters
   theta = (a_2 .. a_k, b_slopes).  One pass over the rows in blocks that
   the threads take, the Hessian's O(n k^2) in dsyrk per block; in R the
   same sums took a dozen n x k temporaries per Newton step, and the Newton
   fits were half the time of a 10-class fit (on one thread, still 0.9 ms of
   5000 rows of 10 classes per evaluation with the Hessian, against 0.63 ms
   on two).
   The slopes act on the decision values centred and scaled, f_s = (F_s -
   c_s) / s_s, formed per row from the raw values F (ns columns) with the
   centres c and the inverse scales 1 / s_s (0: the column is flat and f_s
   = 0), so that no centred, scaled copy of F is made per map (five n x k
   temporaries, a millisecond of R per map of 5000 rows and 10 classes).
   Per row, with r_j = w (p_j - t_j) and z = (p_2 .. p_k, p_s f_s):
       value  -= w sum_j t_j (eta_j - lse)
       grad    = (r_2 .. r_k, r_s f_s)
       hess   += w (diag(p_2 .. p_k, p_s f_s^2) - z z'), plus w p_s f_s on the
                 (a_s, b_s) pairs (s >= 2): the softmax's diag(p) - p p'.
   The targets: t_j = own[c] for the row's class c, (1 - own[c]) / (k - 1)
   otherwise.  Rows of weight 0 are never read: rows that drop out of a map
   (held-out values NA, a fold left out) weigh 0 rather than being copied
   out. */
#include "rlsc.h"

/* rows of a block: the blocks' sums are computed by the threads and merged
   in order, so the result does not depend on their number; the rows'
   sqrt(w) z go to dsyrk a block at a time */
#define ZROWS 512
/* doubles of a round's block sums, at most (16 MiB; with 10 classes a
   slot is 392 doubles, so every round holds 64 blocks per thread) */
#define SLOT_DOUBLES (1 << 21)

/* A block's slot of sums and a thread's scratch: rounded up to whole cache
   lines of 64 bytes and one line more, so that no two threads write the
   same line (scratch memory is not aligned to lines).  Packed, two
   threads updating neighbouring slots row by row made two threads slower
   than one without the Hessian (1.0 against 0.7 ms at 5000 rows and 10
   classes). */
static size_t apart(size_t doubles)
{
    return (doubles + 7) / 8 * 8 + 8;
}

/* What every block reads (shared, read-only in the threads). */
typedef struct {
    int n, k, na, ns, np, hess;
    const double *pf, *pcen, *pinv, *po, *pw, *th;
    const int *pc, *ps, *slope_of;
} softmax_job;

/* The sums of rows i0 .. i1 - 1 (at most ZROWS) into out: the loss, then
   its gradient (np), then the upper triangle of its Hessian (np x np, when
   asked for), out zeroed by the caller.  `scratch`: 2 k + ZROWS ns doubles,
   and ZROWS np more for the Hessian.  No R API: this runs in the threads. */
static void softmax_block(const softmax_job *job, int i0, int i1, double *out, double *scratch)
{
    int n = job->n, k = job->k, na = job->na, ns = job->ns, np = job->np;
    const double *pf = job->pf, *pcen = job->pcen, *pinv = job->pinv, *po = job->po, *pw = job->pw,
        *th = job->th;
    const int *pc = job->pc, *ps = job->ps, *slope_of = job->slope_of;
    double *grad = out + 1, *hess = job->hess ? out + 1 + np : NULL;
    double *eta = scratch, *p = eta + k, *fb = p + k, *zb = fb + (size_t) ZROWS * ns;
    int nz = 0;
    double value = 0.0;
    /* the block's values centred and scaled, a column at a time (contiguous
       reads; a flat column's values are 0) */
    for (int m = 0; m < ns; m++) {
        const double *col = pf + (size_t) n * m;
        double c = pcen[m], a = pinv[m], *o = fb + (size_t) ZROWS * m - i0;
        for (int i = i0; i < i1; i++) o[i] = a == 0.0 ? 0.0 : (col[i] - c) * a;
    }
    for (int i = i0; i < i1; i++) {
        double wi = pw[i];
        if (wi == 0.0) continue;
        int c = pc[i] - 1;
        double t_own = po[c], t_other = (1.0 - po[c]) / (k - 1);
        const double *fs = fb + (i - i0);   /* its value of slope m: fs[ZROWS * m] */
        double top = -INFINITY;
        for (int j = 0; j < k; j++) {
            double e = j ? th[j - 1] : 0.0;
            int m = slope_of[j];
            if (m >= 0) e += th[na + m] * fs[(size_t) ZROWS * m];
            eta[j] = e;
            if (e > top) top = e;
        }
        double s = 0.0;
        for (int j = 0; j < k; j++) {
            p[j] = exp(eta[j] - top);
            s += p[j];
        }
        double lse = top + log(s), inv = 1.0 / s;
        for (int j = 0; j < k; j++) {
            double t = j == c ? t_own : t_other;
            p[j] *= inv;
            value -= wi * t * (eta[j] - lse);
            double r = wi * (p[j] - t);
            if (j) grad[j - 1] += r;
            int m = slope_of[j];
            if (m >= 0) grad[na + m] += r * fs[(size_t) ZROWS * m];
        }
        if (!hess) continue;
        double sw = sqrt(wi);
        for (int j = 1; j < k; j++) zb[nz + ZROWS * (size_t) (j - 1)] = sw * p[j];
        for (int m = 0; m < ns; m++)
            zb[nz + ZROWS * (size_t) (na + m)] = sw * p[ps[m] - 1] * fs[(size_t) ZROWS * m];
        nz++;
        for (int j = 1; j < k; j++) hess[(j - 1) * (size_t) (np + 1)] += wi * p[j];
        for (int m = 0; m < ns; m++) {
            int j = ps[m] - 1, bm = na + m;
            double fm = fs[(size_t) ZROWS * m];
            hess[bm * (size_t) (np + 1)] += wi * p[j] * fm * fm;
            if (j >= 1) hess[(j - 1) + (size_t) np * bm] += wi * p[j] * fm;   /* (a_j, b_j), a above b */
        }
    }
    if (hess && nz) {   /* h -= z'z, upper triangle */
        const double one = 1.0, minus_one = -1.0;
        int ld = ZROWS;
        F77_CALL(dsyrk)("U", "T", &np, &nz, &minus_one, zb, &ld, &one, hess, &np FCONE FCONE);
    }
    out[0] = value;
}

SEXP rlsc_softmax_map(SEXP f, SEXP code, SEXP own, SEXP w, SEXP theta, SEXP slopes,
                      SEXP center, SEXP inv_scale, SEXP hessian, SEXP threads)
{
    int n, ns;
    rlsc_check_double_matrix(f, "f", &n, &ns);
    if (!isInteger(code) || XLENGTH(code) != n) error("'code' must be an integer vector of length %d", n);
    if (!isInteger(slopes) || XLENGTH(slopes) != ns) error("'slopes' must be an integer vector of length %d", ns);
    if (!isReal(own) || XLENGTH(own) < 2) error("'own' must be a double vector of length at least 2");
    int k = LENGTH(own), na = k - 1, np = na + ns;
    rlsc_check_double_vector(w, "w", n);
    rlsc_check_double_vector(theta, "theta", np);
    rlsc_check_double_vector(center, "center", ns);
    rlsc_check_double_vector(inv_scale, "inv_scale", ns);
    int want_hess = rlsc_check_flag(hessian, "hessian");
    int nth = rlsc_thread_count(threads);
    const int *pc = INTEGER(code), *ps = INTEGER(slopes);
    for (int i = 0; i < n; i++)
        if (pc[i] < 1 || pc[i] > k) error("'code' must hold classes 1 to %d", k);
    for (int m = 0; m < ns; m++)
        if (ps[m] < 1 || ps[m] > k) error("'slopes' must hold classes 1 to %d", k);

    const char *names[] = {"value", "grad", "hess", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SEXP held = PROTECT(rlsc_scratch_new());
    SET_VECTOR_ELT(out, 1, allocVector(REALSXP, np));
    SET_VECTOR_ELT(out, 2, want_hess ? allocMatrix(REALSXP, np, np) : R_NilValue);
    double *grad = REAL(VECTOR_ELT(out, 1)), *hess = want_hess ? REAL(VECTOR_ELT(out, 2)) : NULL;
    memset(grad, 0, sizeof(double) * np);
    if (hess) memset(hess, 0, sizeof(double) * (size_t) np * np);

    int *slope_of = (int *) rlsc_scratch(held, k, sizeof(int));   /* the slope of class j, or -1 */
    for (int j = 0; j < k; j++) slope_of[j] = -1;
    for (int m = 0; m < ns; m++) slope_of[ps[m] - 1] = m;
    softmax_job job = {n, k, na, ns, np, want_hess, REAL(f), REAL(center), REAL(inv_scale), REAL(own),
                       REAL(w), REAL(theta), pc, ps, slope_of};
    /* rounds of blocks (interrupts answered between them), each block's sums
       in its own slot, merged in block order.  A round holds at most 64
       blocks per thread and, with many classes, slots of at most SLOT_DOUBLES
       in all (at least one block per thread): the memory is bounded whatever
       n and the threads */
    int nblocks = n > 0 ? (n - 1) / ZROWS + 1 : 0;
    size_t slot = apart(1 + np + (want_hess ? (size_t) np * np : 0));
    size_t sd = apart(2 * (size_t) k + (size_t) ZROWS * ns + (want_hess ? (size_t) ZROWS * np : 0));
    if (nth > nblocks) nth = nblocks > 0 ? nblocks : 1;
    double fit = SLOT_DOUBLES / (double) slot;
    int per_round = fit < nth ? nth : fit > 64.0 * nth ? 64 * nth : (int) fit;
    if (per_round > nblocks) per_round = nblocks > 0 ? nblocks : 1;
    double *sums = (double *) rlsc_scratch(held, slot * per_round, sizeof(double));
    double *scratch = (double *) rlsc_scratch(held, sd * nth, sizeof(double));
    double value = 0.0;
    for (int b0 = 0; b0 < nblocks; b0 += per_round) {
        int b1 = b0 + per_round < nblocks ? b0 + per_round : nblocks;
        memset(sums, 0, sizeof(double) * slot * (b1 - b0));
        double work = (double) (b1 - b0) * ZROWS * (20.0 * k + (want_hess ? (double) np * np : 0.0));
        int par = rlsc_parallel(nth, b1 - b0, work);
        RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
        for (int b = b0; b < b1; b++) {
            int i0 = b * ZROWS, i1 = n - i0 > ZROWS ? i0 + ZROWS : n;   /* (no overflow near INT_MAX) */
            double *sc = scratch + sd * (par ? rlsc_thread_id() : 0);
            softmax_block(&job, i0, i1, sums + slot * (b - b0), sc);
        }
        for (int b = 0; b < b1 - b0; b++) {
            const double *sb = sums + slot * b;
            value += sb[0];
            for (int q = 0; q < np; q++) grad[q] += sb[1 + q];
            if (hess)
                for (size_t q = 0; q < (size_t) np * np; q++) hess[q] += sb[1 + np + q];
        }
        R_CheckUserInterrupt();
    }
    rlsc_scratch_free(held);
    if (hess) rlsc_mirror_upper(hess, np);
    SET_VECTOR_ELT(out, 0, ScalarReal(value));
    UNPROTECT(2);
    return out;
}

/* Each column's weighted mean and standard deviation (normalized by the sum
   of weights) over the rows of positive weight, the centres and scales of
   the map's decision values (R/calibrate.R, fit_map()): rows of weight 0
   are never read, so rows that drop out of a map need not be copied out.
   Two passes; a third when the largest deviation lies beyond 1e150 or below
   1e-150, which divides the deviations by it before they are squared, so
   that the squares neither overflow nor underflow.  0 for a column without
   rows of positive weight. */
SEXP rlsc_column_spreads(SEXP f, SEXP w)
{
    int n, nc;
    rlsc_check_double_matrix(f, "f", &n, &nc);
    rlsc_check_double_vector(w, "w", n);
    const char *names[] = {"mean", "sd", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, allocVector(REALSXP, nc));
    SET_VECTOR_ELT(out, 1, allocVector(REALSXP, nc));
    const double *pf = REAL(f), *pw = REAL(w);
    double *mean = REAL(VECTOR_ELT(out, 0)), *sd = REAL(VECTOR_ELT(out, 1));
    for (int j = 0; j < nc; j++) {
        const double *col = pf + (size_t) n * j;
        double sw = 0.0, s = 0.0;
        for (int i = 0; i < n; i++)
            if (pw[i] > 0.0) {
                sw += pw[i];
                s += pw[i] * col[i];
            }
        double m = sw > 0.0 ? s / sw : 0.0, top = 0.0, q = 0.0;
        for (int i = 0; i < n; i++)
            if (pw[i] > 0.0) {
                double e = col[i] - m;
                if (fabs(e) > top || ISNAN(e)) top = fabs(e);   /* (NaN stays: no spread) */
                q += pw[i] * e * e;
            }
        /* deviations whose squares may overflow or underflow: again, each
           divided by the largest first */
        if (top > 0.0 && top < INFINITY && !(top > 1e-150 && top < 1e150)) {
            q = 0.0;
            for (int i = 0; i < n; i++)
                if (pw[i] > 0.0) {
                    double e = (col[i] - m) / top;
                    q += pw[i] * e * e;
                }
            sd[j] = top * sqrt(q / sw);
        } else {
            sd[j] = top > 0.0 && top < INFINITY ? sqrt(q / sw) : top;
        }
        mean[j] = m;
    }
    UNPROTECT(1);
    return out;
}
