# A fuzzer of the C entry points (test-native.R; `make fuzz-native` runs many
# thousands of calls under AddressSanitizer and UndefinedBehaviorSanitizer).
# Each call goes straight through .Call with arguments of random dimensions,
# most of them of the shapes the entry point expects (so that the calls reach
# the numerical code, not only the checks), with NA, NaN, Inf, zeros and huge
# values among them, and some arguments replaced by a wrong one: another
# type, a wrong length, zero length, NULL, a list, a function.  Every call
# must return or end in an R error: a crash or a sanitizer report is a
# failure of the C code (C trusts nothing it is handed: STYLE.md).

native_entry_points <- c("rlsc_moments", "rlsc_eigen", "rlsc_eigen_list", "rlsc_svd_list", "rlsc_project",
                         "rlsc_crossprod",
                         "rlsc_loo_path", "rlsc_kernel_matrix", "rlsc_nystrom_rows", "rlsc_fourier_rows",
                         "rlsc_kernel_asymmetry", "rlsc_kernel_eigen",
                         "rlsc_abs_max", "rlsc_max_spread", "rlsc_scaled_sumsq", "rlsc_effective_df",
                         "rlsc_softmax_map", "rlsc_softmax_fit", "rlsc_column_spreads", "rlsc_merge_moments",
                         "rlsc_thread_info",
                         "rlsc_blas_set_threads")

# Random doubles of length n with, sometimes, special values among them.
native_values <- function(n) {
  v <- rnorm(n) * 10^sample(c(0, 0, 0, -300, 300, 8), 1L)
  if (n && runif(1) < 0.3) {
    v[sample.int(n, sample.int(n, 1L))] <- sample(c(NA, NaN, Inf, -Inf, 0, 1e308, -1e308, 5e-324),
                                                   1L)
  }
  v
}
native_matrix <- function(nr, nc) matrix(native_values(nr * nc), nr, nc)

# An argument of the wrong kind.
native_wrong <- function() {
  switch(sample.int(12L, 1L),
         NULL, 1L, "a", list(1), NA, TRUE, function(x) x, numeric(), matrix(1L, 2, 2),
         c(1, 2, 3), matrix(0, 0, 3), new.env())
}

# The arguments of a call to entry point `name` that fit its checks (dims
# from 0 to 40, random contents).
native_valid_args <- function(name) {
  dim_of <- function() sample(c(0:6, 12, 40), 1L)
  n <- dim_of()
  d <- dim_of()
  nt <- sample(1:3, 1L)
  threads <- sample(1:3, 1L)
  flag <- function() runif(1) < 0.5
  kernel <- function() {
    type <- sample(c("linear", "rbf", "polynomial", "precomputed"), 1L)
    params <- switch(type, linear = numeric(), precomputed = numeric(),
                     rbf = abs(native_values(1L)),
                     polynomial = c(sample(c(1, 2, 3, 7, 1e9), 1L), native_values(2L)))
    list(type = type, params = params)
  }
  switch(name,
    rlsc_moments = {
      icpt <- flag()
      nx <- if (flag()) n else dim_of()
      rows <- if (nx != n || flag()) sample.int(max(nx, 1L), n, TRUE)
      list(native_matrix(nx, d), native_matrix(n, nt), abs(native_values(n)),
           if (icpt) native_values(d), if (icpt) native_values(nt), flag(), rows, threads)
    },
    rlsc_eigen = {
      s <- native_matrix(n, n)
      list(if (flag()) s + t(s) else crossprod(s), threads)
    },
    rlsc_eigen_list = list(lapply(seq_len(sample(0:4, 1L)), function(i) {
      s <- native_matrix(dim_of(), dim_of())
      if (nrow(s) == ncol(s) && flag()) s + t(s) else if (flag()) crossprod(s) else s
    }), threads),
    rlsc_svd_list = list(lapply(seq_len(sample(0:4, 1L)), function(i) native_matrix(dim_of(), dim_of())),
                         threads),
    rlsc_project = {
      nx <- dim_of()
      list(native_matrix(nx, d), if (flag()) native_values(d), native_values(d),
           native_matrix(d, dim_of()), if (flag()) sample.int(max(nx, 1L), n, TRUE), threads)
    },
    rlsc_crossprod = list(native_matrix(n, d), native_matrix(n, dim_of()), threads),
    rlsc_loo_path = {
      r <- dim_of()
      nl <- sample(0:5, 1L)
      cls <- flag()
      keep <- flag()
      y <- if (cls) matrix(sample(c(-1, 1), n * nt, TRUE), n, nt) else native_matrix(n, nt)
      # r0 given, or formed in C from y and `yorigin` (2 x T)
      with_r0 <- flag()
      list(native_matrix(n, r), abs(native_values(r)), native_matrix(r, nt), runif(n),
           if (with_r0) native_matrix(n, nt), y, abs(native_values(n)), abs(native_values(n)),
           sample.int(max(n, 1L), sample(0:max(n, 1L), 1L), replace = TRUE), abs(native_values(nl)),
           flag(), cls, keep, threads, if (!cls && !keep && flag()) abs(native_values(n)),
           2^sample(-10:10, 1L), if (!with_r0 || flag()) native_matrix(2L, nt), flag(),
           # held-out rows' products formed: with a basis of no columns
           if (r == 0L && flag()) array(native_values(n * nt * nl), c(n, nt, nl)),
           # the LOO values alone (needs keep and no columns)
           keep && flag())
    },
    rlsc_kernel_matrix = {
      k <- kernel()
      if (k$type == "precomputed" && flag()) k <- list(type = "linear", params = numeric())
      list(native_matrix(n, d), if (flag()) native_matrix(dim_of(), d), k$type, k$params,
           if (flag()) native_values(d), if (flag()) native_values(d), if (flag()) abs(native_values(d)),
           threads)
    },
    rlsc_nystrom_rows = {
      k <- kernel()
      if (k$type == "precomputed") k <- list(type = "rbf", params = 1)
      m <- dim_of()
      list(native_matrix(n, d), native_matrix(m, d), k$type, k$params,
           if (flag()) native_values(d), if (flag()) abs(native_values(d)),
           if (flag()) native_matrix(m, dim_of()), threads)
    },
    rlsc_fourier_rows = {
      m <- dim_of()
      list(native_matrix(n, d), native_matrix(d, m), native_values(m), threads)
    },
    rlsc_kernel_asymmetry = list(native_matrix(n, n)),
    rlsc_kernel_eigen = {
      k <- kernel()
      x <- if (k$type == "precomputed") crossprod(native_matrix(n, n)) else native_matrix(n, d)
      list(x, abs(native_values(n)), k$type, k$params, if (flag()) native_values(ncol(x)),
           if (flag()) native_values(ncol(x)), if (flag()) abs(native_values(ncol(x))), flag(), threads)
    },
    rlsc_abs_max = list(native_values(dim_of())),
    rlsc_max_spread = list(native_matrix(n, d)),
    rlsc_scaled_sumsq = list(native_matrix(n, d), native_values(n)),
    rlsc_effective_df = list(abs(native_values(d)), abs(native_values(sample(0:5, 1L)))),
    rlsc_softmax_map = {
      k <- sample(2:5, 1L)
      ns <- sample(0:k, 1L)
      list(native_matrix(n, ns), sample.int(k, n, TRUE), runif(k), abs(native_values(n)),
           native_values(k - 1L + ns), sample.int(k, ns, TRUE), native_values(ns), abs(native_values(ns)),
           flag(), threads)
    },
    rlsc_softmax_fit = {
      k <- sample(2:5, 1L)
      ns <- sample(0:k, 1L)
      list(native_matrix(n, ns), sample.int(k, n, TRUE), runif(k), abs(native_values(n)),
           native_values(k - 1L + ns), sample.int(k, ns, TRUE), native_values(ns), abs(native_values(ns)),
           abs(native_values(1L)), sample(0:30, 1L), threads)
    },
    rlsc_column_spreads = list(native_matrix(n, d), abs(native_values(n))),
    rlsc_merge_moments = {
      diag_only <- flag()
      s <- function() if (diag_only) native_values(d) else native_matrix(d, d)
      list(s(), s(), native_matrix(d, nt), native_matrix(d, nt), native_values(d), native_values(nt),
           native_values(1L), threads)
    },
    rlsc_thread_info = list(),
    rlsc_blas_set_threads = list(sample(1:2, 1L)))
}

# rlsc_loo_path()'s arguments, its three named lists and the threads, from
# the 20 of its elements in the order of `loo_path_elements` (one list of
# them, as the fuzzer and the table of bad arguments draw them; the path's
# `values`, here `values_only`, FALSE when only the first 19 are given).
loo_path_elements <- c("basis", "values", "g", "q", "r0", "y", "w", "omega", "rows", "lambda", "complement",
                       "classify", "keep", "threads", "perp", "unit", "yorigin", "columns", "products",
                       "values_only")
loo_path_call_args <- function(args) {
  if (length(args) == 19L) args <- c(args, list(FALSE))
  a <- stats::setNames(args, loo_path_elements)
  list(a[c("basis", "q", "r0", "y", "w", "omega", "rows", "perp", "yorigin", "products")],
       a[c("values", "g")],
       c(a[c("lambda", "complement", "classify", "keep", "unit", "columns")], list(values = a$values_only)),
       a$threads)
}

# c_loo_path() from its elements by name (the tests that call the path
# directly, with the old adapter's defaults).
loo_path <- function(basis, values, g, q, r0, y, w, omega, rows, lambda, complement, classify, keep,
                     perp = NULL, unit = 1, yorigin = NULL, columns = TRUE, products = NULL,
                     values_only = FALSE) {
  a <- loo_path_call_args(list(basis, values, g, q, r0, y, w, omega, rows, lambda, complement, classify,
                               keep, NULL, perp, unit, yorigin, columns, products, values_only))
  rlsc:::c_loo_path(a[[1]], a[[2]], a[[3]])
}

# Call `seed`: an entry point, its arguments (in a third of the calls one or
# two of them replaced by a wrong one; now and then one too many), and the
# outcome: "value", or "error" with R's message.  Anything else never comes
# back: the process has crashed.
native_fuzz_call <- function(seed) {
  set.seed(seed)
  name <- sample(native_entry_points, 1L)
  args <- native_valid_args(name)
  mutated <- logical(length(args))
  if (length(args) && runif(1) < 0.35) {
    mutated[sample.int(length(args), min(length(args), sample.int(2L, 1L)))] <- TRUE
  }
  for (i in which(mutated)) args[i] <- list(native_wrong())
  if (name == "rlsc_loo_path") {   # its named lists, now and then one of them wrong
    args <- loo_path_call_args(args)
    if (runif(1) < 0.05) {
      k <- sample.int(3L, 1L)
      args[k] <- list(switch(sample.int(3L, 1L), native_wrong(), args[[k]][-1L], c(args[[k]], list(x = 1))))
      mutated[1L] <- TRUE
    }
  }
  fun <- get(paste0("C_", name), envir = asNamespace("rlsc"))
  if (runif(1) < 0.02) args <- c(args, list(1))   # one argument too many
  result <- tryCatch(list(outcome = "value", value = do.call(".Call", c(list(fun), args))),
                     error = function(e) list(outcome = "error", message = conditionMessage(e)))
  c(list(seed = seed, name = name, mutated = any(mutated)), result)
}
