#!/bin/sh
# Debian's threaded OpenBLAS, unpacked into .deps/openblas without installing
# it: installing libopenblas0-pthread would make it the system's BLAS.  The
# test of how fits treat a threaded BLAS (tests/testthat/test-threads.R)
# preloads it in a child R; `make test` passes the directory in
# RLSC_OPENBLAS.  Without apt-get (not Debian) nothing happens and that test
# skips.
dest=.deps/openblas
[ -f "$dest/libblas.so.3" ] && [ -f "$dest/liblapack.so.3" ] && exit 0
command -v apt-get >/dev/null && command -v dpkg >/dev/null || exit 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && apt-get download -qq libopenblas0-pthread 2>/dev/null); then
  [ "$(id -u)" = 0 ] && apt-get update -qq
  (cd "$tmp" && apt-get download -qq libopenblas0-pthread) || {
    echo "unpack-openblas: could not download libopenblas0-pthread; the threaded-BLAS test will skip"
    exit 0
  }
fi
dpkg -x "$tmp"/libopenblas0-pthread_*.deb "$tmp/root"
mkdir -p "$dest"
cp "$tmp"/root/usr/lib/*/openblas-pthread/* "$dest/"
# the libraries find libopenblas.so.0 next to them (RUNPATH $ORIGIN); ldconfig
# makes that link on an installed system
lib=$(cd "$dest" && ls libopenblas*-r*.so | head -n 1)
ln -sf "$lib" "$dest/libopenblas.so.0"
echo "unpack-openblas: $(ls "$dest" | tr '\n' ' ')in $dest"
