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
   LeVeque), so groups and chunks of rows merge the same way in R. */
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

static int row_argmax(const double *v, size_t stride, int nt)
{
    int best = 0;
    for (int t = 1; t < nt; t++)
        if (v[stride * t] > v[stride * best]) best = t;
    return best;
}

/* Weighted mean and squared deviations of one block's losses (rows with
   ok[i] = 0 left out), merged into the running (w, mean, m2). */
static void merge_block(const double *loss, const int *ok, const double *w, int nb,
                        double *acc_w, double *acc_mean, double *acc_m2)
{
    double sw = 0.0, s = 0.0, q = 0.0;
    for (int i = 0; i < nb; i++)
        if (ok[i]) { sw += w[i]; s += w[i] * loss[i]; }
    if (sw <= 0.0) return;
    double m = s / sw;
    for (int i = 0; i < nb; i++)
        if (ok[i]) q += w[i] * (loss[i] - m) * (loss[i] - m);
    if (*acc_w <= 0.0) { *acc_w = sw; *acc_mean = m; *acc_m2 = q; return; }
    double wn = *acc_w + sw, delta = m - *acc_mean;
    *acc_m2 += q + delta * delta * *acc_w * sw / wn;
    *acc_mean += delta * sw / wn;
    *acc_w = wn;
}

SEXP rlsc_loo_path(SEXP basis, SEXP values, SEXP g, SEXP q, SEXP r0, SEXP y, SEXP w,
                   SEXP omega, SEXP rows, SEXP lambda, SEXP complement, SEXP classify,
                   SEXP keep)
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
    if (nt < 1) error("'g' must have at least one column");
    if (XLENGTH(lambda) > INT_MAX / 2) error("'lambda' is too long");
    int nl = LENGTH(lambda);
    if ((double) nl * nt > INT_MAX / 2 || (double) r * nl * nt > R_XLEN_T_MAX)
        error("'lambda' and 'g' have too many values together");

    const double *pb = REAL(basis), *pv = REAL(values), *pg = REAL(g), *pq = REAL(q),
        *pr0 = REAL(r0), *py = REAL(y), *pw = REAL(w), *pom = REAL(omega), *pl = REAL(lambda);

    /* the filters phi_k(lambda_l) (r x L) and their products with g (r x L x T) */
    size_t lt = (size_t) nl * nt;
    double *filt = (double *) R_alloc((size_t) r * nl + 1, sizeof(double));
    double *gall = (double *) R_alloc((size_t) r * lt + 1, sizeof(double));
    for (int l = 0; l < nl; l++)
        for (int k = 0; k < r; k++) {
            double den = pv[k] + pl[l];
            filt[k + (size_t) r * l] = den > 0.0 ? (comp ? pl[l] : 1.0) / den : 0.0;
        }
    double sign = comp ? 1.0 : -1.0;
    for (int t = 0; t < nt; t++)
        for (int l = 0; l < nl; l++)
            for (int k = 0; k < r; k++)
                gall[k + (size_t) r * (l + (size_t) nl * t)] =
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

    int nb_max = rlsc_block_rows(n, (double) r + (double) nl * (nt + 1) + nstat, BLOCK_DOUBLES);
    double *bb = (double *) R_alloc((size_t) nb_max * r + 1, sizeof(double));
    double *bsq = (double *) R_alloc((size_t) nb_max * r + 1, sizeof(double));
    double *wb = (double *) R_alloc((size_t) nb_max + 1, sizeof(double));
    double *hb = (double *) R_alloc((size_t) nb_max * nl + 1, sizeof(double));
    double *fb = (double *) R_alloc((size_t) nb_max * lt + 1, sizeof(double));
    double *loss = (double *) R_alloc((size_t) nb_max * nstat + 1, sizeof(double));
    int *ok = (int *) R_alloc((size_t) nb_max + 1, sizeof(int));
    int *ok_fit = (int *) R_alloc((size_t) nb_max + 1, sizeof(int));
    double *loo_row = (double *) R_alloc(nt, sizeof(double));

    const double one = 1.0, zero = 0.0;
    int ilt = (int) lt;
    for (int i0 = 0; i0 < n && nl > 0; i0 += nb_max) {
        int nb = n - i0 < nb_max ? n - i0 : nb_max;
        for (int i = 0; i < nb; i++) wb[i] = pw[prow[i0 + i] - 1];
        if (r > 0) {
            for (int k = 0; k < r; k++)
                for (int i = 0; i < nb; i++) {
                    int row = prow[i0 + i] - 1;
                    double v = pb[row + (size_t) ntot * k];
                    bb[i + (size_t) nb * k] = v;
                    bsq[i + (size_t) nb * k] = (comp ? 1.0 : -pom[row]) * v * v;
                }
            F77_CALL(dgemm)("N", "N", &nb, &nl, &r, &one, bsq, &nb, filt, &r,
                            &zero, hb, &nb FCONE FCONE);
            F77_CALL(dgemm)("N", "N", &nb, &ilt, &r, &one, bb, &nb, gall, &r,
                            &zero, fb, &nb FCONE FCONE);
        } else {
            memset(hb, 0, sizeof(double) * (size_t) nb * nl);
            memset(fb, 0, sizeof(double) * (size_t) nb * lt);
        }
        for (int l = 0; l < nl; l++) {
            for (int i = 0; i < nb; i++) {
                int row = prow[i0 + i] - 1, out_row = i0 + i;
                double den = pq[row] + hb[i + (size_t) nb * l];
                double rho = comp ? 1.0 / sqrt(wb[i]) : 1.0;
                double tol = !comp ? DIRECT_TOL : pq[row] > 0.0 ? DROPPED_TOL : 0.0;
                int undefined = wb[i] > 0.0 && den <= tol;
                double sq = 0.0, ab = 0.0, fit = 0.0;
                for (int t = 0; t < nt; t++) {
                    size_t it = row + (size_t) ntot * t;
                    double e = rho * (pr0[it] + fb[i + (size_t) nb * (l + (size_t) nl * t)]);
                    double el = undefined ? NA_REAL : e / den;
                    loo_row[t] = py[it] - el;
                    sq += el * el;
                    ab += fabs(el);
                    fit += e * e;
                    loss[i + (size_t) nb * (NLOSS + t)] = el * el;
                    if (kp) {
                        size_t at = out_row + (size_t) n * (t + (size_t) nt * l);
                        REAL(fitted)[at] = py[it] - e;
                        REAL(loo)[at] = loo_row[t];
                    }
                }
                if (kp) REAL(omh)[out_row + (size_t) n * l] = den;
                ok[i] = !undefined;
                ok_fit[i] = 1;
                if (undefined) pna[l] += 1.0;
                loss[i + (size_t) nb * LOSS_SQ] = sq / nt;
                loss[i + (size_t) nb * LOSS_ABS] = ab / nt;
                loss[i + (size_t) nb * LOSS_FIT] = fit / nt;
                double wrong = 0.0;
                if (cls && !undefined) {
                    const double *yi = py + row;
                    wrong = nt == 1 ? (loo_row[0] > 0.0) != (yi[0] > 0.0)
                        : row_argmax(loo_row, 1, nt) != row_argmax(yi, (size_t) ntot, nt);
                }
                loss[i + (size_t) nb * LOSS_MIS] = wrong;
            }
            for (int s = 0; s < nstat; s++) {
                size_t at = l + (size_t) nl * s;
                merge_block(loss + (size_t) nb * s, s == LOSS_FIT ? ok_fit : ok, wb, nb,
                            aw + at, am + at, a2 + at);
            }
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
