/* Exact leave-pair-out AUC over a grid of lambda (Pahikkala et al. 2008;
   Airola et al. 2011), from the one factorization.  For a pair S = {i, j}
   the fit without both rows, evaluated at them, is (Rennie's argument for
   two rows) f_S = y_S - (I - H_SS)^-1 e_S, with e the residuals y - yhat of
   the full fit and H_SS the 2 x 2 block of the hat matrix.  With s = sqrt(w)
   the symmetric S = D_s H D_s^-1 has the same diagonal, 1 - h, and
       S_ij(lambda) = sum_k p_ik p_jk phi_k(lambda) + z_i' z_j,
   phi_k = 1 / (Lambda_k + lambda), p_i the row's coordinates in the
   eigenbasis times s_i (R/auc.R), z_i the part no lambda changes (the
   intercept's s_i / sqrt(sum w) and the unpenalized columns').  Hence, with
   a = 1 - h, c = S_ij and det = a_i a_j - c^2,
       y_i - f_i = (a_j e_i + c (s_j / s_i) e_j) / det
       y_j - f_j = (c (s_i / s_j) e_i + a_i e_j) / det.
   The pairs (i positive, j negative) go in blocks: their elementwise products
   p_i o p_j (block x r) times the filters (r x L) is one level-3 product, so
   the whole costs 2 pairs r L flops.  Per lambda the AUC's numerator (pair
   weights w_i w_j of pairs ranked right, ties half), its denominator and the
   pairs whose leave-pair-out fit is undefined (det within rounding of 0: the
   fit interpolates them) are summed per block and merged in block order, so
   the result does not depend on the number of threads.  Two decision values
   within tie_l of each other are tied; R chooses tie_l per lambda relative
   to the values' scale, which shrinks like 1 / lambda (tie_tolerance(),
   R/criteria.R). */
#include "rlsc.h"

/* det below this (a and c are at most 1 in magnitude): the pair's fit is
   undefined, as 1 - h below 1e-6 is for one row (src/path.c) */
#define PAIR_TOL 1e-12
typedef struct {
    int m, r, q, nl, enumerate, npos, nneg;
    R_xlen_t npairs;
    const double *p, *z, *filt, *a, *e, *y, *s, *w, *tie;
    const int *pi, *pj;
} pair_job;

/* the rows (0-based) of pair t */
static void pair_rows(const pair_job *job, R_xlen_t t, int *i, int *j)
{
    if (job->enumerate) {
        *i = job->pi[t / job->nneg] - 1;
        *j = job->pj[t % job->nneg] - 1;
    } else {
        *i = job->pi[t] - 1;
        *j = job->pj[t] - 1;
    }
}

/* pairs t0 .. t0 + nb - 1: sums (numerator, denominator, undefined) per lambda */
static void pair_block(const pair_job *job, R_xlen_t t0, int nb, double *scratch, int *rows,
                       double *sum)
{
    int m = job->m, r = job->r, q = job->q, nl = job->nl;
    double *zp = scratch, *cc = zp + (size_t) nb * r, *c0 = cc + (size_t) nb * nl;
    int *ri = rows, *rj = rows + nb;
    for (int b = 0; b < nb; b++) {
        pair_rows(job, t0 + b, ri + b, rj + b);
        double v = 0.0;
        for (int k = 0; k < q; k++)
            v += job->z[ri[b] + (size_t) m * k] * job->z[rj[b] + (size_t) m * k];
        c0[b] = v;
    }
    for (int k = 0; k < r; k++) {
        const double *pk = job->p + (size_t) m * k;
        for (int b = 0; b < nb; b++) zp[b + (size_t) nb * k] = pk[ri[b]] * pk[rj[b]];
    }
    const double one = 1.0, zero = 0.0;
    if (r > 0) {
        F77_CALL(dgemm)("N", "N", &nb, &nl, &r, &one, zp, &nb, job->filt, &r, &zero, cc, &nb
                        FCONE FCONE);
    } else {
        memset(cc, 0, sizeof(double) * (size_t) nb * nl);
    }
    memset(sum, 0, sizeof(double) * 3 * (size_t) nl);
    for (int l = 0; l < nl; l++) {
        const double *al = job->a + (size_t) m * l, *el = job->e + (size_t) m * l;
        double num = 0.0, den = 0.0, bad = 0.0, tol = job->tie[l];
        for (int b = 0; b < nb; b++) {
            int i = ri[b], j = rj[b];
            double ai = al[i], aj = al[j], c = cc[b + (size_t) nb * l] + c0[b];
            double det = ai * aj - c * c;
            if (!(det > PAIR_TOL) || !(ai > 0.0) || !(aj > 0.0)) { bad += 1.0; continue; }
            double si = job->s[i], sj = job->s[j];
            double ri_ = (aj * el[i] + c * (sj / si) * el[j]) / det;
            double rj_ = (c * (si / sj) * el[i] + ai * el[j]) / det;
            double fi = job->y[i] - ri_, fj = job->y[j] - rj_, d = fi - fj;
            double pw = job->w[i] * job->w[j];
            /* values equal in exact arithmetic (duplicated rows) differ by
               rounding: within tol they are a tie */
            if (d > tol) num += pw; else if (d >= -tol) num += 0.5 * pw;
            den += pw;
        }
        sum[3 * l] = num;
        sum[3 * l + 1] = den;
        sum[3 * l + 2] = bad;
    }
}

SEXP rlsc_lpo_auc(SEXP p, SEXP z, SEXP values, SEXP lambda, SEXP a, SEXP e, SEXP y, SEXP w,
                  SEXP pi, SEXP pj, SEXP enumerate, SEXP tie, SEXP threads)
{
    int m, r, mz, q, ma, nla, me, nle;
    rlsc_check_double_matrix(p, "p", &m, &r);
    rlsc_check_double_matrix(z, "z", &mz, &q);
    if (mz != m) error("'z' must have %d rows, not %d", m, mz);
    rlsc_check_double_vector(values, "values", r);
    rlsc_check_double_vector(lambda, "lambda", -1);
    if (XLENGTH(lambda) > INT_MAX / 4) error("'lambda' is too long");
    int nl = LENGTH(lambda);
    rlsc_check_double_matrix(a, "a", &ma, &nla);
    rlsc_check_double_matrix(e, "e", &me, &nle);
    if (ma != m || nla != nl || me != m || nle != nl)
        error("'a' and 'e' must be %d x %d", m, nl);
    rlsc_check_double_vector(y, "y", m);
    rlsc_check_double_vector(w, "w", m);
    if (!isInteger(pi) || !isInteger(pj)) error("'pi' and 'pj' must be integer vectors");
    int en = rlsc_check_flag(enumerate, "enumerate");
    rlsc_check_double_vector(tie, "tie", nl);
    R_xlen_t npi = XLENGTH(pi), npj = XLENGTH(pj);
    if (!en && npi != npj) error("'pi' and 'pj' must have the same length");
    const int *ppi = INTEGER(pi), *ppj = INTEGER(pj);
    for (R_xlen_t t = 0; t < npi; t++) if (ppi[t] < 1 || ppi[t] > m) error("'pi' must be in 1..%d", m);
    for (R_xlen_t t = 0; t < npj; t++) if (ppj[t] < 1 || ppj[t] > m) error("'pj' must be in 1..%d", m);
    const double *pw = REAL(w);
    for (int i = 0; i < m; i++) if (!(pw[i] > 0.0)) error("'w' must be positive");
    int nth = rlsc_thread_count(threads);

    /* the filters 1 / (Lambda_k + lambda_l), r x L */
    const double *pv = REAL(values), *pl = REAL(lambda);
    SEXP held = PROTECT(rlsc_scratch_new());
    double *filt = (double *) rlsc_scratch(held, (size_t) r * nl + 1, sizeof(double));
    for (int l = 0; l < nl; l++)
        for (int k = 0; k < r; k++) {
            double den = pv[k] + pl[l];
            filt[k + (size_t) r * l] = den > 0.0 ? 1.0 / den : 0.0;
        }
    double *s = (double *) rlsc_scratch(held, (size_t) m + 1, sizeof(double));
    for (int i = 0; i < m; i++) s[i] = sqrt(pw[i]);

    R_xlen_t npairs = en ? npi * npj : npi;
    pair_job job = {m, r, q, nl, en, (int) npi, (int) npj, npairs, REAL(p), REAL(z), filt,
                    REAL(a), REAL(e), REAL(y), s, pw, REAL(tie), ppi, ppj};

    /* blocks of pairs whose products (r + L per pair) fill the scratch budget */
    int nb_max = rlsc_block_rows(npairs > INT_MAX ? INT_MAX : (int) npairs,
                                 (double) r + nl + 1, BLOCK_DOUBLES);
    R_xlen_t nblocks = npairs > 0 ? (npairs + nb_max - 1) / nb_max : 0;
    int per_round = nblocks < 4 * nth ? (int) (nblocks > 0 ? nblocks : 1) : 4 * nth;
    size_t per_scratch = (size_t) nb_max * (r + nl + 1) + 1;
    double *scratch = (double *) rlsc_scratch(held, per_scratch * nth, sizeof(double));
    int *rows = (int *) rlsc_scratch(held, 2 * (size_t) nb_max * nth + 1, sizeof(int));
    double *sums = (double *) rlsc_scratch(held, 3 * (size_t) nl * per_round + 1, sizeof(double));
    SEXP out = PROTECT(allocMatrix(REALSXP, nl, 3));
    double *po = REAL(out);
    memset(po, 0, sizeof(double) * 3 * (size_t) nl);
    double block_flops = 2.0 * nb_max * ((double) r * nl + r + nl);
    for (R_xlen_t b0 = 0; b0 < nblocks; b0 += per_round) {
        R_xlen_t b1 = b0 + per_round < nblocks ? b0 + per_round : nblocks;
        int par = rlsc_parallel(nth, (int) (b1 - b0), block_flops * (double) (b1 - b0));
        RLSC_OMP(omp parallel for num_threads(nth) schedule(dynamic, 1) if (par))
        for (R_xlen_t b = b0; b < b1; b++) {
            int id = rlsc_thread_id();
            R_xlen_t t0 = b * nb_max;
            int nb = npairs - t0 < nb_max ? (int) (npairs - t0) : nb_max;
            pair_block(&job, t0, nb, scratch + per_scratch * id, rows + 2 * (size_t) nb_max * id,
                       sums + 3 * (size_t) nl * (b - b0));
        }
        for (R_xlen_t b = b0; b < b1; b++) {
            const double *sum = sums + 3 * (size_t) nl * (b - b0);
            for (int l = 0; l < nl; l++)
                for (int k = 0; k < 3; k++) po[l + (size_t) nl * k] += sum[3 * l + k];
        }
        R_CheckUserInterrupt();
    }
    rlsc_scratch_free(held);
    UNPROTECT(2);
    return out;
}
