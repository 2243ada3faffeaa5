library(testthat)
library(rlsc)

test_check("rlsc")
