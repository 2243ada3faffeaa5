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
   doubles apart, 0.39-0.53 ms; a column at a time, 0.33-0.35 ms.  The
   targets' sums taken per class, no loop branches on a row's class or
   weight (such loops stay scalar): on one thread 0.72 -> 0.59 ms.  A row of
   weight 0 enters with values 0 and weight 0, so that a missing value adds
   nothing.  No R API: this runs in the threads. */
static size_t block_doubles(int k, int ns, int np, int hess)
{
    return (size_t) ZROWS * (ns + k + 8 + (hess ? np : 0)) + 2 * (size_t) k + ns;
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
       target of the other classes, own less other and w times other; per
       class the sums over its rows of w (own - other), and of that times
       its value; per slope the sum of w other f; zb: sqrt(w) z */
    double *fb = scratch, *e = fb + (size_t) ZROWS * ns, *w = e + (size_t) ZROWS * k, *sw = w + ZROWS,
        *top = sw + ZROWS, *tot = top + ZROWS, *ec = tot + ZROWS, *tother = ec + ZROWS, *tdiff = tother + ZROWS,
        *wt = tdiff + ZROWS, *dc = wt + ZROWS, *dcf = dc + k, *swtf = dcf + k, *zb = swtf + ns;
    double swt = 0.0;
    for (int i = 0; i < nb; i++) {
        double wi = pw[i] > 0.0 ? pw[i] : 0.0, own = po[pc[i] - 1];
        w[i] = wi;
        sw[i] = sqrt(wi);
        tother[i] = (1.0 - own) / (k - 1);
        tdiff[i] = own - tother[i];
        wt[i] = wi * tother[i];
        swt += wt[i];
        top[i] = -INFINITY;
        tot[i] = 0.0;
    }
    /* (the value read whatever the row's weight, then 0 where it weighs 0:
       no branch in the loop, which vectorizes) */
    for (int m = 0; m < ns; m++) {
        const double *col = job->pf + (size_t) n * m + i0;
        double c = pcen[m], a = pinv[m], *o = fb + (size_t) ZROWS * m, s = 0.0;
        if (a == 0.0) {
            memset(o, 0, sizeof(double) * nb);
        } else {
            RLSC_OMP(omp simd)
            for (int i = 0; i < nb; i++) {
                double v = (col[i] - c) * a;
                o[i] = w[i] > 0.0 ? v : 0.0;
            }
        }
        RLSC_OMP(omp simd reduction(+:s))
        for (int i = 0; i < nb; i++) s += wt[i] * o[i];
        swtf[m] = s;
    }
    for (int j = 0; j < k; j++) dc[j] = dcf[j] = 0.0;
    for (int i = 0; i < nb; i++) {
        int c = pc[i] - 1, m = slope_of[c];
        double v = w[i] * tdiff[i];
        dc[c] += v;
        if (m >= 0) dcf[c] += v * fb[(size_t) ZROWS * m + i];
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
    }
    for (int i = 0; i < nb; i++) ec[i] = e[(size_t) ZROWS * (pc[i] - 1) + i];
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
    /* the gradient: sum_i w (p_j - t_j) (times f), the sums of w p less
       those of the targets, w other over every row and w (own - other) over
       the class's own rows */
    for (int j = 0; j < k; j++) {
        double *pj = e + (size_t) ZROWS * j;
        int m = slope_of[j];
        double hp = 0.0, hf = 0.0, hff = 0.0;
        if (m >= 0) {
            const double *fm = fb + (size_t) ZROWS * m;
            RLSC_OMP(omp simd reduction(+:hp, hf, hff))
            for (int i = 0; i < nb; i++) {
                double p = pj[i] * top[i], wp = w[i] * p, wpf = wp * fm[i];
                pj[i] = p;
                hp += wp;
                hf += wpf;
                hff += wpf * fm[i];
            }
        } else {
            RLSC_OMP(omp simd reduction(+:hp))
            for (int i = 0; i < nb; i++) {
                double p = pj[i] * top[i];
                pj[i] = p;
                hp += w[i] * p;
            }
        }
        if (j) grad[j - 1] += hp - swt - dc[j];
        if (m >= 0) grad[na + m] += hf - swtf[m] - dcf[j];
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

/* An evaluator of the loss: the job, the threads and the scratch of its
   evaluations (taken once for all the evaluations of a Newton fit). */
typedef struct {
    softmax_job job;
    int nth, nblocks, per_round;
    size_t sd;
    double *sums, *scratch;
} softmax_eval;

/* Checks the arguments and prepares the evaluator (its scratch on `held`). */
static softmax_eval softmax_setup(SEXP f, SEXP code, SEXP own, SEXP w, SEXP theta, SEXP slopes,
                                  SEXP center, SEXP inv_scale, SEXP threads, SEXP held)
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
    int nth = rlsc_thread_count(threads);
    const int *pc = INTEGER(code), *ps = INTEGER(slopes);
    for (int i = 0; i < n; i++)
        if (pc[i] < 1 || pc[i] > k) error("'code' must hold classes 1 to %d", k);
    for (int m = 0; m < ns; m++)
        if (ps[m] < 1 || ps[m] > k) error("'slopes' must hold classes 1 to %d", k);

    int *slope_of = (int *) rlsc_scratch(held, k, sizeof(int));   /* the slope of class j, or -1 */
    for (int j = 0; j < k; j++) slope_of[j] = -1;
    for (int m = 0; m < ns; m++) slope_of[ps[m] - 1] = m;
    softmax_eval ev = {{n, k, na, ns, np, 0, REAL(f), REAL(center), REAL(inv_scale), REAL(own),
                        REAL(w), REAL(theta), pc, ps, slope_of}, nth, 0, 0, 0, NULL, NULL};
    /* rounds of blocks (interrupts answered between them), each block's sums
       in its own slot, merged in block order.  A round holds at most 64
       blocks per thread and, with many classes, slots of at most SLOT_DOUBLES
       in all (at least one block per thread): the memory is bounded whatever
       n and the threads.  (Sized for evaluations with the Hessian.) */
    int nblocks = n > 0 ? (n - 1) / ZROWS + 1 : 0;
    size_t slot = apart(1 + np + (size_t) np * np);
    ev.sd = apart(block_doubles(k, ns, np, 1));
    if (nth > nblocks) nth = nblocks > 0 ? nblocks : 1;
    double fit = SLOT_DOUBLES / (double) slot;
    int per_round = fit < nth ? nth : fit > 64.0 * nth ? 64 * nth : (int) fit;
    if (per_round > nblocks) per_round = nblocks > 0 ? nblocks : 1;
    ev.nth = nth;
    ev.nblocks = nblocks;
    ev.per_round = per_round;
    ev.sums = (double *) rlsc_scratch(held, slot * per_round, sizeof(double));
    ev.scratch = (double *) rlsc_scratch(held, ev.sd * nth, sizeof(double));
    return ev;
}

/* The loss at theta, its gradient into grad (np) and, when hess is not
   NULL, its Hessian into hess (np x np, both triangles). */
static double softmax_evaluate(softmax_eval *ev, const double *theta, double *grad, double *hess)
{
    softmax_job *job = &ev->job;
    int n = job->n, k = job->k, np = job->np, nth = ev->nth;
    job->th = theta;
    job->hess = hess != NULL;
    size_t slot = apart(1 + np + (hess ? (size_t) np * np : 0)), sd = ev->sd;
    double *sums = ev->sums, *scratch = ev->scratch, value = 0.0;
    memset(grad, 0, sizeof(double) * np);
    if (hess) memset(hess, 0, sizeof(double) * (size_t) np * np);
    for (int b0 = 0; b0 < ev->nblocks; b0 += ev->per_round) {
        int b1 = b0 + ev->per_round < ev->nblocks ? b0 + ev->per_round : ev->nblocks;
        memset(sums, 0, sizeof(double) * slot * (b1 - b0));
        double work = (double) (b1 - b0) * ZROWS * (20.0 * k + (hess ? (double) np * np : 0.0));
        int par = rlsc_parallel(nth, b1 - b0, work);
        RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
        for (int b = b0; b < b1; b++) {
            int i0 = b * ZROWS, i1 = n - i0 > ZROWS ? i0 + ZROWS : n;   /* (no overflow near INT_MAX) */
            double *sc = scratch + sd * (par ? rlsc_thread_id() : 0);
            softmax_block(job, i0, i1, sums + slot * (b - b0), sc);
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
    if (hess) rlsc_mirror_upper(hess, np);
    return value;
}

SEXP rlsc_softmax_map(SEXP f, SEXP code, SEXP own, SEXP w, SEXP theta, SEXP slopes,
                      SEXP center, SEXP inv_scale, SEXP hessian, SEXP threads)
{
    SEXP held = PROTECT(rlsc_scratch_new());
    softmax_eval ev = softmax_setup(f, code, own, w, theta, slopes, center, inv_scale, threads, held);
    int want_hess = rlsc_check_flag(hessian, "hessian"), np = ev.job.np;
    const char *names[] = {"value", "grad", "hess", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 1, allocVector(REALSXP, np));
    SET_VECTOR_ELT(out, 2, want_hess ? allocMatrix(REALSXP, np, np) : R_NilValue);
    double value = softmax_evaluate(&ev, REAL(theta), REAL(VECTOR_ELT(out, 1)),
                                    want_hess ? REAL(VECTOR_ELT(out, 2)) : NULL);
    SET_VECTOR_ELT(out, 0, ScalarReal(value));
    rlsc_scratch_free(held);
    UNPROTECT(2);
    return out;
}

/* The step of a Newton fit: x = h^-1 g (nf x nf, h overwritten), as R's
   solve() computes it (LAPACK's dgesv, refused when dgecon's reciprocal
   condition number in the 1-norm is below the machine's epsilon); 0 when
   h is singular so, and x is then g. */
static int newton_solve(double *h, double *x, int nf, int *ipiv, double *work, int *iwork)
{
    const int one = 1;
    int info = 0;
    double anorm = F77_CALL(dlange)("1", &nf, &nf, h, &nf, work FCONE), rcond = 0.0;
    F77_CALL(dgesv)(&nf, &one, h, &nf, ipiv, x, &nf, &info);
    if (info != 0) return 0;
    F77_CALL(dgecon)("1", &nf, h, &nf, &anorm, &rcond, work, iwork, &info FCONE);
    return info == 0 && rcond >= DBL_EPSILON;
}

/* Whether parameter q is held at its bound: a slope (from `na` on) at 0
   whose gradient pushes it below. */
static int held_at(const double *theta, const double *grad, int q, int na)
{
    return q >= na && theta[q] <= 0.0 && grad[q] > 0.0;
}

/* The largest |gradient| over the parameters not held at their bound: 0 if
   none, NaN if any is. */
static double projected_gradient(const double *theta, const double *grad, int np, int na)
{
    double top = 0.0;
    for (int q = 0; q < np; q++) {
        if (!held_at(theta, grad, q, na) && (ISNAN(grad[q]) || fabs(grad[q]) > top))
            top = fabs(grad[q]);   /* (NaN stays) */
        if (ISNAN(top)) return top;
    }
    return top;
}

/* max(1, |v|) as R computes it (NaN for NaN). */
static double at_least_one(double v)
{
    double a = fabs(v);
    return ISNAN(a) || a > 1.0 ? a : 1.0;
}

/* The map's fit: minimizes the loss over theta under theta >= 0 for the
   slopes (theta[na..]), from `theta` (the start), by Newton steps on the
   parameters not held at their bound, projected onto the bounds, with
   backtracking; it stops when the projected gradient is below `tol` or
   the Newton step promises less decrease than the rounding of the loss.
   list(theta, evaluations).  (In R, the same steps took 0.05-0.1 ms of R
   per evaluation, as much as an evaluation of a few thousand rows.) */
SEXP rlsc_softmax_fit(SEXP f, SEXP code, SEXP own, SEXP w, SEXP theta, SEXP slopes,
                      SEXP center, SEXP inv_scale, SEXP tol, SEXP maxit, SEXP threads)
{
    SEXP held = PROTECT(rlsc_scratch_new());
    softmax_eval ev = softmax_setup(f, code, own, w, theta, slopes, center, inv_scale, threads, held);
    if (!isReal(tol) || LENGTH(tol) != 1 || !(REAL(tol)[0] >= 0.0)) error("'tol' must be a number >= 0");
    if (!isInteger(maxit) || LENGTH(maxit) != 1 || INTEGER(maxit)[0] == NA_INTEGER || INTEGER(maxit)[0] < 0)
        error("'maxit' must be a whole number >= 0");
    int np = ev.job.np, na = ev.job.na, iters = INTEGER(maxit)[0], evals = 0;
    double eps = REAL(tol)[0];
    size_t p2 = (size_t) np * np;
    /* six vectors of np, three matrices of np x np, dgecon's 4 np */
    double *th = (double *) rlsc_scratch(held, 10 * (size_t) np + 3 * p2, sizeof(double));
    double *grad = th + np, *tgrad = grad + np, *step = tgrad + np, *nw = step + np, *x = nw + np,
        *hess = x + np, *thess = hess + p2, *h = thess + p2, *work = h + p2;
    int *free = (int *) rlsc_scratch(held, 3 * (size_t) np + 1, sizeof(int)), *ipiv = free + np,
        *iwork = ipiv + np;
    memcpy(th, REAL(theta), sizeof(double) * np);
    for (int q = na; q < np; q++)
        if (th[q] < 0.0) th[q] = 0.0;
    double value = softmax_evaluate(&ev, th, grad, hess);
    evals++;
    for (int it = 0; it < iters; it++) {
        int nf = 0;
        for (int q = 0; q < np; q++)
            if (!held_at(th, grad, q, na)) free[nf++] = q;
        double pg = projected_gradient(th, grad, np, na);
        if (pg < eps || nf == 0) break;
        double top = 0.0;
        for (int a = 0; a < nf; a++) {
            double dq = fabs(hess[free[a] * ((size_t) np + 1)]);
            if (dq > top) top = dq;
        }
        double ridge = 1e-12 * (top > 1e-300 ? top : 1e-300);
        for (int a = 0; a < nf; a++) {
            for (int c = 0; c < nf; c++) h[a + (size_t) nf * c] = hess[free[a] + (size_t) np * free[c]];
            h[a * ((size_t) nf + 1)] += ridge;
            x[a] = grad[free[a]];
        }
        if (!newton_solve(h, x, nf, ipiv, work, iwork))
            for (int a = 0; a < nf; a++) x[a] = grad[free[a]];
        memset(step, 0, sizeof(double) * np);
        for (int a = 0; a < nf; a++) step[free[a]] = -x[a];
        /* converged to rounding: the step promises less decrease than the
           rounding of the loss itself, and backtracking on rounding noise
           took dozens of evaluations per map to find no better point.
           (Sums of the products in long double, as R's sum().) */
        long double acc = 0.0;
        for (int q = 0; q < np; q++) acc += (double) (grad[q] * step[q]);
        if (-(double) acc <= 8 * DBL_EPSILON * at_least_one(value)) break;
        double t = 1.0, trial;
        int with_hess;
        for (;;) {
            with_hess = t == 1.0;
            for (int q = 0; q < np; q++) {
                nw[q] = th[q] + t * step[q];
                if (q >= na && nw[q] < 0.0) nw[q] = 0.0;
            }
            /* the full step with the Hessian: accepted (nearly always), it
               starts the next step without a second evaluation; the shorter
               ones without */
            trial = softmax_evaluate(&ev, nw, tgrad, with_hess ? thess : NULL);
            evals++;
            long double slope = 0.0;
            for (int q = 0; q < np; q++) slope += (double) (grad[q] * (nw[q] - th[q]));
            if (trial <= value + 1e-4 * (double) slope || t < 1e-10) break;
            /* next to the optimum the loss is flat to its rounding (a sum
               over the rows: 1e-14 of 1.1 on 1600 rows) while the gradient is
               still above `tol`; there the full step is taken if it shrinks
               the gradient.  (Held to the loss alone, it failed on rounding,
               and each step backtracked 34 times to t < 1e-10: a fold's map
               of pure noise took up to 160 evaluations, and a loo_predict()
               of 2000 rows 185-670.) */
            if (t == 1.0 && fabs(trial - value) <= 1e-12 * at_least_one(value) &&
                projected_gradient(nw, tgrad, np, na) < pg)
                break;
            t /= 2;
        }
        double moved = 0.0, size = 0.0;
        for (int q = 0; q < np; q++) {
            if (fabs(nw[q] - th[q]) > moved) moved = fabs(nw[q] - th[q]);
            if (fabs(th[q]) > size) size = fabs(th[q]);
        }
        if (moved <= 1e-15 * (1 + size)) break;
        memcpy(th, nw, sizeof(double) * np);
        value = trial;
        memcpy(grad, tgrad, sizeof(double) * np);
        if (with_hess) {
            memcpy(hess, thess, sizeof(double) * p2);
        } else {
            value = softmax_evaluate(&ev, th, grad, hess);
            evals++;
        }
    }
    const char *names[] = {"theta", "evaluations", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, allocVector(REALSXP, np));
    memcpy(REAL(VECTOR_ELT(out, 0)), th, sizeof(double) * np);
    SET_VECTOR_ELT(out, 1, ScalarInteger(evals));
    rlsc_scratch_free(held);
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
    /* (each sum an OpenMP simd reduction: as one chain of additions the 13
       maps' spreads of 5000 x 10 values took 2 ms a 10-class fit, 1.3 ms
       after.  GCC 12 at -O2 keeps these loops scalar, the select of a
       row's value by its weight a branch; split into loops that each
       vectorize, with a scratch column, they took 0.146 ms a call against
       0.10-0.12.) */
    for (int j = 0; j < nc; j++) {
        const double *col = pf + (size_t) n * j;
        double sw = 0.0, s = 0.0;
        RLSC_OMP(omp simd reduction(+:sw, s))
        for (int i = 0; i < n; i++) {
            double wi = pw[i] > 0.0 ? pw[i] : 0.0;
            sw += wi;
            s += wi * (wi > 0.0 ? col[i] : 0.0);
        }
        double m = sw > 0.0 ? s / sw : 0.0, top = 0.0, q = 0.0;
        RLSC_OMP(omp simd reduction(max:top) reduction(+:q))
        for (int i = 0; i < n; i++) {
            double wi = pw[i] > 0.0 ? pw[i] : 0.0, e = wi > 0.0 ? col[i] - m : 0.0, a = fabs(e);
            top = a > top ? a : top;
            q += wi * e * e;
        }
        if (ISNAN(q)) top = q;   /* a NaN deviation: no spread */
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
