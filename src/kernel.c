/* Kernel matrices and the eigendecomposition of the weighted double-centered
   kernel (DESIGN.md, section 5).  k(x, z) is one of
       linear       (x - c)'(z - c)
       rbf          exp(-|x - z|^2 / (2 sigma^2))
       polynomial   (scale x'z + offset)^degree
   computed from level-3 products of column blocks of the two sets of rows
   (dsyrk for a symmetric matrix, else dgemm), so neither a centered copy of x
   nor an n x n x d temporary exists.  The rows are moved to the origin,
   (x - shift) - c, before the product: for the RBF kernel that changes nothing but the
   rounding (distances far from the origin lose digits to cancellation), and
   the shifted linear kernel has the same double-centered form as x'z, which is
   all the engine uses, without the cancellation of a large common offset.
   rlsc_kernel_eigen() returns, over the rows of positive weight,
       Kt = D_s P K P' D_s = U Lambda U',   P = I - 1 w'/sum(w),  s = sqrt(w),
   with at most two n x n buffers alive (the kernel, destroyed by dsyevr, and
   U); what to keep of the spectrum is decided in R. */
#include "rlsc.h"
#include <math.h>

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
    rlsc_check_double_vector(params, "params", npar);
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

/* A part of the origin of a kernel call: NULL (none) or a double vector of
   length d, checked as `name`. */
static const double *kernel_center(SEXP center, int d, const char *name)
{
    if (isNull(center)) return NULL;
    rlsc_check_double_vector(center, name, d);
    return REAL(center);
}

/* The rows are moved to the origin in two steps, (x - shift) - center, then
   divided by the column scales (standardize = TRUE): the shift is a
   representative row of the data (R/moments.R), so that x - shift is exact
   for columns with a large common offset and only the small center is
   rounded; scaling after the shift keeps that exactness.  Any part may be
   NULL (none). */
typedef struct { const double *shift, *center, *scale; } kernel_origin;

/* buf (nb x cb) = rows `rows` (NULL: 0..nb-1) of columns j0..j0+cb-1 of the
   n-row matrix x, moved to the origin and scaled. */
static void gather_block(const double *x, int n, const int *rows, int nb, int j0, int cb,
                         const kernel_origin *o, double *buf)
{
    for (int j = 0; j < cb; j++) {
        const double *col = x + (size_t) n * (j0 + j);
        double s = o->shift ? o->shift[j0 + j] : 0.0, c = o->center ? o->center[j0 + j] : 0.0;
        double f = o->scale ? 1.0 / o->scale[j0 + j] : 1.0;
        double *out = buf + (size_t) nb * j;
        for (int i = 0; i < nb; i++) out[i] = ((col[rows ? rows[i] : i] - s) - c) * f;
    }
}

/* x^k for a whole k >= 1, by repeated squaring (as R_pow_di, without R) */
static double whole_power(double x, int k)
{
    if (!isfinite(x)) return pow(x, (double) k);
    double xn = 1.0;
    for (;;) {
        if (k & 1) xn *= x;
        if (k >>= 1) x *= x; else break;
    }
    return xn;
}

/* acc[i] += the sum of squares of row i of a (n x ncol, column by column in
   order: the RBF kernel's squared row norms, the same bits wherever formed) */
static void add_row_squares(const double *a, int n, int ncol, double *acc)
{
    for (int j = 0; j < ncol; j++)
        for (int i = 0; i < n; i++) acc[i] += a[i + (size_t) n * j] * a[i + (size_t) n * j];
}

/* k(x, z) from the product v = x'z of the two rows moved to the origin
   (rbf: from |x|^2 + |z|^2 = `norms`), for the RBF and polynomial kernels:
   the one definition of their elementwise map (kernel_fill(), feature_tile()) */
static inline double kernel_value(int rbf, double v, double norms, double inv2s2, double scale,
                                  double offset, int deg)
{
    if (!rbf) return whole_power(scale * v + offset, deg);
    double d2 = norms - 2.0 * v;
    /* d2 = 0 gives 1 exactly, also when 1 / sigma^2 overflows */
    return d2 > 0.0 ? exp(-d2 * inv2s2) : 1.0;
}

/* out (n x m) = k(x_i, z_j) for the n rows `xrows` of x (ldx rows in all;
   NULL: the first n) and the m rows of z (d columns each); z == NULL means
   z = x (then only the upper triangle is computed, and mirrored).  The
   product runs in pieces of output columns of about 1e8 operations (of equal
   area of the triangle when symmetric), computed by the threads in rounds with
   an interrupt check after each; the pieces depend on the sizes only. */
static void kernel_fill(const kernel_spec *k, const double *x, int ldx, const int *xrows, int n,
                        const double *z, int m, int d, const kernel_origin *origin, double *out,
                        int nth)
{
    int sym = z == NULL;
    if (sym) m = n;
    if ((size_t) n * m == 0) return;
    memset(out, 0, sizeof(double) * (size_t) n * m);
    SEXP held = PROTECT(rlsc_scratch_new());
    int rbf = k->type == KERNEL_RBF;
    double *nx = rbf ? (double *) rlsc_scratch(held, n, sizeof(double)) : NULL;
    double *nz = rbf && !sym ? (double *) rlsc_scratch(held, m, sizeof(double)) : nx;
    if (rbf) {
        memset(nx, 0, sizeof(double) * n);
        if (!sym) memset(nz, 0, sizeof(double) * m);
    }
    int cb_max = d > 0 ? rlsc_block_rows(d, n + (sym ? 0 : m), BLOCK_DOUBLES) : 1;
    double *xb = (double *) rlsc_scratch(held, (size_t) n * cb_max, sizeof(double));
    double *zb = sym ? xb : (double *) rlsc_scratch(held, (size_t) m * cb_max, sizeof(double));
    int most = m / 16 > 1 ? m / 16 : 1;
    int *cut = (int *) rlsc_scratch(held, (size_t) most + 1, sizeof(int));   /* (np <= most) */
    for (int j0 = 0; j0 < d; j0 += cb_max) {
        int cb = d - j0 < cb_max ? d - j0 : cb_max;
        gather_block(x, ldx, xrows, n, j0, cb, origin, xb);
        if (!sym) gather_block(z, m, NULL, m, j0, cb, origin, zb);
        /* pieces of output columns: about 1e8 operations each, and at least
           8 when there are columns enough */
        double flops = (sym ? 1.0 : 2.0) * n * (double) m * cb;
        int np = (int) ceil(flops / 1e8);
        if (np < 8) np = 8;
        if (np > most) np = most;
        if (sym) {
            np = rlsc_triangle_pieces(m, np, 1, cut);
        } else {
            for (int p = 0; p <= np; p++) cut[p] = (int) ((double) m * p / np);
        }
        int per_round = (int) (2e8 * nth / (flops / np));
        if (per_round < nth) per_round = nth;
        for (int p0 = 0; p0 < np; p0 += per_round) {
            int p1 = p0 + per_round < np ? p0 + per_round : np;
            int par = rlsc_parallel(nth, p1 - p0, (p1 - p0) * flops / np);
            RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
            for (int p = p0; p < p1; p++) {
                int c0 = cut[p], cw = cut[p + 1] - cut[p];
                const double one = 1.0;
                if (sym) {   /* rows above the diagonal block, then the block */
                    F77_CALL(dgemm)("N", "T", &c0, &cw, &cb, &one, xb, &n, xb + c0, &n, &one,
                                    out + (size_t) n * c0, &n FCONE FCONE);
                    F77_CALL(dsyrk)("U", "N", &cw, &cb, &one, xb + c0, &n, &one,
                                    out + c0 + (size_t) n * c0, &n FCONE FCONE);
                } else {
                    F77_CALL(dgemm)("N", "T", &n, &cw, &cb, &one, xb, &n, zb + c0, &m, &one,
                                    out + (size_t) n * c0, &n FCONE FCONE);
                }
            }
            R_CheckUserInterrupt();
        }
        if (rbf) {
            add_row_squares(xb, n, cb, nx);
            if (!sym) add_row_squares(zb, m, cb, nz);
        }
        R_CheckUserInterrupt();
    }
    if (k->type == KERNEL_RBF || k->type == KERNEL_POLYNOMIAL) {
        /* the elementwise map, in rounds of 64 columns per thread */
        double inv2s2 = 1.0 / (2.0 * k->sigma * k->sigma), scale = k->scale, offset = k->offset;
        int deg = (int) k->degree, chunk = 64, nchunk = (m + chunk - 1) / chunk;
        int per_round = (int) (1e7 * nth / ((double) chunk * n)) + 1;
        if (per_round < nth) per_round = nth;
        for (int q0 = 0; q0 < nchunk; q0 += per_round) {
            int q1 = q0 + per_round < nchunk ? q0 + per_round : nchunk;
            int par = rlsc_parallel(nth, q1 - q0, 20.0 * (q1 - q0) * chunk * n);
            RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
            for (int q = q0; q < q1; q++) {
                int jend = (q + 1) * chunk < m ? (q + 1) * chunk : m;
                for (int j = q * chunk; j < jend; j++) {
                    int iend = sym ? j + 1 : n;
                    double *col = out + (size_t) n * j;
                    for (int i = 0; i < iend; i++)
                        col[i] = (sym && i == j) && rbf ? 1.0
                            : kernel_value(rbf, col[i], rbf ? nx[i] + nz[j] : 0.0, inv2s2, scale, offset, deg);
                }
            }
            R_CheckUserInterrupt();
        }
    }
    rlsc_scratch_free(held);
    UNPROTECT(1);
    if (sym) rlsc_mirror_upper(out, n);
}

SEXP rlsc_kernel_matrix(SEXP x, SEXP z, SEXP type, SEXP params, SEXP shift, SEXP center,
                        SEXP scale, SEXP threads)
{
    kernel_spec k = parse_kernel(type, params);
    int nth = rlsc_thread_count(threads);
    if (k.type == KERNEL_PRECOMPUTED) error("'type' must not be \"precomputed\" here");
    int n, d, m, dz;
    rlsc_check_double_matrix(x, "x", &n, &d);
    if (!isNull(z)) {
        rlsc_check_double_matrix(z, "z", &m, &dz);
        if (dz != d) error("'z' must have %d columns, not %d", d, dz);
    } else {
        m = n;
    }
    kernel_origin o = {kernel_center(shift, d, "shift"), kernel_center(center, d, "center"),
                       kernel_center(scale, d, "scale")};
    SEXP out = PROTECT(allocMatrix(REALSXP, n, m));
    kernel_fill(&k, REAL(x), n, NULL, n, isNull(z) ? NULL : REAL(z), m, d, &o, REAL(out), nth);
    UNPROTECT(1);
    return out;
}

/* Doubles of a tile's kernel block (4 MB, as a block of c_project()): the
   product of the tile with the map runs faster the more rows it has, and
   each call packs the whole map again. */
#define TILE_DOUBLES (1 << 19)

/* Tiles of nb_max rows of an n-row feature block computed by the threads in
   rounds of about 2e8 operations per thread (`flops` per row), with an
   interrupt check after each round; tile(t, i0, nb, arg) computes one on
   thread t.  The tiles depend on the sizes only. */
static void feature_tiles(int n, int nb_max, double flops, int nth, void (*tile)(int, int, int, void *),
                          void *arg)
{
    int ntiles = (n + nb_max - 1) / nb_max;
    double want = 2e8 * nth / (flops * nb_max + 1.0);
    int per_round = want < 2 * nth ? 2 * nth : want > ntiles ? ntiles : (int) want;
    if (per_round > ntiles) per_round = ntiles;
    for (int b0 = 0; b0 < ntiles; b0 += per_round) {
        int b1 = b0 + per_round < ntiles ? b0 + per_round : ntiles;
        int par = rlsc_parallel(nth, b1 - b0, (b1 - b0) * (double) nb_max * flops);
        RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
        for (int b = b0; b < b1; b++) {
            int i0 = b * nb_max, nb = n - i0 < nb_max ? n - i0 : nb_max;
            tile(rlsc_thread_id(), i0, nb, arg);
        }
        R_CheckUserInterrupt();
    }
}

/* What a tile of Nystrom features reads: x (n x d), the landmarks moved to
   the origin (zb, m x d) and their squared norms (nz, RBF), the map (m x r,
   NULL: the kernel itself is the output), the output (n x r or n x m), and
   per thread scratch of tile x d (the rows moved), tile (their norms) and
   tile x m (their kernel, with a map). */
typedef struct {
    const kernel_spec *k;
    const kernel_origin *o;
    const double *x, *zb, *nz, *map;
    double *out, *scratch;
    int n, m, d, r, tile;
} nystrom_job;

static void nystrom_tile(int t, int i0, int nb, void *arg)
{
    const nystrom_job *jb = (const nystrom_job *) arg;
    int n = jb->n, m = jb->m, d = jb->d, rbf = jb->k->type == KERNEL_RBF;
    double *xb = jb->scratch + (size_t) t * ((size_t) jb->tile * (d + 1) + (jb->map ? (size_t) jb->tile * m : 0));
    double *nx = xb + (size_t) jb->tile * d;
    /* the tile's kernel: in scratch with a map, else in its rows of the output */
    double *kb = jb->map ? nx + jb->tile : jb->out + i0;
    int ldk = jb->map ? nb : n;
    gather_block(jb->x + i0, n, NULL, nb, 0, d, jb->o, xb);
    if (rbf) {
        memset(nx, 0, sizeof(double) * nb);
        add_row_squares(xb, nb, d, nx);
    }
    const double one = 1.0, zero = 0.0;
    if (d > 0) {
        F77_CALL(dgemm)("N", "T", &nb, &m, &d, &one, xb, &nb, jb->zb, &m, &zero, kb, &ldk FCONE FCONE);
    } else {
        for (int j = 0; j < m; j++) memset(kb + (size_t) ldk * j, 0, sizeof(double) * nb);
    }
    if (jb->k->type == KERNEL_RBF || jb->k->type == KERNEL_POLYNOMIAL) {
        double inv2s2 = 1.0 / (2.0 * jb->k->sigma * jb->k->sigma);
        int deg = (int) jb->k->degree;
        for (int j = 0; j < m; j++) {
            double *col = kb + (size_t) ldk * j, nzj = rbf ? jb->nz[j] : 0.0;
            for (int i = 0; i < nb; i++)
                col[i] = kernel_value(rbf, col[i], rbf ? nx[i] + nzj : 0.0, inv2s2, jb->k->scale,
                                      jb->k->offset, deg);
        }
    }
    if (jb->map)
        F77_CALL(dgemm)("N", "N", &nb, &jb->r, &m, &one, kb, &nb, jb->map, &m, &zero, jb->out + i0, &n
                        FCONE FCONE);
}

/* The Nystrom features of the rows of x, K(x, Z) map (n x r), or with map
   NULL the kernel K(x, Z) itself (n x m), for a built-in kernel: the rows of
   x and the landmarks z moved to the origin, (x - center) / scale, as
   rlsc_kernel_matrix() moves them.  In tiles of rows, each on one thread:
   the tile's kernel block in scratch and its product with the map, so that
   no n x m matrix is formed when a map is given, each tile's kernel is
   mapped while in cache, and the product runs on the package's threads
   (the BLAS is held to one in a fit). */
SEXP rlsc_nystrom_rows(SEXP x, SEXP z, SEXP type, SEXP params, SEXP center, SEXP scale, SEXP map,
                       SEXP threads)
{
    kernel_spec k = parse_kernel(type, params);
    int nth = rlsc_thread_count(threads);
    if (k.type == KERNEL_PRECOMPUTED) error("'type' must not be \"precomputed\" here");
    int n, d, m, dz, mm = 0, r = 0;
    rlsc_check_double_matrix(x, "x", &n, &d);
    rlsc_check_double_matrix(z, "z", &m, &dz);
    if (dz != d) error("'z' must have %d columns, not %d", d, dz);
    if (!isNull(map)) {
        rlsc_check_double_matrix(map, "map", &mm, &r);
        if (mm != m) error("'map' must have %d rows, not %d", m, mm);
    }
    kernel_origin o = {NULL, kernel_center(center, d, "center"), kernel_center(scale, d, "scale")};
    int nc = isNull(map) ? m : r;
    SEXP out = PROTECT(allocMatrix(REALSXP, n, nc));
    if ((size_t) n * nc == 0 || m == 0) {   /* no landmarks: K(x, z) map is 0 */
        if ((size_t) n * nc > 0) memset(REAL(out), 0, sizeof(double) * n * nc);
        UNPROTECT(1);
        return out;
    }
    SEXP held = PROTECT(rlsc_scratch_new());
    int with_map = !isNull(map);
    int tile = rlsc_parallel_block_rows(n, (double) m + d + 1.0, TILE_DOUBLES);
    double *zb = (double *) rlsc_scratch(held, (size_t) m * d + m, sizeof(double)), *nz = zb + (size_t) m * d;
    gather_block(REAL(z), m, NULL, m, 0, d, &o, zb);
    memset(nz, 0, sizeof(double) * m);
    add_row_squares(zb, m, d, nz);
    size_t per_thread = (size_t) tile * (d + 1) + (with_map ? (size_t) tile * m : 0);
    double *scratch = (double *) rlsc_scratch(held, per_thread * nth, sizeof(double));
    nystrom_job jb = {&k, &o, REAL(x), zb, nz, with_map ? REAL(map) : NULL, REAL(out), scratch,
                      n, m, d, r, tile};
    double flops = 2.0 * m * d + 20.0 * m + (with_map ? 2.0 * m * r : 0.0);
    feature_tiles(n, tile, flops, nth, nystrom_tile, &jb);
    rlsc_scratch_free(held);
    UNPROTECT(2);
    return out;
}

/* What a tile of random Fourier features reads: x (n x d), w (d x m) the
   frequencies divided by sigma and the column scales, b (m) the phases, the
   output (n x m) and the factor sqrt(2 / m). */
typedef struct {
    const double *x, *w, *b;
    double *out, f;
    int n, m, d;
} fourier_job;

static void fourier_tile(int t, int i0, int nb, void *arg)
{
    (void) t;
    const fourier_job *jb = (const fourier_job *) arg;
    int n = jb->n, m = jb->m, d = jb->d;
    double *o = jb->out + i0;
    const double one = 1.0, zero = 0.0;
    if (d > 0) {
        F77_CALL(dgemm)("N", "N", &nb, &m, &d, &one, jb->x + i0, &n, jb->w, &d, &zero, o, &n FCONE FCONE);
    } else {
        for (int j = 0; j < m; j++) memset(o + (size_t) n * j, 0, sizeof(double) * nb);
    }
    for (int j = 0; j < m; j++) {
        double *col = o + (size_t) n * j, bj = jb->b[j];
        for (int i = 0; i < nb; i++) col[i] = jb->f * cos(col[i] + bj);
    }
}

/* Random Fourier features of the rows of x, sqrt(2 / m) cos(x w + 1 b') (n x
   m; w is d x m, b m phases), in tiles of rows computed by the threads. */
SEXP rlsc_fourier_rows(SEXP x, SEXP w, SEXP b, SEXP threads)
{
    int nth = rlsc_thread_count(threads);
    int n, d, dw, m;
    rlsc_check_double_matrix(x, "x", &n, &d);
    rlsc_check_double_matrix(w, "w", &dw, &m);
    if (dw != d) error("'w' must have %d rows, not %d", d, dw);
    rlsc_check_double_vector(b, "b", m);
    SEXP out = PROTECT(allocMatrix(REALSXP, n, m));
    if ((size_t) n * m > 0) {
        int tile = rlsc_parallel_block_rows(n, (double) m, TILE_DOUBLES);
        fourier_job jb = {REAL(x), REAL(w), REAL(b), REAL(out), sqrt(2.0 / m), n, m, d};
        feature_tiles(n, tile, 2.0 * m * d + 20.0 * m, nth, fourier_tile, &jb);
    }
    UNPROTECT(1);
    return out;
}

SEXP rlsc_kernel_asymmetry(SEXP k)
{
    int n, nc;
    rlsc_check_double_matrix(k, "k", &n, &nc);
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
   decomposed, and U = H [0; V].  `values` gets the n - 1 eigenvalues of the
   directions orthogonal to s, `vectors` the n x (n - 1) matrix U. */
static void deflated_eigen(double *a, int n, const double *s, double sumw,
                           double *values, double *vectors, int nth, SEXP held)
{
    int m = n - 1, inc = 1;
    if (m == 0) return;
    double *v = (double *) rlsc_scratch(held, n, sizeof(double)),
        *p = (double *) rlsc_scratch(held, n, sizeof(double));
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
    R_CheckUserInterrupt();
    rlsc_symmetric_eigen(a, m, values, vectors, nth);
    /* expand each vector to [0; z] with leading dimension n (every element
       moves to a higher address: go backwards), then reflect */
    for (int k = m - 1; k >= 0; k--) {
        for (int i = m - 1; i >= 0; i--) vectors[i + 1 + (size_t) n * k] = vectors[i + (size_t) m * k];
        vectors[(size_t) n * k] = 0.0;
    }
    size_t work = 0;
    for (int k = 0; k < m; k++) {
        double *uk = vectors + (size_t) n * k, dot = 0.0;
        rlsc_tick(&work, 2 * (size_t) n);
        for (int i = 1; i < n; i++) dot += v[i] * uk[i];
        for (int i = 0; i < n; i++) uk[i] -= tau * dot * v[i];
    }
}

/* max |a_q| of an n x n matrix, or -1 when an element is not finite; answers
   interrupts between columns */
static double finite_abs_max(const double *a, int n)
{
    double top = 0.0;
    size_t work = 0;
    for (int j = 0; j < n; j++) {
        const double *col = a + (size_t) n * j;
        for (int i = 0; i < n; i++) {
            if (!R_FINITE(col[i])) return -1.0;
            if (fabs(col[i]) > top) top = fabs(col[i]);
        }
        rlsc_tick(&work, (size_t) n);
    }
    return top;
}

SEXP rlsc_kernel_eigen(SEXP x, SEXP w, SEXP type, SEXP params, SEXP shift, SEXP center,
                       SEXP scale, SEXP intercept, SEXP threads)
{
    kernel_spec k = parse_kernel(type, params);
    int n, d;
    rlsc_check_double_matrix(x, "x", &n, &d);
    if (k.type == KERNEL_PRECOMPUTED && d != n)
        error("'x' must be a square kernel matrix, not %d x %d", n, d);
    rlsc_check_double_vector(w, "w", n);
    kernel_origin o = {kernel_center(shift, d, "shift"), kernel_center(center, d, "center"),
                       kernel_center(scale, d, "scale")};
    int icpt = rlsc_check_flag(intercept, "intercept");
    int nth = rlsc_thread_count(threads);
    const double *px = REAL(x), *pw = REAL(w);

    int np = 0;
    double sumw = 0.0;
    for (int i = 0; i < n; i++)
        if (pw[i] > 0.0) { np++; sumw += pw[i]; }
    if (np == 0) error("'w' must have a positive element");
    SEXP held = PROTECT(rlsc_scratch_new());
    int *rows = (int *) rlsc_scratch(held, np, sizeof(int));
    double *s = (double *) rlsc_scratch(held, np, sizeof(double)),
        *wp = (double *) rlsc_scratch(held, np, sizeof(double));
    for (int i = 0, p = 0; i < n; i++)
        if (pw[i] > 0.0) { rows[p] = i; wp[p] = pw[i]; s[p] = sqrt(pw[i]); p++; }

    /* the kernel of the rows of positive weight */
    double *a = (double *) rlsc_scratch(held, (size_t) np * np, sizeof(double));
    size_t work = 0;
    if (k.type == KERNEL_PRECOMPUTED) {
        for (int j = 0; j < np; j++) {
            for (int i = 0; i < np; i++)
                a[i + (size_t) np * j] = px[rows[i] + (size_t) n * rows[j]];
            rlsc_tick(&work, (size_t) np);
        }
    } else {
        kernel_fill(&k, px, n, rows, np, NULL, np, d, &o, a, nth);
    }
    /* the largest entry sets the rounding error of the centered kernel */
    double kmax = finite_abs_max(a, np);
    if (kmax < 0.0)
        error("the kernel matrix has NA, NaN or Inf values (overflow?): "
              "rescale `x` or change the kernel parameters");

    /* weighted double centering, kbar_i = sum_j w_j K_ij / sum(w), then D_s . D_s */
    SEXP kbar = PROTECT(allocVector(REALSXP, np));
    double *kb = REAL(kbar), kk = 0.0;
    memset(kb, 0, sizeof(double) * np);
    if (icpt) {
        for (int j = 0; j < np; j++) {
            for (int i = 0; i < np; i++) kb[i] += wp[j] * a[i + (size_t) np * j];
            rlsc_tick(&work, (size_t) np);
        }
        for (int i = 0; i < np; i++) { kb[i] /= sumw; kk += wp[i] * kb[i]; }
        kk /= sumw;
    }
    for (int j = 0; j < np; j++) {
        for (int i = 0; i < np; i++) {
            double *v = a + i + (size_t) np * j;
            *v = s[i] * s[j] * (*v - kb[i] - kb[j] + kk);
        }
        rlsc_tick(&work, (size_t) np);
    }
    int kb_finite = 1;
    for (int i = 0; i < np; i++) kb_finite = kb_finite && R_FINITE(kb[i]);
    if (finite_abs_max(a, np) < 0.0 || !kb_finite)
        error("the weighted centered kernel matrix overflows: "
              "rescale `x` or `weights`, or change the kernel parameters");

    int m = np - icpt;
    SEXP values = PROTECT(allocVector(REALSXP, m));
    SEXP vectors = PROTECT(allocMatrix(REALSXP, np, m));
    if (icpt) {
        deflated_eigen(a, np, s, sumw, REAL(values), REAL(vectors), nth, held);
    } else {
        rlsc_symmetric_eigen(a, np, REAL(values), REAL(vectors), nth);
    }
    rlsc_scratch_free(held);
    const char *names[] = {"values", "vectors", "kbar", "kmax", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, values);
    SET_VECTOR_ELT(out, 1, vectors);
    SET_VECTOR_ELT(out, 2, kbar);
    SET_VECTOR_ELT(out, 3, ScalarReal(kmax));
    UNPROTECT(5);
    return out;
}
