/* Scratch memory of a .Call, outside R's heap.  R_alloc's memory is an R
   vector: it counts toward the heap size at which R collects garbage, and
   the scratch of a fit's calls is most of what they allocate (of a 1000 x
   100 fit's 5 MB, 3.5), so R collected every ten fits or so, 0.6-0.8 ms a
   fit of its 9 (a collection takes 3-10 ms however little is garbage).
   malloc's memory does not count.

   A call's blocks hang on an external pointer, which the caller protects:
   rlsc_scratch_free() frees them when the call is done; when an error or an
   interrupt jumps out of the call first, the pointer's finalizer frees them
   at R's next collection (or as R exits).  Every C file takes its scratch
   here, none from R_alloc. */
#include "rlsc.h"
#include <stdint.h>

#define SCRATCH_BLOCKS 24

typedef struct {
    int n;
    void *block[SCRATCH_BLOCKS];
} scratch_list;

static void scratch_release(scratch_list *s)
{
    for (int k = 0; k < s->n; k++) free(s->block[k]);
    s->n = 0;
}

static void scratch_finalize(SEXP holder)
{
    scratch_list *s = (scratch_list *) R_ExternalPtrAddr(holder);
    if (!s) return;
    scratch_release(s);
    free(s);
    R_ClearExternalPtr(holder);
}

/* A holder without blocks (unprotected: the caller protects it). */
SEXP rlsc_scratch_new(void)
{
    SEXP holder = PROTECT(R_MakeExternalPtr(NULL, R_NilValue, R_NilValue));
    R_RegisterCFinalizerEx(holder, scratch_finalize, TRUE);
    scratch_list *s = (scratch_list *) calloc(1, sizeof(scratch_list));
    if (!s) error("cannot allocate scratch memory");
    R_SetExternalPtrAddr(holder, s);
    UNPROTECT(1);
    return holder;
}

/* count x size bytes (at least one) for the call of `holder`; an R error
   when they cannot be had. */
void *rlsc_scratch(SEXP holder, size_t count, size_t size)
{
    scratch_list *s = (scratch_list *) R_ExternalPtrAddr(holder);
    if (!s || s->n == SCRATCH_BLOCKS) error("internal: no room for another scratch block");
    if (size > 0 && count > SIZE_MAX / size) error("cannot allocate scratch memory: too large");
    size_t bytes = count * size > 0 ? count * size : 1;
    void *p = malloc(bytes);
    if (!p) error("cannot allocate %.1f MB of scratch memory", (double) bytes / 1048576.0);
    s->block[s->n++] = p;
    return p;
}

/* Frees the blocks of `holder` now (it can take more afterwards). */
void rlsc_scratch_free(SEXP holder)
{
    scratch_list *s = (scratch_list *) R_ExternalPtrAddr(holder);
    if (s) scratch_release(s);
}
