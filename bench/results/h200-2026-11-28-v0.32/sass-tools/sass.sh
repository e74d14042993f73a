# sass.sh NAME SRCDIR MODE DTYPE H B CR "tile"  -> /tmp/ptxdump/NAME.sass, prints regs and size
ND=/work/main/build/python-venv/lib/python3.11/site-packages/triton/backends/nvidia/bin/nvdisasm
cd /tmp/ptxdump
D=$(./dump2 $3 $4 $5 $6 $7 "$8")
nvcc -arch=sm_90 -cubin -Xptxas -v -I $2/kernel_src $D -o $1.cubin $2/kernel_src/rnn_persistent.cu 2>&1 | grep -oE "Used [0-9]+ registers|error.*"
$ND -c $1.cubin | grep -E "^\s+/\*[0-9a-f]+\*/|^\.L_x" | sed -E 's@^\s+/\*([0-9a-f]+)\*/\s+@@; s@ ;.*@@; s@/\*.*\*/@@' > $1.sass
grep -vc "^\.L" $1.sass
