/* Step 1 of the primal engine (DESIGN.md section 7): the sum of weights, the
   weighted means and the weighted centered co-moments
       S_xx = sum_i w_i (x_i - xbar)(x_i - xbar)',  S_xy = sum_i w_i (x_i - xbar)(y_i - ybar)'
   accumulated one block of rows at a time.  Each block is centered at its own
   mean and merged into the running totals with the pairwise update of Chan,
   Golub and LeVeque, so no raw sums of squares are ever formed and the rows
   could arrive as a stream. */
#include "rlsc.h"

/* Weighted mean of rows [i0, i0 + nb) of the n x p matrix a into mean (p). */
static void block_mean(const double *a, int n, int p, int i0, int nb,
                       const double *w, double wsum, double *mean)
{
    for (int j = 0; j < p; j++) {
        const double *col = a + (size_t) n * j + i0;
        double s = 0.0;
        for (int i = 0; i < nb; i++) s += w[i0 + i] * col[i];
        mean[j] = s / wsum;
    }
}

/* buf (nb x p) = sqrt(w_i) (a_i - mean) for the rows of the block. */
static void scaled_centered_block(const double *a, int n, int p, int i0, int nb,
                                  const double *w, const double *mean, double *buf)
{
    for (int j = 0; j < p; j++) {
        const double *col = a + (size_t) n * j + i0;
        double m = mean ? mean[j] : 0.0;
        double *out = buf + (size_t) nb * j;
        for (int i = 0; i < nb; i++) out[i] = sqrt(w[i0 + i]) * (col[i] - m);
    }
}

SEXP rlsc_moments(SEXP x, SEXP y, SEXP w, SEXP intercept, SEXP want_gram)
{
    int n, d, ny, nt;
    check_double_matrix(x, "x", &n, &d);
    check_double_matrix(y, "y", &ny, &nt);
    if (ny != n) error("'y' must have %d rows, not %d", n, ny);
    check_double_vector(w, "w", n);
    int icpt = check_flag(intercept, "intercept");
    int gram = check_flag(want_gram, "want_gram");

    const double *px = REAL(x), *py = REAL(y), *pw = REAL(w);
    for (int i = 0; i < n; i++)
        if (!(pw[i] >= 0.0) || !R_FINITE(pw[i]))
            error("'w' must be finite and non-negative");

    SEXP sxx = PROTECT(gram ? allocMatrix(REALSXP, d, d) : allocMatrix(REALSXP, 0, 0));
    SEXP sxy = PROTECT(allocMatrix(REALSXP, d, nt));
    SEXP xbar = PROTECT(allocVector(REALSXP, d));
    SEXP ybar = PROTECT(allocVector(REALSXP, nt));
    double *S = REAL(sxx), *C = REAL(sxy), *mx = REAL(xbar), *my = REAL(ybar);
    if (gram) memset(S, 0, sizeof(double) * (size_t) d * d);
    memset(C, 0, sizeof(double) * (size_t) d * nt);
    memset(mx, 0, sizeof(double) * d);
    memset(my, 0, sizeof(double) * nt);

    int nb_max = block_rows(n, (double) d + nt, BLOCK_DOUBLES);
    double *bx = (double *) R_alloc((size_t) nb_max * (d > 0 ? d : 1), sizeof(double));
    double *by = (double *) R_alloc((size_t) nb_max * (nt > 0 ? nt : 1), sizeof(double));
    double *bmx = (double *) R_alloc(d > 0 ? d : 1, sizeof(double));
    double *bmy = (double *) R_alloc(nt > 0 ? nt : 1, sizeof(double));
    double *dx = (double *) R_alloc(d > 0 ? d : 1, sizeof(double));
    double *dy = (double *) R_alloc(nt > 0 ? nt : 1, sizeof(double));

    const double one = 1.0;
    double wtot = 0.0;
    for (int i0 = 0; i0 < n; i0 += nb_max) {
        int nb = n - i0 < nb_max ? n - i0 : nb_max;
        double wb = 0.0;
        for (int i = 0; i < nb; i++) wb += pw[i0 + i];
        if (wb <= 0.0) continue;
        if (icpt) {
            block_mean(px, n, d, i0, nb, pw, wb, bmx);
            block_mean(py, n, nt, i0, nb, pw, wb, bmy);
        }
        scaled_centered_block(px, n, d, i0, nb, pw, icpt ? bmx : NULL, bx);
        scaled_centered_block(py, n, nt, i0, nb, pw, icpt ? bmy : NULL, by);
        if (gram && d > 0)
            F77_CALL(dsyrk)("U", "T", &d, &nb, &one, bx, &nb, &one, S, &d FCONE FCONE);
        if (d > 0 && nt > 0)
            F77_CALL(dgemm)("T", "N", &d, &nt, &nb, &one, bx, &nb, by, &nb,
                            &one, C, &d FCONE FCONE);
        if (icpt) {
            /* merge: M = M_a + M_b + (W_a W_b / W) delta delta' */
            double wnew = wtot + wb, f = wtot * wb / wnew, step = wb / wnew;
            for (int j = 0; j < d; j++) dx[j] = bmx[j] - mx[j];
            for (int t = 0; t < nt; t++) dy[t] = bmy[t] - my[t];
            if (wtot > 0.0) {
                int inc = 1;
                if (gram && d > 0)
                    F77_CALL(dsyr)("U", &d, &f, dx, &inc, S, &d FCONE);
                if (d > 0 && nt > 0)
                    F77_CALL(dger)(&d, &nt, &f, dx, &inc, dy, &inc, C, &d);
            }
            for (int j = 0; j < d; j++) mx[j] += step * dx[j];
            for (int t = 0; t < nt; t++) my[t] += step * dy[t];
        }
        wtot += wb;
    }
    if (gram)   /* dsyrk and dsyr filled the upper triangle only */
        for (int j = 0; j < d; j++)
            for (int i = j + 1; i < d; i++) S[i + (size_t) d * j] = S[j + (size_t) d * i];

    SEXP out = PROTECT(allocVector(VECSXP, 5));
    SEXP nms = PROTECT(allocVector(STRSXP, 5));
    SET_VECTOR_ELT(out, 0, ScalarReal(wtot)); SET_STRING_ELT(nms, 0, mkChar("sumw"));
    SET_VECTOR_ELT(out, 1, xbar);             SET_STRING_ELT(nms, 1, mkChar("xbar"));
    SET_VECTOR_ELT(out, 2, ybar);             SET_STRING_ELT(nms, 2, mkChar("ybar"));
    SET_VECTOR_ELT(out, 3, sxx);              SET_STRING_ELT(nms, 3, mkChar("sxx"));
    SET_VECTOR_ELT(out, 4, sxy);              SET_STRING_ELT(nms, 4, mkChar("sxy"));
    setAttrib(out, R_NamesSymbol, nms);
    UNPROTECT(6);
    return out;
}
