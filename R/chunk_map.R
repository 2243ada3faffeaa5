# The map-reduce over the blocks of rows of a data source (DESIGN.md,
# section 11): every pass of a fit goes through map_rows().  Data in memory
# are read block by block in this process.  The chunks of a chunk source go in
# tasks of several consecutive chunks; each task maps `fun` over its chunks
# and merges the results on the worker with `merge`, so only one small result
# per task travels back.  With future.apply installed and more than one
# worker in the user's plan(), tasks run through future.apply::future_lapply();
# otherwise in a plain loop.  The package never calls plan().  Workers share
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
  parallel <- workers > 1 && requireNamespace("future.apply", quietly = TRUE)
  ntask <- if (parallel) min(nchunks, 4 * workers) else 1L
  tasks <- unname(split(seq_len(nchunks), ceiling(seq_len(nchunks) * ntask / nchunks)))
  read <- if (parallel) portable_reader(src$read) else src$read
  args <- list(chunks = chunks, read = read, fun = fun, merge = merge, progress = progress,
               threads = if (parallel) max(1L, thread_count() %/% workers), ...)
  parts <- if (!parallel) {
    lapply(tasks, function(idx) do.call(run_task, c(list(idx), args)))
  } else {
    # The arguments travel in an environment, as values: future.apply scans
    # arguments given as such for globals as if they were code, so the terms
    # of a formula template (y ~ x + g) would ship the caller's objects named
    # y, x and g; an environment is not scanned.  (A read() written at the
    # top level gets its own globals from portable_reader().)
    job <- list2env(args, parent = emptyenv())
    tryCatch(
      future.apply::future_lapply(tasks, run_job, job = job, future.seed = NULL,
                                  future.packages = "rlsc", future.chunk.size = 1L,
                                  future.label = "rlsc-task-%d"),
      error = function(e) {
        if (inherits(e, "rlsc_chunk_error")) stop(e)
        stop_arg("a worker failed while ", what, " ", failed_chunks(e, tasks, chunks), ": ",
                 conditionMessage(e))
      })
  }
  Reduce(merge, parts)
}

# read() as it travels to the workers: without its source reference (whose
# srcfile holds the whole file it was written in), and, when defined in the
# global environment, which the workers do not have, with an environment of
# its own holding the objects it refers to there.
portable_reader <- function(read) {
  attr(read, "srcref") <- NULL
  if (!identical(environment(read), globalenv()) || !requireNamespace("globals", quietly = TRUE)) {
    return(read)
  }
  found <- globals::cleanup(globals::globalsOf(read, envir = globalenv(), mustExist = FALSE))
  environment(read) <- list2env(unclass(found)[names(found)], parent = globalenv())
  read
}

# The chunks of the task a future error names (by its label), for messages.
failed_chunks <- function(e, tasks, chunks) {
  label <- regmatches(conditionMessage(e), regexpr("rlsc-task-[0-9]+", conditionMessage(e)))
  task <- as.integer(sub("rlsc-task-", "", label))
  if (!length(task) || task > length(tasks)) return("the chunks")
  idx <- tasks[[task]]
  paste0("chunk(s) ", paste(idx, collapse = ", "), " (",
         paste(vapply(chunks[idx], describe_chunk, ""), collapse = ", "), ")")
}

run_job <- function(idx, job) do.call(run_task, c(list(idx), as.list(job, all.names = TRUE)))

# One task: fun() over the chunks `idx`, merged as it goes (on a worker, with
# `threads` threads).
run_task <- function(idx, chunks, read, fun, merge, progress, threads = NULL, ...) {
  if (!is.null(threads)) {
    old <- options(rlsc.threads = threads)
    on.exit(options(old))
  }
  hold_blas_threads()
  acc <- NULL
  for (i in idx) {
    part <- chunk_call(fun, chunks[[i]], i, read, ...)
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
