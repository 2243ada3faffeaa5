# The data of a fit, whatever the front door: one object (fit$data) that
# every pass reads through map_rows() (chunk_map.R).
#   kind      "memory" (rows held in this session, read in blocks) or
#             "chunks" (a chunk source, read by its read() where each chunk is
#             processed)
#   rows      memory: list(x = design matrix, y = n x T response, w = weights,
#             fold = fold labels 1..K or NULL), as given (no class weights)
#   blocks    memory: the row ranges each pass reads (one for every row, unless
#             a feature map bounds the memory of a block)
#   src       chunks: the chunk source (chunk_source.R)
#   template  how a block becomes rows (template.R): their columns, the
#             response's kind and classes, the class weights, the feature map
#   resp      the response as the methods know it: type, classes, y0
#             (a zero-row matrix with the response columns' names)
#   unit      the power of two the losses are computed in (path.R)
#   counts    chunks, after the first pass: rows and weight per chunk, which
#             every later pass checks (check_unchanged())
#   npos      after the first pass: the rows of positive weight
#   progress  the fit's progressor (progressr), or NULL

# In-memory rows as data of one block.
memory_data <- function(x, y, w, fold, resp, xnames, named) {
  template <- list(kind = "rows", xnames = xnames, named = named)
  data <- list(kind = "memory", rows = list(x = x, y = y, w = w, fold = fold),
               blocks = list(c(1, nrow(x))), template = template, resp = resp,
               unit = loss_unit(max_abs(y)))
  structure(data, class = "rlsc_data")
}

# A chunk source as data, with the template of its chunks.
chunk_data <- function(src, template, progress = NULL) {
  resp <- list(y0 = template$y0, type = template$type, classes = template$classes,
               yfactor = template$yfactor)
  structure(list(kind = "chunks", src = src, template = template, resp = resp, unit = 1,
                 progress = progress), class = "rlsc_data")
}

# Block i of data in memory (the rows themselves when one block holds them all).
memory_block <- function(data, i) {
  range <- data$blocks[[i]]
  rows <- data$rows
  if (range[1L] == 1 && range[2L] == nrow(rows$x)) return(rows)
  rows_at(rows, seq(range[1L], range[2L]))
}

# Some rows (`take`, row numbers) of the rows of data in memory.
rows_at <- function(rows, take) {
  list(x = rows$x[take, , drop = FALSE], y = rows$y[take, , drop = FALSE], w = rows$w[take],
       fold = rows$fold[take])
}

# Data in memory of some of their rows (`take`, row numbers), in one block.
data_rows <- function(data, take) {
  data$rows <- rows_at(data$rows, take)
  data$blocks <- list(c(1, length(take)))
  data
}

# Every row at once, as read_rows() gives them: the dual form and the
# response of a dual engine's path need them (data in memory only).
all_rows <- function(data) {
  if (data$kind != "memory") stop("a dual engine needs its data in memory")
  read_rows(data$rows, data$template)
}

# The data of some response columns only (read_rows() drops the others).
select_responses <- function(data, cols) {
  if (identical(as.integer(cols), seq_len(ncol(data$resp$y0)))) return(data)
  data$template$ycols <- if (is.null(data$template$ycols)) cols else data$template$ycols[cols]
  data$resp$y0 <- data$resp$y0[, cols, drop = FALSE]
  data
}

# Data in memory read in blocks of about `rows` rows (Nystrom and random
# features: a block's features are rows x m numbers).
split_blocks <- function(data, rows) {
  if (data$kind == "memory") data$blocks <- row_chunks(nrow(data$rows$x), rows)
  data
}

# The rows and weight of each chunk, from the first pass, for the later ones.
with_counts <- function(data, mom) {
  if (data$kind == "chunks") data$counts <- list(n = mom$n, sumw = mom$chunk_sumw)
  data$npos <- mom$npos
  data$unit <- loss_unit(mom$ymax)
  data
}

# A chunk whose rows or weights differ from the first pass is an error: the
# passes would describe different data.
check_unchanged <- function(rows, i, counts) {
  if (is.null(counts)) return(invisible())
  key <- as.character(i)
  n <- nrow(rows$x)
  if (n != counts$n[[key]] || !isTRUE(all.equal(sum(rows$w), counts$sumw[[key]], tolerance = 1e-12))) {
    stop("its data changed between the passes: ", n, " rows with weights summing to ",
         format(sum(rows$w)), " now, ", counts$n[[key]], " rows summing to ",
         format(counts$sumw[[key]]), " in pass 1")
  }
}

# The number of rows of each class of a chunk source (a pass over its chunks).
class_counts <- function(data) {
  map_rows(data, block_class_counts, `+`, k = length(data$resp$classes),
           what = "counting the classes of")
}

block_class_counts <- function(rows, i, k) tabulate(class_codes(rows$y), k)
