# Workers reached by host name over SSH (scripts/sshd-local listens on
# 127.0.0.2 and 127.0.0.3): fresh R sessions that share nothing with the
# master but the files, as on the hosts of a cluster.

test_that("workers reached by SSH host name fit as in memory, sharing no session state", {
  skip_unless_ssh()
  skip_unless_engine_packages("callr")
  dir <- new_tempdir()
  df <- engine_data(8000, d = 4, seed = 61)[-1]
  paths <- write_parts(df, dir, 4, "rds")
  plan_ssh <- ssh_plan   # travels with setup() to the fresh session
  setup <- function() {
    library(rlsc)
    # the user's workspace: a path the workers must be told, and an option
    # they do not have
    assign("root", dir, envir = globalenv())
    options(rlsc.engine_test_marker = TRUE)
    plan_ssh()
  }
  code <- c(
    "read <- function(i) readRDS(file.path(root, sprintf('part%02d.rds', i)))",
    "fit <- rlsc(y ~ ., data = chunk_source(1:4, read))",
    "cls <- rlsc(class ~ . - y, data = chunk_files(file.path(root, sprintf('part%02d.rds', 1:4))))",
    "workers <- future.apply::future_lapply(1:2, function(i) list(",
    "  pid = Sys.getpid(), ssh = Sys.getenv('SSH_CONNECTION'),",
    "  marker = getOption('rlsc.engine_test_marker'), root = exists('root', envir = globalenv())),",
    "  future.chunk.size = 1)",
    "future::plan('sequential')"
  )
  out <- run_as_user(code, setup, function(env) mget(c("fit", "cls", "workers"), envir = env))
  expect_engine_fit(out$fit, rlsc(y ~ ., data = df))
  expect_engine_fit(out$cls, rlsc(class ~ . - y, data = df))
  # the workers were reached through sshd, on both addresses, and saw none
  # of the master's options or globals
  ssh <- vapply(out$workers, `[[`, "", "ssh")
  expect_setequal(sub(" .*", "", ssh), "127.0.0.1")
  expect_setequal(vapply(strsplit(ssh, " "), `[`, "", 3L), c("127.0.0.2", "127.0.0.3"))
  expect_null(out$workers[[1]]$marker)
  expect_false(out$workers[[1]]$root)
  # and they ended with the plan
  pids <- vapply(out$workers, `[[`, 1L, "pid")
  expect_true(wait_until(!any(file.exists(file.path("/proc", pids))), 20))
})

test_that("a worker that dies ends the fit with an error naming its chunks, and no worker stays", {
  skip_unless_ssh()
  skip_unless_engine_packages("callr")
  dir <- new_tempdir()
  write_parts(engine_data(4000, d = 3, seed = 63)[c("y", "x1", "x2", "x3")], dir, 4, "rds")
  plan_ssh <- ssh_plan
  setup <- function() {
    library(rlsc)
    assign("root", dir, envir = globalenv())
    plan_ssh()
  }
  # the worker that reads chunk 3 is killed, as by the out-of-memory killer
  code <- c(
    "pids <- unlist(future.apply::future_lapply(1:2, function(i) { Sys.sleep(0.5); Sys.getpid() },",
    "                                           future.chunk.size = 1))",
    "read <- function(i) {",
    "  if (i == 3) tools::pskill(Sys.getpid(), tools::SIGKILL)",
    "  readRDS(file.path(root, sprintf('part%02d.rds', i)))",
    "}",
    "err <- tryCatch(rlsc(y ~ ., data = chunk_source(1:4, read)), error = conditionMessage)",
    "future::plan('sequential')"
  )
  out <- run_as_user(code, setup, function(env) mget(c("pids", "err"), envir = env))
  expect_match(out$err, "^a worker failed while reading \\(pass 1\\) chunk\\(s\\) [0-9, ]*\\b3\\b")
  expect_length(unique(out$pids), 2)
  expect_true(wait_until(!any(file.exists(file.path("/proc", out$pids))), 20))
})

test_that("a formula fit sends the workers no copy of the user's workspace", {
  skip_on_cran()
  skip_unless_engine_packages("future.apply", "callr")
  dir <- new_tempdir()
  paths <- write_parts(engine_data(2000, d = 3, seed = 62)[c("y", "x1", "x2", "x3")], dir, 4, "rds")
  setup <- function() {
    library(rlsc)
    assign("paths", paths, envir = globalenv())
  }
  # y and f are the user's own, 4 MB each; the cap on what a future may
  # carry is 1 MB (future reads it when the plan is set)
  code <- c("y <- rnorm(5e5)", "f <- y",
            "options(future.globals.maxSize = 1e6)",
            "future::plan('multisession', workers = 2)",
            "fit <- rlsc(y ~ ., data = chunk_files(paths))",
            "future::plan('sequential')")
  out <- run_as_user(code, setup, function(env) env$fit)
  expect_s3_class(out, "rlsc")
})
