#!/usr/bin/env bash
# The README's two commands on a fresh Debian 12 system, measured. Not run by
# CI (it needs root, debootstrap and the network, and takes ten minutes).
#
# Makes a minimal Debian 12 (bookworm) tree with debootstrap (--variant
# minbase: what a fresh container has), then for each command, in its own
# fresh copy of that tree, as root inside a chroot: clones this repository
# (its committed HEAD) into it, runs the command, times it (wall clock), runs
# it again (it must install and rebuild nothing), and lists what it installed
# (dpkg's package list before and after). Last, the main command as a user who
# is not root, which must print the apt-get command and stop. Every command's
# output is kept in WORK/<name>.log; the summary is printed and kept in
# WORK/summary.txt.
#
# usage: tools/fresh-machine-check.sh [--cuda-headers] [WORK]
#   WORK            where the trees go (default /tmp/prnn-fresh; the base
#                   tree is kept there and reused, the copies are replaced)
#   --cuda-headers  bind the host's CUDA toolkit headers (read-only) at
#                   /usr/local/cuda/include in the chroot, for a tree whose
#                   build still needs them; the measurement is then not of a
#                   machine with nothing beyond the base system
# needs: root, debootstrap (apt-get install debootstrap); the Debian mirror is
# the host's own (from its apt sources).
set -eu

cuda_headers=0
if [ "${1:-}" = --cuda-headers ]; then
    cuda_headers=1
    shift
fi
work=${1:-/tmp/prnn-fresh}
repo=$(cd "$(dirname "$0")/.." && pwd)

if [ "$(id -u)" -ne 0 ]; then
    echo "fresh-machine-check: needs root (debootstrap, chroot, mount)"
    exit 1
fi
command -v debootstrap >/dev/null 2>&1 || {
    echo "fresh-machine-check: needs debootstrap: apt-get install debootstrap"
    exit 1
}

# The host's Debian mirror, from its deb822 or one-line sources.
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
         grep -v security | head -n1 || true)
if [ -z "$mirror" ]; then
    mirror=$(sed -n 's/^deb  *\(\[[^]]*\]  *\)\{0,1\}\([^ ]*\).*/\2/p' /etc/apt/sources.list 2>/dev/null |
             grep -v security | head -n1 || true)
fi
[ -n "$mirror" ] || { echo "fresh-machine-check: no Debian mirror in /etc/apt/sources*"; exit 1; }

mkdir -p "$work"
summary=$work/summary.txt
: > "$summary"
note() { printf '%s\n' "$*" | tee -a "$summary"; }

base=$work/base
if [ ! -x "$base/bin/bash" ]; then
    echo "debootstrap bookworm (minbase) into $base from $mirror ..."
    rm -rf "$base"
    t0=$(date +%s)
    debootstrap --variant=minbase bookworm "$base" "$mirror" > "$work/debootstrap.log" 2>&1 || {
        tail -n 20 "$work/debootstrap.log"
        exit 1
    }
    # The host's sources (its security suite too), so versions match it.
    if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
        rm -f "$base/etc/apt/sources.list"
        cp /etc/apt/sources.list.d/*.sources "$base/etc/apt/sources.list.d/"
    fi
    note "base: debootstrap --variant=minbase bookworm: $(( $(date +%s) - t0 )) s," \
         "$(chroot "$base" dpkg-query -W -f='.\n' | wc -l) packages"
fi

mounted=()
unmount_all() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}" 2>/dev/null || true
    done
    mounted=()
}
trap unmount_all EXIT

bind() {
    mkdir -p "$2"
    mount --bind "$1" "$2"
    mounted+=("$2")
    if [ "${3:-}" = ro ]; then
        mount -o remount,bind,ro "$2"
    fi
}

# A fresh copy of the base tree, with /proc, /dev and DNS, and the clone.
fresh_tree() {
    local root=$1
    unmount_all
    rm -rf "$root"
    cp -a "$base" "$root"
    mount -t proc proc "$root/proc"
    mounted+=("$root/proc")
    bind /dev "$root/dev"
    bind /dev/pts "$root/dev/pts"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    if [ $cuda_headers -eq 1 ]; then
        bind "$(readlink -f /usr/local/cuda)/include" "$root/usr/local/cuda/include" ro
    fi
    git clone -q --no-local "$repo" "$root/src/prnn"
}

packages() { chroot "$1" dpkg-query -W -f='${Package}\n' | sort; }

# Prefixes each line with the seconds since it started: "[  42] ...".
stamp() {
    local line start=$SECONDS
    while IFS= read -r line; do
        printf '[%4d] %s\n' $((SECONDS - start)) "$line"
    done
}

# Runs a command line in the chroot as root with a clean environment, timed;
# appends its output, stamped, to WORK/NAME.log. Sets $took (s) and $rc.
in_chroot() {
    local root=$1 name=$2 cmd=$3 t0
    t0=$(date +%s.%N)
    set +e
    chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        /bin/bash -c "cd /src/prnn && $cmd" 2>&1 | stamp >> "$work/$name.log"
    rc=${PIPESTATUS[0]}
    set -e
    took=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }')
}

# When the first run's phases ended, from the stamps: "install 40 s, ...".
phases() {
    local log=$1
    sed -n '/--- second run/q;p' "$log" | awk '
        /setup: installed|setup: everything needed/ { if (!i) i = substr($0, 2, 4) + 0 }
        b && !d { d = substr($0, 2, 4) + 0 }
        /setup: building/ { b = 1 }
        END { printf "apt-get done at %d s, build done at %d s", i, d }'
}

measure() {
    local name=$1 cmd=$2 root=$work/$1
    echo "== $cmd (fresh tree $root)"
    fresh_tree "$root"
    : > "$work/$name.log"
    packages "$root" > "$work/$name.before"
    in_chroot "$root" "$name" "$cmd"
    note "$cmd: first run $(printf '%.0f' "$took") s, exit status $rc ($(phases "$work/$name.log"))"
    packages "$root" > "$work/$name.after"
    comm -13 "$work/$name.before" "$work/$name.after" > "$work/$name.installed"
    note "  installed $(wc -l < "$work/$name.installed") packages; asked for:" \
         "$(sed -n 's/^\[[ 0-9]*\] setup: apt-get install //p' "$work/$name.log" | head -n1)"
    note "  all: $(tr '\n' ' ' < "$work/$name.installed")"
    echo "--- second run" >> "$work/$name.log"
    in_chroot "$root" "$name" "$cmd"
    note "  second run $(printf '%.0f' "$took") s, exit status $rc," \
         "$(comm -13 "$work/$name.after" <(packages "$root") | wc -l) more packages"
    note "  last lines of the first run:"
    sed -n '/^--- second run/q;p' "$work/$name.log" | tail -n 4 | sed 's/^/    /' | tee -a "$summary"
}

note "fresh-machine-check on $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores," \
     "repository at $(git -C "$repo" rev-parse --short HEAD)" \
     "$([ $cuda_headers -eq 1 ] && echo "(host CUDA headers bound in)")"
measure main "tools/run-main.sh"
measure tests "tools/run-tests.sh"

# Not root: prints the apt-get command and stops (exit 1), installs nothing.
root=$work/user
fresh_tree "$root"
chroot "$root" chown -R nobody /src/prnn
: > "$work/user.log"
rc=0
chroot --userspec=nobody:nogroup "$root" /usr/bin/env -i HOME=/tmp PATH=/usr/bin:/bin \
    /bin/bash -c 'cd /src/prnn && tools/run-main.sh' >> "$work/user.log" 2>&1 || rc=$?
note "tools/run-main.sh as nobody: exit status $rc, said:"
sed 's/^/    /' "$work/user.log" | tee -a "$summary"
unmount_all
echo "summary: $summary; logs: $work/*.log"
