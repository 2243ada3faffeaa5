/* Kernel matrices and the factorization of the weighted double-centered kernel.
   k(x, z) is one of
       linear       x'z
       rbf          exp(-|x - z|^2 / (2 sigma^2))
       polynomial   (scale x'z + offset)^degree
   computed from the level-3 product of the two sets of rows (dgemm, or dsyrk
   for a symmetric matrix), so no n x n x d temporary exists.  The factorization
   (rlsc_kernel_eigen) leaves the LOO path in path.c exactly what the linear
   dual form gives it:
       Kt = D_s P K P' D_s = U Lambda U',   P = I - 1 w'/sum(w),  s = sqrt(w),
       B_ik = U_ik sqrt(Lambda_k) / s_i,
   over the rows of positive weight, with at most three n x n buffers alive:
   the kernel (centered in place, then destroyed by dsyevr), the eigenvectors
   and B. */
#include "rlsc.h"
#include <Rmath.h>

enum { KERNEL_LINEAR, KERNEL_RBF, KERNEL_POLYNOMIAL, KERNEL_PRECOMPUTED };

typedef struct { int type; double sigma, degree, scale, offset; } kernel_spec;

static kernel_spec parse_kernel(SEXP type, SEXP params)
{
    if (!isString(type) || LENGTH(type) != 1 || STRING_ELT(type, 0) == NA_STRING)
        error("'type' must be a single string");
    const char *t = CHAR(STRING_ELT(type, 0));
    kernel_spec k = {KERNEL_LINEAR, 1.0, 1.0, 1.0, 0.0};
    int npar;
    if (!strcmp(t, "linear")) { k.type = KERNEL_LINEAR; npar = 0; }
    else if (!strcmp(t, "rbf")) { k.type = KERNEL_RBF; npar = 1; }
    else if (!strcmp(t, "polynomial")) { k.type = KERNEL_POLYNOMIAL; npar = 3; }
    else if (!strcmp(t, "precomputed")) { k.type = KERNEL_PRECOMPUTED; npar = 0; }
    else error("'type' must be \"linear\", \"rbf\", \"polynomial\" or \"precomputed\", not \"%s\"", t);
    check_double_vector(params, "params", npar);
    const double *p = REAL(params);
    if (k.type == KERNEL_RBF) {
        k.sigma = p[0];
        if (!(k.sigma > 0.0) || !R_FINITE(k.sigma)) error("'sigma' must be finite and positive");
    } else if (k.type == KERNEL_POLYNOMIAL) {
        k.degree = p[0]; k.scale = p[1]; k.offset = p[2];
        if (!(k.degree >= 1.0) || k.degree != floor(k.degree) || k.degree > INT_MAX)
            error("'degree' must be a positive whole number");
        if (!R_FINITE(k.scale) || !R_FINITE(k.offset)) error("'scale' and 'offset' must be finite");
    }
    return k;
}

/* Copy of the n x d matrix x minus the column means `center` (NULL: none). */
static double *centered_copy(const double *x, int n, int d, const double *center)
{
    double *out = (double *) R_alloc((size_t) n * d + 1, sizeof(double));
    for (int j = 0; j < d; j++)
        for (int i = 0; i < n; i++)
            out[i + (size_t) n * j] = x[i + (size_t) n * j] - (center ? center[j] : 0.0);
    return out;
}

static double *column_means(const double *x, int n, int d)
{
    double *m = (double *) R_alloc(d + 1, sizeof(double));
    for (int j = 0; j < d; j++) {
        double s = 0.0;
        for (int i = 0; i < n; i++) s += x[i + (size_t) n * j];
        m[j] = n > 0 ? s / n : 0.0;
    }
    return m;
}

static double *row_norms(const double *x, int n, int d)
{
    double *out = (double *) R_alloc(n + 1, sizeof(double));
    for (int i = 0; i < n; i++) out[i] = 0.0;
    for (int j = 0; j < d; j++)
        for (int i = 0; i < n; i++) out[i] += x[i + (size_t) n * j] * x[i + (size_t) n * j];
    return out;
}

/* out (n x m) = k(x_i, z_j) for x (n x d) and z (m x d); z == NULL means z = x,
   and then only the upper triangle is computed and mirrored. */
static void kernel_fill(const kernel_spec *k, const double *x, int n, const double *z, int m,
                        int d, double *out)
{
    int sym = z == NULL;
    if (sym) m = n;
    if ((size_t) n * m == 0) return;
    const double one = 1.0, zero = 0.0;
    const double *xs = x, *zs = z;
    double *nx = NULL, *nz = NULL;
    if (k->type == KERNEL_RBF) {
        /* distances are translation invariant: centering first avoids the
           cancellation in |x|^2 + |z|^2 - 2 x'z far from the origin */
        double *mu = column_means(x, n, d);
        xs = centered_copy(x, n, d, mu);
        zs = sym ? xs : centered_copy(z, m, d, mu);
        nx = row_norms(xs, n, d);
        nz = sym ? nx : row_norms(zs, m, d);
    }
    if (d == 0) {
        memset(out, 0, sizeof(double) * (size_t) n * m);
    } else if (sym) {
        F77_CALL(dsyrk)("U", "N", &n, &d, &one, xs, &n, &zero, out, &n FCONE FCONE);
    } else {
        F77_CALL(dgemm)("N", "T", &n, &m, &d, &one, xs, &n, zs, &m, &zero, out, &n
                        FCONE FCONE);
    }
    double inv2s2 = 1.0 / (2.0 * k->sigma * k->sigma);
    int deg = (int) k->degree;
    for (int j = 0; j < m; j++) {
        int iend = sym ? j + 1 : n;
        double *col = out + (size_t) n * j;
        for (int i = 0; i < iend; i++) {
            double v = col[i];
            if (k->type == KERNEL_RBF) {
                double d2 = (sym && i == j) ? 0.0 : nx[i] + nz[j] - 2.0 * v;
                v = exp(-(d2 > 0.0 ? d2 : 0.0) * inv2s2);
            } else if (k->type == KERNEL_POLYNOMIAL) {
                v = R_pow_di(k->scale * v + k->offset, deg);
            }
            col[i] = v;
        }
    }
    if (sym)
        for (int j = 0; j < n; j++)
            for (int i = j + 1; i < n; i++) out[i + (size_t) n * j] = out[j + (size_t) n * i];
}

SEXP rlsc_kernel_matrix(SEXP x, SEXP z, SEXP type, SEXP params)
{
    kernel_spec k = parse_kernel(type, params);
    if (k.type == KERNEL_PRECOMPUTED) error("'type' must not be \"precomputed\" here");
    int n, d, m, dz;
    check_double_matrix(x, "x", &n, &d);
    if (!isNull(z)) {
        check_double_matrix(z, "z", &m, &dz);
        if (dz != d) error("'z' must have %d columns, not %d", d, dz);
    } else {
        m = n;
    }
    SEXP out = PROTECT(allocMatrix(REALSXP, n, m));
    kernel_fill(&k, REAL(x), n, isNull(z) ? NULL : REAL(z), m, d, REAL(out));
    UNPROTECT(1);
    return out;
}

SEXP rlsc_kernel_asymmetry(SEXP k)
{
    int n, nc;
    check_double_matrix(k, "k", &n, &nc);
    if (n != nc) error("'k' must be square, not %d x %d", n, nc);
    const double *pk = REAL(k);
    double worst = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) {
            double a = pk[i + (size_t) n * j], b = pk[j + (size_t) n * i];
            if (!R_FINITE(a) || !R_FINITE(b)) return ScalarReal(R_NaN);
            double diff = fabs(a - b);
            if (diff > worst) worst = diff;
        }
    return ScalarReal(worst);
}

/* Eigenpairs of the centered Kt (n x n, destroyed), whose null space holds s
   exactly: s'U = 0 is what makes sum(c) = 0 and the centering of new rows work,
   and dsyevr alone loses it to round-off in the vectors of eigenvalues near 0.
   So s is deflated first: with the Householder reflector H (H s ~ e_1), H Kt H
   has a zero first row and column, its trailing (n - 1) x (n - 1) block is
   decomposed, and U = H [0; V].  `values` (n) ends with the 0 of s; `vectors`
   gets the n x (n - 1) matrix U (leading dimension n). */
static void deflated_eigen(double *a, int n, const double *s, double sumw,
                           double *values, double *vectors)
{
    int m = n - 1, inc = 1;
    values[m] = 0.0;
    if (m == 0) return;
    double *v = (double *) R_alloc(n, sizeof(double)), *p = (double *) R_alloc(n, sizeof(double));
    double snorm = sqrt(sumw), vv = 0.0, vp = 0.0;
    for (int i = 0; i < n; i++) v[i] = s[i] / snorm;
    v[0] += 1.0;                                   /* s > 0, so no cancellation */
    for (int i = 0; i < n; i++) vv += v[i] * v[i];
    double tau = 2.0 / vv, zero = 0.0, minus_one = -1.0;
    /* H A H = A - v w' - w v',  w = p - (tau / 2) (v'p) v,  p = tau A v */
    F77_CALL(dsymv)("U", &n, &tau, a, &n, v, &inc, &zero, p, &inc FCONE);
    for (int i = 0; i < n; i++) vp += v[i] * p[i];
    for (int i = 0; i < n; i++) p[i] -= 0.5 * tau * vp * v[i];
    F77_CALL(dsyr2)("U", &n, &minus_one, v, &inc, p, &inc, a, &n FCONE);
    /* compact the trailing block to leading dimension m, in place (every
       element moves to a lower address) */
    for (int j = 0; j < m; j++)
        for (int i = 0; i < m; i++) a[i + (size_t) m * j] = a[i + 1 + (size_t) n * (j + 1)];
    symmetric_eigen(a, m, values, vectors);
    /* expand each vector to [0; z] with leading dimension n (every element
       moves to a higher address: go backwards), then reflect */
    for (int k = m - 1; k >= 0; k--) {
        for (int i = m - 1; i >= 0; i--) vectors[i + 1 + (size_t) n * k] = vectors[i + (size_t) m * k];
        vectors[(size_t) n * k] = 0.0;
    }
    for (int k = 0; k < m; k++) {
        double *uk = vectors + (size_t) n * k, dot = 0.0;
        for (int i = 1; i < n; i++) dot += v[i] * uk[i];
        for (int i = 0; i < n; i++) uk[i] -= tau * dot * v[i];
    }
}

SEXP rlsc_kernel_eigen(SEXP x, SEXP w, SEXP type, SEXP params, SEXP intercept, SEXP rel_tol)
{
    kernel_spec k = parse_kernel(type, params);
    int n, d;
    check_double_matrix(x, "x", &n, &d);
    if (k.type == KERNEL_PRECOMPUTED && d != n)
        error("'x' must be a square kernel matrix, not %d x %d", n, d);
    check_double_vector(w, "w", n);
    int icpt = check_flag(intercept, "intercept");
    check_double_vector(rel_tol, "rel_tol", 1);
    double tol = REAL(rel_tol)[0];
    if (!(tol >= 0.0) || !R_FINITE(tol)) error("'rel_tol' must be finite and non-negative");
    const double *px = REAL(x), *pw = REAL(w);

    int np = 0;
    double sumw = 0.0;
    for (int i = 0; i < n; i++) {
        if (!(pw[i] >= 0.0) || !R_FINITE(pw[i])) error("'w' must be finite and non-negative");
        if (pw[i] > 0.0) { np++; sumw += pw[i]; }
    }
    if (np == 0) error("'w' must have a positive sum");
    int *rows = (int *) R_alloc(np, sizeof(int));
    double *s = (double *) R_alloc(np, sizeof(double)), *wp = (double *) R_alloc(np, sizeof(double));
    for (int i = 0, p = 0; i < n; i++)
        if (pw[i] > 0.0) { rows[p] = i; wp[p] = pw[i]; s[p] = sqrt(pw[i]); p++; }

    /* the kernel of the rows of positive weight */
    double *a = (double *) R_alloc((size_t) np * np, sizeof(double));
    if (k.type == KERNEL_PRECOMPUTED) {
        for (int j = 0; j < np; j++)
            for (int i = 0; i < np; i++)
                a[i + (size_t) np * j] = px[rows[i] + (size_t) n * rows[j]];
    } else {
        double *xp = (double *) R_alloc((size_t) np * d + 1, sizeof(double));
        for (int j = 0; j < d; j++)
            for (int i = 0; i < np; i++) xp[i + (size_t) np * j] = px[rows[i] + (size_t) n * j];
        kernel_fill(&k, xp, np, NULL, np, d, a);
    }
    for (size_t q = 0; q < (size_t) np * np; q++)
        if (!R_FINITE(a[q]))
            errorcall(R_NilValue, "the kernel matrix has NA, NaN or Inf values (overflow?): "
                      "rescale `x` or change the kernel parameters");

    /* weighted double centering, kbar_i = sum_j w_j K_ij / sum(w), then D_s . D_s */
    SEXP kbar = PROTECT(allocVector(REALSXP, np));
    double *kb = REAL(kbar), kk = 0.0;
    for (int i = 0; i < np; i++) kb[i] = 0.0;
    if (icpt) {
        for (int j = 0; j < np; j++)
            for (int i = 0; i < np; i++) kb[i] += wp[j] * a[i + (size_t) np * j];
        for (int i = 0; i < np; i++) { kb[i] /= sumw; kk += wp[i] * kb[i]; }
        kk /= sumw;
    }
    for (int j = 0; j < np; j++)
        for (int i = 0; i < np; i++) {
            double *v = a + i + (size_t) np * j;
            *v = s[i] * s[j] * (*v - kb[i] - kb[j] + kk);
        }

    SEXP values = PROTECT(allocVector(REALSXP, np));
    double *pv = REAL(values);
    double *u = (double *) R_alloc((size_t) np * np, sizeof(double));
    if (icpt) {
        deflated_eigen(a, np, s, sumw, pv, u);
    } else {
        symmetric_eigen(a, np, pv, u);
    }
    double top = pv[0] > 0.0 ? pv[0] : 0.0;
    int r = 0;
    while (r < np && pv[r] > top * tol) r++;

    SEXP b = PROTECT(allocMatrix(REALSXP, np, r));
    double *pb = REAL(b);
    for (int q = 0; q < r; q++) {
        double sq = sqrt(pv[q]);
        for (int i = 0; i < np; i++)
            pb[i + (size_t) np * q] = u[i + (size_t) np * q] * sq / s[i];
    }
    const char *names[] = {"values", "b", "kbar"};
    SEXP out = PROTECT(allocVector(VECSXP, 3)), nms = PROTECT(allocVector(STRSXP, 3));
    SEXP vals[] = {values, b, kbar};
    for (int q = 0; q < 3; q++) {
        SET_VECTOR_ELT(out, q, vals[q]);
        SET_STRING_ELT(nms, q, mkChar(names[q]));
    }
    setAttrib(out, R_NamesSymbol, nms);
    UNPROTECT(5);
    return out;
}
