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
   Both sums over k are level-3 products: (rows x r)(r x grid) for 1 - h,
   (rows x r)(r x (lambdas x responses)) for e.  Rows with no leverage in the
   fit (held-out rows of K-fold: omega = 0 in the direct form) skip the first.
   The work goes in pieces of a block of rows times a block of response
   columns: the blocks depend on the sizes only, so nothing of size
   n x grid x T (nor the r x grid x T filters times g) exists unless the
   caller keeps the outputs, thousands of response columns stream through
   the same scratch, and both the rows and the columns give the threads work.
   The threads compute the pieces of a few row blocks at a time (a round);
   after each round the pieces' summaries are merged in a fixed order (row
   blocks in order, and within a row block the column blocks in order), so
   the result does not depend on the number of threads.
   Per lambda the criteria are accumulated as weighted means and sums of
   squared deviations, merged block by block (Chan, Golub and LeVeque), so
   groups and chunks of rows merge the same way in R.  The losses of a row
   are its squared, absolute and misclassification errors averaged over the
   response columns, its squared training residual, and the squared error of
   each column.
   With `perp` (many response columns, engine_path()): the columns are the
   coordinates of the responses in the row space of g, and perp_i the squared
   norm of row i's residual outside it, which no lambda changes; only the
   squared losses summed over the columns are then computed (the absolute
   ones are NA, the per-column ones meaningless).
   Without `columns` the per-column losses are not wanted (no criterion per
   response column, LOO or K-fold; kept outputs): their (w, mean, m2) are
   NA, and the pass of squared deviations per column and their merge are
   skipped (7% of a 10-class path).
   With `products` (held-out rows of K-fold, R/kfold.R) the rows' sums
   sum_k basis_ik g_k phi_k(lambda) come formed (n x T x L, in the units of
   y), as x (V G) rather than (x V) G when that is fewer operations
   (heldout_products()); the basis then has no columns (no leverage) and
   the products are copied into the pieces in place of theirs.
   r0 may be NULL with `yorigin` (2 x T: the response's shift and mean, as
   the primal engine has them): then r0 = (y - shift) - mean, formed here per
   block instead of as an n x T matrix in R.
   y, r0 and g are read divided by `unit` (R/path.R, loss_unit(): a power of
   two, so multiplying by its inverse is exact), here rather than in R, where
   it took copies of them per call (g, r x T: 190 MB at 50000 columns); g's
   through the filter's sign, which multiplies every product term once. */
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

/* doubles of the products' outputs and their filters in one piece's scratch
   (lambdas x columns x (rows + r)): 2 MiB, about a core's share of cache */
#define PRODUCT_DOUBLES (1 << 18)
/* rows per block: at most this many, and at least 64 (an eighth of the
   rows in between, so that a few thousand rows give every thread blocks) */
#define MAX_BLOCK_ROWS 256
/* pieces that a call should have at least (a few per thread), and the
   fewest columns a block is cut to for them */
#define MIN_PIECES 8
#define MIN_BLOCK_COLS 32
/* pieces per thread that a round of several column blocks holds (fewer
   when their outputs would pass ROUND_DOUBLES doubles: 32 MiB) */
#define ROUND_PIECES 8
#define ROUND_DOUBLES ((double) (1 << 22))

/* What every piece reads (shared, read-only in the threads), and where the
   kept outputs go (the pieces never write the same elements). */
typedef struct {
    int ntot, n, r, nt, nl, comp, cls, kp, cols;
    int nb_max, tb_max, lc, nrb, ncb;
    const int *prow;
    const double *pb, *pq, *pr0, *py, *pw, *pom, *filt, *pg, *perp, *yo, *prod;
    double inv_unit;
    double *omh, *fitted, *loo;
} path_job;


/* What a piece leaves for the merge: per row and lambda the partial sums over
   its columns of the squared, absolute and squared training errors, and for
   classification the best LOO value and its column; per column and lambda
   the (w, mean, m2) of the squared LOO error over its rows; and, from the
   first column block, the rows' 1 - h and the weights of rows with a LOO
   value (0 where it is undefined). */
typedef struct {
    double *rowsum;   /* 3 x nb x nl */
    double *best;     /* nb x nl */
    double *best_t;   /* nb x nl: the column, a double (exact) for best_loo() */
    double *colsum;   /* 3 x nl x tb */
    double *den, *okw;   /* nb x nl */
    double *nbad;     /* nl: the rows without a LOO value */
} piece_out;

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

/* sum_i w_i (x_i - m)^2 in four interleaved sums (independent chains the
   processor overlaps), added in a fixed order. */
static double squared_deviations(const double *x, const double *w, double m, int n)
{
    double q[4] = {0.0, 0.0, 0.0, 0.0};
    int i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++) {
            double d = x[i + k] - m;
            q[k] += w[i + k] * d * d;
        }
    for (; i < n; i++) q[0] += w[i] * (x[i] - m) * (x[i] - m);
    return (q[0] + q[1]) + (q[2] + q[3]);
}

/* The (w, mean, m2) of the losses x0, x1, x2 (nb values each) with weights
   w (0 for rows left out) into sum0, sum1, sum2 (w = 0 when no row counts):
   one pass for the weighted sums, one for the squared deviations, each with
   independent sums the processor overlaps. */
static void summaries(const double *x0, const double *x1, const double *x2, const double *w,
                      int nb, double *sum0, double *sum1, double *sum2)
{
    double sw = 0.0, s0 = 0.0, s1 = 0.0, s2 = 0.0;
    RLSC_OMP(omp simd reduction(+:sw, s0, s1, s2))
    for (int i = 0; i < nb; i++) {
        sw += w[i];
        s0 += w[i] * x0[i];
        s1 += w[i] * x1[i];
        s2 += w[i] * x2[i];
    }
    double *sums[] = {sum0, sum1, sum2};
    for (int j = 0; j < 3; j++) sums[j][0] = sw, sums[j][1] = sums[j][2] = 0.0;
    if (!(sw > 0.0)) return;
    double m0 = s0 / sw, m1 = s1 / sw, m2 = s2 / sw, q0 = 0.0, q1 = 0.0, q2 = 0.0;
    RLSC_OMP(omp simd reduction(+:q0, q1, q2))
    for (int i = 0; i < nb; i++) {
        double d0 = x0[i] - m0, d1 = x1[i] - m1, d2 = x2[i] - m2;
        q0 += w[i] * d0 * d0;
        q1 += w[i] * d1 * d1;
        q2 += w[i] * d2 * d2;
    }
    sum0[1] = m0, sum0[2] = q0;
    sum1[1] = m1, sum1[2] = q1;
    sum2[1] = m2, sum2[2] = q2;
}

/* The same for one loss. */
static void summary(const double *x, const double *w, int nb, double *sum)
{
    double sw = 0.0, s = 0.0;
    RLSC_OMP(omp simd reduction(+:sw, s))
    for (int i = 0; i < nb; i++) {
        sw += w[i];
        s += w[i] * x[i];
    }
    sum[0] = sw;
    sum[1] = sum[2] = 0.0;
    if (!(sw > 0.0)) return;
    sum[1] = s / sw;
    sum[2] = squared_deviations(x, w, sum[1], nb);
}

/* Doubles of one thread's scratch for a piece. */
static size_t piece_doubles(const path_job *job)
{
    size_t nb = job->nb_max, tb = job->tb_max, r = job->r, nl = job->nl;
    return 2 * nb * r + 3 * nb * nl + nl + 5 * nb + (size_t) job->lc * tb * (nb + r) + 2 * nb * tb + 8;
}

/* The coordinates of the rows prow[0 .. nb - 1]: a pointer into the basis
   (leading dimension ntot) when the rows are consecutive, else a copy in bb. */
static const double *block_basis(const path_job *job, const int *prow, int nb, double *bb, int *ld)
{
    int consecutive = 1;
    for (int i = 1; i < nb && consecutive; i++) consecutive = prow[i] == prow[0] + i;
    if (consecutive) {
        *ld = job->ntot;
        return job->pb + (prow[0] - 1);
    }
    for (int k = 0; k < job->r; k++)
        for (int i = 0; i < nb; i++)
            bb[i + (size_t) nb * k] = job->pb[(prow[i] - 1) + (size_t) job->ntot * k];
    *ld = nb;
    return bb;
}

/* The running best LOO value y - e of each row over the response columns
   (the first column, tt = 0, starts it) and the column t holding it.  Both
   selections are stored whatever they choose, and the column is a double:
   so the loop vectorizes.  (With an int column and a store only when
   better, gcc made a branch of it, taken at random: a third of the path's
   own work with 10 classes.)  Rows without a LOO value get one too;
   row_block_summary() counts no error for them. */
static void best_loo(const double *y, const double *e, int tt, int t, int nb, double *restrict best,
                     double *restrict best_t)
{
    double col = t;
    RLSC_OMP(omp simd)
    for (int i = 0; i < nb; i++) {
        double lv = y[i] - e[i], b = best[i], bt = best_t[i];
        int better = tt == 0 || lv > b;
        double nb_ = better ? lv : b, nt_ = better ? col : bt;
        best[i] = nb_;
        best_t[i] = nt_;
    }
}

/* Piece (b, c): the rows of block b and the response columns of block c at
   every lambda.  The lambdas go lc at a time, so that the product's output
   for them stays in cache with its filters times g.  No R API here: this
   runs in the threads. */
static void path_piece(const path_job *job, int b, int c, double *scratch, piece_out *out)
{
    int r = job->r, nt = job->nt, nl = job->nl, ntot = job->ntot, comp = job->comp;
    int i0 = b * job->nb_max, nb = job->n - i0 < job->nb_max ? job->n - i0 : job->nb_max;
    int t0 = c * job->tb_max, tb = nt - t0 < job->tb_max ? nt - t0 : job->tb_max;
    const int *prow = job->prow + i0;
    size_t snb = nb, lct = (size_t) job->lc * job->tb_max;
    double *bb = scratch, *bsq = bb + snb * r, *den = bsq + snb * r, *inv = den + snb * nl,
        *okw = inv + snb * nl, *sw = okw + snb * nl, *rho = sw + nl, *gch = rho + nb,
        *fb = gch + lct * r, *r0b = fb + lct * nb, *yb = r0b + snb * tb;
    const double one = 1.0, zero = 0.0;
    int ld;
    const double *bp = r > 0 ? block_basis(job, prow, nb, bb, &ld) : bb;
    if (r == 0) ld = nb;

    /* 1 - h of every row at every lambda: one product, unless no row of the
       block has leverage in the fit (held-out rows) */
    double *ar = rho;   /* a_i, then rho_i */
    int lever = comp;
    for (int i = 0; i < nb; i++) {
        ar[i] = comp ? 1.0 : -job->pom[prow[i] - 1];
        lever = lever || ar[i] != 0.0;
    }
    if (lever && r > 0) {
        for (int k = 0; k < r; k++) {
            const double *bk = bp + (size_t) ld * k;
            double *sk = bsq + snb * k;
            RLSC_OMP(omp simd)
            for (int i = 0; i < nb; i++) sk[i] = ar[i] * bk[i] * bk[i];
        }
        F77_CALL(dgemm)("N", "N", &nb, &nl, &r, &one, bsq, &nb, job->filt, &r, &zero, den, &nb
                        FCONE FCONE);
    } else {
        memset(den, 0, sizeof(double) * snb * nl);
    }
    /* per row: rho, the weight and where 1 - h is too small for a LOO value
       (never for rows of weight 0) */
    double *wr = yb + snb * tb, *qr = wr + nb, *tolr = qr + nb, *elb = tolr + nb;
    for (int i = 0; i < nb; i++) {
        int row = prow[i] - 1;
        wr[i] = job->pw[row];
        qr[i] = job->pq[row];
        rho[i] = comp ? 1.0 / sqrt(wr[i]) : 1.0;
        tolr[i] = !(wr[i] > 0.0) ? -INFINITY : !comp ? DIRECT_TOL : qr[i] > 0.0 ? DROPPED_TOL : 0.0;
    }
    /* the first column block keeps 1 - h and the weights for the merge */
    double *dn = c == 0 ? out->den : den, *ow = c == 0 ? out->okw : okw;
    for (int l = 0; l < nl; l++) {
        double *dl = den + snb * l, *dd = dn + snb * l, *il = inv + snb * l, *wl = ow + snb * l;
        RLSC_OMP(omp simd)
        for (int i = 0; i < nb; i++) {
            double d = qr[i] + dl[i];
            dd[i] = d;
            il[i] = 1.0 / d;
            wl[i] = wr[i];
        }
        /* rows whose 1 - h is too small (rare; comparisons kept out of the
           vector loop above): no LOO value, no weight */
        double nbad = 0.0;
        for (int i = 0; i < nb; i++)
            if (dd[i] <= tolr[i]) {
                il[i] = wl[i] = 0.0;
                nbad += 1.0;
            }
        double s = 0.0;
        RLSC_OMP(omp simd reduction(+:s))
        for (int i = 0; i < nb; i++) s += wl[i];
        sw[l] = s;
        if (c == 0) out->nbad[l] = nbad;
        if (job->kp && c == 0)
            memcpy(job->omh + (size_t) i0 + (size_t) job->n * l, dd, sizeof(double) * snb);
    }
    den = dn;
    okw = ow;

    /* the rows' residuals at the start of the filter, r0_i, and their
       response (for kept outputs and classes), in units */
    for (int tt = 0; tt < tb; tt++) {
        int t = t0 + tt;
        for (int i = 0; i < nb; i++) {
            size_t it = (size_t) (prow[i] - 1) + (size_t) ntot * t;
            double e0 = job->pr0 ? job->pr0[it] : (job->py[it] - job->yo[2 * (size_t) t]) - job->yo[2 * (size_t) t + 1];
            r0b[i + snb * tt] = e0 * job->inv_unit;
            if (job->kp || job->cls) yb[i + snb * tt] = job->py[it] * job->inv_unit;
        }
    }
    double *rs_sq = out->rowsum, *rs_ab = rs_sq + snb * nl, *rs_fit = rs_ab + snb * nl;
    memset(out->rowsum, 0, sizeof(double) * 3 * snb * nl);

    /* sign * phi_l goes on the smaller factor of each product: on the
       rows' coordinates, A_l = sign B diag(phi_l), stacked over the lambdas
       (nb lcn x r) times g (r x tb), when the block has no more rows than
       columns; else on g, B times sign diag(phi_l) g (r x tb lcn).  Forming
       the filtered factor costs a pass over it per product, and the BLAS
       packs the other factor once per call: a product as large as the
       scratch allows on both sides keeps both passes small against the
       multiply-adds (held-out rows of K-fold, many response columns, had
       half the GEMM rate with 64-row blocks and g filtered per row block). */
    double sign = (comp ? 1.0 : -1.0) * job->inv_unit;   /* (g in units: exact) */
    int on_rows = nb <= tb && !job->prod;
    for (int l0 = 0; l0 < nl; l0 += job->lc) {
        int lcn = nl - l0 < job->lc ? nl - l0 : job->lc, ncol = lcn * tb, mrow = lcn * nb;
        if (job->prod) {   /* the products given: copied, in units and signed */
            for (int lk = 0; lk < lcn; lk++)
                for (int tt = 0; tt < tb; tt++) {
                    const double *pt = job->prod + (size_t) ntot * (t0 + tt + (size_t) nt * (l0 + lk));
                    double *o = fb + snb * (tt + (size_t) tb * lk);
                    for (int i = 0; i < nb; i++) o[i] = sign * pt[prow[i] - 1];
                }
        } else if (r > 0 && on_rows) {
            for (int k = 0; k < r; k++) {
                const double *bk = bp + (size_t) ld * k;
                for (int lk = 0; lk < lcn; lk++) {
                    double fk = sign * job->filt[k + (size_t) r * (l0 + lk)];
                    double *o = gch + (size_t) nb * lk + (size_t) mrow * k;
                    RLSC_OMP(omp simd)
                    for (int i = 0; i < nb; i++) o[i] = fk * bk[i];
                }
            }
            F77_CALL(dgemm)("N", "N", &mrow, &tb, &r, &one, gch, &mrow, job->pg + (size_t) r * t0, &r,
                            &zero, fb, &mrow FCONE FCONE);
        } else if (r > 0) {
            for (int lk = 0; lk < lcn; lk++)
                for (int tt = 0; tt < tb; tt++) {
                    const double *gt = job->pg + (size_t) r * (t0 + tt);
                    const double *ft = job->filt + (size_t) r * (l0 + lk);
                    double *o = gch + (size_t) r * (tt + (size_t) tb * lk);
                    RLSC_OMP(omp simd)
                    for (int k = 0; k < r; k++) o[k] = sign * gt[k] * ft[k];
                }
            F77_CALL(dgemm)("N", "N", &nb, &ncol, &r, &one, bp, &ld, gch, &r, &zero, fb, &nb
                            FCONE FCONE);
        } else {
            memset(fb, 0, sizeof(double) * snb * ncol);
        }
        for (int lk = 0; lk < lcn; lk++) {
            int l = l0 + lk;
            const double *il = inv + snb * l, *wl = okw + snb * l;
            double *sq = rs_sq + snb * l, *ab = rs_ab + snb * l, *fit = rs_fit + snb * l;
            for (int tt = 0; tt < tb; tt++) {
                double *f = fb + (on_rows ? (size_t) mrow * tt + snb * lk : snb * (tt + (size_t) tb * lk));
                const double *e0 = r0b + snb * tt;
                double s = 0.0;
                int t = t0 + tt;
                const double *yt = yb + snb * tt;
                /* e and the LOO error (kept in elb for the classes); f is
                   overwritten with the squared LOO error, which the second
                   pass reads */
                if (!job->kp) {
                    RLSC_OMP(omp simd reduction(+:s))
                    for (int i = 0; i < nb; i++) {
                        double e = rho[i] * (e0[i] + f[i]), el = e * il[i], l2 = el * el;
                        sq[i] += l2;
                        ab[i] += fabs(el);
                        fit[i] += e * e;
                        f[i] = l2;
                        elb[i] = el;
                        s += wl[i] * l2;
                    }
                } else {
                    const double *dl = den + snb * l;
                    for (int i = 0; i < nb; i++) {
                        /* kept outputs: undefined where the row has weight
                           but none counts; kept values divide (near
                           cancellation they need the correctly rounded
                           quotient, not a product with the inverse) */
                        int ok = wl[i] > 0.0 || !(wr[i] > 0.0);
                        double e = rho[i] * (e0[i] + f[i]);
                        double el = ok ? e / dl[i] : 0.0, l2 = el * el;
                        double lv = ok ? yt[i] - el : NA_REAL;
                        sq[i] += l2;
                        ab[i] += fabs(el);
                        fit[i] += e * e;
                        f[i] = l2;
                        s += wl[i] * l2;
                        elb[i] = el;
                        size_t at = (size_t) (i0 + i) + (size_t) job->n * (t + (size_t) nt * l);
                        job->fitted[at] = yt[i] - e;
                        job->loo[at] = lv;
                    }
                }
                /* classes: each row's largest LOO value so far and its
                   column, in a loop of its own that vectorizes (inside the
                   loops above it took a quarter of a 10-class path) */
                if (job->cls) best_loo(yt, elb, tt, t, nb, out->best + snb * l, out->best_t + snb * l);
                /* the column's weighted mean and squared deviations over the
                   block (one column: the average over the columns is it) */
                if (!job->cols) continue;
                double *cs = out->colsum + 3 * (l + (size_t) nl * tt);
                cs[0] = sw[l];
                cs[1] = cs[2] = 0.0;
                if (sw[l] > 0.0 && nt > 1) {
                    double m = s / sw[l];
                    cs[1] = m;
                    cs[2] = squared_deviations(f, wl, m, nb);
                }
            }
        }
    }
}

/* Row block b after its pieces (outs: one per column block, in order): the
   partial sums added in order, each row's losses (averages over the
   columns), and their summaries per lambda into sum (3 x nl x NLOSS), with
   the number of undefined LOO values per lambda in na (nl). */
static void row_block_summary(const path_job *job, int b, piece_out *outs, double *scratch,
                              double *sum, double *na)
{
    int nt = job->nt, nl = job->nl, ntot = job->ntot, ncb = job->ncb;
    int i0 = b * job->nb_max, nb = job->n - i0 < job->nb_max ? job->n - i0 : job->nb_max;
    const int *prow = job->prow + i0;
    size_t snb = nb;
    double *loss = scratch, *wf = loss + NLOSS * snb;
    int *truth = (int *) (wf + snb);
    double *rs = outs[0].rowsum;
    for (int c = 1; c < ncb; c++) {
        const double *add = outs[c].rowsum;
        for (size_t k = 0; k < 3 * snb * nl; k++) rs[k] += add[k];
        if (job->cls)
            for (size_t k = 0; k < snb * nl; k++)
                if (outs[c].best[k] > outs[0].best[k]) {   /* ties: the first column */
                    outs[0].best[k] = outs[c].best[k];
                    outs[0].best_t[k] = outs[c].best_t[k];
                }
    }
    for (int i = 0; i < nb; i++) {
        int row = prow[i] - 1;
        wf[i] = job->pw[row];
        truth[i] = 0;
        if (job->cls && nt > 1)
            for (int t = 1; t < nt; t++)
                if (job->py[row + (size_t) ntot * t] > job->py[row + (size_t) ntot * truth[i]])
                    truth[i] = t;
    }
    double inv_nt = 1.0 / nt;   /* exact for one column */
    for (int l = 0; l < nl; l++) {
        const double *sq = rs + snb * l, *ab = rs + snb * (nl + l), *fit = rs + snb * (2 * nl + l);
        const double *okw = outs[0].okw + snb * l, *den = outs[0].den + snb * l;
        double *lsq = loss + snb * LOSS_SQ, *lab = loss + snb * LOSS_ABS,
            *lmis = loss + snb * LOSS_MIS, *lfit = loss + snb * LOSS_FIT;
        /* the averages over the columns (the sums themselves for one column) */
        if (nt > 1 || job->perp) {
            RLSC_OMP(omp simd)
            for (int i = 0; i < nb; i++) {
                lsq[i] = sq[i] * inv_nt;
                lab[i] = ab[i] * inv_nt;
                lfit[i] = fit[i] * inv_nt;
            }
        } else {
            lsq = (double *) sq;
            lab = (double *) ab;
            lfit = (double *) fit;
        }
        if (job->perp) {   /* the part of each row's error that no lambda changes */
            for (int i = 0; i < nb; i++) {
                int ok = okw[i] > 0.0 || !(wf[i] > 0.0);
                double e2 = job->perp[prow[i] - 1] * (job->comp ? 1.0 / wf[i] : 1.0);
                lsq[i] = (sq[i] + (ok ? e2 / (den[i] * den[i]) : 0.0)) * inv_nt;
                lfit[i] = (fit[i] + e2) * inv_nt;
                lab[i] = NA_REAL;
            }
        }
        if (!job->cls) memset(lmis, 0, sizeof(double) * snb);   /* no classes, no errors */
        if (job->cls) {
            for (int i = 0; i < nb; i++) {
                size_t at = i + snb * l;
                int ok = okw[i] > 0.0 || !(wf[i] > 0.0);
                lmis[i] = !ok ? 0.0 : nt == 1 ? (outs[0].best[at] > 0.0) != (job->py[prow[i] - 1] > 0.0)
                    : outs[0].best_t[at] != (double) truth[i];
            }
        }
        na[l] = outs[0].nbad[l];
        double *at = sum + 3 * (size_t) l;
        size_t per = 3 * (size_t) nl;
        summaries(lsq, lab, lmis, okw, nb, at + per * LOSS_SQ, at + per * LOSS_ABS, at + per * LOSS_MIS);
        summary(lfit, wf, nb, at + per * LOSS_FIT);
    }
}

SEXP rlsc_loo_path(SEXP basis, SEXP values, SEXP g, SEXP q, SEXP r0, SEXP y, SEXP w,
                   SEXP omega, SEXP rows, SEXP lambda, SEXP complement, SEXP classify,
                   SEXP keep, SEXP threads, SEXP perp, SEXP unit, SEXP yorigin, SEXP columns,
                   SEXP products)
{
    int ntot, n, r, rg, nt, ny, nty, nr0, nt0;
    rlsc_check_double_matrix(basis, "basis", &ntot, &r);
    rlsc_check_double_vector(values, "values", r);
    rlsc_check_double_matrix(g, "g", &rg, &nt);
    if (rg != r) error("'g' must have %d rows, not %d", r, rg);
    rlsc_check_double_vector(q, "q", ntot);
    if (!isNull(r0)) {
        rlsc_check_double_matrix(r0, "r0", &nr0, &nt0);
        if (nr0 != ntot || nt0 != nt) error("'r0' must be %d x %d, not %d x %d", ntot, nt, nr0, nt0);
    }
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
    int cols = rlsc_check_flag(columns, "columns");
    int nth = rlsc_thread_count(threads);
    if (!isNull(perp)) {
        rlsc_check_double_vector(perp, "perp", ntot);
        if (kp || cls) error("'perp' needs 'keep' and 'classify' FALSE");
    }
    rlsc_check_double_vector(unit, "unit", 1);
    if (!(REAL(unit)[0] > 0.0) || !R_FINITE(REAL(unit)[0])) error("'unit' must be positive and finite");
    if (!isNull(yorigin)) {
        int no, nto;
        rlsc_check_double_matrix(yorigin, "yorigin", &no, &nto);
        if (no != 2 || nto != nt) error("'yorigin' must be 2 x %d, not %d x %d", nt, no, nto);
    } else if (isNull(r0)) {
        error("'r0' and 'yorigin' must not both be NULL");
    }
    if (nt < 1) error("'g' must have at least one column");
    if (XLENGTH(lambda) > INT_MAX / 2) error("'lambda' is too long");
    int nl = LENGTH(lambda);
    if (!isNull(products)) {
        if (!isReal(products) || XLENGTH(products) != (R_xlen_t) ntot * nt * nl)
            error("'products' must be a double array of %d x %d x %d", ntot, nt, nl);
        if (r != 0 || comp) error("'products' needs a 'basis' of no columns and the direct form");
    }
    if ((double) nl * nt > INT_MAX / 2 || (double) r * nl * nt > R_XLEN_T_MAX)
        error("'lambda' and 'g' have too many values together");

    const double *pv = REAL(values), *pl = REAL(lambda);

    SEXP held = PROTECT(rlsc_scratch_new());
    int nprot = 1;
    /* the filters phi_k(lambda_l) (r x L) */
    double *filt = (double *) rlsc_scratch(held, (size_t) r * nl + 1, sizeof(double));
    for (int l = 0; l < nl; l++)
        for (int k = 0; k < r; k++) {
            double den = pv[k] + pl[l];
            filt[k + (size_t) r * l] = den > 0.0 ? (comp ? pl[l] : 1.0) / den : 0.0;
        }

    SEXP omh = R_NilValue, fitted = R_NilValue, loo = R_NilValue;
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

    /* the sizes of the pieces, from the sizes of the problem only: blocks of
       MAX_BLOCK_ROWS rows (fewer when the rows' coordinates would pass about
       8 MiB), blocks of columns and chunks of lambdas whose products and
       filters fill PRODUCT_DOUBLES.  When that gives fewer than MIN_PIECES
       pieces, the columns go in more blocks first (down to MIN_BLOCK_COLS
       columns: the products keep their rows, which the BLAS's packing of
       the filtered factor needs), then the rows (an eighth of them, at least
       64), so that a few hundred rows still give every thread pieces */
    int nb_max = MAX_BLOCK_ROWS, tb_max = 0, lc = 1;
    if ((double) nb_max * r > (1 << 20)) nb_max = (1 << 20) / (r > 0 ? r : 1);
    if (nb_max < 16) nb_max = 16;
    if (nb_max > n) nb_max = n > 0 ? n : 1;
    tb_max = (int) (PRODUCT_DOUBLES / ((double) nb_max + r));
    if (tb_max < 1) tb_max = 1;
    if (tb_max > nt) tb_max = nt;
    double nrb0 = ceil((double) n / nb_max);
    if (nrb0 * ceil((double) nt / tb_max) < MIN_PIECES) {
        int tb = (int) ceil(nt / ceil(MIN_PIECES / nrb0));
        if (tb < MIN_BLOCK_COLS) tb = MIN_BLOCK_COLS;
        if (tb < tb_max) tb_max = tb;
        if (nrb0 * ceil((double) nt / tb_max) < MIN_PIECES) {
            int nb = n / 8 + 1;
            if (nb < 64) nb = 64;
            if (nb < nb_max) nb_max = nb;
        }
    }
    lc = (int) (PRODUCT_DOUBLES / (((double) nb_max + r) * tb_max));
    if (lc < 1) lc = 1;
    if (lc > nl) lc = nl > 0 ? nl : 1;
    path_job job = {ntot, n, r, nt, nl, comp, cls, kp, cols, nb_max, tb_max, lc, 0, 0, prow,
                    REAL(basis), REAL(q), isNull(r0) ? NULL : REAL(r0), REAL(y), REAL(w),
                    REAL(omega), filt, REAL(g), isNull(perp) ? NULL : REAL(perp),
                    isNull(r0) ? REAL(yorigin) : NULL, isNull(products) ? NULL : REAL(products),
                    1.0 / REAL(unit)[0],
                    kp ? REAL(omh) : NULL, kp ? REAL(fitted) : NULL, kp ? REAL(loo) : NULL};
    int nrb = n > 0 && nl > 0 ? (n + nb_max - 1) / nb_max : 0, ncb = (nt + tb_max - 1) / tb_max;
    job.nrb = nrb;
    job.ncb = ncb;

    /* rounds of row blocks (all their column blocks).  With one column block
       each piece summarizes its rows itself, keeping only (w, mean, m2)
       per lambda and loss: rounds of about 2e8 operations per thread (few
       parallel regions, each answering interrupts after it).  With several,
       a round keeps every piece's partial sums per row until the merge:
       rounds of two to four pieces per thread, or about eight while their
       partial sums take at most 32 MiB. */
    int single = ncb == 1;
    double piece_flops = 2.0 * nb_max * (double) r * nl * (tb_max + 1) + 12.0 * nb_max * nl * tb_max;
    int per_round;
    if (single) {
        double want = 2e8 * nth / piece_flops;
        per_round = want < 2 * nth ? 2 * nth : want > 256 ? 256 : (int) want;
    } else {
        per_round = (2 * nth + ncb - 1) / ncb;
        int most = (4 * nth) / ncb, cheap = (int) (4e8 * nth / (piece_flops * ncb));
        if (per_round < (cheap < most ? cheap : most)) per_round = cheap < most ? cheap : most;
        /* and rounds of about ROUND_PIECES pieces per thread while their
           outputs fit in ROUND_DOUBLES: the threads wait for each other at
           the end of a round, so a round of a few pieces left one idle for
           its last (a fold's 400 held-out rows in 7 blocks of columns: 7
           pieces on 2 threads, 4 and 3).  The merge's order is the row
           blocks' whatever the rounds */
        double out_doubles = (double) ncb * nl * (5.0 * nb_max + (cls ? 2.0 * nb_max : 0.0) + 3.0 * tb_max);
        int even = (ROUND_PIECES * nth + ncb - 1) / ncb, fit = (int) (ROUND_DOUBLES / out_doubles);
        if (even > fit) even = fit;
        if (per_round < even) per_round = even;
    }
    if (per_round < 1) per_round = 1;
    if (per_round > nrb) per_round = nrb > 0 ? nrb : 1;
    int npieces = per_round * ncb;

    /* scratch: per thread; the pieces' outputs of a round: their columns'
       summaries and (several column blocks) their rows' partial sums, which
       with one column block stay in the thread's scratch */
    size_t sd = piece_doubles(&job), snl = nl, snb = nb_max;
    size_t ssum = NLOSS * snb + snb + snb / 2 + 2;
    size_t row_part = 3 * snb * snl + (cls ? 2 * snb * snl : 0) + 2 * snb * snl + snl;
    size_t col_part = 3 * snl * tb_max;
    int nrow_parts = single ? nth : npieces;
    double *scratch = (double *) rlsc_scratch(held, sd * nth, sizeof(double));
    double *sscratch = (double *) rlsc_scratch(held, ssum * nth, sizeof(double));
    double *rbuf = (double *) rlsc_scratch(held, row_part * nrow_parts + 1, sizeof(double));
    double *cbuf = (double *) rlsc_scratch(held, col_part * npieces + 1, sizeof(double));
    piece_out *outs = (piece_out *) rlsc_scratch(held, nrow_parts, sizeof(piece_out));
    for (int p = 0; p < nrow_parts; p++) {
        double *at = rbuf + row_part * p;
        outs[p].rowsum = at;
        at += 3 * snb * snl;
        outs[p].best = cls ? at : NULL;
        outs[p].best_t = cls ? at + snb * snl : NULL;
        at += cls ? 2 * snb * snl : 0;
        outs[p].den = at;
        outs[p].okw = at + snb * snl;
        outs[p].nbad = at + 2 * snb * snl;
        outs[p].colsum = cbuf + col_part * p;
    }
    size_t per_block = 3 * snl * NLOSS + snl;
    double *sums = (double *) rlsc_scratch(held, per_block * per_round + 1, sizeof(double));

    for (int b0 = 0; b0 < nrb; b0 += per_round) {
        int b1 = b0 + per_round < nrb ? b0 + per_round : nrb, np = (b1 - b0) * ncb;
        int par = rlsc_parallel(nth, np, piece_flops * np);
        if (single) {
            RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
            for (int p = 0; p < np; p++) {
                int id = rlsc_thread_id();
                piece_out o = outs[id];
                double *sum = sums + per_block * p;
                o.colsum = cbuf + col_part * p;
                path_piece(&job, b0 + p, 0, scratch + sd * id, &o);
                row_block_summary(&job, b0 + p, &o, sscratch + ssum * id, sum, sum + 3 * snl * NLOSS);
            }
        } else {
            RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
            for (int p = 0; p < np; p++)
                path_piece(&job, b0 + p / ncb, p % ncb, scratch + sd * rlsc_thread_id(), outs + p);
            par = rlsc_parallel(nth, b1 - b0, 20.0 * nb_max * nl * ncb * (b1 - b0));
            RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
            for (int bb = b0; bb < b1; bb++) {
                double *sum = sums + per_block * (bb - b0);
                row_block_summary(&job, bb, outs + (size_t) (bb - b0) * ncb,
                                  sscratch + ssum * rlsc_thread_id(), sum, sum + 3 * snl * NLOSS);
            }
        }
        /* the merge, in the order of the row blocks */
        for (int bb = b0; bb < b1; bb++) {
            const double *sum = sums + per_block * (bb - b0);
            for (size_t at = 0; at < snl * NLOSS; at++)
                merge_summary(sum + 3 * at, aw + at, am + at, a2 + at);
            for (int l = 0; l < nl; l++) pna[l] += sum[3 * snl * NLOSS + l];
            if (nt == 1 || !cols) continue;
            for (int c = 0; c < ncb; c++) {
                const double *cs = cbuf + col_part * ((size_t) (bb - b0) * ncb + c);
                int t0 = c * tb_max, tb = nt - t0 < tb_max ? nt - t0 : tb_max;
                for (int tt = 0; tt < tb; tt++)
                    for (int l = 0; l < nl; l++) {
                        size_t at = l + snl * (NLOSS + t0 + tt);
                        merge_summary(cs + 3 * (l + snl * tt), aw + at, am + at, a2 + at);
                    }
            }
        }
        R_CheckUserInterrupt();
    }
    rlsc_scratch_free(held);
    if (nt == 1) {   /* the one column's squared error is the average over the columns */
        memcpy(aw + snl * NLOSS, aw + snl * LOSS_SQ, sizeof(double) * snl);
        memcpy(am + snl * NLOSS, am + snl * LOSS_SQ, sizeof(double) * snl);
        memcpy(a2 + snl * NLOSS, a2 + snl * LOSS_SQ, sizeof(double) * snl);
    } else if (!cols) {   /* not computed */
        for (size_t at = snl * NLOSS; at < snl * nstat; at++) aw[at] = am[at] = a2[at] = NA_REAL;
    }

    const char *names[] = {"w", "mean", "m2", "n_na", "omh", "fitted", "loo", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SEXP vals[] = {acc_w, acc_mean, acc_m2, n_na, omh, fitted, loo};
    for (int k = 0; k < 7; k++) SET_VECTOR_ELT(out, k, vals[k]);
    UNPROTECT(nprot + 1);
    return out;
}
