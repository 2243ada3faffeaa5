# A chunked fit of 10^7 rows in Slurm jobs against the in-memory fit of the
# same rows (make bench-engines, which starts the local cluster first): 100
# parquet files of 10^5 rows, y and 10 predictors (about 0.9 GB), fitted
# with `y ~ .` through chunk_files() under the vignette's Slurm template and
# plan(); the wall time of each fit, the peak memory of each job (the
# template runs R under /usr/bin/time -v) and of this session.  The files
# are kept in RLSC_SCALE_DIR (bench/cache/engines by default) for the next run.
library(rlsc)
nfiles <- as.integer(Sys.getenv("RLSC_SCALE_FILES", "100"))
rows <- 1e5
d <- 10
dir <- Sys.getenv("RLSC_SCALE_DIR", file.path("bench", "cache", "engines"))
dir.create(dir, showWarnings = FALSE, recursive = TRUE)
dir <- normalizePath(dir)
paths <- file.path(dir, sprintf("part%03d.parquet", seq_len(nfiles)))
beta <- seq(1, -1, length.out = d)
written <- system.time(for (i in seq_len(nfiles)) {
  if (file.exists(paths[i])) next
  set.seed(i)
  x <- matrix(rnorm(rows * d), rows, dimnames = list(NULL, paste0("x", seq_len(d))))
  nanoparquet::write_parquet(data.frame(y = drop(x %*% beta) + rnorm(rows, sd = 3), x), paths[i])
})[["elapsed"]]
mb <- function(bytes) sprintf("%.0f MB", bytes / 2^20)
cat(sprintf("%d rows in %d parquet files, %s on disk (written in %.0f s)\n", nfiles * rows, nfiles,
            mb(sum(file.size(paths))), written))
peak_kb <- function() as.numeric(sub("\\D*(\\d+).*", "\\1", grep("^VmHWM", readLines("/proc/self/status"), value = TRUE)))

# The vignette's template, with R run under /usr/bin/time -v, whose report
# goes to a folder of this run (the jobs' own logs are removed with them).
work <- tempfile("engines-scale-")
dir.create(file.path(work, "time"), recursive = TRUE)
rmd <- readLines(file.path("vignettes", "chunked.Rmd"))
start <- grep("^```\\{bash slurm-template", rmd)
template <- rmd[seq(start + 1L, start + which(rmd[-seq_len(start)] == "```")[1L] - 1L)]
template <- sub("^Rscript ", "/usr/bin/time -v -o \"$RLSC_TIME_DIR/job-$SLURM_JOB_ID.txt\" Rscript ", template)
writeLines(template, file.path(work, "slurm.tmpl"))
Sys.setenv(RLSC_TIME_DIR = file.path(work, "time"))
options(future.cache.path = file.path(work, "future"), future.globals.maxSize = 1e6)
future::plan(future.batchtools::batchtools_slurm, template = file.path(work, "slurm.tmpl"), workers = 2,
             resources = list(ncpus = 1, memory = "2G", walltime = 3600))

chunked_s <- system.time(fit <- rlsc(y ~ ., data = chunk_files(paths)))[["elapsed"]]
future::plan("sequential")
master_chunked <- peak_kb()
jobs <- lapply(list.files(file.path(work, "time"), full.names = TRUE), function(f) {
  txt <- readLines(f)
  field <- function(name) sub(".*: ", "", grep(name, txt, value = TRUE, fixed = TRUE))
  wall <- as.numeric(strsplit(field("Elapsed (wall clock) time"), ":")[[1]])
  c(rss_kb = as.numeric(field("Maximum resident set size")), seconds = sum(wall * 60^(rev(seq_along(wall)) - 1)))
})
jobs <- do.call(rbind, jobs)

read_s <- system.time(df <- do.call(rbind, lapply(paths, function(p) as.data.frame(nanoparquet::read_parquet(p)))))[["elapsed"]]
memory_s <- system.time(ref <- rlsc(y ~ ., data = df))[["elapsed"]]
master_memory <- peak_kb()

rel <- function(a, b) max(abs(a - b) / pmax(abs(b), 1e-300))
cat(sprintf("chunked fit, Slurm (2 jobs at a time, %d jobs): %.1f s; this session's peak %s\n",
            nrow(jobs), chunked_s, mb(master_chunked * 1024)))
cat(sprintf("  per job: peak memory %s to %s (median %s), %.1f to %.1f s\n", mb(min(jobs[, "rss_kb"]) * 1024),
            mb(max(jobs[, "rss_kb"]) * 1024), mb(stats::median(jobs[, "rss_kb"]) * 1024),
            min(jobs[, "seconds"]), max(jobs[, "seconds"])))
cat(sprintf("in-memory fit: %.1f s to read the files, %.1f s to fit; this session's peak %s\n",
            read_s, memory_s, mb(master_memory * 1024)))
cat(sprintf("ratio chunked / in-memory: %.2f (fit alone), %.2f (read and fit)\n",
            chunked_s / memory_s, chunked_s / (read_s + memory_s)))
cat(sprintf("largest relative difference: cvm %.1e, coefficients %.1e, lambda_min %.1e\n",
            rel(fit$cvm, ref$cvm), rel(coef(fit), coef(ref)), rel(fit$lambda_min, ref$lambda_min)))
unlink(work, recursive = TRUE)
