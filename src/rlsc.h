/* Every .Call entry point of rlsc, and the small helpers they share. */
#ifndef RLSC_H
#define RLSC_H

#define USE_FC_LEN_T
#include <R.h>
#include <Rinternals.h>
#include <R_ext/BLAS.h>
#include <R_ext/Lapack.h>
#ifndef FCONE
#define FCONE
#endif

/* moments.c: step 1, weighted means and centered co-moments over row blocks,
   of the rows moved by a shift (NULL: raw moments, no intercept) */
SEXP rlsc_moments(SEXP x, SEXP y, SEXP w, SEXP shift, SEXP yshift, SEXP gram, SEXP rows,
                  SEXP threads);
/* and the pairwise update of two blocks' moments */
SEXP rlsc_merge_moments(SEXP sa, SEXP sb, SEXP ca, SEXP cb, SEXP dx, SEXP dy, SEXP f, SEXP threads);
/* eigen.c: step 2, symmetric eigendecomposition (dsyevr's steps), largest first */
SEXP rlsc_eigen(SEXP s, SEXP threads);
SEXP rlsc_eigen_list(SEXP s, SEXP threads);
void rlsc_symmetric_eigen(double *a, int n, double *values, double *vectors, int nth);
/* svd.c: the SVDs of a list of matrices (La.svd(x, nu = 0)'s), several at once on the threads */
SEXP rlsc_svd_list(SEXP s, SEXP threads);
/* project.c: step 3 setup of the primal form, B = ((X - 1 s') - 1 c') V over row blocks */
SEXP rlsc_project(SEXP x, SEXP shift, SEXP center, SEXP v, SEXP rows, SEXP threads);
/* project.c: a' b in column pieces by the threads */
SEXP rlsc_crossprod(SEXP a, SEXP b, SEXP threads);
/* path.c: step 3, leverages, fits, exact LOO outputs and criteria for a lambda
   grid; its arguments in three named lists (the rows, the engine, the path's
   settings) */
SEXP rlsc_loo_path(SEXP set, SEXP engine, SEXP path, SEXP threads);
/* auc.c: the exact leave-pair-out AUC of pairs of rows over a grid of lambda */
SEXP rlsc_lpo_auc(SEXP p, SEXP z, SEXP values, SEXP lambda, SEXP a, SEXP e, SEXP y, SEXP w,
                  SEXP pi, SEXP pj, SEXP enumerate, SEXP tie, SEXP threads);
/* kernel.c: kernel matrices, and the eigendecomposition of the weighted
   double-centered kernel (the dual form) */
SEXP rlsc_kernel_matrix(SEXP x, SEXP z, SEXP type, SEXP params, SEXP shift, SEXP center,
                        SEXP scale, SEXP threads);
SEXP rlsc_nystrom_rows(SEXP x, SEXP z, SEXP type, SEXP params, SEXP center, SEXP scale, SEXP map,
                       SEXP threads);
SEXP rlsc_fourier_rows(SEXP x, SEXP w, SEXP b, SEXP threads);
SEXP rlsc_kernel_asymmetry(SEXP k);
SEXP rlsc_kernel_eigen(SEXP x, SEXP w, SEXP type, SEXP params, SEXP shift, SEXP center,
                       SEXP scale, SEXP intercept, SEXP threads);
/* util.c: max |x| in one pass (NA for NA/NaN), for R's own checks */
SEXP rlsc_abs_max(SEXP x);
SEXP rlsc_max_spread(SEXP y);
SEXP rlsc_scaled_sumsq(SEXP v, SEXP x);
SEXP rlsc_effective_df(SEXP values, SEXP lambda);
/* calibrate.c: the calibration map's loss, gradient and Hessian, its fit
   by Newton steps, and its columns' weighted means and spreads */
SEXP rlsc_softmax_map(SEXP f, SEXP code, SEXP own, SEXP w, SEXP theta, SEXP slopes,
                      SEXP center, SEXP inv_scale, SEXP hessian, SEXP threads);
SEXP rlsc_softmax_fit(SEXP f, SEXP code, SEXP own, SEXP w, SEXP theta, SEXP slopes,
                      SEXP center, SEXP inv_scale, SEXP tol, SEXP maxit, SEXP threads);
SEXP rlsc_column_spreads(SEXP f, SEXP w);
/* threads.c: whether OpenMP is there, how many processors it sees and the
   BLAS's threads; setting the BLAS's threads */
SEXP rlsc_thread_info(void);
SEXP rlsc_blas_set_threads(SEXP n);

/* scratch.c: a call's scratch memory outside R's heap (malloc), freed by
   rlsc_scratch_free() or, after a jump out of the call, by the holder's
   finalizer */
SEXP rlsc_scratch_new(void);
void *rlsc_scratch(SEXP holder, size_t count, size_t size);
void rlsc_scratch_free(SEXP holder);

/* util.c: argument checks that raise R errors instead of crashing (`rows`:
   1-based row numbers; a list's elements by name), row-block sizes, and the
   mirror of a triangle */
void rlsc_check_double_matrix(SEXP x, const char *name, int *nrow, int *ncol);
void rlsc_check_double_vector(SEXP x, const char *name, R_xlen_t len);
int rlsc_check_flag(SEXP x, const char *name);
int rlsc_check_rows(SEXP rows, int nrow);
void rlsc_list_elements(SEXP list, const char *what, const char **names, int count, SEXP *out);
void rlsc_mirror_upper(double *a, int n);

/* threads.c: the parallel loops (their pieces never depend on the number of
   threads, so neither do the results) */
void rlsc_init_threads(void);
int rlsc_thread_count(SEXP threads);
int rlsc_thread_id(void);
int rlsc_triangle_pieces(int m, int max_pieces, int min_width, int *c);
/* a threaded BLAS that the package holds to one thread during a fit, given
   its threads back for an eigendecomposition's reduction (0: it is not held) */
int rlsc_blas_lend(void);
void rlsc_blas_unlend(int lent);
/* whether a parallel region is worth starting: more than one thread, more
   than one piece and about 1e6 operations in all (below that, starting the
   threads costs more, and far more on a machine busy with other work) */
static inline int rlsc_parallel(int nth, int pieces, double flops)
{
    return nth > 1 && pieces > 1 && flops >= 1e6;
}
#ifdef _OPENMP
#define RLSC_OMP(directive) _Pragma(#directive)
#else
#define RLSC_OMP(directive)
#endif

/* rows per block: bounds scratch memory to about `budget` doubles */
#define BLOCK_DOUBLES (1 << 17)
int rlsc_block_rows(int n, double per_row, double budget);
int rlsc_parallel_block_rows(int n, double per_row, double budget);

/* Count work done in a long loop and answer interrupts every 2^24 units (a
   fraction of a second); a jump out is safe where scratch comes from
   rlsc_scratch() and every allocation is protected. */
static inline void rlsc_tick(size_t *work, size_t add)
{
    *work += add;
    if (*work >= ((size_t) 1 << 24)) {
        *work = 0;
        R_CheckUserInterrupt();
    }
}

#endif
