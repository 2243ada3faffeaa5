/* Registration of the .Call entry points (and the threads' fork handler). */
#include "rlsc.h"
#include <R_ext/Rdynload.h>

static const R_CallMethodDef call_methods[] = {
    {"rlsc_moments",          (DL_FUNC) &rlsc_moments,          8},
    {"rlsc_eigen",            (DL_FUNC) &rlsc_eigen,            2},
    {"rlsc_eigen_list",       (DL_FUNC) &rlsc_eigen_list,       2},
    {"rlsc_svd_list",         (DL_FUNC) &rlsc_svd_list,         2},
    {"rlsc_project",          (DL_FUNC) &rlsc_project,          6},
    {"rlsc_crossprod",        (DL_FUNC) &rlsc_crossprod,        3},
    {"rlsc_loo_path",         (DL_FUNC) &rlsc_loo_path,         4},
    {"rlsc_lpo_auc",          (DL_FUNC) &rlsc_lpo_auc,         13},
    {"rlsc_kernel_matrix",    (DL_FUNC) &rlsc_kernel_matrix,    8},
    {"rlsc_nystrom_rows",     (DL_FUNC) &rlsc_nystrom_rows,     8},
    {"rlsc_fourier_rows",     (DL_FUNC) &rlsc_fourier_rows,     4},
    {"rlsc_kernel_asymmetry", (DL_FUNC) &rlsc_kernel_asymmetry, 1},
    {"rlsc_kernel_eigen",     (DL_FUNC) &rlsc_kernel_eigen,     9},
    {"rlsc_abs_max",          (DL_FUNC) &rlsc_abs_max,          1},
    {"rlsc_max_spread",       (DL_FUNC) &rlsc_max_spread,       1},
    {"rlsc_scaled_sumsq",     (DL_FUNC) &rlsc_scaled_sumsq,     2},
    {"rlsc_effective_df",     (DL_FUNC) &rlsc_effective_df,     2},
    {"rlsc_softmax_map",      (DL_FUNC) &rlsc_softmax_map,     10},
    {"rlsc_softmax_fit",      (DL_FUNC) &rlsc_softmax_fit,     11},
    {"rlsc_column_spreads",   (DL_FUNC) &rlsc_column_spreads,   2},
    {"rlsc_merge_moments",    (DL_FUNC) &rlsc_merge_moments,    8},
    {"rlsc_thread_info",      (DL_FUNC) &rlsc_thread_info,      0},
    {"rlsc_blas_set_threads", (DL_FUNC) &rlsc_blas_set_threads, 1},
    {NULL, NULL, 0}
};

void R_init_rlsc(DllInfo *dll)
{
    R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
    R_useDynamicSymbols(dll, FALSE);
    R_forceSymbols(dll, TRUE);
    rlsc_init_threads();
}
