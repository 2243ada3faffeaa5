/* The loss of the calibration map of class probabilities (R/calibrate.R,
   fit_map()): the weighted cross-entropy of p = softmax(eta) against Platt's
   targets, with eta_ij = a_j + b_j f_ij (a_1 = 0; slopes b only on the
   classes `slopes`), its gradient and its Hessian in the parameters
   theta = (a_2 .. a_k, b_slopes).  One pass over the rows in blocks that
   the threads take, the Hessian's O(n k^2) in dsyrk per block; in R the
   same sums took a dozen n x k temporaries per Newton step, and the Newton
   fits were half the time of a 10-class fit.
   The slopes act on the decision values centred and scaled, f_s = (F_s -
   c_s) / s_s, formed per block from the raw values F (ns columns) with the
   centres c and the inverse scales 1 / s_s (0: the column is flat and f_s
   = 0), so that no centred, scaled copy of F is made per map (five n x k
   temporaries, a millisecond of R per map of 5000 rows and 10 classes).
   Summed over the rows, with r_j = w (p_j - t_j) and z = (p_2 .. p_k,
   p_s f_s):
       value  -= w sum_j t_j (eta_j - lse)
       grad    = (r_2 .. r_k, r_s f_s)
       hess   += w (diag(p_2 .. p_k, p_s f_s^2) - z z'), plus w p_s f_s on the
                 (a_s, b_s) pairs (s >= 2): the softmax's diag(p) - p p'.
   The targets: t_j = own[c] for the row's class c, (1 - own[c]) / (k - 1)
   otherwise.  Rows of weight 0 add nothing, whatever their values: rows
   that drop out of a map (held-out values NA, a fold left out) weigh 0
   rather than being copied out. */
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
   asked for), out zeroed by the caller.  `scratch`: block_doubles(k, ns,
   np) doubles.  The block is worked a column (class) at a time, each step a
   loop over its rows that vectorizes.  Row by row, each row's k classes in
   turn, an evaluation of 5000 rows and 10 classes with the Hessian took
   0.73-0.89 ms on two threads (AMD EPYC, OpenBLAS): a row's values of
   the block's columns lay 4 KiB apart, in one set of the L1 cache; 520
   doubles apart, 0.39-0.53 ms; a column at a time, 0.33-0.35 ms.  A row of
   weight 0 enters with values 0 and weight 0, so that a missing value adds
   nothing.  No R API: this runs in the threads. */
static size_t block_doubles(int k, int ns, int np, int hess)
{
    return (size_t) ZROWS * (ns + k + 7 + (hess ? np : 0));
}

static void softmax_block(const softmax_job *job, int i0, int i1, double *out, double *scratch)
{
    int n = job->n, k = job->k, na = job->na, ns = job->ns, np = job->np, nb = i1 - i0;
    const double *pcen = job->pcen, *pinv = job->pinv, *po = job->po, *th = job->th;
    const double *pw = job->pw + i0;
    const int *pc = job->pc + i0, *ps = job->ps, *slope_of = job->slope_of;
    double *grad = out + 1, *hess = job->hess ? out + 1 + np : NULL;
    /* fb: the values centred and scaled (a flat column's are 0); e: eta
       less the row's largest, then p; per row: w, sqrt(w), the largest eta,
       then the sum of exponentials, the sum of e, e of the row's class, the
       target of the other classes and own less other; zb: sqrt(w) z */
    double *fb = scratch, *e = fb + (size_t) ZROWS * ns, *w = e + (size_t) ZROWS * k, *sw = w + ZROWS,
        *top = sw + ZROWS, *tot = top + ZROWS, *ec = tot + ZROWS, *tother = ec + ZROWS, *tdiff = tother + ZROWS,
        *zb = tdiff + ZROWS;
    for (int i = 0; i < nb; i++) {
        double wi = pw[i] > 0.0 ? pw[i] : 0.0, own = po[pc[i] - 1];
        w[i] = wi;
        sw[i] = sqrt(wi);
        tother[i] = (1.0 - own) / (k - 1);
        tdiff[i] = own - tother[i];
        top[i] = -INFINITY;
        tot[i] = 0.0;
    }
    for (int m = 0; m < ns; m++) {
        const double *col = job->pf + (size_t) n * m + i0;
        double c = pcen[m], a = pinv[m], *o = fb + (size_t) ZROWS * m;
        for (int i = 0; i < nb; i++) o[i] = a == 0.0 || w[i] == 0.0 ? 0.0 : (col[i] - c) * a;
    }
    for (int j = 0; j < k; j++) {
        double aj = j ? th[j - 1] : 0.0, *ej = e + (size_t) ZROWS * j;
        int m = slope_of[j];
        if (m >= 0) {
            double bj = th[na + m];
            const double *fm = fb + (size_t) ZROWS * m;
            RLSC_OMP(omp simd)
            for (int i = 0; i < nb; i++) ej[i] = aj + bj * fm[i];
        } else {
            for (int i = 0; i < nb; i++) ej[i] = aj;
        }
        RLSC_OMP(omp simd)
        for (int i = 0; i < nb; i++) top[i] = ej[i] > top[i] ? ej[i] : top[i];
    }
    for (int j = 0; j < k; j++) {
        double *ej = e + (size_t) ZROWS * j;
        RLSC_OMP(omp simd)
        for (int i = 0; i < nb; i++) {
            ej[i] -= top[i];
            tot[i] += ej[i];
        }
        for (int i = 0; i < nb; i++)
            if (pc[i] == j + 1) ec[i] = ej[i];
    }
    for (int i = 0; i < nb; i++) top[i] = 0.0;   /* now the sum of exponentials */
    for (int j = 0; j < k; j++) {
        double *ej = e + (size_t) ZROWS * j;
        for (int i = 0; i < nb; i++) {
            ej[i] = exp(ej[i]);
            top[i] += ej[i];
        }
    }
    /* the loss: sum_j t_j (e_j - log s), the targets summing to 1 */
    double value = 0.0;
    for (int i = 0; i < nb; i++) {
        double ls = log(top[i]);
        value -= w[i] * (tother[i] * (tot[i] - k * ls) + tdiff[i] * (ec[i] - ls));
        top[i] = 1.0 / top[i];
    }
    for (int j = 0; j < k; j++) {
        double *pj = e + (size_t) ZROWS * j;
        int m = slope_of[j], cj = j + 1;
        const double *fm = m >= 0 ? fb + (size_t) ZROWS * m : NULL;
        double ra = 0.0, rb = 0.0, hp = 0.0, hf = 0.0, hff = 0.0;
        RLSC_OMP(omp simd reduction(+:ra, rb, hp, hf, hff))
        for (int i = 0; i < nb; i++) {
            double p = pj[i] * top[i], wp = w[i] * p, f = fm ? fm[i] : 0.0;
            double r = wp - w[i] * (tother[i] + (pc[i] == cj ? tdiff[i] : 0.0));
            pj[i] = p;
            ra += r;
            rb += r * f;
            hp += wp;
            hf += wp * f;
            hff += wp * f * f;
        }
        if (j) grad[j - 1] += ra;
        if (m >= 0) grad[na + m] += rb;
        if (!hess) continue;
        if (j) hess[(j - 1) * (size_t) (np + 1)] += hp;
        if (m >= 0) {
            int bm = na + m;
            hess[bm * (size_t) (np + 1)] += hff;
            if (j) hess[(j - 1) + (size_t) np * bm] += hf;   /* (a_j, b_j), a above b */
        }
    }
    if (hess && nb) {   /* h -= z'z, upper triangle, z = (p_2 .. p_k, p_s f_s) */
        for (int j = 1; j < k; j++) {
            const double *pj = e + (size_t) ZROWS * j;
            double *z = zb + (size_t) ZROWS * (j - 1);
            RLSC_OMP(omp simd)
            for (int i = 0; i < nb; i++) z[i] = sw[i] * pj[i];
        }
        for (int m = 0; m < ns; m++) {
            const double *pj = e + (size_t) ZROWS * (ps[m] - 1), *fm = fb + (size_t) ZROWS * m;
            double *z = zb + (size_t) ZROWS * (na + m);
            RLSC_OMP(omp simd)
            for (int i = 0; i < nb; i++) z[i] = sw[i] * pj[i] * fm[i];
        }
        const double one = 1.0, minus_one = -1.0;
        int ld = ZROWS;
        F77_CALL(dsyrk)("U", "T", &np, &nb, &minus_one, zb, &ld, &one, hess, &np FCONE FCONE);
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
    size_t sd = apart(block_doubles(k, ns, np, want_hess));
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
