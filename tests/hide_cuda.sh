#!/bin/sh
# Runs a command as on a machine without part of CUDA, to see that prnn
# builds there and that its tests skip, never fail or crash:
#
#   tests/hide_cuda.sh nvrtc CMD...    libnvrtc cannot be loaded: every copy
#                                      the dynamic linker or the toolkit has
#                                      reads as an empty file
#   tests/hide_cuda.sh toolkit CMD...  no CUDA toolkit: its directory is empty
#                                      (headers, libnvrtc, libcublasLt,
#                                      libcudnn), and any other copy of those
#                                      libraries the linker knows is emptied
#
# e.g. tests/hide_cuda.sh nvrtc meson test -C build
#      tests/hide_cuda.sh toolkit sh -c 'meson setup b && meson test -C b'
#
# Everything happens in a private mount namespace (unshare -m as root, else
# unshare -rm where user namespaces are allowed): nothing outside the
# command sees a change, and nothing is left to undo. The driver (libcuda)
# is not touched. The toolkit is $CUDA_PATH, else /usr/local/cuda.
set -eu
what=${1:-}
case $what in
nvrtc) libs='libnvrtc[.]' ;;
toolkit) libs='libnvrtc[.]|libcublasLt[.]|libcudnn' ;;
*) echo "usage: $0 nvrtc|toolkit COMMAND [ARG...]" >&2; exit 2 ;;
esac
shift
[ $# -gt 0 ] || { echo "usage: $0 $what COMMAND [ARG...]" >&2; exit 2; }

if [ "${PRNN_HIDE_CUDA_INSIDE:-}" != "$what" ]; then
    export PRNN_HIDE_CUDA_INSIDE=$what
    if [ "$(id -u)" = 0 ]; then
        exec unshare -m "$0" "$what" "$@"
    fi
    exec unshare -rm "$0" "$what" "$@"
fi

toolkit=$(readlink -f "${CUDA_PATH:-/usr/local/cuda}" 2>/dev/null || true)
if [ "$what" = toolkit ] && [ -d "$toolkit" ]; then
    mount -t tmpfs none "$toolkit"
    echo "hide_cuda: $toolkit is empty" >&2
fi
# The real files behind every name the linker or the toolkit offers.
{
    ldconfig -p | sed -n 's/.*=> //p'
    ls -d "$toolkit"/lib64/* "$toolkit"/lib/* 2>/dev/null || true
} | grep -E "/($libs)[^/]*$" | while read -r f; do
    [ -e "$f" ] && readlink -f "$f"
done | sort -u | while read -r f; do
    mount --bind /dev/null "$f"
    echo "hide_cuda: $f reads as empty" >&2
done
exec "$@"
