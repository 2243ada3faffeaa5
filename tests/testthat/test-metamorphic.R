# Metamorphic relations over every data source (helper-metamorphic.R).
# RLSC_METAMORPHIC chooses the cells: "sample" (the default: every relation
# and every source at least once), "all" (`make metamorphic`) or a number of
# random cells; RLSC_METAMORPHIC_SEED the seed of the draw.

test_that("every metamorphic relation holds on every source it is drawn on", {
  skip_if_not_installed("Matrix")
  which <- Sys.getenv("RLSC_METAMORPHIC", "sample")
  seed <- as.integer(Sys.getenv("RLSC_METAMORPHIC_SEED", "1"))
  cells <- meta_choose(which, seed)
  problems <- lapply(seq_len(nrow(cells)), function(i) meta_run(cells[i, ]))
  label <- function(i) paste(names(cells), unlist(cells[i, ]), sep = "=", collapse = " ")
  failed <- which(lengths(problems) > 0L)
  expect_identical(vapply(failed, function(i) {
    paste0("seed ", seed, ", ", label(i), ": ", paste(problems[[i]], collapse = "; "))
  }, ""), character())
  if (which == "sample") {
    expect_setequal(unique(cells$relation), names(meta_relations))
    expect_setequal(unique(cells$source), names(meta_sources))
  }
})

test_that("the relations can fail: a broken relation is reported", {
  cell <- list(relation = "scaled_response", source = "dense", shape = "tall", response = "numeric",
               weighted = FALSE)
  expect_identical(meta_run(cell), character())
  rel <- meta_relations
  home <- environment(meta_run)
  on.exit(assign("meta_relations", rel, envir = home))
  broken <- rel
  broken$scaled_response$run <- function(src, d, response) {
    a <- src$fit(d, response, lambda = 1)
    e <- d
    e$y <- d$y * 2
    b <- src$fit(e, response, lambda = 1)
    list(predict = list(predict(a, d$x), predict(b, d$x)))   # forgot the factor 2
  }
  assign("meta_relations", broken, envir = home)
  expect_match(meta_run(cell), "^predict: relative difference")
})

test_that("the sample covers at least 15 relations", {
  expect_gte(length(meta_relations), 15L)
})
