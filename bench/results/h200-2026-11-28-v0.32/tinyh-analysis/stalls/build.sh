# build.sh SRC TAG MODE DTYPE H ROWS PERSM SKIP TRAIN -> TAG.cubin TAG.ctl ; prints regs/spills
ND=/work/main/build/python-venv/lib/python3.11/site-packages/triton/backends/nvidia/bin/nvdisasm
src=$1 tag=$2
nvcc -arch=sm_90 -cubin -Xptxas -v -I $src/kernel_src -DPRNN_MODE=$3 -DPRNN_DTYPE=$4 -DPRNN_H=$5 -DPRNN_TINY_ROWS=$6 -DPRNN_TINY_BLOCKS_PER_SM=$7 -DPRNN_SKIP=$8 -DPRNN_TRAIN=$9 -o $tag.cubin $src/kernel_src/rnn_tiny.cu 2>&1 | grep -E "registers|spill|error" | grep -oE "[0-9]+ bytes spill stores|Used [0-9]+ registers|error.*" | tr '\n' ' '; echo
$ND -hex -c $tag.cubin | python3 /tmp/tx/ctl.py > $tag.ctl
