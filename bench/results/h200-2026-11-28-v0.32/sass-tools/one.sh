# one.sh NAME MODE DTYPE H B TILE... : compiles main / CR0 / CR1, writes NAME.{main,cr0,cr1}.sass
ND=/work/main/build/python-venv/lib/python3.11/site-packages/triton/backends/nvidia/bin/nvdisasm
cd /tmp/ptxdump/cmp
n=$1; shift; m=$1 d=$2 h=$3 b=$4; shift 4; tile="$*"
for v in main:/tmp/mainwt:0 cr0:/work/main:0 cr1:/work/main:1; do
  IFS=: read tag src cr <<< "$v"
  D=$(/tmp/ptxdump/dump2 $m $d $h $b $cr "$tile")
  r=$(nvcc -arch=sm_90 -cubin -Xptxas -v -I $src/kernel_src $D -o $n.$tag.cubin $src/kernel_src/rnn_persistent.cu 2>&1 | grep -oE "Used [0-9]+ registers|error.*" | head -1)
  $ND -c $n.$tag.cubin | grep -E "^\s+/\*[0-9a-f]+\*/|^\.L_x" | sed -E 's@^\s+/\*([0-9a-f]+)\*/\s+@@; s@ ;.*@@; s@/\*.*\*/@@' > $n.$tag.sass
  echo "$r" > $n.$tag.regs
done
