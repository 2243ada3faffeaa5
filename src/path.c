/* Step 3: the exact leave-one-out path of one group of rows over a grid of
   lambda (DESIGN.md, sections 3 to 5).  Each row i has coordinates basis_i (r) in the
   eigenbasis of the engine; with the filter phi_k(lambda) the path is
       1 - h_i(lambda) = q_i + a_i sum_k basis_ik^2 phi_k(lambda)
       e_i(lambda)     = rho_i (r0_i + c sum_k basis_ik g_k phi_k(lambda))
       f_i = y_i - e_i,    loo_i = y_i - e_i / (1 - h_i)
   in one of two forms:
     direct      phi_k = 1 / (Lambda_k + lambda), a_i = -omega_i, c = -1, rho_i = 1
                 (primal rows, and rows projected like new data);
     complement  phi_k = lambda / (Lambda_k + lambda), a_i = 1, c = 1,
                 rho_i = 1 / sqrt(w_i) (rows of the dual eigendecomposition,
                 basis = U, g = U'(s o (y - ybar))), where 1 - h and y - f are
                 sums of non-negative or well-scaled terms: no cancellation
                 however small lambda is.
   Both sums over k are level-3 products (block of rows x r)(r x grid).  The
   rows `rows` (1-based) go in cache-sized blocks, so nothing of size n x grid exists unless the caller
   keeps the outputs.  Per lambda the criteria are accumulated as weighted
   means and sums of squared deviations, merged block by block (Chan, Golub and
   LeVeque), so groups and chunks of rows merge the same way in R.  The blocks
   are computed by the threads, a few per thread in each round, and their
   summaries merged in block order after the round: the result does not depend
   on the number of threads.
   With `perp` (many response columns, engine_path()): the columns are the
   coordinates of the responses in the row space of g, and perp_i the squared
   norm of row i's residual outside it, which no lambda changes; only the
   squared losses summed over the columns are then computed (the absolute
   ones are NA, the per-column ones meaningless).
   y and r0 are read divided by `unit` (R/engine.R, loss_unit(): a power of
   two, so exactly), here rather than in R, where it took two copies of them
   per call. */
#include "rlsc.h"

/* 1 - h at or below these: the point is interpolated (within rounding) and
   its LOO value undefined.  In the direct form 1 - h is computed as
   1 - (a sum near 1): its absolute error is a few eps, but the rounding of
   the eigenvectors feeds into that sum and, with a condition number of 1e6,
   the error reached 500 eps (a fuzzed problem: LOO values off by 4e-6 at
   1 - h = 3e-8); the threshold keeps about six correct digits of the ratio.
   In the complement form 1 - h and y - f are sums of terms accurate to a few
   eps relative, so only 1 - h = 0 is undefined, except in rows with a share
   q_i > 0 in the directions dropped as numerically zero, whose residual r0_i
   carries an absolute error of about eps. */
#define DIRECT_TOL 1e-6
#define DROPPED_TOL 1e-8

/* the per-row losses accumulated for each lambda, in this order, then the
   squared LOO error of each response column */
enum { LOSS_SQ, LOSS_ABS, LOSS_MIS, LOSS_FIT, NLOSS };

/* What every block of rows reads (shared, read-only in the threads), and
   where the kept outputs go (rows of different blocks never overlap). */
typedef struct {
    int ntot, n, r, nt, nl, nstat, comp, cls, kp, lc;
    const int *prow;
    const double *pb, *pq, *pr0, *py, *pw, *pom, *filt, *gall, *perp, *pg;
    double unit, sign;
    double *omh, *fitted, *loo;
} path_job;

/* Weighted mean and squared deviations of one block's losses (rows with
   ok[i] = 0 left out) into sum[0..2] = (w, mean, m2); w = 0 when no row
   counts. */
static void block_summary(const double *loss, const int *ok, const double *w, int nb, double *sum)
{
    double sw = 0.0, s = 0.0, q = 0.0;
    for (int i = 0; i < nb; i++)
        if (ok[i]) { sw += w[i]; s += w[i] * loss[i]; }
    sum[0] = sw;
    if (sw <= 0.0) return;
    double m = s / sw;
    for (int i = 0; i < nb; i++)
        if (ok[i]) q += w[i] * (loss[i] - m) * (loss[i] - m);
    sum[1] = m;
    sum[2] = q;
}

/* The pairwise update: a block's (w, mean, m2) merged into the running ones. */
static void merge_summary(const double *sum, double *acc_w, double *acc_mean, double *acc_m2)
{
    double sw = sum[0];
    if (sw <= 0.0) return;
    if (*acc_w <= 0.0) { *acc_w = sw; *acc_mean = sum[1]; *acc_m2 = sum[2]; return; }
    double wn = *acc_w + sw, delta = sum[1] - *acc_mean;
    *acc_m2 += sum[2] + delta * delta * *acc_w * sw / wn;
    *acc_mean += delta * sw / wn;
    *acc_w = wn;
}

/* Doubles of one thread's scratch for blocks of up to nb rows. */
static size_t block_doubles(const path_job *job, int nb)
{
    size_t per_row = (job->gall ? 2 : 3) * (size_t) job->r + (size_t) job->lc * (job->nt + 1) +
        job->nstat + 7;
    return (size_t) nb * per_row + 1;
}

/* The rows i0 .. i0 + nb - 1 of `rows`: their losses at every lambda,
   summarized per lambda and loss in sum (3 x nl x nstat), the number of
   undefined LOO values per lambda in na (nl), the kept outputs written in
   place.  The lambdas go lc at a time, so that the products' outputs for
   them stay in cache with the block (and the filters times g, r x L x T,
   are read once per block, not once per few rows).  No R API here: this runs
   in the threads. */
static void path_block(const path_job *job, int i0, int nb, double *scratch, int *iscratch,
                       double *sum, double *na)
{
    int r = job->r, nt = job->nt, nl = job->nl, nstat = job->nstat, ntot = job->ntot;
    int comp = job->comp, lc = job->lc;
    const int *prow = job->prow + i0;
    double *bb = scratch, *bsq = bb + (size_t) nb * r, *hb = bsq + (size_t) nb * r;
    double *fb = hb + (size_t) nb * lc, *loss = fb + (size_t) nb * lc * nt;
    double *wb = loss + (size_t) nb * nstat, *den = wb + nb, *rho = den + nb, *sq = rho + nb,
        *ab = sq + nb, *fit = ab + nb, *best = fit + nb, *bs = best + nb;
    int *ok = iscratch, *ok_fit = ok + nb, *best_t = ok_fit + nb, *truth = best_t + nb;

    for (int i = 0; i < nb; i++) {
        int row = prow[i] - 1;
        wb[i] = job->pw[row];
        rho[i] = comp ? 1.0 / sqrt(wb[i]) : 1.0;
        ok_fit[i] = 1;
        truth[i] = 0;
        if (job->cls && nt > 1)
            for (int t = 1; t < nt; t++)
                if (job->py[row + (size_t) ntot * t] > job->py[row + (size_t) ntot * truth[i]])
                    truth[i] = t;
    }
    for (int k = 0; k < r; k++)
        for (int i = 0; i < nb; i++) {
            int row = prow[i] - 1;
            double v = job->pb[row + (size_t) ntot * k];
            bb[i + (size_t) nb * k] = v;
            bsq[i + (size_t) nb * k] = (comp ? 1.0 : -job->pom[row]) * v * v;
        }
    const double one = 1.0, zero = 0.0;
    for (int l = 0; l < nl; l++) {
        int lk = l % lc;   /* place of lambda l in its chunk */
        if (lk == 0) {     /* the products for lambdas l .. l + lc - 1 */
            int lcn = nl - l < lc ? nl - l : lc, ncol = lcn * nt;
            if (r > 0) {
                F77_CALL(dgemm)("N", "N", &nb, &lcn, &r, &one, bsq, &nb,
                                job->filt + (size_t) r * l, &r, &zero, hb, &nb FCONE FCONE);
                if (job->gall) {
                    F77_CALL(dgemm)("N", "N", &nb, &ncol, &r, &one, bb, &nb,
                                    job->gall + (size_t) r * nt * l, &r, &zero, fb, &nb FCONE FCONE);
                } else {   /* many responses: (B diag(filter)) g, one lambda at a time */
                    for (int k = 0; k < r; k++) {
                        double f = job->sign * job->filt[k + (size_t) r * l];
                        for (int i = 0; i < nb; i++) bs[i + (size_t) nb * k] = f * bb[i + (size_t) nb * k];
                    }
                    F77_CALL(dgemm)("N", "N", &nb, &nt, &r, &one, bs, &nb, job->pg, &r, &zero, fb,
                                    &nb FCONE FCONE);
                }
            } else {
                memset(hb, 0, sizeof(double) * (size_t) nb * lcn);
                memset(fb, 0, sizeof(double) * (size_t) nb * ncol);
            }
        }
        na[l] = 0.0;
        for (int i = 0; i < nb; i++) {
            int row = prow[i] - 1;
            den[i] = job->pq[row] + hb[i + (size_t) nb * lk];
            double tol = !comp ? DIRECT_TOL : job->pq[row] > 0.0 ? DROPPED_TOL : 0.0;
            ok[i] = !(wb[i] > 0.0 && den[i] <= tol);
            if (!ok[i]) na[l] += 1.0;
            sq[i] = ab[i] = fit[i] = 0.0;
            if (job->kp) job->omh[(size_t) (i0 + i) + (size_t) job->n * l] = den[i];
        }
        /* response by response, so that the rows run in the inner loop */
        for (int t = 0; t < nt; t++) {
            const double *fl = fb + (size_t) nb * (t + (size_t) nt * lk);
            double *lt = loss + (size_t) nb * (NLOSS + t);
            for (int i = 0; i < nb; i++) {
                size_t it = (size_t) (prow[i] - 1) + (size_t) ntot * t;
                double e = rho[i] * (job->pr0[it] / job->unit + fl[i]);
                double el = ok[i] ? e / den[i] : NA_REAL;   /* not e * (1 / den): den may be tiny */
                sq[i] += el * el;
                ab[i] += fabs(el);
                fit[i] += e * e;
                lt[i] = el * el;
                if (!job->kp && !job->cls) continue;   /* y is needed for these only */
                double yv = job->py[it] / job->unit, lv = yv - el;
                if (job->kp) {
                    size_t at = (size_t) (i0 + i) + (size_t) job->n * (t + (size_t) nt * l);
                    job->fitted[at] = yv - e;
                    job->loo[at] = lv;
                }
                if (t == 0 || lv > best[i]) { best[i] = lv; best_t[i] = t; }
            }
            /* while the column's losses are in cache */
            block_summary(lt, ok, wb, nb, sum + 3 * (l + (size_t) nl * (NLOSS + t)));
        }
        if (job->perp) {   /* the part of each row's error that no lambda changes */
            for (int i = 0; i < nb; i++) {
                double e2 = rho[i] * rho[i] * job->perp[prow[i] - 1];
                sq[i] += ok[i] ? e2 / (den[i] * den[i]) : NA_REAL;
                fit[i] += e2;
                ab[i] = NA_REAL;
            }
        }
        for (int i = 0; i < nb; i++) {
            loss[i + (size_t) nb * LOSS_SQ] = sq[i] / nt;
            loss[i + (size_t) nb * LOSS_ABS] = ab[i] / nt;
            loss[i + (size_t) nb * LOSS_FIT] = fit[i] / nt;
            double wrong = 0.0;
            if (job->cls && ok[i]) {
                wrong = nt == 1 ? (best[i] > 0.0) != (job->py[prow[i] - 1] > 0.0)
                    : best_t[i] != truth[i];
            }
            loss[i + (size_t) nb * LOSS_MIS] = wrong;
        }
        for (int s = 0; s < NLOSS; s++)
            block_summary(loss + (size_t) nb * s, s == LOSS_FIT ? ok_fit : ok, wb, nb,
                          sum + 3 * (l + (size_t) nl * s));
    }
}

SEXP rlsc_loo_path(SEXP basis, SEXP values, SEXP g, SEXP q, SEXP r0, SEXP y, SEXP w,
                   SEXP omega, SEXP rows, SEXP lambda, SEXP complement, SEXP classify,
                   SEXP keep, SEXP threads, SEXP perp, SEXP unit)
{
    int ntot, n, r, rg, nt, ny, nty, nr0, nt0;
    rlsc_check_double_matrix(basis, "basis", &ntot, &r);
    rlsc_check_double_vector(values, "values", r);
    rlsc_check_double_matrix(g, "g", &rg, &nt);
    if (rg != r) error("'g' must have %d rows, not %d", r, rg);
    rlsc_check_double_vector(q, "q", ntot);
    rlsc_check_double_matrix(r0, "r0", &nr0, &nt0);
    if (nr0 != ntot || nt0 != nt) error("'r0' must be %d x %d, not %d x %d", ntot, nt, nr0, nt0);
    rlsc_check_double_matrix(y, "y", &ny, &nty);
    if (ny != ntot || nty != nt) error("'y' must be %d x %d, not %d x %d", ntot, nt, ny, nty);
    rlsc_check_double_vector(w, "w", ntot);
    rlsc_check_double_vector(omega, "omega", ntot);
    if (!isInteger(rows)) error("'rows' must be an integer vector");
    n = LENGTH(rows);
    const int *prow = INTEGER(rows);
    for (int i = 0; i < n; i++)
        if (prow[i] < 1 || prow[i] > ntot) error("'rows' must be in 1..%d", ntot);
    rlsc_check_double_vector(lambda, "lambda", -1);
    int comp = rlsc_check_flag(complement, "complement");
    int cls = rlsc_check_flag(classify, "classify");
    int kp = rlsc_check_flag(keep, "keep");
    int nth = rlsc_thread_count(threads);
    if (!isNull(perp)) {
        rlsc_check_double_vector(perp, "perp", ntot);
        if (kp || cls) error("'perp' needs 'keep' and 'classify' FALSE");
    }
    rlsc_check_double_vector(unit, "unit", 1);
    if (!(REAL(unit)[0] > 0.0) || !R_FINITE(REAL(unit)[0])) error("'unit' must be positive and finite");
    if (nt < 1) error("'g' must have at least one column");
    if (XLENGTH(lambda) > INT_MAX / 2) error("'lambda' is too long");
    int nl = LENGTH(lambda);
    if ((double) nl * nt > INT_MAX / 2 || (double) r * nl * nt > R_XLEN_T_MAX)
        error("'lambda' and 'g' have too many values together");

    const double *pv = REAL(values), *pg = REAL(g), *pl = REAL(lambda);

    /* the filters phi_k(lambda_l) (r x L) and their products with g (r x T x L);
       with many responses no such products: each block scales its rows by
       the filter instead, one lambda at a time (the same flops, without
       r x T x L numbers to write and read) */
    size_t lt = (size_t) nl * nt;
    int by_lambda = nt >= 32;
    double *filt = (double *) R_alloc((size_t) r * nl + 1, sizeof(double));
    double *gall = by_lambda ? NULL : (double *) R_alloc((size_t) r * lt + 1, sizeof(double));
    for (int l = 0; l < nl; l++)
        for (int k = 0; k < r; k++) {
            double den = pv[k] + pl[l];
            filt[k + (size_t) r * l] = den > 0.0 ? (comp ? pl[l] : 1.0) / den : 0.0;
        }
    double sign = comp ? 1.0 : -1.0;
    for (int l = 0; l < (by_lambda ? 0 : nl); l++)
        for (int t = 0; t < nt; t++)
            for (int k = 0; k < r; k++)
                gall[k + (size_t) r * (t + (size_t) nt * l)] =
                    sign * pg[k + (size_t) r * t] * filt[k + (size_t) r * l];

    SEXP omh = R_NilValue, fitted = R_NilValue, loo = R_NilValue;
    int nprot = 0;
    if (kp) {
        omh = PROTECT(allocMatrix(REALSXP, n, nl));
        fitted = PROTECT(alloc3DArray(REALSXP, n, nt, nl));
        loo = PROTECT(alloc3DArray(REALSXP, n, nt, nl));
        nprot += 3;
    }
    int nstat = NLOSS + nt;
    SEXP acc_w = PROTECT(allocMatrix(REALSXP, nl, nstat));
    SEXP acc_mean = PROTECT(allocMatrix(REALSXP, nl, nstat));
    SEXP acc_m2 = PROTECT(allocMatrix(REALSXP, nl, nstat));
    SEXP n_na = PROTECT(allocVector(REALSXP, nl));
    nprot += 4;
    double *aw = REAL(acc_w), *am = REAL(acc_mean), *a2 = REAL(acc_m2), *pna = REAL(n_na);
    memset(aw, 0, sizeof(double) * (size_t) nl * nstat);
    memset(am, 0, sizeof(double) * (size_t) nl * nstat);
    memset(a2, 0, sizeof(double) * (size_t) nl * nstat);
    memset(pna, 0, sizeof(double) * (size_t) nl);

    /* blocks of rows whose coordinates (twice r per row) fill three quarters
       of the scratch budget, and lambdas in chunks whose products fill the
       rest */
    int nb_max = rlsc_parallel_block_rows(n, 8.0 / 3.0 * r + 16);
    int lc = (int) (BLOCK_DOUBLES / 4 / ((double) nb_max * (nt + 1)));
    lc = lc < 1 || by_lambda ? 1 : lc > nl ? (nl > 0 ? nl : 1) : lc;
    path_job job = {ntot, n, r, nt, nl, nstat, comp, cls, kp, lc, prow, REAL(basis), REAL(q),
                    REAL(r0), REAL(y), REAL(w), REAL(omega), filt, gall,
                    isNull(perp) ? NULL : REAL(perp), pg, REAL(unit)[0], sign, kp ? REAL(omh) : NULL,
                    kp ? REAL(fitted) : NULL, kp ? REAL(loo) : NULL};

    /* the blocks (their size depends on the problem only), computed in
       rounds of a few blocks per thread; each block's summaries are merged in
       block order after its round, then interrupts are answered */
    int nblocks = n > 0 && nl > 0 ? (n + nb_max - 1) / nb_max : 0;
    int per_round = 2 * nth < nblocks ? 2 * nth : (nblocks > 0 ? nblocks : 1);
    size_t per_block = 3 * (size_t) nl * nstat + nl;
    double *scratch = (double *) R_alloc(block_doubles(&job, nb_max) * nth, sizeof(double));
    int *iscratch = (int *) R_alloc(4 * (size_t) nb_max * nth + 1, sizeof(int));
    double *sums = (double *) R_alloc(per_block * per_round + 1, sizeof(double));
    size_t sd = block_doubles(&job, nb_max);
    double block_flops = 2.0 * nb_max * (double) r * nl * (nt + 1) + 10.0 * nb_max * nl * nt;
    for (int b0 = 0; b0 < nblocks; b0 += per_round) {
        int b1 = b0 + per_round < nblocks ? b0 + per_round : nblocks;
        int par = rlsc_parallel(nth, b1 - b0, block_flops * (b1 - b0));
        RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
        for (int b = b0; b < b1; b++) {
            int id = rlsc_thread_id(), i0 = b * nb_max;
            int nb = n - i0 < nb_max ? n - i0 : nb_max;
            double *sum = sums + per_block * (b - b0);
            path_block(&job, i0, nb, scratch + sd * id, iscratch + 4 * (size_t) nb_max * id,
                       sum, sum + 3 * (size_t) nl * nstat);
        }
        for (int b = b0; b < b1; b++) {
            const double *sum = sums + per_block * (b - b0);
            for (size_t at = 0; at < (size_t) nl * nstat; at++)
                merge_summary(sum + 3 * at, aw + at, am + at, a2 + at);
            for (int l = 0; l < nl; l++) pna[l] += sum[3 * (size_t) nl * nstat + l];
        }
        R_CheckUserInterrupt();
    }

    const char *names[] = {"w", "mean", "m2", "n_na", "omh", "fitted", "loo", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SEXP vals[] = {acc_w, acc_mean, acc_m2, n_na, omh, fitted, loo};
    for (int k = 0; k < 7; k++) SET_VECTOR_ELT(out, k, vals[k]);
    UNPROTECT(nprot + 1);
    return out;
}
