# one.sh SRC m dt H rows ps sk tr -> "cfg regs spill"
d=$(mktemp -d)
r=$(nvcc -arch=sm_90 -cubin -Xptxas -v -I $1/kernel_src -DPRNN_MODE=$2 -DPRNN_DTYPE=$3 -DPRNN_H=$4 -DPRNN_TINY_ROWS=$5 -DPRNN_TINY_BLOCKS_PER_SM=$6 -DPRNN_SKIP=$7 -DPRNN_TRAIN=$8 -o $d/k.cubin $1/kernel_src/rnn_tiny.cu 2>&1 | grep -oE "Used [0-9]+ registers|[0-9]+ bytes spill stores|error.*" | tr '\n' ' ')
echo "$2 $3 $4 $5 $6 $7 $8 | $r"
rm -rf $d
