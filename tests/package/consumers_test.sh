#!/bin/sh
# C and C++ projects using prnn as their build systems find it:
#
#   cmake:  `meson install` into a temporary DESTDIR, then the CMake project
#           cmake-consumer (find_package(prnn CONFIG), prnn::prnn) configured
#           against that install, built, and its program run: it must end
#           "verdict: ok" with libprnn loaded from the install. The project
#           also checks which versions prnnConfigVersion.cmake accepts.
#   meson:  the Meson project meson-consumer with this source tree as its
#           subproject prnn (dependency('prnn'), through prnn.wrap's
#           [provide] and prnn's meson.override_dependency), configured
#           without downloads, built (prnn's library only: tools and tests
#           off), and its test run.
#
# usage: consumers_test.sh cmake|meson MESON BUILDDIR PREFIX SOURCE_ROOT VERSION
# Exit 77 (skipped) when cmake (for cmake) or ninja (for meson) is missing;
# any other problem is a failure.
set -eu
mode=$1 meson=$2 build=$3 prefix=$4 src=$5 version=$6
here=$src/tests/package
tmp=$(mktemp -d "${TMPDIR:-/tmp}/prnn-consumer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
# Runs a command, its output shown only when it fails.
quiet() {
    if ! "$@" >"$tmp/step.log" 2>&1; then
        cat "$tmp/step.log"
        fail "$*"
    fi
}
run_example() { # program, libprnn's folder expected
    out=$(env -u LD_LIBRARY_PATH "$1" 2>&1) || fail "$1 exited $?: $out"
    echo "$out" | sed 's/^/    /'
    [ "$(echo "$out" | tail -n 1)" = "verdict: ok" ] || fail "$1 did not end with verdict: ok"
    if [ -n "$2" ] && command -v ldd >/dev/null 2>&1; then
        lib=$(env -u LD_LIBRARY_PATH ldd "$1" | grep 'libprnn\.so' || true)
        case $lib in
        *"$2"/*) echo "libprnn: $lib" ;;
        *) fail "$1 loads libprnn from elsewhere than $2: $lib" ;;
        esac
    fi
}

case $mode in
cmake)
    if ! command -v cmake >/dev/null 2>&1; then
        echo "SKIP: cmake not found: the CMake package is checked with it"
        exit 77
    fi
    quiet "$meson" install -C "$build" --destdir "$tmp/dest" --quiet
    root=$tmp/dest$prefix
    config=$(find "$tmp/dest" -name prnnConfig.cmake)
    [ -n "$config" ] || fail "no prnnConfig.cmake installed under $tmp/dest"
    [ -f "$(dirname "$config")/prnnConfigVersion.cmake" ] ||
        fail "no prnnConfigVersion.cmake beside $config"
    echo "installed: ${config#"$tmp/dest"}"
    # CMAKE_PREFIX_PATH as a user gives it: the install's prefix (here
    # under DESTDIR, which the package's relative paths follow).
    if ! cmake -S "$here/cmake-consumer" -B "$tmp/cmake-build" \
            -DCMAKE_PREFIX_PATH="$root" -DPRNN_EXAMPLES="$src/examples" \
            -DPRNN_VERSION="$version" >"$tmp/configure.log" 2>&1; then
        cat "$tmp/configure.log"
        fail "cmake could not configure the consumer against $root"
    fi
    grep -E 'find_package|^-- prnn ' "$tmp/configure.log"
    quiet cmake --build "$tmp/cmake-build"
    libdir=$(dirname "$(find "$tmp/dest" -name "libprnn.so.$version")")
    run_example "$tmp/cmake-build/lstm_inference" "$libdir"
    echo "ok - a CMake project found prnn $version with find_package and ran"
    ;;
meson)
    if ! command -v ninja >/dev/null 2>&1; then
        echo "SKIP: ninja not found"
        exit 77
    fi
    mkdir -p "$tmp/consumer/subprojects"
    cp "$here/meson-consumer/meson.build" "$here/meson-consumer/meson_options.txt" \
        "$tmp/consumer/"
    cp "$here/meson-consumer/prnn.wrap" "$tmp/consumer/subprojects/"
    ln -s "$src" "$tmp/consumer/subprojects/prnn"
    if ! "$meson" setup --wrap-mode=nodownload "$tmp/consumer/build" "$tmp/consumer" \
            -Dexamples="$src/examples" -Dprnn_version="$version" \
            >"$tmp/configure.log" 2>&1; then
        cat "$tmp/configure.log"
        fail "meson could not configure a project with prnn as its subproject"
    fi
    grep -E "Dependency prnn|Subproject prnn" "$tmp/configure.log" || true
    quiet ninja -C "$tmp/consumer/build"
    run_example "$tmp/consumer/build/lstm_inference" ""
    echo "ok - a Meson project got prnn $version with dependency('prnn') from its subproject"
    ;;
*)
    echo "usage: $0 cmake|meson MESON BUILDDIR PREFIX SOURCE_ROOT VERSION" >&2
    exit 2
    ;;
esac
