/* Step 1 of the primal engine (DESIGN.md, section 3): the sum of weights, the
   weighted means and the weighted centered co-moments
       S_xx = sum_i w_i (x_i - xbar)(x_i - xbar)',  S_xy = sum_i w_i (x_i - xbar)(y_i - ybar)'
   accumulated one block of rows at a time.  Each block is centered at its own
   mean and merged into the running totals with the pairwise update of Chan,
   Golub and LeVeque, so no raw sums of squares are ever formed and the rows
   could arrive as a stream.  The Gram of each block is computed in column
   pieces by the threads.
   The moments are those of the rows moved by `shift`, a representative row
   of the data (R/moments.R): x - shift is exact for a column with a large
   common offset, so the means (and each block's centering) are rounded only
   relative to the columns' spread, not to their offset; `yshift` does the
   same for y.  Without a shift (no intercept) the moments are raw: nothing is
   centered.  With `gram` FALSE only the diagonal of S_xx is formed (a d-vector:
   the column scales of standardize = TRUE without a d x d Gram). */
#include "rlsc.h"

/* Weighted mean of rows [i0, i0 + nb) of the n x p matrix a, moved by
   shift (NULL: none), into mean (p). */
static void block_mean(const double *a, int n, int p, int i0, int nb, const double *shift,
                       const double *w, double wsum, double *mean)
{
    for (int j = 0; j < p; j++) {
        const double *col = a + (size_t) n * j + i0;
        double s = 0.0, sh = shift ? shift[j] : 0.0;
        for (int i = 0; i < nb; i++) s += w[i0 + i] * (col[i] - sh);
        mean[j] = s / wsum;
    }
}

/* buf (p x nb) = sqrt(w_i) ((a_i - shift) - mean) for the rows of the block,
   one row per column: transposed, so that the products with it run along its
   columns (the reference BLAS's dsyrk twice as fast as on the block itself). */
static void scaled_centered_block(const double *a, int n, int p, int i0, int nb,
                                  const double *s, const double *shift, const double *mean,
                                  double *buf)
{
    for (int j = 0; j < p; j++) {
        const double *col = a + (size_t) n * j + i0;
        double m = mean ? mean[j] : 0.0, sh = shift ? shift[j] : 0.0;
        for (int i = 0; i < nb; i++) buf[j + (size_t) p * i] = s[i] * ((col[i] - sh) - m);
    }
}

/* The diagonal of bt bt' (d x nb) added to S (d). */
static void diagonal_squares(double *S, int d, int nb, const double *bt)
{
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < d; j++) S[j] += bt[j + (size_t) d * i] * bt[j + (size_t) d * i];
}

/* S (upper triangle, d x d) += bt bt' for the d x nb matrix bt, in column
   pieces of equal area computed by the threads (dsyrk on each diagonal
   block, dgemm above it); the pieces depend on d only. */
static void pieces_syrk(double *S, int d, int nb, const double *bt, int nth)
{
    int c[9];
    int k = rlsc_triangle_pieces(d, 8, 64, c);
    int par = rlsc_parallel(nth, k, (double) nb * d * d);
    RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
    for (int p = 0; p < k; p++) {
        int c0 = c[p], w = c[p + 1] - c[p];
        const double one = 1.0;
        if (c0 > 0)
            F77_CALL(dgemm)("N", "T", &c0, &w, &nb, &one, bt, &d, bt + c0, &d, &one,
                            S + (size_t) d * c0, &d FCONE FCONE);
        F77_CALL(dsyrk)("U", "N", &w, &nb, &one, bt + c0, &d, &one, S + c0 + (size_t) d * c0, &d
                        FCONE FCONE);
    }
}

SEXP rlsc_moments(SEXP x, SEXP y, SEXP w, SEXP shift, SEXP yshift, SEXP gram, SEXP threads)
{
    int n, d, ny, nt;
    rlsc_check_double_matrix(x, "x", &n, &d);
    rlsc_check_double_matrix(y, "y", &ny, &nt);
    if (ny != n) error("'y' must have %d rows, not %d", n, ny);
    rlsc_check_double_vector(w, "w", n);
    int icpt = !isNull(shift);
    if (icpt) rlsc_check_double_vector(shift, "shift", d);
    if (icpt != !isNull(yshift)) error("'shift' and 'yshift' must both be given, or neither");
    if (icpt) rlsc_check_double_vector(yshift, "yshift", nt);
    int full = rlsc_check_flag(gram, "gram");
    int nth = rlsc_thread_count(threads);

    const double *px = REAL(x), *py = REAL(y), *pw = REAL(w);
    const double *psx = icpt ? REAL(shift) : NULL, *psy = icpt ? REAL(yshift) : NULL;
    const char *names[] = {"sumw", "xbar", "ybar", "sxx", "sxy", "xmax", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, allocVector(REALSXP, 1));
    SET_VECTOR_ELT(out, 1, allocVector(REALSXP, d));
    SET_VECTOR_ELT(out, 2, allocVector(REALSXP, nt));
    SET_VECTOR_ELT(out, 3, full ? allocMatrix(REALSXP, d, d) : allocVector(REALSXP, d));
    SET_VECTOR_ELT(out, 4, allocMatrix(REALSXP, d, nt));
    SET_VECTOR_ELT(out, 5, allocVector(REALSXP, d));
    double *mx = REAL(VECTOR_ELT(out, 1)), *my = REAL(VECTOR_ELT(out, 2)),
        *S = REAL(VECTOR_ELT(out, 3)), *C = REAL(VECTOR_ELT(out, 4)),
        *xmax = REAL(VECTOR_ELT(out, 5));
    memset(S, 0, sizeof(double) * (size_t) d * (full ? d : 1));
    memset(C, 0, sizeof(double) * (size_t) d * nt);
    memset(mx, 0, sizeof(double) * d);
    memset(my, 0, sizeof(double) * nt);
    memset(xmax, 0, sizeof(double) * d);

    int nb_max = rlsc_block_rows(n, (double) d + nt, BLOCK_DOUBLES);
    double *bx = (double *) R_alloc((size_t) nb_max * (d > 0 ? d : 1), sizeof(double));
    double *by = (double *) R_alloc((size_t) nb_max * (nt > 0 ? nt : 1), sizeof(double));
    double *bmx = (double *) R_alloc(d > 0 ? d : 1, sizeof(double));
    double *bmy = (double *) R_alloc(nt > 0 ? nt : 1, sizeof(double));
    double *dx = (double *) R_alloc(d > 0 ? d : 1, sizeof(double));
    double *dy = (double *) R_alloc(nt > 0 ? nt : 1, sizeof(double));
    double *sw = (double *) R_alloc(nb_max, sizeof(double));

    const double one = 1.0;
    double wtot = 0.0;
    for (int i0 = 0; i0 < n; i0 += nb_max) {
        int nb = n - i0 < nb_max ? n - i0 : nb_max;
        double wb = 0.0;
        for (int i = 0; i < nb; i++) wb += pw[i0 + i];
        R_CheckUserInterrupt();
        if (wb <= 0.0) continue;
        for (int j = 0; j < d; j++) {     /* largest |x| of the rows of positive weight */
            const double *col = px + (size_t) n * j + i0;
            for (int i = 0; i < nb; i++)
                if (pw[i0 + i] > 0.0 && fabs(col[i]) > xmax[j]) xmax[j] = fabs(col[i]);
        }
        if (icpt) {
            block_mean(px, n, d, i0, nb, psx, pw, wb, bmx);
            block_mean(py, n, nt, i0, nb, psy, pw, wb, bmy);
        }
        for (int i = 0; i < nb; i++) sw[i] = sqrt(pw[i0 + i]);
        scaled_centered_block(px, n, d, i0, nb, sw, psx, icpt ? bmx : NULL, bx);
        for (int t = 0; t < nt; t++) {     /* y's block as it is (nb x nt) */
            const double *col = py + (size_t) n * t + i0;
            double m = icpt ? bmy[t] : 0.0, sh = icpt ? psy[t] : 0.0;
            for (int i = 0; i < nb; i++) by[i + (size_t) nb * t] = sw[i] * ((col[i] - sh) - m);
        }
        if (d > 0 && full) pieces_syrk(S, d, nb, bx, nth);
        if (d > 0 && !full) diagonal_squares(S, d, nb, bx);
        if (d > 0 && nt > 0)
            F77_CALL(dgemm)("N", "N", &d, &nt, &nb, &one, bx, &d, by, &nb,
                            &one, C, &d FCONE FCONE);
        if (icpt) {
            /* merge: M = M_a + M_b + (W_a W_b / W) delta delta' */
            double wnew = wtot + wb, f = wtot * wb / wnew, step = wb / wnew;
            for (int j = 0; j < d; j++) dx[j] = bmx[j] - mx[j];
            for (int t = 0; t < nt; t++) dy[t] = bmy[t] - my[t];
            if (wtot > 0.0) {
                int inc = 1;
                if (d > 0 && full)
                    F77_CALL(dsyr)("U", &d, &f, dx, &inc, S, &d FCONE);
                for (int j = 0; d > 0 && !full && j < d; j++) S[j] += f * dx[j] * dx[j];
                if (d > 0 && nt > 0)
                    F77_CALL(dger)(&d, &nt, &f, dx, &inc, dy, &inc, C, &d);
            }
            for (int j = 0; j < d; j++) mx[j] += step * dx[j];
            for (int t = 0; t < nt; t++) my[t] += step * dy[t];
        }
        wtot += wb;
    }
    if (full) rlsc_mirror_upper(S, d);   /* dsyrk and dsyr filled the upper triangle only */
    REAL(VECTOR_ELT(out, 0))[0] = wtot;
    UNPROTECT(1);
    return out;
}
