#!/usr/bin/env bash
# python/examples/ddp_train.py on every GPU of this machine (one process per
# GPU, NCCL): the figures of issue #16 (LSTM H=1024, batch 16 per GPU,
# T=256, fp32 and fp16: samples per second and the share of a step in prnn
# and in the all-reduce), a bit-for-bit rerun, and, with two or more GPUs,
# the N-GPU run's parameters against one GPU's with the global batch.
# Needs PRNN_LIBRARY / PYTHONPATH as tests/gpu/run.sh sets them.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "$0")/../.." && pwd)
script=$here/python/examples/ddp_train.py
ngpu=$(nvidia-smi -L | wc -l)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { python3 -m torch.distributed.run --standalone --nproc_per_node="$@"; }
rc=0
# With several GPUs, one process on this same machine too: the scaling
# figure compares like with like (the 1-GPU figures of another card don't).
procs=("$ngpu"); [ "$ngpu" -ge 2 ] && procs=(1 "$ngpu")
for dtype in float32 float16; do
    for n in "${procs[@]}"; do
        echo "== $n process(es), $dtype"
        run "$n" "$script" --dtype "$dtype" --steps 30 --profile 2>&1 | tr '\r' '\n' | grep -v '^\[' || rc=1
    done
done
small=(--steps 10 --hidden 256 --seq 64)
run "$ngpu" "$script" "${small[@]}" --save "$tmp/a.pt" >/dev/null 2>&1 || rc=1
run "$ngpu" "$script" "${small[@]}" --compare "$tmp/a.pt" --tolerance 0 2>&1 | grep compare || rc=1
if [ "$ngpu" -ge 2 ]; then
    run 1 "$script" "${small[@]}" --batch $((16 * ngpu)) --compare "$tmp/a.pt" --tolerance 1e-4 \
        2>&1 | grep compare || rc=1
else
    echo "one GPU: the N-GPU against 1-GPU comparison needs two (it ran on the CPU in CI: python/tests/test_ddp.py)"
fi
exit $rc
