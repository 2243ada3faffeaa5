# The map-reduce over the blocks of rows of a data source (DESIGN.md,
# section 11): every pass of a fit goes through map_rows().  Data in memory
# are read block by block in this process.  The chunks of a chunk source go in
# tasks of several consecutive chunks; each task maps `fun` over its chunks
# and merges the results on the worker with `merge`, so only one small result
# per task travels back.  With more than one worker in the user's plan(),
# tasks run as futures (run_futures()); otherwise in a plain loop.  The package never calls plan().  Workers share
# this session's threads (options(rlsc.threads)), at least one each, so that
# two workers on two cores do not run four threads.  Progress goes through
# progressr when it is installed (the user's handlers; silent unless the user
# asks for it): one progressor per fit (data$progress, fit_model()), a step
# per chunk and pass.

# fun(rows, i, ...) over the blocks of `data`, rows = read_rows() of block i,
# merged by `merge`.
map_rows <- function(data, fun, merge, ..., what = "reading") {
  if (data$kind == "memory") {
    parts <- lapply(seq_along(data$blocks), function(i) {
      fun(read_rows(memory_block(data, i), data$template), i, ...)
    })
    return(Reduce(merge, parts))
  }
  map_chunks(data$src, rows_of_chunk, merge, template = data$template, inner = fun, ...,
             progress = data$progress, what = what)
}

rows_of_chunk <- function(chunk, i, template, inner, ...) inner(read_rows(chunk, template), i, ...)

map_chunks <- function(src, fun, merge, ..., progress = NULL, what = "reading") {
  chunks <- src$chunks
  nchunks <- length(chunks)
  workers <- if (requireNamespace("future", quietly = TRUE)) future::nbrOfWorkers() else 1
  parallel <- workers > 1
  ntask <- if (parallel) min(nchunks, 4 * workers) else 1L
  tasks <- unname(split(seq_len(nchunks), ceiling(seq_len(nchunks) * ntask / nchunks)))
  read <- if (parallel) portable_reader(src$read) else src$read
  args <- list(chunks = chunks, read = read, fun = fun, merge = merge, progress = progress,
               threads = if (parallel) max(1L, thread_count() %/% workers), ...)
  for (f in args[c("fun", "merge", "inner")]) check_pass_function(f)
  parts <- if (!parallel) {
    lapply(tasks, function(idx) do.call(run_task, c(list(idx), args)))
  } else {
    run_futures(tasks, args, chunks, what)
  }
  Reduce(merge, parts)
}

# The tasks as futures on the user's plan(), one each (labelled, so that a
# worker's failure names its chunks), their values collected in order.  A
# task returns a chunk's error as its value rather than failing (run_task()),
# so the backend sees every job succeed and keeps no job files; on the first
# error the other futures are resolved before the error is raised, so no job
# outlives the fit.
run_futures <- function(tasks, args, chunks, what) {
  # The arguments travel in an environment, as values: a future scans values
  # given as globals for further globals as if they were code, so the terms of
  # a formula template (y ~ x + g) would ship the caller's objects named y, x
  # and g; an environment is not scanned.
  job <- list2env(c(args, list(errors_as_value = TRUE)), parent = emptyenv())
  task <- quote(run_job(idx, job))   # (a call, so that `idx` is no global of this file)
  futures <- lapply(seq_along(tasks), function(k) {
    future::future(task, substitute = FALSE,
                   globals = list(run_job = run_job, idx = tasks[[k]], job = job),
                   packages = "rlsc", seed = NULL, label = sprintf("rlsc-task-%d", k))
  })
  parts <- vector("list", length(futures))
  for (k in seq_along(futures)) {
    part <- tryCatch(future::value(futures[[k]]), error = function(e) e)
    if (inherits(part, "error")) {
      settle_futures(futures[-seq_len(k)])
      if (inherits(part, "rlsc_chunk_error")) stop(part)
      stop_arg("a worker failed while ", what, " ", failed_chunks(k, tasks, chunks), ": ",
               conditionMessage(part))
    }
    parts[k] <- list(part)
  }
  parts
}

# Futures no longer wanted: resolved, their values and errors dropped.  Not
# cancelled: a backend keeps the files of a cancelled job (future.batchtools
# deletes a job's registry only when it succeeded), and a task ends in
# success whatever its chunks do (run_task()).
settle_futures <- function(futures) {
  for (f in futures) try(suppressWarnings(future::value(f)), silent = TRUE)
}

# The functions of a pass travel to every worker with their environment, so
# they are the package's top-level functions: a function written inside
# another closes over that call's frame, and the frame's arguments not yet
# evaluated carry their callers' frames along (the calibration's merge of
# fold parts sent a classification fit's held-out values, 1.28 MiB, to every
# worker).  What a pass needs goes in its arguments.
check_pass_function <- function(f) {
  if (is.null(f) || is.primitive(f) || identical(environment(f), environment(check_pass_function))) {
    return(invisible())
  }
  stop("internal error: a function of a pass over the chunks must be defined at the top level of ",
       "the package, not inside another function (it would carry that call's frame to the workers)")
}

# A read() defined in the global environment refers to objects there that
# the workers do not have: give it an environment of its own holding them.
# Its source references go: a function read with keep.source (scripts,
# testthat) carries its file's parse data, hundreds of KB per task.
portable_reader <- function(read) {
  read <- utils::removeSource(read)
  if (!identical(environment(read), globalenv()) || !requireNamespace("globals", quietly = TRUE)) {
    return(read)
  }
  found <- globals::cleanup(globals::globalsOf(read, envir = globalenv(), mustExist = FALSE))
  environment(read) <- list2env(unclass(found)[names(found)], parent = globalenv())
  read
}

# The chunks of task k, for messages.
failed_chunks <- function(k, tasks, chunks) {
  idx <- tasks[[k]]
  paste0("chunk(s) ", paste(idx, collapse = ", "), " (",
         paste(vapply(chunks[idx], describe_chunk, ""), collapse = ", "), ")")
}

run_job <- function(idx, job) do.call(run_task, c(list(idx), as.list(job, all.names = TRUE)))

# One task: fun() over the chunks `idx`, merged as it goes (on a worker, with
# `threads` threads).  With `errors_as_value`, a chunk's error is the task's
# value (run_futures() raises it).
run_task <- function(idx, chunks, read, fun, merge, progress, threads = NULL, ...,
                     errors_as_value = FALSE) {
  if (!is.null(threads)) {
    old <- options(rlsc.threads = threads)
    on.exit(options(old))
  }
  hold_blas_threads()
  acc <- NULL
  for (i in idx) {
    part <- if (errors_as_value) {
      tryCatch(chunk_call(fun, chunks[[i]], i, read, ...), rlsc_chunk_error = function(e) e)
    } else {
      chunk_call(fun, chunks[[i]], i, read, ...)
    }
    if (inherits(part, "rlsc_chunk_error")) return(part)
    acc <- if (is.null(acc)) part else merge(acc, part)
    if (!is.null(progress)) progress()
  }
  acc
}

# fun(data, i, ...) on chunk i, read with read(); errors name the chunk.
chunk_call <- function(fun, chunk, i, read, ...) {
  data <- tryCatch(read(chunk), error = function(e) {
    stop_chunk(i, chunk, "reading it failed: ", conditionMessage(e))
  })
  tryCatch(fun(data, i, ...), rlsc_chunk_error = function(e) stop(e), error = function(e) {
    stop_chunk(i, chunk, conditionMessage(e))
  })
}

stop_chunk <- function(i, chunk, ...) {
  msg <- paste0("chunk ", i, " (", describe_chunk(chunk), "): ", ...)
  stop(structure(class = c("rlsc_chunk_error", "error", "condition"),
                 list(message = msg, call = NULL)))
}
