/* Step 1 of the primal engine (DESIGN.md, section 3): the sum of weights, the
   weighted means and the weighted centered co-moments
       S_xx = sum_i w_i (x_i - xbar)(x_i - xbar)',  S_xy = sum_i w_i (x_i - xbar)(y_i - ybar)'
   accumulated one block of rows at a time.  Each block is centered at its own
   mean and merged into the running totals with the pairwise update of Chan,
   Golub and LeVeque, so no raw sums of squares are ever formed and the rows
   could arrive as a stream.  Each block's work (its columns' maxima, means
   and centering, its Gram and cross-products and their merge) is computed
   in pieces of columns by the threads.
   The moments are those of the rows moved by `shift`, a representative row
   of the data (R/moments.R): x - shift is exact for a column with a large
   common offset, so the means (and each block's centering) are rounded only
   relative to the columns' spread, not to their offset; `yshift` does the
   same for y.  Without a shift (no intercept) the moments are raw: nothing is
   centered.  With `gram` FALSE only the diagonal of S_xx is formed (a d-vector:
   the column scales of standardize = TRUE without a d x d Gram).
   With `rows`, the moments are those of those rows of x (y and w being the
   rows' own): each block's rows are gathered into scratch as it is read, so
   a fold's rows are never copied whole (the copies of x by fold, by R's `[`,
   were 6 ms of a 10-class fit of 5000 x 200, and its largest allocations). */
#include "rlsc.h"

/* Weighted means of rows [i0, i0 + nb) of columns c0 .. c0 + p - 1 of the
   n-row matrix a, moved by shift (p values), into mean (p). */
static void block_mean(const double *a, int n, int p, int c0, int i0, int nb, const double *shift,
                       const double *w, double wsum, double *mean)
{
    for (int j = 0; j < p; j++) {
        const double *col = a + (size_t) n * (c0 + j) + i0;
        double s = 0.0, sh = shift[j];
        for (int i = 0; i < nb; i++) s += w[i0 + i] * (col[i] - sh);
        mean[j] = s / wsum;
    }
}

/* Column j's block (rows i0 .. i0 + nb - 1): its largest |x| of rows of
   positive weight merged into xmax[j], and its weighted mean of x - shift
   (0 without a shift: nothing centered), also stored in mean[j] with one. */
static inline double column_max_mean(const double *col, int j, int i0, int nb, const double *pw,
                                     double wb, const double *shift, double *xmax, double *mean)
{
    double top = xmax[j], s = 0.0, sh = shift ? shift[j] : 0.0;
    for (int i = 0; i < nb; i++) {
        double a = fabs(col[i]);
        if (pw[i0 + i] > 0.0 && a > top) top = a;
        s += pw[i0 + i] * (col[i] - sh);
    }
    xmax[j] = top;
    if (!shift) return 0.0;
    mean[j] = s / wb;
    return mean[j];
}

/* Without the Gram (`gram` FALSE: wide x, whose d may be tens of thousands):
   the block's largest |x| of rows of positive weight into xmax, its weighted
   means (of x - shift; NULL shift: none, and no centering) into mean, S (d,
   the diagonal) and C (d x nt), column by column of x, in pieces of 256
   columns computed by the threads: each column's block is read from memory
   once, the centering's second look finding it in cache (three passes over
   x before, one of them single-threaded: a fifth of a wide dual fit).  yc
   (nb x nt) holds the block's y centered and scaled, xc a column per
   thread. */
static void column_moments(double *S, double *C, double *xmax, double *mean, const double *px, int ldx,
                           int xoff, int d, int nt, int i0, int nb, const double *pw, const double *sw,
                           double wb, const double *shift, const double *yc, double *xc, int nth)
{
    int np = (d + 255) / 256;
    int par = rlsc_parallel(nth, np, 2.0 * nb * (double) d * (nt + 2));
    RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
    for (int p = 0; p < np; p++) {
        double *b = xc + (size_t) nb * rlsc_thread_id();
        int j1 = (p + 1) * 256 < d ? (p + 1) * 256 : d;
        for (int j = p * 256; j < j1; j++) {
            const double *col = px + (size_t) ldx * j + xoff;
            double m = column_max_mean(col, j, i0, nb, pw, wb, shift, xmax, mean);
            double sh = shift ? shift[j] : 0.0, q = 0.0;
            for (int i = 0; i < nb; i++) {
                b[i] = sw[i] * ((col[i] - sh) - m);
                q += b[i] * b[i];
            }
            S[j] += q;
            for (int t = 0; t < nt; t++) {
                const double *yt = yc + (size_t) nb * t;
                double c = 0.0;
                for (int i = 0; i < nb; i++) c += b[i] * yt[i];
                C[j + (size_t) d * t] += c;
            }
        }
    }
}

/* columns of y per piece of S_xy (each thread centers its piece of the
   block's y in its own scratch) */
#define Y_PIECE 128
/* doubles of a block of rows for the Gram (4 MB): its products take the
   block's rows as their inner dimension, and each block adds a merge of
   O(d^2); under OpenBLAS the pass over 2000 x 1000 took 25 ms with it
   against 28 ms with BLOCK_DOUBLES (5000 x 500: 20 against 23 ms), the
   same under the reference BLAS */
#define GRAM_BLOCK_DOUBLES (1 << 19)

/* S (upper triangle, d x d) += bt bt' + f dx dx' for the d x nb matrix bt,
   in column pieces of equal area (dsyrk on each diagonal block, dgemm above
   it), and C (d x nt) += bt times the block's y, centered at its mean and
   scaled like bt, + f dx dy' (the pairwise update of the moments, with dx
   and dy the block's means less the running ones; f = 0 for the first
   block), in pieces of Y_PIECE columns, each of which also computes its
   columns' block means (ym, with yshift ysh; NULL without an intercept) and
   moves the running means my (step: the block's share of the weight).  Both
   kinds of pieces are computed by the threads; they depend on d and nt
   only.  by holds min(nt, Y_PIECE) x nb doubles per thread. */
static void block_products(double *S, double *C, int d, int nt, int nb, const double *bt,
                           const double *py, const double *pw, int n, int i0, const double *sw,
                           double wb, const double *ysh, double *ym, double *my, double *dy,
                           const double *dx, double f, double step, double *by, int nth)
{
    int c[9];
    int k = d > 0 ? rlsc_triangle_pieces(d, 8, 64, c) : 0;
    int ky = (nt + Y_PIECE - 1) / Y_PIECE, ty = nt < Y_PIECE ? nt : Y_PIECE;
    int par = rlsc_parallel(nth, k + ky, (double) nb * d * (d + 2.0 * nt));
    RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
    for (int p = 0; p < k + ky; p++) {
        const double one = 1.0;
        if (p < k) {
            int c0 = c[p], w = c[p + 1] - c[p];
            if (c0 > 0)
                F77_CALL(dgemm)("N", "T", &c0, &w, &nb, &one, bt, &d, bt + c0, &d, &one,
                                S + (size_t) d * c0, &d FCONE FCONE);
            F77_CALL(dsyrk)("U", "N", &w, &nb, &one, bt + c0, &d, &one, S + c0 + (size_t) d * c0, &d
                            FCONE FCONE);
            if (f > 0.0)
                for (int j = c0; j < c0 + w; j++) {
                    double *sj = S + (size_t) d * j, fj = f * dx[j];
                    for (int i = 0; i <= j; i++) sj[i] += fj * dx[i];
                }
        } else {
            int t0 = (p - k) * Y_PIECE, tw = nt - t0 < Y_PIECE ? nt - t0 : Y_PIECE;
            double *b = by + (size_t) ty * nb * rlsc_thread_id();
            if (ysh) block_mean(py, n, tw, t0, i0, nb, ysh + t0, pw, wb, ym + t0);
            for (int t = 0; t < tw; t++) {   /* y's piece centered and scaled (nb x tw) */
                const double *col = py + (size_t) n * (t0 + t) + i0;
                double m = ysh ? ym[t0 + t] : 0.0, sh = ysh ? ysh[t0 + t] : 0.0;
                for (int i = 0; i < nb; i++) b[i + (size_t) nb * t] = sw[i] * ((col[i] - sh) - m);
            }
            if (d > 0)
                F77_CALL(dgemm)("N", "N", &d, &tw, &nb, &one, bt, &d, b, &nb, &one, C + (size_t) d * t0,
                                &d FCONE FCONE);
            if (!ysh) continue;
            for (int t = t0; t < t0 + tw; t++) {
                dy[t] = ym[t] - my[t];
                if (f > 0.0) {
                    double *ct = C + (size_t) d * t, ft = f * dy[t];
                    for (int j = 0; j < d; j++) ct[j] += ft * dx[j];
                }
                my[t] += step * dy[t];
            }
        }
    }
}

/* The block's columns of x (rows i0 .. i0 + nb - 1): the largest |x| of its
   rows of positive weight into xmax, its weighted means (of x - shift; NULL
   shift: none, and no centering) into mean, the differences dx from the
   running means mx, and bt (d x nb) = sqrt(w_i) ((x_i - shift) - mean), one
   row per column: transposed, so that the products with it run along its
   columns (the reference BLAS's dsyrk twice as fast as on the block itself).
   In pieces of 64 columns computed by the threads. */
static void block_columns(const double *px, int ldx, int xoff, int d, int i0, int nb,
                          const double *shift, const double *pw, const double *sw, double wb,
                          double *xmax, double *mean, const double *mx, double *dx, double *bt, int nth)
{
    int np = (d + 63) / 64;
    int par = rlsc_parallel(nth, np, 4.0 * nb * (double) d);
    RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
    for (int p = 0; p < np; p++) {
        int j1 = (p + 1) * 64 < d ? (p + 1) * 64 : d;
        for (int j = p * 64; j < j1; j++) {
            const double *col = px + (size_t) ldx * j + xoff;
            double m = column_max_mean(col, j, i0, nb, pw, wb, shift, xmax, mean);
            double sh = shift ? shift[j] : 0.0;
            if (shift) dx[j] = m - mx[j];
            for (int i = 0; i < nb; i++) bt[j + (size_t) d * i] = sw[i] * ((col[i] - sh) - m);
        }
    }
}

/* What a pass over rows accumulates: the moments of the rows so far. */
typedef struct {
    double *S, *C, *mx, *my, *xmax;   /* d x d (or d), d x nt, d, nt, d */
    double wtot;
} moment_acc;

/* The rows and their shifts (read-only), and a thread's scratch.  n rows of
   y and w; x has ldx rows, of which rows (1-based; NULL: x's first n rows)
   are those of y and w. */
typedef struct {
    const double *px, *py, *pw, *psx, *psy;
    const int *rows;
    int n, ldx, d, nt, full, icpt, nb_max;
} moment_rows;

typedef struct { double *bx, *by, *bmx, *bmy, *dx, *dy, *sw, *gx; } moment_scratch;

/* Doubles of one moment_scratch for `nth` threads inside it (a piece of y
   per thread has the columns there are, up to Y_PIECE: a Y_PIECE-wide one
   for one column was 1 MB per thread at 1000 rows, scratch that R's
   collector then counted in every fit). */
static size_t scratch_doubles(const moment_rows *m, int nth)
{
    size_t nb = m->nb_max, d = m->d > 0 ? m->d : 1, nt = m->nt > 0 ? m->nt : 1;
    size_t ty = nt < Y_PIECE ? nt : Y_PIECE;
    return nb * (m->full ? d : (size_t) nth) + nb * (m->full ? ty * nth : nt) + 2 * (d + nt) + nb +
        (m->rows ? nb * d : 0);
}

static moment_scratch carve_scratch(const moment_rows *m, double *at, int nth)
{
    moment_scratch sc;
    size_t nb = m->nb_max, d = m->d > 0 ? m->d : 1, nt = m->nt > 0 ? m->nt : 1;
    sc.bx = at;
    at += nb * (m->full ? d : (size_t) nth);
    sc.by = at;
    at += nb * (m->full ? (nt < Y_PIECE ? nt : Y_PIECE) * (size_t) nth : nt);
    sc.bmx = at;
    sc.dx = at + d;
    sc.bmy = at + 2 * d;
    sc.dy = at + 2 * d + nt;
    sc.sw = at + 2 * (d + nt);
    sc.gx = m->rows ? sc.sw + nb : NULL;   /* a block's rows of x, gathered (nb x d) */
    return sc;
}

/* Rows r0 .. r1 - 1 into acc, a block of nb_max rows at a time, each merged
   into the running moments by the pairwise update; the blocks' pieces of
   columns computed by nth threads; interrupts answered between blocks when
   `interrupts` (never inside a parallel region). */
static void accumulate_rows(const moment_rows *m, moment_acc *acc, int r0, int r1,
                            moment_scratch *sc, int nth, int interrupts)
{
    int n = m->n, d = m->d, nt = m->nt, icpt = m->icpt;
    const double *px = m->px, *py = m->py, *pw = m->pw, *psx = m->psx, *psy = m->psy;
    double *S = acc->S, *C = acc->C, *mx = acc->mx, *my = acc->my, *xmax = acc->xmax;
    double *bx = sc->bx, *bmx = sc->bmx, *bmy = sc->bmy, *dx = sc->dx, *dy = sc->dy, *sw = sc->sw;
    double *yc = sc->by;
    for (int i0 = r0; i0 < r1; i0 += m->nb_max) {
        int nb = r1 - i0 < m->nb_max ? r1 - i0 : m->nb_max;
        double wb = 0.0;
        for (int i = 0; i < nb; i++) wb += pw[i0 + i];
        if (interrupts) R_CheckUserInterrupt();
        if (wb <= 0.0) continue;
        for (int i = 0; i < nb; i++) sw[i] = sqrt(pw[i0 + i]);
        /* the pairwise merge into the running moments,
           M = M_a + M_b + (W_a W_b / W) delta delta', and the running means
           moved by the block's share of the weight */
        double wnew = acc->wtot + wb, f = icpt ? acc->wtot * wb / wnew : 0.0, step = wb / wnew;
        /* the block's rows of x: in place, or gathered by `rows` */
        const double *xb = px;
        int ldx = m->ldx, xoff = i0;
        if (m->rows) {
            for (int j = 0; j < d; j++) {
                const double *col = px + (size_t) m->ldx * j;
                double *g = sc->gx + (size_t) nb * j;
                for (int i = 0; i < nb; i++) g[i] = col[m->rows[i0 + i] - 1];
            }
            xb = sc->gx;
            ldx = nb;
            xoff = 0;
        }
        if (m->full) {
            block_columns(xb, ldx, xoff, d, i0, nb, psx, pw, sw, wb, xmax, bmx, mx, dx, bx, nth);
            block_products(S, C, d, nt, nb, bx, py, pw, n, i0, sw, wb, psy, bmy, my, dy, dx, f,
                           step, sc->by, nth);
        } else {
            if (icpt) block_mean(py, n, nt, 0, i0, nb, psy, pw, wb, bmy);
            for (int t = 0; t < nt; t++) {     /* y's block centered and scaled (nb x nt) */
                const double *col = py + (size_t) n * t + i0;
                double mt = icpt ? bmy[t] : 0.0, sh = icpt ? psy[t] : 0.0;
                for (int i = 0; i < nb; i++) yc[i + (size_t) nb * t] = sw[i] * ((col[i] - sh) - mt);
            }
            column_moments(S, C, xmax, bmx, xb, ldx, xoff, d, nt, i0, nb, pw, sw, wb, psx, yc, bx, nth);
            if (icpt) {
                for (int j = 0; j < d; j++) dx[j] = bmx[j] - mx[j];
                for (int t = 0; t < nt; t++) dy[t] = bmy[t] - my[t];
                if (f > 0.0) {
                    for (int j = 0; j < d; j++) S[j] += f * dx[j] * dx[j];
                    for (int t = 0; t < nt; t++)
                        for (int j = 0; j < d; j++) C[j + (size_t) d * t] += f * dx[j] * dy[t];
                }
                for (int t = 0; t < nt; t++) my[t] += step * dy[t];
            }
        }
        if (icpt)
            for (int j = 0; j < d; j++) mx[j] += step * dx[j];
        acc->wtot = wnew;
    }
}

/* The k chunks' moments `parts` merged into a in order by the pairwise
   update (the same as between blocks): the means, S_xy and the weights chunk
   after chunk on this thread (dxs gets each chunk's dx, fs its factor f, -1
   for a chunk of no weight), then S_xx, the Grams' upper triangles (or
   diagonals), in pieces of columns computed by the threads, each element
   taking the chunks in order: the same operations on each element as merging
   the chunks one by one, whatever the threads.  (One by one on one thread,
   the merges of 1000 x 1000 Grams took a fifth of the moments of Nystrom
   features: a merge per block of 523 rows, the other thread idle.) */
static void merge_round(const moment_rows *m, moment_acc *a, const moment_acc *parts, int k,
                        double *dxs, double *fs, double *dy, int nth)
{
    int d = m->d, nt = m->nt;
    for (int c = 0; c < k; c++) {
        const moment_acc *b = parts + c;
        double *dx = dxs + (size_t) d * c;
        fs[c] = -1.0;
        if (!(b->wtot > 0.0)) continue;
        for (int j = 0; j < d; j++) a->xmax[j] = b->xmax[j] > a->xmax[j] ? b->xmax[j] : a->xmax[j];
        double wnew = a->wtot + b->wtot, f = m->icpt ? a->wtot * b->wtot / wnew : 0.0, step = b->wtot / wnew;
        for (size_t q = 0; q < (size_t) d * nt; q++) a->C[q] += b->C[q];
        if (m->icpt) {
            for (int j = 0; j < d; j++) dx[j] = b->mx[j] - a->mx[j];
            for (int t = 0; t < nt; t++) dy[t] = b->my[t] - a->my[t];
            if (f > 0.0)
                for (int t = 0; t < nt; t++)
                    for (int j = 0; j < d; j++) a->C[j + (size_t) d * t] += f * dx[j] * dy[t];
            for (int j = 0; j < d; j++) a->mx[j] += step * dx[j];
            for (int t = 0; t < nt; t++) a->my[t] += step * dy[t];
        }
        fs[c] = f;
        a->wtot = wnew;
    }
    int np = (d + 63) / 64;
    int par = rlsc_parallel(nth, np, (double) k * d * (m->full ? d : 1));
    RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
    for (int p = 0; p < np; p++) {
        int j1 = (p + 1) * 64 < d ? (p + 1) * 64 : d;
        for (int c = 0; c < k; c++) {
            if (fs[c] < 0.0) continue;
            const double *dx = dxs + (size_t) d * c, *bs = parts[c].S;
            double f = fs[c];
            for (int j = p * 64; j < j1; j++) {
                if (!m->full) {
                    a->S[j] += bs[j];
                    if (f > 0.0) a->S[j] += f * dx[j] * dx[j];
                    continue;
                }
                double *sj = a->S + (size_t) d * j;
                const double *bj = bs + (size_t) d * j;
                for (int i = 0; i <= j; i++) sj[i] += bj[i];
                if (f > 0.0)
                    for (int i = 0; i <= j; i++) sj[i] += f * dx[i] * dx[j];
            }
        }
    }
}

SEXP rlsc_moments(SEXP x, SEXP y, SEXP w, SEXP shift, SEXP yshift, SEXP gram, SEXP rows, SEXP threads)
{
    int n, d, ny, nt, nx;
    rlsc_check_double_matrix(x, "x", &nx, &d);
    n = isNull(rows) ? nx : rlsc_check_rows(rows, nx);
    rlsc_check_double_matrix(y, "y", &ny, &nt);
    if (ny != n) error("'y' must have %d rows, not %d", n, ny);
    rlsc_check_double_vector(w, "w", n);
    int icpt = !isNull(shift);
    if (icpt) rlsc_check_double_vector(shift, "shift", d);
    if (icpt != !isNull(yshift)) error("'shift' and 'yshift' must both be given, or neither");
    if (icpt) rlsc_check_double_vector(yshift, "yshift", nt);
    int full = rlsc_check_flag(gram, "gram");
    int nth = rlsc_thread_count(threads);

    const char *names[] = {"sumw", "xbar", "ybar", "sxx", "sxy", "xmax", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SEXP held = PROTECT(rlsc_scratch_new());
    SET_VECTOR_ELT(out, 0, allocVector(REALSXP, 1));
    SET_VECTOR_ELT(out, 1, allocVector(REALSXP, d));
    SET_VECTOR_ELT(out, 2, allocVector(REALSXP, nt));
    SET_VECTOR_ELT(out, 3, full ? allocMatrix(REALSXP, d, d) : allocVector(REALSXP, d));
    SET_VECTOR_ELT(out, 4, allocMatrix(REALSXP, d, nt));
    SET_VECTOR_ELT(out, 5, allocVector(REALSXP, d));
    size_t ns = (size_t) d * (full ? d : 1), nc = (size_t) d * nt;
    moment_acc acc = {REAL(VECTOR_ELT(out, 3)), REAL(VECTOR_ELT(out, 4)), REAL(VECTOR_ELT(out, 1)),
                      REAL(VECTOR_ELT(out, 2)), REAL(VECTOR_ELT(out, 5)), 0.0};
    memset(acc.S, 0, sizeof(double) * ns);
    memset(acc.C, 0, sizeof(double) * nc);
    memset(acc.mx, 0, sizeof(double) * d);
    memset(acc.my, 0, sizeof(double) * nt);
    memset(acc.xmax, 0, sizeof(double) * d);

    /* row blocks: the Gram's by the columns of x (and a piece of y's); the
       diagonal alone by y's columns (x is read a column at a time, into a
       column of scratch per thread, counted as two: the blocks, and so the
       results, must not depend on the number of threads) */
    int ty = nt < Y_PIECE ? nt : Y_PIECE;
    moment_rows m = {REAL(x), REAL(y), REAL(w), icpt ? REAL(shift) : NULL, icpt ? REAL(yshift) : NULL,
                     isNull(rows) ? NULL : INTEGER(rows), n, nx, d, nt, full, icpt, 0};
    m.nb_max = full ? rlsc_block_rows(n, (double) d + ty, GRAM_BLOCK_DOUBLES)
        : rlsc_block_rows(n, (double) nt + 2.0, BLOCK_DOUBLES);

    /* Blocks whose work is small (few columns) are too small to split among
       the threads: a parallel region per block then costs more than its
       work, and on a busy machine a wait for a descheduled thread each time.
       So then chunks of rows (up to 16 per round, each its rows' blocks on
       one thread, of about 2e8 operations at most) are accumulated apart and
       merged in order, when their moments take no more than half the size
       of the rows they summarize; else the blocks go in turn, their pieces
       of columns computed by the threads.  Large blocks go in chunks too
       when there are at least 8 chunks (the rounds then keep every thread
       busy): the blocks in turn take two parallel regions per block, and
       on a busy machine a block of the Gram of 1000 Nystrom features (523
       rows) waited for a descheduled thread in each: the moments of 4194 x
       1000 took 3.1 times crossprod() there, 2.0 in chunks (issue 49).
       Which way depends on the sizes only. */
    double block_work = (double) m.nb_max * d * ((full ? d : 1) + 2.0 * nt);
    double per_chunk = (double) ns + nc + 2.0 * d + nt;
    int nchunk = (int) fmin(16.0, floor((double) n * (d + nt) / (2.0 * per_chunk)));
    double per_chunk_rows = fmin(ceil((double) n / 16.0),
                                 floor(2e8 / ((full ? d : 1) * (double) d + 2.0 * d * nt + 1.0)));
    int min_rows = full && n <= m.nb_max ? 256 : m.nb_max;
    int chunk_rows = per_chunk_rows < min_rows ? min_rows : (int) per_chunk_rows;
    int total = (n + chunk_rows - 1) / chunk_rows;
    /* Without the Gram, one chunk would leave the other threads idle: its one
       block's pieces of columns go to them instead (a pass over 500 x 5000
       6.6 ms on one thread, 3.7 on two).  A small Gram (rows of one block,
       n <= 1024) goes in chunks of 256 rows: the pieces of its triangle are too
       small to split (1000 x 100 took 1.4 ms on two threads against 1.2 on
       one), its rows are not (the Gram of 1000 x 100 on an Intel Xeon under
       OpenBLAS: 2.2 ms as one chunk, 1.2 ms as four on two threads). */
    if ((block_work < 5e7 || total >= 8) && nchunk >= 2 && (full || total >= 2)) {
        /* (scratch for the chunks and threads there are: one chunk runs on
           the calling thread; for blocks of at most a chunk's rows, which
           are the same blocks: a chunk's rows start its first block.  A
           fold of 1000 x 200 took 4 MB of scratch for its 256-row chunks) */
        if (nchunk > total) nchunk = total;
        if (chunk_rows < m.nb_max) m.nb_max = chunk_rows;
        size_t sd = scratch_doubles(&m, 1);
        double *scr = (double *) rlsc_scratch(held, sd * (total > 1 ? nth : 1), sizeof(double));
        double *buf = (double *) rlsc_scratch(held, (size_t) per_chunk * nchunk, sizeof(double));
        /* (each chunk's dx and factor of a round's merge, and dy) */
        double *dxs = (double *) rlsc_scratch(held, ((size_t) d + 1) * nchunk + nt + 1, sizeof(double));
        double *fs = dxs + (size_t) d * nchunk, *dy = fs + nchunk;
        moment_acc *parts = (moment_acc *) rlsc_scratch(held, nchunk, sizeof(moment_acc));
        for (int c = 0; c < nchunk; c++) {
            double *at = buf + (size_t) per_chunk * c;
            parts[c].S = at;
            parts[c].C = at + ns;
            parts[c].mx = at + ns + nc;
            parts[c].xmax = at + ns + nc + d;
            parts[c].my = at + ns + nc + 2 * (size_t) d;
        }
        for (int c0 = 0; c0 < total; c0 += nchunk) {
            int c1 = c0 + nchunk < total ? c0 + nchunk : total;
            if (per_chunk > 0)   /* (no columns at all: nothing to clear) */
                memset(buf, 0, sizeof(double) * (size_t) per_chunk * (c1 - c0));
            int par = rlsc_parallel(nth, c1 - c0, block_work * (c1 - c0));
            RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
            for (int c = c0; c < c1; c++) {
                moment_scratch sc = carve_scratch(&m, scr + sd * rlsc_thread_id(), 1);
                moment_acc *part = parts + (c - c0);
                int r1 = (c + 1) * chunk_rows < n ? (c + 1) * chunk_rows : n;
                part->wtot = 0.0;
                accumulate_rows(&m, part, c * chunk_rows, r1, &sc, 1, 0);
            }
            merge_round(&m, &acc, parts, c1 - c0, dxs, fs, dy, nth);
            R_CheckUserInterrupt();
        }
    } else {
        moment_scratch sc = carve_scratch(&m, (double *) rlsc_scratch(held, scratch_doubles(&m, nth),
                                                                      sizeof(double)), nth);
        accumulate_rows(&m, &acc, 0, n, &sc, nth, 1);
    }
    if (full) rlsc_mirror_upper(acc.S, d);   /* dsyrk and the merges filled the upper triangle only */
    REAL(VECTOR_ELT(out, 0))[0] = acc.wtot;
    rlsc_scratch_free(held);
    UNPROTECT(2);
    return out;
}

/* The pairwise update of two sets of moments (R/moments.R, merge_moments()):
   S = S_a + S_b + f dx dx' (d x d, or its diagonal, a d-vector) and C = C_a +
   C_b + f dx dy' (d x T), in one pass each into fresh results.  In R each
   merge formed three d x d temporaries (a 200 x 200 merge 0.2 ms, mostly
   their allocation); a 5-fold fit merges its folds 19 times (4 for the
   whole data, 3 for each fold's training rows).  The cross-products' columns
   are merged by the threads (each element alone: the same result on any
   number of threads); with thousands of response columns each merge is a
   pass over tens of MB. */
SEXP rlsc_merge_moments(SEXP sa, SEXP sb, SEXP ca, SEXP cb, SEXP dx, SEXP dy, SEXP f, SEXP threads)
{
    if (!isReal(dx)) error("'dx' must be a double vector");
    if (!isReal(dy)) error("'dy' must be a double vector");
    if (XLENGTH(dx) > INT_MAX || XLENGTH(dy) > INT_MAX) error("'dx' and 'dy' are too long");
    int d = LENGTH(dx), nt = LENGTH(dy), full = isMatrix(sa), r, c;
    if (full) {
        rlsc_check_double_matrix(sa, "sa", &r, &c);
        if (r != d || c != d) error("'sa' must be a %d x %d matrix or a vector of length %d", d, d, d);
    } else {
        rlsc_check_double_vector(sa, "sa", d);
    }
    if (isMatrix(sb) != full) error("'sb' must have the shape of 'sa'");
    if (full) {
        rlsc_check_double_matrix(sb, "sb", &r, &c);
        if (r != d || c != d) error("'sb' must have the shape of 'sa'");
    } else {
        rlsc_check_double_vector(sb, "sb", d);
    }
    rlsc_check_double_matrix(ca, "ca", &r, &c);
    if (r != d || c != nt) error("'ca' must be a %d x %d matrix", d, nt);
    rlsc_check_double_matrix(cb, "cb", &r, &c);
    if (r != d || c != nt) error("'cb' must be a %d x %d matrix", d, nt);
    if (!isReal(f) || LENGTH(f) != 1) error("'f' must be a number");
    int nth = rlsc_thread_count(threads);
    const double *pa = REAL(sa), *pb = REAL(sb), *qa = REAL(ca), *qb = REAL(cb), *px = REAL(dx),
        *py = REAL(dy);
    double ff = REAL(f)[0];
    const char *names[] = {"sxx", "sxy", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, full ? allocMatrix(REALSXP, d, d) : allocVector(REALSXP, d));
    SET_VECTOR_ELT(out, 1, allocMatrix(REALSXP, d, nt));
    double *s = REAL(VECTOR_ELT(out, 0)), *cc = REAL(VECTOR_ELT(out, 1));
    /* (in the order of R's a + b + f * tcrossprod(dx, v): the sum, then f
       times the product; a compiler that fuses the last multiply and add
       rounds once less) */
    if (full) {
        for (int j = 0; j < d; j++)
            for (int i = 0; i < d; i++) {
                size_t k = i + (size_t) d * j;
                s[k] = (pa[k] + pb[k]) + ff * (px[i] * px[j]);
            }
    } else {
        for (int j = 0; j < d; j++) s[j] = (pa[j] + pb[j]) + ff * (px[j] * px[j]);
    }
    int par = rlsc_parallel(nth, nt, 3.0 * d * (double) nt);
    RLSC_OMP(omp parallel for num_threads(nth) schedule(static) if (par))
    for (int t = 0; t < nt; t++)
        for (int i = 0; i < d; i++) {
            size_t k = i + (size_t) d * t;
            cc[k] = (qa[k] + qb[k]) + ff * (px[i] * py[t]);
        }
    UNPROTECT(1);
    return out;
}
