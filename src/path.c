/* Step 3: the exact leave-one-out path.  With the eigenpairs (Lambda_k) of the
   centered weighted Gram, the n x r matrix B of the rows in that eigenbasis and
   g = B' (w o (y - ybar)) (r x T), for every lambda of the grid
       h_i(lambda)   = w_i / sum(w) + w_i sum_k B_ik^2 / (Lambda_k + lambda)
       f_i(lambda)   = ybar + sum_k B_ik g_k / (Lambda_k + lambda)
       loo_i(lambda) = y_i - (y_i - f_i) / (1 - h_i)
   Both sums over k are level-3 products (block of rows x r) (r x grid).  Rows
   are processed in blocks, so nothing of size n x grid exists unless the caller
   asks to keep the outputs.  Directions with Lambda_k + lambda = 0 are dropped,
   which is the pseudo-inverse (minimum-norm) solution at lambda = 0. */
#include "rlsc.h"

/* 1 - h below this: the point is interpolated and its LOO value is undefined.
   (y_i - f_i) / (1 - h_i) loses about eps / (1 - h_i) of its relative accuracy
   to cancellation, so this also keeps the defined values good to about 1e-7. */
#define LEVERAGE_TOL 1e-8

/* Running weighted mean and sum of squared deviations, merged block by block. */
typedef struct { double w, mean, m2; } moments;

static void merge_moments(moments *acc, double wb, double meanb, double m2b)
{
    if (wb <= 0.0) return;
    double wn = acc->w + wb, delta = meanb - acc->mean;
    acc->m2 += m2b + delta * delta * acc->w * wb / wn;
    acc->mean += delta * wb / wn;
    acc->w = wn;
}

/* Mean and squared deviations of the losses of one block (column l of loss). */
static void block_loss_moments(const double *loss, const int *bad, const double *w,
                               int nb, double *wb, double *mean, double *m2)
{
    double sw = 0.0, s = 0.0, q = 0.0;
    for (int i = 0; i < nb; i++)
        if (!bad[i]) { sw += w[i]; s += w[i] * loss[i]; }
    double m = sw > 0.0 ? s / sw : 0.0;
    for (int i = 0; i < nb; i++)
        if (!bad[i]) q += w[i] * (loss[i] - m) * (loss[i] - m);
    *wb = sw; *mean = m; *m2 = q;
}

static int row_argmax(const double *v, size_t stride, int nt)
{
    int best = 0;
    for (int t = 1; t < nt; t++)
        if (v[stride * t] > v[stride * best]) best = t;
    return best;
}

static SEXP named_list(int n, const char **names, SEXP *values)
{
    SEXP out = PROTECT(allocVector(VECSXP, n));
    SEXP nms = PROTECT(allocVector(STRSXP, n));
    for (int k = 0; k < n; k++) {
        SET_VECTOR_ELT(out, k, values[k]);
        SET_STRING_ELT(nms, k, mkChar(names[k]));
    }
    setAttrib(out, R_NamesSymbol, nms);
    UNPROTECT(2);
    return out;
}

SEXP rlsc_loo_path(SEXP b, SEXP values, SEXP g, SEXP y, SEXP w, SEXP ybar,
                   SEXP lambda, SEXP intercept, SEXP classify, SEXP keep)
{
    int n, r, rg, nt, ny, nty;
    check_double_matrix(b, "b", &n, &r);
    check_double_vector(values, "values", r);
    check_double_matrix(g, "g", &rg, &nt);
    if (rg != r) error("'g' must have %d rows, not %d", r, rg);
    check_double_matrix(y, "y", &ny, &nty);
    if (ny != n || nty != nt) error("'y' must be %d x %d, not %d x %d", n, nt, ny, nty);
    check_double_vector(w, "w", n);
    check_double_vector(ybar, "ybar", nt);
    check_double_vector(lambda, "lambda", -1);
    int icpt = check_flag(intercept, "intercept");
    int cls = check_flag(classify, "classify");
    int kp = check_flag(keep, "keep");
    if (XLENGTH(lambda) > INT_MAX / 2) error("'lambda' is too long");
    int nl = LENGTH(lambda);
    if (nt < 1) error("'y' must have at least one column");
    if ((double) nl * nt > INT_MAX) error("'lambda' and 'y' have too many values together");

    const double *pb = REAL(b), *pv = REAL(values), *pg = REAL(g), *py = REAL(y),
        *pw = REAL(w), *pyb = REAL(ybar), *pl = REAL(lambda);
    double sumw = 0.0;
    int npos = 0;
    for (int i = 0; i < n; i++) {
        if (!(pw[i] >= 0.0) || !R_FINITE(pw[i])) error("'w' must be finite and non-negative");
        sumw += pw[i];
        if (pw[i] > 0.0) npos++;
    }
    if (sumw <= 0.0) error("'w' must have a positive sum");
    for (int k = 0; k < r; k++)
        if (!(pv[k] >= 0.0) || !R_FINITE(pv[k])) error("'values' must be finite and non-negative");
    for (int l = 0; l < nl; l++)
        if (!(pl[l] >= 0.0) || !R_FINITE(pl[l])) error("'lambda' must be finite and non-negative");

    /* spectral filters 1 / (Lambda_k + lambda_l), their products with g, and df */
    size_t lt = (size_t) nl * nt;
    double *filt = (double *) R_alloc((size_t) r * nl + 1, sizeof(double));
    double *gall = (double *) R_alloc((size_t) r * lt + 1, sizeof(double));
    SEXP df = PROTECT(allocVector(REALSXP, nl));
    for (int l = 0; l < nl; l++) {
        double s = 0.0;
        for (int k = 0; k < r; k++) {
            double den = pv[k] + pl[l];
            double f = den > 0.0 ? 1.0 / den : 0.0;
            filt[k + (size_t) r * l] = f;
            s += pv[k] * f;
        }
        REAL(df)[l] = s;
    }
    for (int t = 0; t < nt; t++)
        for (int l = 0; l < nl; l++)
            for (int k = 0; k < r; k++)
                gall[k + (size_t) r * (l + (size_t) nl * t)] =
                    pg[k + (size_t) r * t] * filt[k + (size_t) r * l];

    SEXP hat = R_NilValue, fitted = R_NilValue, loo = R_NilValue;
    int nprot = 1;
    if (kp) {
        hat = PROTECT(allocMatrix(REALSXP, n, nl));
        fitted = PROTECT(alloc3DArray(REALSXP, n, nt, nl));
        loo = PROTECT(alloc3DArray(REALSXP, n, nt, nl));
        nprot += 3;
    }

    int nb_max = block_rows(n, (double) r + (double) nl * (nt + 3), BLOCK_DOUBLES);
    double *bsq = (double *) R_alloc((size_t) nb_max * r + 1, sizeof(double));
    double *hb = (double *) R_alloc((size_t) nb_max * nl, sizeof(double));
    double *fb = (double *) R_alloc((size_t) nb_max * lt, sizeof(double));
    double *loss_sq = (double *) R_alloc((size_t) nb_max * nl, sizeof(double));
    double *loss_mis = (double *) R_alloc((size_t) nb_max * nl, sizeof(double));
    int *bad = (int *) R_alloc((size_t) nb_max * nl, sizeof(int));
    double *loo_row = (double *) R_alloc(nt, sizeof(double));
    moments *acc_sq = (moments *) R_alloc(nl > 0 ? nl : 1, sizeof(moments));
    moments *acc_mis = (moments *) R_alloc(nl > 0 ? nl : 1, sizeof(moments));
    int *nna = (int *) R_alloc(nl > 0 ? nl : 1, sizeof(int));
    for (int l = 0; l < nl; l++) {
        acc_sq[l] = (moments) {0.0, 0.0, 0.0};
        acc_mis[l] = (moments) {0.0, 0.0, 0.0};
        nna[l] = 0;
    }

    const double one = 1.0, zero = 0.0;
    int ilt = (int) lt;
    for (int i0 = 0; i0 < n && nl > 0; i0 += nb_max) {
        int nb = n - i0 < nb_max ? n - i0 : nb_max;
        const double *wb = pw + i0;
        if (r > 0) {
            for (int k = 0; k < r; k++)
                for (int i = 0; i < nb; i++) {
                    double v = pb[i0 + i + (size_t) n * k];
                    bsq[i + (size_t) nb * k] = wb[i] * v * v;
                }
            F77_CALL(dgemm)("N", "N", &nb, &nl, &r, &one, bsq, &nb, filt, &r,
                            &zero, hb, &nb FCONE FCONE);
            F77_CALL(dgemm)("N", "N", &nb, &ilt, &r, &one, pb + i0, &n, gall, &r,
                            &zero, fb, &nb FCONE FCONE);
        } else {
            memset(hb, 0, sizeof(double) * (size_t) nb * nl);
            memset(fb, 0, sizeof(double) * (size_t) nb * lt);
        }
        for (int l = 0; l < nl; l++) {
            for (int i = 0; i < nb; i++) {
                size_t il = i + (size_t) nb * l;
                double h = hb[il] + (icpt ? wb[i] / sumw : 0.0), den = 1.0 - h;
                const double *yi = py + i0 + i;
                int undefined = wb[i] > 0.0 && den < LEVERAGE_TOL;
                double sq = 0.0;
                for (int t = 0; t < nt; t++) {
                    double f = fb[i + (size_t) nb * (l + (size_t) nl * t)] + pyb[t];
                    double yv = yi[(size_t) n * t];
                    double e = undefined ? NA_REAL : (yv - f) / den;
                    sq += e * e;
                    loo_row[t] = undefined ? NA_REAL : yv - e;
                    if (kp) {
                        size_t at = i0 + i + (size_t) n * (t + (size_t) nt * l);
                        REAL(fitted)[at] = f;
                        REAL(loo)[at] = loo_row[t];
                    }
                }
                if (kp) REAL(hat)[i0 + i + (size_t) n * l] = h;
                bad[il] = undefined;
                if (undefined) { nna[l]++; continue; }
                loss_sq[il] = sq / nt;
                if (cls) {
                    int wrong = nt == 1 ? (loo_row[0] > 0.0) != (yi[0] > 0.0)
                        : row_argmax(loo_row, 1, nt) != row_argmax(yi, (size_t) n, nt);
                    loss_mis[il] = wrong;
                }
            }
            double sw, m, q;
            block_loss_moments(loss_sq + (size_t) nb * l, bad + (size_t) nb * l, wb, nb, &sw, &m, &q);
            merge_moments(acc_sq + l, sw, m, q);
            if (cls) {
                block_loss_moments(loss_mis + (size_t) nb * l, bad + (size_t) nb * l, wb, nb, &sw, &m, &q);
                merge_moments(acc_mis + l, sw, m, q);
            }
        }
    }

    SEXP mse = PROTECT(allocVector(REALSXP, nl)), mse_se = PROTECT(allocVector(REALSXP, nl));
    SEXP mis = PROTECT(allocVector(REALSXP, nl)), mis_se = PROTECT(allocVector(REALSXP, nl));
    SEXP n_na = PROTECT(allocVector(INTSXP, nl));
    nprot += 5;
    for (int l = 0; l < nl; l++) {
        int ok = nna[l] == 0;
        double dof = npos > 1 ? npos - 1.0 : NA_REAL;
        REAL(mse)[l] = ok ? acc_sq[l].mean : NA_REAL;
        REAL(mse_se)[l] = ok ? sqrt(acc_sq[l].m2 / acc_sq[l].w / dof) : NA_REAL;
        REAL(mis)[l] = ok && cls ? acc_mis[l].mean : NA_REAL;
        REAL(mis_se)[l] = ok && cls ? sqrt(acc_mis[l].m2 / acc_mis[l].w / dof) : NA_REAL;
        INTEGER(n_na)[l] = nna[l];
    }
    const char *names[] = {"df", "mse", "mse_se", "misclass", "misclass_se", "n_na",
                           "hat", "fitted", "loo"};
    SEXP vals[] = {df, mse, mse_se, mis, mis_se, n_na, hat, fitted, loo};
    SEXP out = named_list(9, names, vals);
    UNPROTECT(nprot);
    return out;
}
