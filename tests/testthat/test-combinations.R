# The combination matrix (helper-combinations.R): every data source x every
# option x every method x every output, generated from one table.  Each cell
# equals the dense in-memory fit of the same data to 1e-9 relative (the dense
# fit itself against brute-force refits), or ends in the documented error of
# a rule that names the argument; an internal message fails it.
# RLSC_COMBINATIONS chooses the cells: "pairs" (the default: every pair of
# option levels on every source, about 250 cells, half a minute), "triples",
# "all" (the whole product, hours) or a number of random cells;
# RLSC_COMBINATIONS_SEED the seed of their construction (`make combinations`).

test_that("every cell of the combination matrix is the dense fit's numbers or a documented error", {
  skip_if_not_installed("Matrix")
  skip_if_not_installed("RSQLite")
  which <- Sys.getenv("RLSC_COMBINATIONS", "pairs")
  seed <- as.integer(Sys.getenv("RLSC_COMBINATIONS_SEED", "1"))
  cells <- combination_cells(which, seed)
  outcomes <- lapply(seq_len(nrow(cells)), function(i) run_cell(cells[i, ]))
  kind <- vapply(outcomes, `[[`, "", "outcome")
  label <- function(i) paste(names(cells), unlist(cells[i, ]), sep = "=", collapse = " ")
  failed <- which(kind == "problem")
  expect_identical(vapply(failed, function(i) {
    paste0("seed ", seed, ", cell ", i, " (", label(i), "): ", paste(outcomes[[i]]$problems, collapse = "; "))
  }, ""), character())
  if (which != "pairs") return()
  # the default cells cover what the table claims: every source with every
  # level of every option in a fitted cell, and every rule on every source
  # that can meet it
  equal <- cells[kind == "equal", ]
  for (axis in setdiff(names(combination_axes), "source")) {
    for (s in combination_axes$source) {
      seen <- unique(equal[[axis]][equal$source == s])
      expect_setequal(seen, combination_axes[[axis]])
    }
  }
  met <- unique(unlist(lapply(seq_len(nrow(cells)), function(i) cell_rules(as.list(cells[i, ])))))
  expect_setequal(met, names(combination_rules))
  expect_gt(sum(kind == "equal"), 150)
})

test_that("a cell fails on a wrong value, a missing error, a foreign error and an internal message", {
  skip_if_not_installed("Matrix")
  cell <- list(source = "chunk_dense", kernel = "linear", shape = "tall", response = "numeric",
               weights = "zeros", method = "foldid", per_response = "no", penalty_factor = "none",
               class_weights = "none", criterion = "default", intercept = "yes", standardize = "no")
  expect_identical(run_cell(cell)$outcome, "equal")
  # a relative error of 1e-7 in the path's coefficients
  off <- run_cell(cell, tamper = function(fit) {
    fit$engine$g <- fit$engine$g * (1 + 1e-7)
    fit
  })
  expect_identical(off$outcome, "problem")
  expect_true(any(grepl("^coef: relative difference", off$problems)))
  # a dense cell is checked against brute force: a wrong intercept is seen
  dense <- modifyList(cell, list(source = "dense"))
  off <- run_cell(dense, tamper = function(fit) {
    fit$engine$ybar <- fit$engine$ybar + 1e-6
    fit
  })
  expect_true(any(grepl("^brute fitted", off$problems)))
  # the rules: a cell a rule says cannot fit, but fits; an error other than
  # the rule's; an error no rule explains
  rules <- combination_rules
  home <- environment(run_cell)
  on.exit(assign("combination_rules", rules, envir = home))
  with_rules <- function(new, cell) {
    assign("combination_rules", new, envir = home)
    on.exit(assign("combination_rules", rules, envir = home))
    run_cell(cell)$problems
  }
  made_up <- list(made_up = list(when = function(c) TRUE, error = "^never$"))
  expect_match(with_rules(c(rules, made_up), cell), "^source: fits, but the rule\\(s\\) made_up say it cannot",
               all = FALSE)
  bad <- modifyList(cell, list(criterion = "misclass"))
  other <- rules
  other$misclass_regression$error <- "^a message of another kind$"
  expect_match(with_rules(other, bad), "^source: error not of rule\\(s\\) misclass_regression: `criterion`",
               all = FALSE)
  expect_match(with_rules(rules[names(rules) != "misclass_regression"], bad),
               "^unexpected error: source: `criterion` = \"misclass\" needs a factor response")
  # internal messages: a call (R's own errors), or the words of one
  expect_true(is_internal(simpleError("non-conformable arrays")))
  expect_true(is_internal(simpleError("boom", call = quote(f(x)))))
  expect_true(is_internal(simpleWarning("NAs introduced by coercion")))
  expect_false(is_internal(simpleError("`foldid` must have at least 2 folds, not 1")))
})
