/* The threads of the parallel loops (DESIGN.md, section 9).  Every parallel
   loop of the package splits its work into pieces that depend on the sizes of
   the problem only, never on the number of threads, and combines the pieces'
   results in a fixed order: the threads only decide who computes which piece,
   so results are bit-for-bit the same whatever their number.  Inside a
   parallel region nothing calls R (no allocation, no error, no interrupt
   check); the loops check for interrupts between rounds of pieces. */
#if !defined(_WIN32) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE   /* RTLD_DEFAULT */
#endif
#include "rlsc.h"
#include <string.h>
#ifndef _WIN32
#include <dlfcn.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(_OPENMP) && defined(__GLIBC__)
#include <pthread.h>
#define RLSC_ATFORK 1
#endif

/* GNU OpenMP's threads do not survive fork(): a forked child (parallel's
   mclapply, future's multicore) that starts a parallel region after its
   parent did waits for them forever.  So a forked child runs one thread.
   (glibc forgets the handler when the library is unloaded; LLVM's OpenMP
   runtime handles fork itself.) */
static int forked_child = 0;

#ifdef RLSC_ATFORK
static void note_fork(void)
{
    forked_child = 1;
}
#endif

void rlsc_init_threads(void)
{
#ifdef RLSC_ATFORK
    pthread_atfork(NULL, NULL, note_fork);
#endif
}

int rlsc_thread_count(SEXP threads)
{
    if (!isInteger(threads) || LENGTH(threads) != 1 || INTEGER(threads)[0] == NA_INTEGER ||
        INTEGER(threads)[0] < 1)
        error("'threads' must be a positive whole number");
#ifdef _OPENMP
    return forked_child ? 1 : INTEGER(threads)[0];
#else
    return 1;
#endif
}

int rlsc_thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* The threads of the BLAS that R loaded, when it says (OpenBLAS, MKL,
   BLIS); 1 for the reference BLAS and any BLAS that does not.  Looked up by
   name in the process, so no BLAS is linked for it. */
typedef int (*int_getter)(void);
typedef long (*long_getter)(void);

static int blas_threads(void)
{
#if defined(RTLD_DEFAULT)
    const char *int_names[] = {"openblas_get_num_threads", "MKL_Get_Max_Threads"};
    for (int i = 0; i < 2; i++) {
        int_getter get;
        void *sym = dlsym(RTLD_DEFAULT, int_names[i]);
        if (sym == NULL) continue;
        memcpy(&get, &sym, sizeof get);
        return get();
    }
    void *sym = dlsym(RTLD_DEFAULT, "bli_thread_get_num_threads");
    if (sym != NULL) {
        long_getter get;
        memcpy(&get, &sym, sizeof get);
        return (int) get();
    }
#endif
    return 1;
}

/* Whether the package was built with OpenMP, the number of processors
   OpenMP sees (1 without it) and the BLAS's threads: what the default of
   options(rlsc.threads) starts from. */
SEXP rlsc_thread_info(void)
{
    const char *names[] = {"openmp", "processors", "blas_threads", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
#ifdef _OPENMP
    SET_VECTOR_ELT(out, 0, ScalarLogical(TRUE));
    SET_VECTOR_ELT(out, 1, ScalarInteger(omp_get_num_procs()));
#else
    SET_VECTOR_ELT(out, 0, ScalarLogical(FALSE));
    SET_VECTOR_ELT(out, 1, ScalarInteger(1));
#endif
    SET_VECTOR_ELT(out, 2, ScalarInteger(blas_threads()));
    UNPROTECT(1);
    return out;
}

/* Column boundaries c[0] = 0 < c[1] < ... < c[k] = m of k pieces of the upper
   triangle of an m x m matrix with about equal areas (piece p holds columns
   c[p] .. c[p + 1] - 1, and the rows above them); k depends on m only: at
   most `max_pieces`, each at least `min_width` columns wide.  Returns k. */
int rlsc_triangle_pieces(int m, int max_pieces, int min_width, int *c)
{
    int k = m / (min_width > 0 ? min_width : 1);
    if (k > max_pieces) k = max_pieces;
    if (k < 1) k = 1;
    c[0] = 0;
    for (int p = 1; p < k; p++) {
        int b = (int) (m * sqrt((double) p / k));
        c[p] = b > c[p - 1] ? b : c[p - 1] + 1;
    }
    c[k] = m;
    return k;
}
