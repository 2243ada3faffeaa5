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
   With `values` (and `keep`, without `columns`) only the LOO values are
   kept and nothing else is computed: no losses, 1 - h or fitted values
   (held-out rows of K-fold whose criteria R computes from their values,
   R/kfold.R; their losses through the path were a third of their time in
   a 10-class fit of 5000 rows).
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
    int ntot, n, r, nt, nl, comp, cls, kp, vals, cols;
    int nb_max, tb_max, lc, nrb, ncb;
    const int *prow;
    const double *pb, *pq, *pr0, *py, *pw, *pom, *filt, *pg, *perp, *yo, *prod, *pv, *pl;
    double inv_unit, piece_flops;
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

/* One piece's rows (block b) and response columns (block c), and where its
   scratch goes (piece_doubles(); the first column block writes 1 - h and the
   rows' weights to its output for the merge instead). */
typedef struct {
    int b, c, i0, nb, t0, tb, ld, on_rows;
    size_t snb;
    double sign;          /* the filter's sign over the unit: g in units (exact) */
    const int *prow;
    const double *bp;     /* the rows' coordinates, leading dimension ld */
    double *bb, *bsq, *den, *inv, *okw, *sw, *rho, *gch, *fb, *r0b, *yb, *wr, *qr, *tolr, *elb;
} piece_work;

/* The piece's rows, columns and scratch. */
static void piece_setup(const path_job *job, int b, int c, double *scratch, piece_work *pw)
{
    int r = job->r, nl = job->nl;
    pw->b = b;
    pw->c = c;
    pw->i0 = b * job->nb_max;
    pw->nb = job->n - pw->i0 < job->nb_max ? job->n - pw->i0 : job->nb_max;
    pw->t0 = c * job->tb_max;
    pw->tb = job->nt - pw->t0 < job->tb_max ? job->nt - pw->t0 : job->tb_max;
    pw->prow = job->prow + pw->i0;
    int nb = pw->nb;
    size_t snb = nb, lct = (size_t) job->lc * job->tb_max;
    pw->snb = snb;
    pw->bb = scratch;
    pw->bsq = pw->bb + snb * r;
    pw->den = pw->bsq + snb * r;
    pw->inv = pw->den + snb * nl;
    pw->okw = pw->inv + snb * nl;
    pw->sw = pw->okw + snb * nl;
    pw->rho = pw->sw + nl;
    pw->gch = pw->rho + nb;
    pw->fb = pw->gch + lct * r;
    pw->r0b = pw->fb + lct * nb;
    pw->yb = pw->r0b + snb * pw->tb;
    pw->wr = pw->yb + snb * pw->tb;
    pw->qr = pw->wr + nb;
    pw->tolr = pw->qr + nb;
    pw->elb = pw->tolr + nb;
    pw->ld = nb;
    pw->bp = r > 0 ? block_basis(job, pw->prow, nb, pw->bb, &pw->ld) : pw->bb;
    pw->sign = (job->comp ? 1.0 : -1.0) * job->inv_unit;
    pw->on_rows = nb <= pw->tb && !job->prod;
}

/* 1 - h of every row at every lambda (one product, unless no row of the
   block has leverage in the fit: held-out rows), each row's rho and weight,
   and where 1 - h is too small for a LOO value: there the row has no inverse
   and no weight (never for rows of weight 0). */
static void piece_leverage(const path_job *job, piece_work *pw, piece_out *out)
{
    int r = job->r, nl = job->nl, nb = pw->nb, comp = job->comp, ld = pw->ld;
    size_t snb = pw->snb;
    const int *prow = pw->prow;
    const double one = 1.0, zero = 0.0;
    double *ar = pw->rho, *den = pw->den;   /* a_i, then rho_i */
    int lever = comp;
    for (int i = 0; i < nb; i++) {
        ar[i] = comp ? 1.0 : -job->pom[prow[i] - 1];
        lever = lever || ar[i] != 0.0;
    }
    if (lever && r > 0) {
        for (int k = 0; k < r; k++) {
            const double *bk = pw->bp + (size_t) ld * k;
            double *sk = pw->bsq + snb * k;
            RLSC_OMP(omp simd)
            for (int i = 0; i < nb; i++) sk[i] = ar[i] * bk[i] * bk[i];
        }
        F77_CALL(dgemm)("N", "N", &nb, &nl, &r, &one, pw->bsq, &nb, job->filt, &r, &zero, den, &nb
                        FCONE FCONE);
    } else {
        memset(den, 0, sizeof(double) * snb * nl);
    }
    double *wr = pw->wr, *qr = pw->qr, *tolr = pw->tolr, *rho = pw->rho;
    for (int i = 0; i < nb; i++) {
        int row = prow[i] - 1;
        wr[i] = job->pw[row];
        qr[i] = job->pq[row];
        rho[i] = comp ? 1.0 / sqrt(wr[i]) : 1.0;
        tolr[i] = !(wr[i] > 0.0) ? -INFINITY : !comp ? DIRECT_TOL : qr[i] > 0.0 ? DROPPED_TOL : 0.0;
    }
    /* the first column block keeps 1 - h and the weights for the merge */
    int first = pw->c == 0;
    double *dn = first ? out->den : den, *ow = first ? out->okw : pw->okw;
    for (int l = 0; l < nl; l++) {
        double *dl = den + snb * l, *dd = dn + snb * l, *il = pw->inv + snb * l, *wl = ow + snb * l;
        RLSC_OMP(omp simd)
        for (int i = 0; i < nb; i++) {
            double d = qr[i] + dl[i];
            dd[i] = d;
            il[i] = 1.0 / d;
            wl[i] = wr[i];
        }
        /* rows whose 1 - h is too small (rare; comparisons kept out of the
           vector loop above) */
        double nbad = 0.0;
        for (int i = 0; i < nb; i++)
            if (dd[i] <= tolr[i]) {
                il[i] = wl[i] = 0.0;
                nbad += 1.0;
            }
        double s = 0.0;
        RLSC_OMP(omp simd reduction(+:s))
        for (int i = 0; i < nb; i++) s += wl[i];
        pw->sw[l] = s;
        if (first) out->nbad[l] = nbad;
        if (job->omh && first)
            memcpy(job->omh + (size_t) pw->i0 + (size_t) job->n * l, dd, sizeof(double) * snb);
    }
    pw->den = dn;
    pw->okw = ow;
}

/* The rows' residuals at the start of the filter, r0_i, and their response
   (for kept outputs and classes), in units. */
static void piece_residuals(const path_job *job, piece_work *pw)
{
    size_t snb = pw->snb;
    for (int tt = 0; tt < pw->tb; tt++) {
        size_t t = (size_t) pw->t0 + tt;
        for (int i = 0; i < pw->nb; i++) {
            size_t it = (size_t) (pw->prow[i] - 1) + (size_t) job->ntot * t;
            double e0 = job->pr0 ? job->pr0[it] : (job->py[it] - job->yo[2 * t]) - job->yo[2 * t + 1];
            pw->r0b[i + snb * tt] = e0 * job->inv_unit;
            if (job->kp || job->cls) pw->yb[i + snb * tt] = job->py[it] * job->inv_unit;
        }
    }
}

/* The products sign * basis_i diag(phi_l) g of lambdas l0 .. l0 + lcn - 1
   into fb (or the products given, held-out rows).  sign * phi_l goes on the
   smaller factor of each product: on the rows' coordinates, A_l = sign B
   diag(phi_l), stacked over the lambdas (nb lcn x r) times g (r x tb), when
   the block has no more rows than columns; else on g, B times sign
   diag(phi_l) g (r x tb lcn).  Forming the filtered factor costs a pass over
   it per product, and the BLAS packs the other factor once per call: a
   product as large as the scratch allows on both sides keeps both passes
   small against the multiply-adds (held-out rows of K-fold, many response
   columns, had half the GEMM rate with 64-row blocks and g filtered per row
   block). */
static void piece_products(const path_job *job, const piece_work *pw, int l0, int lcn)
{
    int r = job->r, nb = pw->nb, tb = pw->tb, t0 = pw->t0, ld = pw->ld;
    int ncol = lcn * tb, mrow = lcn * nb;
    size_t snb = pw->snb;
    double sign = pw->sign, *gch = pw->gch, *fb = pw->fb;
    const double one = 1.0, zero = 0.0;
    if (job->prod) {   /* the products given: copied, in units and signed */
        for (int lk = 0; lk < lcn; lk++)
            for (int tt = 0; tt < tb; tt++) {
                const double *pt = job->prod + (size_t) job->ntot * (t0 + tt + (size_t) job->nt * (l0 + lk));
                double *o = fb + snb * (tt + (size_t) tb * lk);
                for (int i = 0; i < nb; i++) o[i] = sign * pt[pw->prow[i] - 1];
            }
    } else if (r > 0 && pw->on_rows) {
        for (int k = 0; k < r; k++) {
            const double *bk = pw->bp + (size_t) ld * k;
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
        F77_CALL(dgemm)("N", "N", &nb, &ncol, &r, &one, pw->bp, &ld, gch, &r, &zero, fb, &nb
                        FCONE FCONE);
    } else {
        memset(fb, 0, sizeof(double) * snb * ncol);
    }
}

/* The LOO values alone of lambdas l0 .. l0 + lcn - 1 from their products
   (`values`: held-out rows of K-fold, whose criteria R computes from them),
   as piece_losses() keeps them, and nothing else. */
static void piece_values(const path_job *job, const piece_work *pw, int l0, int lcn)
{
    int nb = pw->nb, tb = pw->tb, nt = job->nt, mrow = lcn * nb;
    size_t snb = pw->snb;
    for (int lk = 0; lk < lcn; lk++) {
        int l = l0 + lk;
        const double *wl = pw->okw + snb * l, *dl = pw->den + snb * l;
        for (int tt = 0; tt < tb; tt++) {
            const double *f = pw->fb + (pw->on_rows ? (size_t) mrow * tt + snb * lk : snb * (tt + (size_t) tb * lk));
            const double *e0 = pw->r0b + snb * tt, *yt = pw->yb + snb * tt;
            int t = pw->t0 + tt;
            for (int i = 0; i < nb; i++) {
                int ok = wl[i] > 0.0 || !(pw->wr[i] > 0.0);
                double e = pw->rho[i] * (e0[i] + f[i]);
                size_t at = (size_t) (pw->i0 + i) + (size_t) job->n * (t + (size_t) nt * l);
                job->loo[at] = ok ? yt[i] - e / dl[i] : NA_REAL;
            }
        }
    }
}

/* The losses of lambdas l0 .. l0 + lcn - 1 from their products: the rows'
   partial sums, the kept outputs, the classes' best LOO values and each
   column's (w, mean, m2) over the block. */
static void piece_losses(const path_job *job, const piece_work *pw, int l0, int lcn, piece_out *out)
{
    int nb = pw->nb, tb = pw->tb, nl = job->nl, nt = job->nt, mrow = lcn * nb;
    size_t snb = pw->snb;
    const double *rho = pw->rho, *wr = pw->wr;
    double *rs_sq = out->rowsum, *rs_ab = rs_sq + snb * nl, *rs_fit = rs_ab + snb * nl, *elb = pw->elb;
    for (int lk = 0; lk < lcn; lk++) {
        int l = l0 + lk;
        const double *il = pw->inv + snb * l, *wl = pw->okw + snb * l;
        double *sq = rs_sq + snb * l, *ab = rs_ab + snb * l, *fit = rs_fit + snb * l;
        for (int tt = 0; tt < tb; tt++) {
            double *f = pw->fb + (pw->on_rows ? (size_t) mrow * tt + snb * lk : snb * (tt + (size_t) tb * lk));
            const double *e0 = pw->r0b + snb * tt;
            double s = 0.0;
            int t = pw->t0 + tt;
            const double *yt = pw->yb + snb * tt;
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
                const double *dl = pw->den + snb * l;
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
                    size_t at = (size_t) (pw->i0 + i) + (size_t) job->n * (t + (size_t) nt * l);
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
            cs[0] = pw->sw[l];
            cs[1] = cs[2] = 0.0;
            if (pw->sw[l] > 0.0 && nt > 1) {
                double m = s / pw->sw[l];
                cs[1] = m;
                cs[2] = squared_deviations(f, wl, m, nb);
            }
        }
    }
}

/* Piece (b, c): the rows of block b and the response columns of block c at
   every lambda.  The lambdas go lc at a time, so that the product's output
   for them stays in cache with its filters times g.  No R API here: this
   runs in the threads. */
static void path_piece(const path_job *job, int b, int c, double *scratch, piece_out *out)
{
    piece_work pw;
    piece_setup(job, b, c, scratch, &pw);
    piece_leverage(job, &pw, out);
    piece_residuals(job, &pw);
    memset(out->rowsum, 0, sizeof(double) * 3 * pw.snb * job->nl);
    for (int l0 = 0; l0 < job->nl; l0 += job->lc) {
        int lcn = job->nl - l0 < job->lc ? job->nl - l0 : job->lc;
        piece_products(job, &pw, l0, lcn);
        if (job->vals)
            piece_values(job, &pw, l0, lcn);
        else
            piece_losses(job, &pw, l0, lcn, out);
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

/* The arguments, read by name from three lists (R/native.R, c_loo_path()):
   set = list(basis, q, r0, y, w, omega, rows, perp, yorigin, products), the
   rows; engine = list(values, g); path = list(lambda, complement, classify,
   keep, unit, columns).  Each element is checked for its type and shape. */
static const char *set_names[] = {"basis", "q", "r0", "y", "w", "omega", "rows", "perp", "yorigin",
                                  "products"};
enum { SET_BASIS, SET_Q, SET_R0, SET_Y, SET_W, SET_OMEGA, SET_ROWS, SET_PERP, SET_YORIGIN,
       SET_PRODUCTS, NSET };
static const char *engine_names[] = {"values", "g"};
enum { ENGINE_VALUES, ENGINE_G, NENGINE };
static const char *option_names[] = {"lambda", "complement", "classify", "keep", "unit", "columns",
                                     "values"};
enum { OPT_LAMBDA, OPT_COMPLEMENT, OPT_CLASSIFY, OPT_KEEP, OPT_UNIT, OPT_COLUMNS, OPT_VALUES, NOPT };

/* The path's settings: the lambdas, the form, what is kept and the unit. */
static void read_options(SEXP path, path_job *job)
{
    SEXP a[NOPT];
    rlsc_list_elements(path, "path", option_names, NOPT, a);
    rlsc_check_double_vector(a[OPT_LAMBDA], "lambda", -1);
    if (XLENGTH(a[OPT_LAMBDA]) > INT_MAX / 2) error("'lambda' is too long");
    job->nl = LENGTH(a[OPT_LAMBDA]);
    job->pl = REAL(a[OPT_LAMBDA]);
    job->comp = rlsc_check_flag(a[OPT_COMPLEMENT], "complement");
    job->cls = rlsc_check_flag(a[OPT_CLASSIFY], "classify");
    job->kp = rlsc_check_flag(a[OPT_KEEP], "keep");
    job->cols = rlsc_check_flag(a[OPT_COLUMNS], "columns");
    job->vals = rlsc_check_flag(a[OPT_VALUES], "values");
    if (job->vals && (!job->kp || job->cols)) error("'values' needs 'keep' TRUE and 'columns' FALSE");
    rlsc_check_double_vector(a[OPT_UNIT], "unit", 1);
    double unit = REAL(a[OPT_UNIT])[0];
    if (!(unit > 0.0) || !R_FINITE(unit)) error("'unit' must be positive and finite");
    job->inv_unit = 1.0 / unit;
}

/* The engine's eigenvalues and coordinates of the responses, and the rows:
   their coordinates, shares, residuals, responses and weights, all of
   `ntot` rows, and which of them (`rows`) make the path. */
static void read_data(SEXP set, SEXP engine, path_job *job)
{
    SEXP s[NSET], e[NENGINE];
    rlsc_list_elements(set, "set", set_names, NSET, s);
    rlsc_list_elements(engine, "engine", engine_names, NENGINE, e);
    int ntot, r, rg, nt;
    rlsc_check_double_matrix(s[SET_BASIS], "basis", &ntot, &r);
    rlsc_check_double_vector(e[ENGINE_VALUES], "values", r);
    rlsc_check_double_matrix(e[ENGINE_G], "g", &rg, &nt);
    if (rg != r) error("'g' must have %d rows, not %d", r, rg);
    if (nt < 1) error("'g' must have at least one column");
    rlsc_check_double_vector(s[SET_Q], "q", ntot);
    SEXP r0 = s[SET_R0], yorigin = s[SET_YORIGIN], perp = s[SET_PERP], products = s[SET_PRODUCTS];
    int nr, nc;
    if (!isNull(r0)) {
        rlsc_check_double_matrix(r0, "r0", &nr, &nc);
        if (nr != ntot || nc != nt) error("'r0' must be %d x %d, not %d x %d", ntot, nt, nr, nc);
    }
    rlsc_check_double_matrix(s[SET_Y], "y", &nr, &nc);
    if (nr != ntot || nc != nt) error("'y' must be %d x %d, not %d x %d", ntot, nt, nr, nc);
    rlsc_check_double_vector(s[SET_W], "w", ntot);
    rlsc_check_double_vector(s[SET_OMEGA], "omega", ntot);
    job->n = rlsc_check_rows(s[SET_ROWS], ntot);
    if (!isNull(perp)) {
        rlsc_check_double_vector(perp, "perp", ntot);
        if (job->kp || job->cls) error("'perp' needs 'keep' and 'classify' FALSE");
    }
    if (!isNull(yorigin)) {
        rlsc_check_double_matrix(yorigin, "yorigin", &nr, &nc);
        if (nr != 2 || nc != nt) error("'yorigin' must be 2 x %d, not %d x %d", nt, nr, nc);
    } else if (isNull(r0)) {
        error("'r0' and 'yorigin' must not both be NULL");
    }
    int nl = job->nl;
    if (!isNull(products)) {
        if (!isReal(products) || XLENGTH(products) != (R_xlen_t) ntot * nt * nl)
            error("'products' must be a double array of %d x %d x %d", ntot, nt, nl);
        if (r != 0 || job->comp) error("'products' needs a 'basis' of no columns and the direct form");
    }
    if ((double) nl * nt > INT_MAX / 2 || (double) r * nl * nt > R_XLEN_T_MAX)
        error("'lambda' and 'g' have too many values together");
    job->ntot = ntot;
    job->r = r;
    job->nt = nt;
    job->prow = INTEGER(s[SET_ROWS]);
    job->pv = REAL(e[ENGINE_VALUES]);
    job->pg = REAL(e[ENGINE_G]);
    job->pb = REAL(s[SET_BASIS]);
    job->pq = REAL(s[SET_Q]);
    job->py = REAL(s[SET_Y]);
    job->pw = REAL(s[SET_W]);
    job->pom = REAL(s[SET_OMEGA]);
    job->pr0 = isNull(r0) ? NULL : REAL(r0);
    job->yo = isNull(r0) ? REAL(yorigin) : NULL;
    job->perp = isNull(perp) ? NULL : REAL(perp);
    job->prod = isNull(products) ? NULL : REAL(products);
}

/* The filters phi_k(lambda_l) (r x L). */
static void path_filters(const path_job *job, double *filt)
{
    int r = job->r;
    for (int l = 0; l < job->nl; l++)
        for (int k = 0; k < r; k++) {
            double den = job->pv[k] + job->pl[l];
            filt[k + (size_t) r * l] = den > 0.0 ? (job->comp ? job->pl[l] : 1.0) / den : 0.0;
        }
}

/* The sizes of the pieces, from the sizes of the problem only: blocks of
   MAX_BLOCK_ROWS rows (fewer when the rows' coordinates would pass about
   8 MiB), blocks of columns and chunks of lambdas whose products and filters
   fill PRODUCT_DOUBLES.  When that gives fewer than MIN_PIECES pieces, the
   columns go in more blocks first (down to MIN_BLOCK_COLS columns: the
   products keep their rows, which the BLAS's packing of the filtered factor
   needs), then the rows (an eighth of them, at least 64), so that a few
   hundred rows still give every thread pieces. */
static void piece_sizes(path_job *job)
{
    int n = job->n, r = job->r, nt = job->nt, nl = job->nl;
    int nb_max = MAX_BLOCK_ROWS, tb_max, lc;
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
    job->nb_max = nb_max;
    job->tb_max = tb_max;
    job->lc = lc;
    job->nrb = n > 0 && nl > 0 ? (n + nb_max - 1) / nb_max : 0;
    job->ncb = (nt + tb_max - 1) / tb_max;
}

/* Row blocks per round (all their column blocks).  With one column block
   each piece summarizes its rows itself, keeping only (w, mean, m2) per
   lambda and loss: rounds of about 2e8 operations per thread (few parallel
   regions, each answering interrupts after it).  With several, a round
   keeps every piece's partial sums per row until the merge: rounds of two
   to four pieces per thread, or about eight while their partial sums take
   at most 32 MiB. */
static int round_blocks(const path_job *job, int nth)
{
    int ncb = job->ncb, nrb = job->nrb, per_round;
    if (ncb == 1) {
        double want = 2e8 * nth / job->piece_flops;
        per_round = want < 2 * nth ? 2 * nth : want > 256 ? 256 : (int) want;
    } else {
        per_round = (2 * nth + ncb - 1) / ncb;
        int most = (4 * nth) / ncb, cheap = (int) (4e8 * nth / (job->piece_flops * ncb));
        if (per_round < (cheap < most ? cheap : most)) per_round = cheap < most ? cheap : most;
        /* and rounds of about ROUND_PIECES pieces per thread while their
           outputs fit in ROUND_DOUBLES: the threads wait for each other at
           the end of a round, so a round of a few pieces left one idle for
           its last (a fold's 400 held-out rows in 7 blocks of columns: 7
           pieces on 2 threads, 4 and 3).  The merge's order is the row
           blocks' whatever the rounds */
        double out_doubles = (double) ncb * job->nl *
            (5.0 * job->nb_max + (job->cls ? 2.0 * job->nb_max : 0.0) + 3.0 * job->tb_max);
        int even = (ROUND_PIECES * nth + ncb - 1) / ncb, fit = (int) (ROUND_DOUBLES / out_doubles);
        if (even > fit) even = fit;
        if (per_round < even) per_round = even;
    }
    if (per_round < 1) per_round = 1;
    if (per_round > nrb) per_round = nrb > 0 ? nrb : 1;
    return per_round;
}

/* A round's buffers: per thread the pieces' scratch and the rows' losses;
   the pieces' outputs: their columns' summaries and (several column blocks)
   their rows' partial sums, which with one column block stay in the
   thread's; and the row blocks' summaries (sums, per_block each). */
typedef struct {
    int per_round, nth;
    size_t sd, ssum, col_part, per_block;
    double *scratch, *sscratch, *cbuf, *sums;
    piece_out *outs;
} path_round;

static void round_buffers(const path_job *job, int nth, SEXP held, path_round *rd)
{
    int single = job->ncb == 1, per_round = round_blocks(job, nth), npieces = per_round * job->ncb;
    size_t snl = job->nl, snb = job->nb_max;
    size_t row_part = 3 * snb * snl + (job->cls ? 2 * snb * snl : 0) + 2 * snb * snl + snl;
    int nrow_parts = single ? nth : npieces;
    rd->per_round = per_round;
    rd->nth = nth;
    rd->sd = piece_doubles(job);
    rd->ssum = NLOSS * snb + snb + snb / 2 + 2;
    rd->col_part = 3 * snl * job->tb_max;
    rd->per_block = 3 * snl * NLOSS + snl;
    rd->scratch = (double *) rlsc_scratch(held, rd->sd * nth, sizeof(double));
    rd->sscratch = (double *) rlsc_scratch(held, rd->ssum * nth, sizeof(double));
    double *rbuf = (double *) rlsc_scratch(held, row_part * nrow_parts + 1, sizeof(double));
    rd->cbuf = (double *) rlsc_scratch(held, rd->col_part * npieces + 1, sizeof(double));
    rd->outs = (piece_out *) rlsc_scratch(held, nrow_parts, sizeof(piece_out));
    for (int p = 0; p < nrow_parts; p++) {
        double *at = rbuf + row_part * p;
        piece_out *o = rd->outs + p;
        o->rowsum = at;
        at += 3 * snb * snl;
        o->best = job->cls ? at : NULL;
        o->best_t = job->cls ? at + snb * snl : NULL;
        at += job->cls ? 2 * snb * snl : 0;
        o->den = at;
        o->okw = at + snb * snl;
        o->nbad = at + 2 * snb * snl;
        o->colsum = rd->cbuf + rd->col_part * p;
    }
    rd->sums = (double *) rlsc_scratch(held, rd->per_block * per_round + 1, sizeof(double));
}

/* The pieces of row blocks b0 .. b1 - 1, each row block summarized into
   its sums. */
static void run_round(const path_job *job, const path_round *rd, int b0, int b1)
{
    int nth = rd->nth, ncb = job->ncb, np = (b1 - b0) * ncb;
    size_t snl = job->nl;
    int par = rlsc_parallel(nth, np, job->piece_flops * np);
    if (ncb == 1) {
        RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
        for (int p = 0; p < np; p++) {
            int id = rlsc_thread_id();
            piece_out o = rd->outs[id];
            double *sum = rd->sums + rd->per_block * p;
            o.colsum = rd->cbuf + rd->col_part * p;
            path_piece(job, b0 + p, 0, rd->scratch + rd->sd * id, &o);
            if (!job->vals)
                row_block_summary(job, b0 + p, &o, rd->sscratch + rd->ssum * id, sum, sum + 3 * snl * NLOSS);
        }
        return;
    }
    RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
    for (int p = 0; p < np; p++)
        path_piece(job, b0 + p / ncb, p % ncb, rd->scratch + rd->sd * rlsc_thread_id(), rd->outs + p);
    if (job->vals) return;   /* the values alone: no losses to summarize */
    par = rlsc_parallel(nth, b1 - b0, 20.0 * job->nb_max * job->nl * ncb * (b1 - b0));
    RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
    for (int bb = b0; bb < b1; bb++) {
        double *sum = rd->sums + rd->per_block * (bb - b0);
        row_block_summary(job, bb, rd->outs + (size_t) (bb - b0) * ncb,
                          rd->sscratch + rd->ssum * rlsc_thread_id(), sum, sum + 3 * snl * NLOSS);
    }
}

/* The accumulated criteria: (w, mean, m2) per lambda of each loss and then
   each column (L x (NLOSS + T) each), and the undefined LOO values per
   lambda. */
typedef struct {
    double *w, *mean, *m2, *n_na;
} path_acc;

/* The round's summaries merged into the accumulators, in the order of the
   row blocks (and within one, of the column blocks). */
static void merge_round(const path_job *job, const path_round *rd, int b0, int b1, path_acc *acc)
{
    int nl = job->nl, nt = job->nt, ncb = job->ncb, tb_max = job->tb_max;
    size_t snl = nl;
    for (int bb = b0; bb < b1; bb++) {
        const double *sum = rd->sums + rd->per_block * (bb - b0);
        for (size_t at = 0; at < snl * NLOSS; at++)
            merge_summary(sum + 3 * at, acc->w + at, acc->mean + at, acc->m2 + at);
        for (int l = 0; l < nl; l++) acc->n_na[l] += sum[3 * snl * NLOSS + l];
        if (nt == 1 || !job->cols) continue;
        for (int c = 0; c < ncb; c++) {
            const double *cs = rd->cbuf + rd->col_part * ((size_t) (bb - b0) * ncb + c);
            int t0 = c * tb_max, tb = nt - t0 < tb_max ? nt - t0 : tb_max;
            for (int tt = 0; tt < tb; tt++)
                for (int l = 0; l < nl; l++) {
                    size_t at = l + snl * (NLOSS + t0 + tt);
                    merge_summary(cs + 3 * (l + snl * tt), acc->w + at, acc->mean + at, acc->m2 + at);
                }
        }
    }
}

/* The columns' criteria after the merge: with one column its squared error
   is the average over the columns; without `columns` not computed (NA). */
static void finish_columns(const path_job *job, path_acc *acc)
{
    size_t snl = job->nl, nstat = NLOSS + job->nt;
    double *a[] = {acc->w, acc->mean, acc->m2};
    for (int k = 0; k < 3; k++) {
        if (job->nt == 1)
            memcpy(a[k] + snl * NLOSS, a[k] + snl * LOSS_SQ, sizeof(double) * snl);
        else if (!job->cols)
            for (size_t at = snl * NLOSS; at < snl * nstat; at++) a[k][at] = NA_REAL;
    }
}

/* The result list(w, mean, m2, n_na, omh, fitted, loo), the accumulators
   zeroed and (with `keep`) the kept outputs' arrays, which the pieces
   fill. */
static SEXP path_result(path_job *job, path_acc *acc)
{
    const char *names[] = {"w", "mean", "m2", "n_na", "omh", "fitted", "loo", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    int n = job->n, nl = job->nl, nt = job->nt, nstat = NLOSS + nt;
    if (job->vals) {   /* the LOO values alone */
        SET_VECTOR_ELT(out, 6, alloc3DArray(REALSXP, n, nt, nl));
        job->omh = job->fitted = NULL;
        job->loo = REAL(VECTOR_ELT(out, 6));
    } else if (job->kp) {
        SET_VECTOR_ELT(out, 4, allocMatrix(REALSXP, n, nl));
        SET_VECTOR_ELT(out, 5, alloc3DArray(REALSXP, n, nt, nl));
        SET_VECTOR_ELT(out, 6, alloc3DArray(REALSXP, n, nt, nl));
        job->omh = REAL(VECTOR_ELT(out, 4));
        job->fitted = REAL(VECTOR_ELT(out, 5));
        job->loo = REAL(VECTOR_ELT(out, 6));
    } else {
        job->omh = job->fitted = job->loo = NULL;
    }
    for (int k = 0; k < 3; k++) SET_VECTOR_ELT(out, k, allocMatrix(REALSXP, nl, nstat));
    SET_VECTOR_ELT(out, 3, allocVector(REALSXP, nl));
    double **a[] = {&acc->w, &acc->mean, &acc->m2, &acc->n_na};
    for (int k = 0; k < 4; k++) {
        SEXP v = VECTOR_ELT(out, k);
        *a[k] = REAL(v);
        memset(*a[k], 0, sizeof(double) * XLENGTH(v));
    }
    UNPROTECT(1);
    return out;
}

SEXP rlsc_loo_path(SEXP set, SEXP engine, SEXP path, SEXP threads)
{
    path_job job;
    read_options(path, &job);
    read_data(set, engine, &job);
    int nth = rlsc_thread_count(threads);

    SEXP held = PROTECT(rlsc_scratch_new());
    double *filt = (double *) rlsc_scratch(held, (size_t) job.r * job.nl + 1, sizeof(double));
    path_filters(&job, filt);
    job.filt = filt;
    path_acc acc;
    SEXP out = PROTECT(path_result(&job, &acc));
    piece_sizes(&job);
    job.piece_flops = 2.0 * job.nb_max * (double) job.r * job.nl * (job.tb_max + 1) +
        12.0 * job.nb_max * job.nl * job.tb_max;
    path_round rd;
    round_buffers(&job, nth, held, &rd);
    for (int b0 = 0; b0 < job.nrb; b0 += rd.per_round) {
        int b1 = b0 + rd.per_round < job.nrb ? b0 + rd.per_round : job.nrb;
        run_round(&job, &rd, b0, b1);
        if (!job.vals) merge_round(&job, &rd, b0, b1, &acc);
        R_CheckUserInterrupt();
    }
    rlsc_scratch_free(held);
    finish_columns(&job, &acc);
    UNPROTECT(2);
    return out;
}
