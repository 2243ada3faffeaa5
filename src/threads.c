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
static void find_blas_threads(void);

#ifdef RLSC_ATFORK
static void note_fork(void)
{
    forked_child = 1;
}
#endif

void rlsc_init_threads(void)
{
    find_blas_threads();
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

/* The BLAS that R loaded may run threads of its own (OpenBLAS, MKL, BLIS).
   Its thread-count functions are looked up by name in the process once, when
   the package is loaded, so no BLAS is linked for them; a BLAS without them
   (the reference BLAS) counts as one thread and is never held. */
typedef int (*int_getter)(void);
typedef long (*long_getter)(void);
typedef void (*int_setter)(int);
typedef void (*long_setter)(long);
static int_getter get_int = NULL;
static long_getter get_long = NULL;
static int_setter set_int = NULL;
static long_setter set_long = NULL;

static void *blas_symbol(const char *name)
{
#if defined(RTLD_DEFAULT)
    return dlsym(RTLD_DEFAULT, name);
#else
    (void) name;
    return NULL;
#endif
}

static void find_blas_threads(void)
{
    const char *getters[] = {"openblas_get_num_threads", "MKL_Get_Max_Threads"};
    const char *setters[] = {"openblas_set_num_threads", "MKL_Set_Num_Threads"};
    for (int i = 0; i < 2; i++) {
        void *get = blas_symbol(getters[i]), *set = blas_symbol(setters[i]);
        if (get == NULL) continue;
        memcpy(&get_int, &get, sizeof get_int);
        if (set != NULL) memcpy(&set_int, &set, sizeof set_int);
        return;
    }
    /* BLIS counts its threads in dim_t, a 64-bit integer where R runs */
    void *get = blas_symbol("bli_thread_get_num_threads"),
        *set = blas_symbol("bli_thread_set_num_threads");
    if (get != NULL && sizeof(long) == 8) {
        memcpy(&get_long, &get, sizeof get_long);
        if (set != NULL) memcpy(&set_long, &set, sizeof set_long);
    }
}

/* The BLAS's threads before the package held it to one thread, else 0. */
static int held_from = 0;

static void set_blas_threads(int n)
{
    if (set_int != NULL) set_int(n); else if (set_long != NULL) set_long((long) n);
}

static int blas_threads(void)
{
    int n = get_int != NULL ? get_int() : get_long != NULL ? (int) get_long() : 1;
    return n > 1 ? n : 1;
}

/* Sets the threads of a BLAS that runs threads of its own to n and returns
   how many it ran before; 0 (nothing changed) when the BLAS runs one thread
   or cannot be told.  The package's threads replace the BLAS's during a fit
   (R/threads.R, hold_blas_threads()), which gives them back on exit. */
SEXP rlsc_blas_set_threads(SEXP n)
{
    if (!isInteger(n) || LENGTH(n) != 1 || INTEGER(n)[0] == NA_INTEGER || INTEGER(n)[0] < 1)
        error("'n' must be a positive whole number");
    int before = blas_threads(), to = INTEGER(n)[0];
    if ((set_int == NULL && set_long == NULL) || (before <= 1 && to <= 1))
        return ScalarInteger(0);
    set_blas_threads(to);
    held_from = to == 1 ? before : 0;
    return ScalarInteger(before);
}

/* A held BLAS gets its threads back for a step that is the BLAS's work
   alone (the reduction of an eigendecomposition of order 700 and up, where
   its threads beat the package's: bench/README.md, "Threads"); returns them
   (0 when the BLAS is not held), for rlsc_blas_unlend() to hold it again.
   An interrupt in between leaves the BLAS its threads: what the hold's end
   restores anyway. */
int rlsc_blas_lend(void)
{
    int lent = held_from;
    if (lent > 1) set_blas_threads(lent);
    return lent;
}

void rlsc_blas_unlend(int lent)
{
    if (lent > 1) set_blas_threads(1);
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
