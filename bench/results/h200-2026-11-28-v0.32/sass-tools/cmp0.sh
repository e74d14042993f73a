# CR0 of HEAD's kernel_src against the working tree's, SASS identical?
ND=/work/main/build/python-venv/lib/python3.11/site-packages/triton/backends/nvidia/bin/nvdisasm
cd /tmp/ptxdump
n=$1; shift; m=$1 d=$2 h=$3 b=$4; shift 4; tile="$*"
D=$(/tmp/ptxdump/dump2 $m $d $h $b 0 "$tile")
for src in /tmp/headks /work/main; do
nvcc -arch=sm_90 -cubin -I $src/kernel_src $D -o c0.cubin $src/kernel_src/rnn_persistent.cu
$ND -c c0.cubin | grep -E "^\s+/\*[0-9a-f]+\*/" | sed -E 's@^\s+/\*([0-9a-f]+)\*/\s+@@; s@ ;.*@@; s@/\*.*\*/@@' > c0_$(basename $src).sass
done
cmp -s c0_headks.sass c0_main.sass && echo "$n identical" || echo "$n DIFFERS"
