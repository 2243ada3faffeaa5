/* Small helpers of every C file.  C trusts nothing it is handed: R validates
   first, the argument checks keep a bad direct .Call from reading out of
   bounds.  Then the sizes of row blocks, the mirror of a triangle, max |x| and the
   largest spread of a matrix's columns. */
#include "rlsc.h"

void rlsc_check_double_matrix(SEXP x, const char *name, int *nrow, int *ncol)
{
    if (!isReal(x))
        error("'%s' must be a double matrix", name);
    SEXP dim = getAttrib(x, R_DimSymbol);
    if (TYPEOF(dim) != INTSXP || LENGTH(dim) != 2)
        error("'%s' must be a matrix", name);
    *nrow = INTEGER(dim)[0];
    *ncol = INTEGER(dim)[1];
    if (*nrow < 0 || *ncol < 0 || (double) *nrow * *ncol != (double) XLENGTH(x))
        error("'%s' has dimensions %d x %d that do not match its length %lld", name,
              *nrow, *ncol, (long long) XLENGTH(x));
}

void rlsc_check_double_vector(SEXP x, const char *name, R_xlen_t len)
{
    if (!isReal(x))
        error("'%s' must be a double vector", name);
    if (len >= 0 && XLENGTH(x) != len)
        error("'%s' must have length %lld, not %lld", name,
              (long long) len, (long long) XLENGTH(x));
}

/* `rows`, 1-based indices of rows of a matrix of nrow rows: an integer
   vector whose values lie in 1 .. nrow (NA is not); returns its length. */
int rlsc_check_rows(SEXP rows, int nrow)
{
    if (!isInteger(rows) || XLENGTH(rows) > INT_MAX)
        error("'rows' must be an integer vector");
    const int *p = INTEGER(rows);
    int len = LENGTH(rows);
    for (int i = 0; i < len; i++)
        if (p[i] < 1 || p[i] > nrow) error("'rows' must hold row numbers from 1 to %d", nrow);
    return len;
}

/* The elements of a named list by name, out[k] the one named names[k]: the
   list must have these `count` names and no others, in any order (so a
   misspelt or missing element is an error, not a NULL). */
void rlsc_list_elements(SEXP list, const char *what, const char **names, int count, SEXP *out)
{
    if (TYPEOF(list) != VECSXP) error("'%s' must be a list", what);
    SEXP nm = getAttrib(list, R_NamesSymbol);
    if (XLENGTH(list) != count || TYPEOF(nm) != STRSXP)
        error("'%s' must be a list of %d named elements", what, count);
    for (int k = 0; k < count; k++) {
        out[k] = NULL;
        for (int j = 0; j < count && !out[k]; j++)
            if (!strcmp(CHAR(STRING_ELT(nm, j)), names[k])) out[k] = VECTOR_ELT(list, j);
        if (!out[k]) error("'%s' has no element '%s'", what, names[k]);
    }
}

int rlsc_check_flag(SEXP x, const char *name)
{
    if (!isLogical(x) || LENGTH(x) != 1 || LOGICAL(x)[0] == NA_LOGICAL)
        error("'%s' must be TRUE or FALSE", name);
    return LOGICAL(x)[0];
}

/* Blocks small enough to stay in cache: the reference BLAS streams its operands
   once per output column, so a block that fits in L2 runs about 1.3 times
   faster than one that does not. */
int rlsc_block_rows(int n, double per_row, double budget)
{
    double rows = budget / (per_row > 1 ? per_row : 1);
    if (rows < 32) rows = 32;
    if (rows > 1024) rows = 1024;
    return n < rows ? (n > 0 ? n : 1) : (int) rows;
}

/* Row blocks of the parallel loops: as rlsc_block_rows(), and at most an
   eighth of the rows (at least 64), so that a few thousand rows still give
   every thread blocks.  Depends on the problem's sizes only. */
int rlsc_parallel_block_rows(int n, double per_row, double budget)
{
    int nb = rlsc_block_rows(n, per_row, budget), eighth = n / 8 + 1;
    if (eighth < 64) eighth = 64;
    return nb < eighth ? nb : eighth;
}

/* Copy the upper triangle of the n x n matrix a into its lower triangle
   (dsyrk, dsyr and friends fill one triangle only). */
void rlsc_mirror_upper(double *a, int n)
{
    for (int j = 0; j < n; j++)
        for (int i = j + 1; i < n; i++) a[i + (size_t) n * j] = a[j + (size_t) n * i];
}

/* max |x_i| of a double vector in one pass: NA when any element is NA or NaN,
   Inf when any is infinite.  R's range() takes two passes and checks more. */
SEXP rlsc_abs_max(SEXP x)
{
    if (!isReal(x)) error("'x' must be a double vector");
    const double *px = REAL(x);
    R_xlen_t n = XLENGTH(x);
    double top = 0.0;
    int nan = 0;
    for (R_xlen_t i = 0; i < n; i++) {
        double a = fabs(px[i]);
        if (a > top) top = a;
        else if (ISNAN(a)) nan = 1;
    }
    return ScalarReal(nan ? NA_REAL : top);
}

/* sum_j (x_j v_jk)^2 for each column k of v (d x r): the noise floor of each
   eigen-direction (R/primal.R, direction_floor()) in one pass, without the
   two d x r temporaries of colSums((v * x)^2) (1.2 ms for an engine of 500
   columns, 0.17 s of a banded fit's 139 engines). */
SEXP rlsc_scaled_sumsq(SEXP v, SEXP x)
{
    int d, r;
    rlsc_check_double_matrix(v, "v", &d, &r);
    rlsc_check_double_vector(x, "x", d);
    SEXP out = PROTECT(allocVector(REALSXP, r));
    const double *pv = REAL(v), *px = REAL(x);
    double *po = REAL(out);
    for (int k = 0; k < r; k++) {
        const double *vk = pv + (size_t) d * k;
        double s = 0.0;
        for (int j = 0; j < d; j++) {
            double t = vk[j] * px[j];
            s += t * t;
        }
        po[k] = s;
    }
    UNPROTECT(1);
    return out;
}

/* The effective degrees of freedom at each lambda, sum_k Lambda_k /
   (Lambda_k + lambda): R's vector arithmetic formed three r x L temporaries
   for it (60 us of every fit at r = 100, L = 99).  Summed in long double,
   in order, as R's colSums() summed them. */
SEXP rlsc_effective_df(SEXP values, SEXP lambda)
{
    rlsc_check_double_vector(values, "values", -1);
    rlsc_check_double_vector(lambda, "lambda", -1);
    R_xlen_t r = XLENGTH(values), nl = XLENGTH(lambda);
    SEXP out = PROTECT(allocVector(REALSXP, nl));
    const double *pv = REAL(values), *pl = REAL(lambda);
    double *po = REAL(out);
    for (R_xlen_t l = 0; l < nl; l++) {
        long double s = 0.0;
        for (R_xlen_t k = 0; k < r; k++) s += pv[k] / (pv[k] + pl[l]);
        po[l] = (double) s;
    }
    UNPROTECT(1);
    return out;
}

/* The largest spread (max - min) of the columns of a double matrix, in one
   pass and without a copy of a column: R's per-column max() and min() on
   y[, j] allocate a column each, which with tens of thousands of columns
   leaves hundreds of MB of freed but resident heap.  NA when some value is
   not finite (the same pass is the response's finiteness check); 0 for a
   matrix without rows. */
SEXP rlsc_max_spread(SEXP y)
{
    int n, nc;
    rlsc_check_double_matrix(y, "y", &n, &nc);
    const double *py = REAL(y);
    double top = 0.0;
    int finite = 1;
    for (int j = 0; n > 0 && j < nc; j++) {
        const double *col = py + (size_t) n * j;
        /* a value neither below lo nor above hi is between them or NaN (a
           rare, well-predicted branch); an infinite one becomes lo or hi */
        double lo = col[0], hi = col[0];
        int nan = 0;
        for (int i = 1; i < n; i++) {
            double v = col[i];
            if (v < lo) lo = v;
            else if (v > hi) hi = v;
            else if (v != v) nan = 1;
        }
        if (nan || !R_FINITE(lo) || !R_FINITE(hi)) finite = 0;
        else if (hi - lo > top) top = hi - lo;
    }
    return ScalarReal(finite ? top : NA_REAL);
}
