#!/bin/sh
# examples-install: the examples built against an installed prnn, as a user
# builds them. `meson install` puts prnn into a temporary DESTDIR; each
# example is compiled with
#   $CC -std=c99 example.c example_util.c $(pkg-config --cflags --libs prnn) -lm
# against that install only (pkg-config finds prnn.pc there), run, and must
# print "verdict: ok". Also checked: prnn.pc names no include folder but the
# installed header's and reports the project version.
#
# usage: install_test.sh MESON BUILDDIR PREFIX EXAMPLES_SRCDIR VERSION CC...
#   CC...: the C compiler meson uses; $CC, when set, replaces it (as for make).
# Exit 77 (skipped) only when pkg-config or the C compiler is missing; any
# other problem is a failure.
set -eu

if [ $# -lt 6 ]; then
    echo "usage: $0 MESON BUILDDIR PREFIX EXAMPLES_SRCDIR VERSION CC..." >&2
    exit 2
fi
meson=$1 build=$2 prefix=$3 src=$4 version=$5
shift 5
if [ -n "${CC:-}" ]; then
    # shellcheck disable=SC2086 # word splitting wanted: CC may carry flags
    set -- $CC
fi
examples="lstm_inference training_step pytorch_weights rnn_v8_port"

if ! command -v pkg-config >/dev/null 2>&1; then
    echo "SKIP: pkg-config not found: the examples are built through pkg-config prnn"
    exit 77
fi
if ! command -v "$1" >/dev/null 2>&1; then
    echo "SKIP: C compiler '$1' not found"
    exit 77
fi
if [ -z "$meson" ] || ! command -v "$meson" >/dev/null 2>&1; then
    echo "FAIL: meson was not found when the build was configured ('$meson')"
    exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/prnn-examples.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}

# meson install first brings the build up to date (a no-op after meson
# test's own build), then copies every installed file under the DESTDIR.
"$meson" install -C "$build" --destdir "$tmp/dest" --quiet ||
    fail "meson install -C $build --destdir $tmp/dest"
root=$tmp/dest$prefix
pc=$(find "$tmp/dest" -name prnn.pc)
[ -n "$pc" ] && [ "$(echo "$pc" | wc -l)" -eq 1 ] ||
    fail "expected exactly one installed prnn.pc under $tmp/dest, found: ${pc:-none}"
echo "installed into DESTDIR $tmp/dest (prefix $prefix): ${pc#"$tmp/dest"}"

cflags_line=$(grep '^Cflags:' "$pc")
[ "$cflags_line" = 'Cflags: -I${includedir}' ] ||
    fail "prnn.pc's $cflags_line: users need the installed header's folder only"
echo "prnn.pc: $cflags_line"

# The files sit under DESTDIR, not at the prefix prnn.pc names: pkg-config's
# own way to relocate a package is to redefine its prefix.
export PKG_CONFIG_PATH="${pc%/prnn.pc}"
prnn_pc() {
    pkg-config --define-variable=prefix="$root" "$@" prnn
}
pc_version=$(prnn_pc --modversion) || fail "pkg-config --modversion prnn"
[ "$pc_version" = "$version" ] ||
    fail "pkg-config --modversion prnn says $pc_version, the project is $version"
cflags=$(prnn_pc --cflags) || fail "pkg-config --cflags prnn"
libs=$(prnn_pc --libs) || fail "pkg-config --libs prnn"
libdir=$(prnn_pc --variable=libdir) || fail "pkg-config --variable=libdir prnn"
includedir=$(prnn_pc --variable=includedir) || fail "pkg-config --variable=includedir prnn"
[ -f "$includedir/prnn.h" ] || fail "no prnn.h in the installed $includedir"
echo "pkg-config prnn: version $pc_version, --cflags '$cflags', --libs '$libs'"

status=0
for ex in $examples; do
    # The rpath stands for a library path a user would configure (or
    # ldconfig); LD_LIBRARY_PATH is cleared so that nothing else is found.
    # shellcheck disable=SC2086 # word splitting wanted: pkg-config's flags
    if ! "$@" -std=c99 -pedantic -Wall -Wextra -Werror \
        "$src/$ex.c" "$src/example_util.c" $cflags $libs -lm \
        -Wl,-rpath,"$libdir" -o "$tmp/$ex" >"$tmp/$ex.cc.log" 2>&1; then
        echo "not ok - $ex: does not compile against the installed prnn:"
        cat "$tmp/$ex.cc.log"
        status=1
        continue
    fi
    if command -v ldd >/dev/null 2>&1; then
        lib=$(env -u LD_LIBRARY_PATH ldd "$tmp/$ex" | grep 'libprnn\.so' || true)
        case $lib in
        *"$libdir"/*) ;;
        *)
            echo "not ok - $ex: loads libprnn from elsewhere than the install: $lib"
            status=1
            continue
            ;;
        esac
    fi
    rc=0
    env -u LD_LIBRARY_PATH "$tmp/$ex" >"$tmp/$ex.log" 2>&1 || rc=$?
    sed 's/^/    /' "$tmp/$ex.log"
    if [ "$rc" -eq 0 ] && [ "$(tail -n 1 "$tmp/$ex.log")" = "verdict: ok" ]; then
        echo "ok - $ex: built with pkg-config prnn against the install, verdict ok"
    else
        echo "not ok - $ex: exit status $rc, last line '$(tail -n 1 "$tmp/$ex.log")'"
        status=1
    fi
done
exit $status
