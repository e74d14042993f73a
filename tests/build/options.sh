#!/bin/sh
# The options a packager turns off: with -Dtools=false and with
# -Dtests=false the project configures, and ninja finds every input of what
# it would build (a dry run), so neither option leaves a reference to what it
# removes. Building them in full is a minute each: done by hand, not here.
#   options.sh MESON NINJA SOURCE_ROOT
set -u
meson=$1 ninja=$2 src=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/prnn-options.XXXXXX")
trap 'rm -rf "$dir"' EXIT
rc=0
for opt in -Dtools=false -Dtests=false; do
    b=$dir/${opt#-D}
    if "$meson" setup "$b" "$src" "$opt" > "$b.log" 2>&1 &&
        "$ninja" -C "$b" -n >> "$b.log" 2>&1; then
        echo "build-options: $opt configures and its build graph is complete"
    else
        echo "FAIL: build-options: $opt:"
        cat "$b.log"
        rc=1
    fi
done
exit $rc
