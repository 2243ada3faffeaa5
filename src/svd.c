/* The singular value decompositions of graded_eigen() (R/primal.R): of each
   matrix x of a list, what La.svd(x, nu = 0) gives, its singular values
   (decreasing) and right singular vectors, these as columns (t(vt): p x
   min(n, p)).  Each is LAPACK's dgesdd called as La.svd calls it (jobz "S",
   so U too, and the workspace its query asks for: dgesdd chooses its path
   by the workspace it is given), so the results are La.svd's bit for bit
   under the same LAPACK and BLAS.

   Several matrices go whole to the threads, one thread each, as
   rlsc_eigen_list() runs its decompositions (a 500 x 500 SVD took 36 ms on
   one thread and 29 ms with OpenBLAS's two, so two at once on two threads
   take about 18 ms each), in rounds of about SVD_ROUND_FLOPS per thread
   with interrupts answered between rounds.  A matrix meets the same calls
   whichever thread takes it, with the BLAS held to one thread by the R
   side (R/native.R), so the results do not depend on the number of
   threads.  The threads copy and check their matrices (dgesdd destroys its
   input): one that is not finite is not decomposed, and the first one in
   the list is the error after its round.  Each thread has one scratch,
   sized for the largest matrix; no R API inside the parallel region. */
#include "rlsc.h"

/* floating-point operations per thread in a round (about 0.2 s) */
#define SVD_ROUND_FLOPS 1e10

/* An m x n matrix, k = min(m, n) singular triplets, dgesdd's workspace. */
typedef struct {
    int m, n, k, lwork;
} svd_shape;

/* The doubles of one SVD's scratch: the copy of x, U, V' and the workspace. */
static size_t svd_doubles(svd_shape sh)
{
    return (size_t) sh.m * sh.n + (size_t) sh.m * sh.k + (size_t) sh.k * sh.n + (size_t) sh.lwork;
}

/* The workspace dgesdd asks for (its query reads no array). */
static int svd_workspace(int m, int n)
{
    if (m == 0 || n == 0) return 0;
    int k = m < n ? m : n, lwork = -1, info = 0, iwork = 0;
    double query = 0.0, dummy = 0.0;
    F77_CALL(dgesdd)("S", &m, &n, &dummy, &m, &dummy, &dummy, &m, &dummy, &k, &query, &lwork, &iwork,
                     &info FCONE);
    if (info != 0) error("LAPACK dgesdd's workspace query failed with info = %d", info);
    if (!(query < 2147483647.0)) error("LAPACK dgesdd asks for too much workspace (%.0f doubles)", query);
    return (int) query;
}

/* Outcome of one SVD: whether x was finite, dgesdd's info. */
typedef struct {
    int finite, info;
} svd_status;

/* The SVD of x (sh.m x sh.n) into d (k) and v (n x k) on scratch `work`
   (svd_doubles()) and `iwork` (8 k).  No R API: threads call it. */
static svd_status svd_one(const double *x, svd_shape sh, double *d, double *v, double *work, int *iwork)
{
    svd_status st = {1, 0};
    int m = sh.m, n = sh.n, k = sh.k, lwork = sh.lwork;
    size_t mn = (size_t) m * n;
    double *a = work, *u = a + mn, *vt = u + (size_t) m * k, *w = vt + (size_t) k * n;
    if (mn > 0) memcpy(a, x, sizeof(double) * mn);   /* (an empty matrix's pointer may be a dummy) */
    for (size_t i = 0; i < mn; i++) st.finite &= R_FINITE(a[i]);
    if (!st.finite || k == 0) return st;
    F77_CALL(dgesdd)("S", &m, &n, a, &m, d, u, &m, vt, &k, w, &lwork, iwork, &st.info FCONE);
    if (st.info != 0) return st;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < k; i++) v[j + (size_t) n * i] = vt[i + (size_t) k * j];
    return st;
}

static void svd_failure(svd_status st, int j)
{
    if (!st.finite) error("'s[[%d]]' must be finite", j + 1);
    if (st.info != 0) error("LAPACK dgesdd failed with info = %d on 's[[%d]]'", st.info, j + 1);
}

SEXP rlsc_svd_list(SEXP s, SEXP threads)
{
    if (TYPEOF(s) != VECSXP) error("'s' must be a list of matrices");
    int count = length(s), nth = rlsc_thread_count(threads);
    const char *names[] = {"d", "v", ""};
    SEXP out = PROTECT(allocVector(VECSXP, count));
    SEXP held = PROTECT(rlsc_scratch_new());
    svd_shape *sh = (svd_shape *) rlsc_scratch(held, count, sizeof(svd_shape));
    svd_status *st = (svd_status *) rlsc_scratch(held, count, sizeof(svd_status));
    const double **in = (const double **) rlsc_scratch(held, count, sizeof(double *));
    double **d = (double **) rlsc_scratch(held, count, sizeof(double *)),
        **v = (double **) rlsc_scratch(held, count, sizeof(double *));
    double flops = 0.0;
    size_t most = 1, most_int = 1;
    for (int j = 0; j < count; j++) {
        char name[32];
        snprintf(name, sizeof name, "s[[%d]]", j + 1);
        SEXP x = VECTOR_ELT(s, j);
        rlsc_check_double_matrix(x, name, &sh[j].m, &sh[j].n);
        sh[j].k = sh[j].m < sh[j].n ? sh[j].m : sh[j].n;
        sh[j].lwork = svd_workspace(sh[j].m, sh[j].n);
        SEXP o = mkNamed(VECSXP, names);
        SET_VECTOR_ELT(out, j, o);
        SET_VECTOR_ELT(o, 0, allocVector(REALSXP, sh[j].k));
        SET_VECTOR_ELT(o, 1, allocMatrix(REALSXP, sh[j].n, sh[j].k));
        in[j] = REAL(x);
        d[j] = REAL(VECTOR_ELT(o, 0));
        v[j] = REAL(VECTOR_ELT(o, 1));
        if (svd_doubles(sh[j]) > most) most = svd_doubles(sh[j]);
        if (8 * (size_t) sh[j].k > most_int) most_int = 8 * (size_t) sh[j].k;
        flops += 12.0 * sh[j].m * (double) sh[j].n * sh[j].k;
    }
    int par = rlsc_parallel(nth, count, flops), team = par ? nth : 1;
    double *dpool = (double *) rlsc_scratch(held, (size_t) team * most, sizeof(double));
    int *ipool = (int *) rlsc_scratch(held, (size_t) team * most_int, sizeof(int));
    for (int j0 = 0; j0 < count;) {
        int j1 = j0;
        for (double round = 0.0; j1 < count && (j1 == j0 || round < SVD_ROUND_FLOPS * team); j1++)
            round += 12.0 * sh[j1].m * (double) sh[j1].n * sh[j1].k;
        RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
        for (int j = j0; j < j1; j++) {
            int id = par ? rlsc_thread_id() : 0;
            st[j] = svd_one(in[j], sh[j], d[j], v[j], dpool + (size_t) id * most, ipool + (size_t) id * most_int);
        }
        for (int j = j0; j < j1; j++) svd_failure(st[j], j);
        R_CheckUserInterrupt();
        j0 = j1;
    }
    rlsc_scratch_free(held);
    UNPROTECT(2);
    return out;
}
