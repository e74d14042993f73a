#!/bin/sh
# Building from source on a machine without libcjson-dev (issue 26): with
# the system's cJSON hidden (headers, libraries, pkg-config file), the
# default configuration (-Dcjson=auto) takes third_party/cjson, libprnn
# builds and needs no libcjson; -Dcjson=system stops at configure time
# with a message that names cJSON.
#
# The hiding happens in a private mount namespace (unshare -m as root, else
# unshare -rm where user namespaces are allowed), as tests/hide_cuda.sh
# does: nothing outside sees a change. Exit 77 (skipped) when no namespace
# can be made.
#
# usage: no_system_cjson.sh MESON NINJA SOURCE_ROOT
set -eu
meson=$1 ninja=$2 src=$3

if [ "${PRNN_NO_CJSON_INSIDE:-}" != 1 ]; then
    export PRNN_NO_CJSON_INSIDE=1
    for how in "unshare -m" "unshare -rm"; do
        # shellcheck disable=SC2086 # word splitting wanted
        if $how true 2>/dev/null; then
            exec $how "$0" "$@"
        fi
    done
    echo "SKIP: cannot make a mount namespace (unshare -m / -rm) to hide the system's cJSON"
    exit 77
fi

fail() {
    echo "FAIL: $*"
    exit 1
}
hidden=0
for d in /usr/include/cjson /usr/local/include/cjson; do
    if [ -d "$d" ]; then
        mount -t tmpfs none "$d" || fail "cannot hide $d"
        hidden=$((hidden + 1))
    fi
done
for f in /usr/lib/*/libcjson* /usr/lib/libcjson* /usr/lib64/libcjson* \
    /usr/local/lib/libcjson* /usr/lib/*/pkgconfig/libcjson*.pc \
    /usr/lib/pkgconfig/libcjson*.pc /usr/share/pkgconfig/libcjson*.pc \
    /usr/local/lib/pkgconfig/libcjson*.pc; do
    if [ -f "$f" ] && [ ! -L "$f" ]; then
        mount --bind /dev/null "$f" || fail "cannot hide $f"
        hidden=$((hidden + 1))
    fi
done
echo "hid $hidden cJSON file(s) and folder(s) of the system"
if [ -f /usr/include/cjson/cJSON.h ] || pkg-config --exists libcjson 2>/dev/null; then
    fail "the system's cJSON is still visible"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/prnn-no-cjson.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if "$meson" setup "$tmp/system" "$src" -Dcjson=system -Dtools=false -Dtests=false \
        >"$tmp/system.log" 2>&1; then
    fail "-Dcjson=system configured without a system cJSON"
fi
grep -i "cjson" "$tmp/system.log" | tail -n 2
echo "ok - -Dcjson=system without a system cJSON stops at configure time, naming it"

"$meson" setup "$tmp/auto" "$src" -Dtools=false -Dtests=false >"$tmp/auto.log" 2>&1 || {
    cat "$tmp/auto.log"
    fail "the default configuration failed without a system cJSON"
}
grep -q "cJSON *: *third_party/cjson" "$tmp/auto.log" || {
    cat "$tmp/auto.log"
    fail "the configure summary does not say third_party/cjson"
}
"$ninja" -C "$tmp/auto" >"$tmp/build.log" 2>&1 || {
    tail -n 30 "$tmp/build.log"
    fail "libprnn did not build with third_party/cjson"
}
lib=$(ls "$tmp"/auto/libprnn.so.*.*.* | head -n 1)
if readelf -d "$lib" | grep -q 'NEEDED.*libcjson'; then
    fail "$lib needs libcjson"
fi
echo "ok - without a system cJSON, libprnn builds with third_party/cjson and needs no libcjson"
