# Sourced by tools/run-main.sh and tools/run-tests.sh (bash): installs what
# is missing on a Debian or Ubuntu machine and configures and builds the
# tree. Everything here is idempotent: a second run installs nothing and
# rebuilds nothing.
#
#   prnn_install build [tests] [plot]   what is missing, through apt-get as
#                                       root; otherwise prints the command
#                                       and exits 1
#   prnn_configure DIR [-Dopt=value...] [-- -Dopt=value...]
#                                       meson setup with all the options, or
#                                       meson configure when one before "--"
#                                       differs (those after it are for a new
#                                       build directory only)
#   prnn_gpu_driver_present             0 when an NVIDIA driver is installed
#   prnn_build DIR [target...]          ninja, quiet unless it fails
#
# What each need checks and installs (Debian package names):
#   build  cc + libc headers (gcc, libc6-dev), meson >= 0.63 (meson), ninja
#          (ninja-build), pkg-config (pkg-config), cJSON (libcjson-dev),
#          python3 (python3)
#   tests  c++ (g++: the header-as-C++ test), clang and its libFuzzer runtime
#          (clang, libclang-rt-N-dev: the tuning-DB fuzzer test)
#   python a virtual environment (python3-venv: tools/run-python-tests.sh
#          installs PyTorch into one from PyPI); optional: without it the
#          Python tests say so and do not run
#   plot   matplotlib (python3-matplotlib: prnn-bench --plot); optional: as
#          another user than root, or where it still does not import (another
#          python3 first on PATH), the job goes on without the plot
# Checks look at what works (a command, a header, a compile), not at dpkg, so
# tools installed another way count.

prnn_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prnn_packages=()
prnn_optional=()
prnn_fuzzer_runtime=0 # clang's libFuzzer runtime is wanted; its name has clang's version

say() { printf '%s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }

# 0 when meson is at least 0.63 (the project's meson_version).
meson_recent() {
    have meson || return 1
    local v
    v=$(meson --version 2>/dev/null) || return 1
    [ "$(printf '%s\n0.63.0\n' "$v" | sort -V | head -n1)" = 0.63.0 ]
}

# 0 when cc compiles and links a C program (gcc without libc6-dev does not).
cc_works() {
    have cc || return 1
    local t
    t=$(mktemp -d)
    printf '#include <stdio.h>\nint main(void) { return puts("") < 0; }\n' > "$t/a.c"
    cc "$t/a.c" -o "$t/a" >/dev/null 2>&1
    local rc=$?
    rm -rf "$t"
    return $rc
}

# 0 when clang links a libFuzzer target.
fuzzer_works() {
    have clang || return 1
    local t
    t=$(mktemp -d)
    printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' > "$t/f.c"
    clang -fsanitize=fuzzer "$t/f.c" -o "$t/f" >/dev/null 2>&1
    local rc=$?
    rm -rf "$t"
    return $rc
}

cjson_present() {
    { have pkg-config && pkg-config --exists libcjson; } || [ -f /usr/include/cjson/cJSON.h ]
}

check_build() {
    if ! have cc; then
        prnn_packages+=(gcc libc6-dev)
    elif ! cc_works; then
        prnn_packages+=(libc6-dev)
    fi
    meson_recent || prnn_packages+=(meson)
    have ninja || prnn_packages+=(ninja-build)
    have pkg-config || prnn_packages+=(pkg-config)
    cjson_present || prnn_packages+=(libcjson-dev)
    have python3 || prnn_packages+=(python3)
}

check_tests() {
    have c++ || prnn_packages+=(g++)
    have clang || prnn_packages+=(clang)
    fuzzer_works || prnn_fuzzer_runtime=1
}

check_python() {
    python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || prnn_optional+=(python3-venv)
}

check_plot() {
    # Installed but not for the python3 first on PATH (pyenv, a venv) counts
    # as done: installing it again would not help.
    python3 -c 'import matplotlib' >/dev/null 2>&1 ||
        dpkg-query -W -f='${Status}' python3-matplotlib 2>/dev/null | grep -q 'ok installed' ||
        prnn_optional+=(python3-matplotlib)
}

# libclang-rt-N-dev for the clang that is (or will be) installed, when the
# package lists know it (Debian 12, Ubuntu 23.04 and later; older releases
# ship the runtime inside clang's own dependencies).
fuzzer_runtime_package() {
    local v=""
    # Before the first apt-get update, apt-cache may know nothing: no name.
    if have clang; then
        v=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n1)
    else
        v=$(apt-cache depends clang 2>/dev/null | sed -n 's/.*Depends: clang-\([0-9]*\)$/\1/p' | head -n1)
    fi
    if [ -n "$v" ] && apt-cache show "libclang-rt-$v-dev" >/dev/null 2>&1; then
        echo "libclang-rt-$v-dev"
    fi
}

# The hard needs' checks again, after apt-get: what the release's packages
# cannot give (Ubuntu 22.04's meson is 0.61) stops here, named.
recheck() {
    local need
    prnn_packages=()
    for need in "$@"; do
        case $need in plot|python) ;; *) "check_$need" ;; esac
    done
    if [ ${#prnn_packages[@]} -ne 0 ]; then
        say "setup: still missing after apt-get: ${prnn_packages[*]}"
        if ! meson_recent; then
            say "prnn needs Meson >= 0.63; this release's is older: python3 -m pip install --user meson"
        fi
        exit 1
    fi
}

prnn_install() {
    local need
    for need in "$@"; do
        "check_$need"
    done
    if [ ${#prnn_packages[@]} -eq 0 ] && [ $prnn_fuzzer_runtime -eq 0 ] &&
       [ ${#prnn_optional[@]} -eq 0 ]; then
        say "setup: everything needed is installed"
        return 0
    fi
    if ! have apt-get; then
        if [ ${#prnn_packages[@]} -eq 0 ]; then
            say "setup: optional and missing: ${prnn_optional[*]} (Debian's names)"
            return 0
        fi
        say "setup: missing (Debian's names): ${prnn_packages[*]} ${prnn_optional[*]}"
        say "Install them with the system's package manager, then run this again."
        exit 1
    fi
    if [ "$(id -u)" -ne 0 ]; then
        if [ $prnn_fuzzer_runtime -eq 1 ]; then
            prnn_packages+=($(fuzzer_runtime_package))
        fi
        local all=("${prnn_packages[@]}" "${prnn_optional[@]}")
        if [ ${#all[@]} -eq 0 ]; then
            say "setup: clang cannot link a libFuzzer target (the fuzzer test will skip)"
            return 0
        fi
        local cmd="sudo apt-get update && sudo apt-get install -y --no-install-recommends ${all[*]}"
        if [ ${#prnn_packages[@]} -eq 0 ]; then
            say "setup: optional and missing: ${prnn_optional[*]}; to install: $cmd"
            return 0
        fi
        say "setup: missing: ${all[*]}"
        say "Install them as root, then run this again:"
        say "  $cmd"
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    say "setup: apt-get update"
    apt-get update -q >/dev/null
    if [ $prnn_fuzzer_runtime -eq 1 ]; then
        prnn_packages+=($(fuzzer_runtime_package))
    fi
    prnn_packages+=("${prnn_optional[@]}")
    if [ ${#prnn_packages[@]} -eq 0 ]; then
        say "setup: no package provides clang's libFuzzer runtime here (the fuzzer test will skip)"
        return 0
    fi
    say "setup: apt-get install ${prnn_packages[*]}"
    apt-get install -y -q --no-install-recommends "${prnn_packages[@]}" >/dev/null
    recheck "$@"
    say "setup: installed"
}

# -Dcudatoolkit=DIR when a CUDA toolkit is here (its headers let a test check
# prnn's own CUDA declarations against them); nothing otherwise: the build
# needs none.
cuda_option() {
    grep -q "option('cudatoolkit'" "$prnn_root/meson_options.txt" || return 0
    local d nvcc
    nvcc=$(command -v nvcc 2>/dev/null || true)
    for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda \
             ${nvcc:+"$(dirname "$(dirname "$(readlink -f "$nvcc")")")"}; do
        if [ -n "$d" ] && [ -f "$d/include/cuda.h" ]; then
            echo "-Dcudatoolkit=$d"
            return 0
        fi
    done
}

# The build options of DIR that differ from the -Dname=value arguments.
options_differing() {
    local dir=$1
    shift
    meson introspect --buildoptions "$dir" | python3 -c '
import json, sys
have = {o["name"]: o["value"] for o in json.load(sys.stdin)}
for arg in sys.argv[1:]:
    name, value = arg[2:].split("=", 1)
    cur = have.get(name)
    cur = str(cur).lower() if isinstance(cur, bool) else str(cur)
    if cur != value:
        print(arg)
' "$@"
}

prnn_configure() {
    local dir=$1
    shift
    local keep=() fresh=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        keep+=("$1")
        shift
    done
    [ $# -gt 0 ] && shift
    fresh=("$@")
    local cuda
    cuda=$(cuda_option)
    if [ -n "$cuda" ]; then
        keep+=("$cuda")
    fi
    if [ ! -f "$dir/build.ninja" ]; then
        say "setup: meson setup $dir ${keep[*]} ${fresh[*]}"
        local log
        log=$(mktemp)
        if ! meson setup "$dir" "${keep[@]}" "${fresh[@]}" > "$log" 2>&1; then
            tail -n 25 "$log"
            rm -f "$log"
            say "setup: meson setup failed (the whole log: $dir/meson-logs/meson-log.txt)"
            exit 1
        fi
        rm -f "$log"
        return 0
    fi
    local changed
    changed=$(options_differing "$dir" "${keep[@]}")
    if [ -n "$changed" ]; then
        say "setup: meson configure $dir" $changed
        meson configure "$dir" $changed >/dev/null
    fi
}

prnn_gpu_driver_present() {
    [ -e /proc/driver/nvidia/version ] || ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'
}

prnn_build() {
    local dir=$1
    shift
    say "setup: building${*:+ $*} in $dir"
    if ! ninja -C "$dir" "$@" > "$dir/build.log" 2>&1; then
        tail -n 40 "$dir/build.log"
        say "setup: the build failed (the whole log: $dir/build.log)"
        exit 1
    fi
}
