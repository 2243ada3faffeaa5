/* The loss of the calibration map of class probabilities (R/calibrate.R,
   fit_map()): the weighted cross-entropy of p = softmax(eta) against Platt's
   targets, with eta_ij = a_j + b_j f_ij (a_1 = 0; slopes b only on the
   classes `slopes`), its gradient and its Hessian in the parameters
   theta = (a_2 .. a_k, b_slopes).  One pass over the rows, the Hessian's
   O(n k^2) in dsyrk over blocks of rows; in R the same sums took a dozen n x k temporaries per Newton step,
   and the Newton fits were half the time of a 10-class fit.
   Per row, with r_j = w (p_j - t_j) and z = (p_2 .. p_k, p_s f_s):
       value  -= w sum_j t_j (eta_j - lse)
       grad    = (r_2 .. r_k, r_s f_s)
       hess   += w (diag(p_2 .. p_k, p_s f_s^2) - z z'), plus w p_s f_s on the
                 (a_s, b_s) pairs (s >= 2): the softmax's diag(p) - p p'.
   The targets: t_j = own[c] for the row's class c, (1 - own[c]) / (k - 1)
   otherwise. */
#include "rlsc.h"

/* rows of sqrt(w) z per dsyrk */
#define ZROWS 512

/* The upper triangle of h -= z'z for the first `nz` rows of the block z
   (ZROWS x np). */
static void minus_syrk(const double *z, int nz, int np, double *h)
{
    const double one = 1.0, minus_one = -1.0;
    int ld = ZROWS;
    F77_CALL(dsyrk)("U", "T", &np, &nz, &minus_one, z, &ld, &one, h, &np FCONE FCONE);
}

SEXP rlsc_softmax_map(SEXP f, SEXP code, SEXP own, SEXP w, SEXP theta, SEXP slopes,
                      SEXP hessian)
{
    int n, ns;
    rlsc_check_double_matrix(f, "f", &n, &ns);
    if (!isInteger(code) || XLENGTH(code) != n) error("'code' must be an integer vector of length %d", n);
    if (!isInteger(slopes) || XLENGTH(slopes) != ns) error("'slopes' must be an integer vector of length %d", ns);
    if (!isReal(own) || XLENGTH(own) < 2) error("'own' must be a double vector of length at least 2");
    int k = LENGTH(own), na = k - 1, np = na + ns;
    rlsc_check_double_vector(w, "w", n);
    rlsc_check_double_vector(theta, "theta", np);
    int want_hess = rlsc_check_flag(hessian, "hessian");
    const int *pc = INTEGER(code), *ps = INTEGER(slopes);
    for (int i = 0; i < n; i++)
        if (pc[i] < 1 || pc[i] > k) error("'code' must hold classes 1 to %d", k);
    for (int m = 0; m < ns; m++)
        if (ps[m] < 1 || ps[m] > k) error("'slopes' must hold classes 1 to %d", k);

    const double *pf = REAL(f), *po = REAL(own), *pw = REAL(w), *th = REAL(theta);
    const char *names[] = {"value", "grad", "hess", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 1, allocVector(REALSXP, np));
    SET_VECTOR_ELT(out, 2, want_hess ? allocMatrix(REALSXP, np, np) : R_NilValue);
    double *grad = REAL(VECTOR_ELT(out, 1)), *hess = want_hess ? REAL(VECTOR_ELT(out, 2)) : NULL;
    memset(grad, 0, sizeof(double) * np);
    if (hess) memset(hess, 0, sizeof(double) * (size_t) np * np);

    double *eta = (double *) R_alloc(k, sizeof(double)), *p = (double *) R_alloc(k, sizeof(double));
    /* the rows' sqrt(w) z, a block of ZROWS rows at a time, for dsyrk */
    double *zb = want_hess ? (double *) R_alloc((size_t) ZROWS * np, sizeof(double)) : NULL;
    int nz = 0;
    int *slope_of = (int *) R_alloc(k, sizeof(int));   /* the slope of class j, or -1 */
    for (int j = 0; j < k; j++) slope_of[j] = -1;
    for (int m = 0; m < ns; m++) slope_of[ps[m] - 1] = m;
    double value = 0.0;
    for (int i = 0; i < n; i++) {
        if ((i & 0xffff) == 0xffff) R_CheckUserInterrupt();
        double wi = pw[i];
        if (wi == 0.0) continue;
        int c = pc[i] - 1;
        double t_own = po[c], t_other = (1.0 - po[c]) / (k - 1);
        double top = -INFINITY;
        for (int j = 0; j < k; j++) {
            double e = j ? th[j - 1] : 0.0;
            int m = slope_of[j];
            if (m >= 0) e += th[na + m] * pf[i + (size_t) n * m];
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
            if (m >= 0) grad[na + m] += r * pf[i + (size_t) n * m];
        }
        if (!hess) continue;
        double sw = sqrt(wi);
        for (int j = 1; j < k; j++) zb[nz + ZROWS * (size_t) (j - 1)] = sw * p[j];
        for (int m = 0; m < ns; m++)
            zb[nz + ZROWS * (size_t) (na + m)] = sw * p[ps[m] - 1] * pf[i + (size_t) n * m];
        if (++nz == ZROWS) {
            minus_syrk(zb, nz, np, hess);
            nz = 0;
        }
        for (int j = 1; j < k; j++) hess[(j - 1) * (size_t) (np + 1)] += wi * p[j];
        for (int m = 0; m < ns; m++) {
            int j = ps[m] - 1, bm = na + m;
            double fm = pf[i + (size_t) n * m];
            hess[bm * (size_t) (np + 1)] += wi * p[j] * fm * fm;
            if (j >= 1) hess[(j - 1) + (size_t) np * bm] += wi * p[j] * fm;   /* (a_j, b_j), a above b */
        }
    }
    if (hess) {
        if (nz) minus_syrk(zb, nz, np, hess);
        rlsc_mirror_upper(hess, np);
    }
    SET_VECTOR_ELT(out, 0, ScalarReal(value));
    UNPROTECT(1);
    return out;
}
