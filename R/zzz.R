# What happens when rlsc's namespace loads.

# The parsnip engine "rlsc" (R/parsnip.R, register_parsnip()): parsnip is only
# suggested, so the engine is registered at once if parsnip is already loaded
# and otherwise from a hook on parsnip's own loading, as parsnip's extension
# guide asks of engines that live in other packages.
.onLoad <- function(libname, pkgname) {
  # a failure to register must not stop rlsc (or parsnip) from loading
  register <- function(...) {
    tryCatch(register_parsnip(), error = function(e) {
      warning("rlsc could not register its parsnip engine: ", conditionMessage(e), call. = FALSE)
    })
  }
  if (isNamespaceLoaded("parsnip")) register()
  setHook(packageEvent("parsnip", "onLoad"), register)
  invisible()
}
