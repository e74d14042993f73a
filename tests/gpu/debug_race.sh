export LD_LIBRARY_PATH=$PWD/.device_carry/lib PRNN_CACHE_DIR=/tmp/pc
T=build-gpu/tests/gpu/test_forward_gpu
F="gru float H=100 B=1 L=1 uni"
echo "### A: failing case, same seed, 6 times"; $T --seed 1795295031 --filter "$F" --repeat 6 --verbose --threads 4 | grep -E "^(ok|FAIL|  *->)|cases"
TILE="blocks=4 threads=128 ksplit=4 lanes_k=2 batch_chunk=1 reg_slots=65 smem_slots=0 mma=0 handoff=0"
for m in tanh lstm gru relu; do echo "### B: forced tile, $m"; PRNN_TILE="$TILE" $T --filter "$m float H=100 B=1 L=1 uni" --repeat 4 --verbose --threads 2 | grep -E "^(ok|FAIL|  *->)" | sort | uniq -c; done
for v in "lanes_k=1" "handoff=1"; do T2=$(echo "$TILE" | sed "s/lanes_k=2/${v%%=*}=${v##*=}/; s/handoff=0/$([ ${v%%=*} = handoff ] && echo $v || echo handoff=0)/"); echo "### C: $T2"; PRNN_TILE="$T2" $T --filter "$F" --repeat 4 --verbose --threads 2 | grep -E "^(ok|FAIL|  *->)" | sort | uniq -c; done
for tool in memcheck racecheck initcheck synccheck; do echo "### D: $tool"; PRNN_TILE="$TILE" timeout 120 compute-sanitizer --tool $tool --print-limit 5 $T --filter "$F" --threads 1 2>&1 | grep -vE "^\| |^\|---" | tail -12; done
echo "### E: all H=100 cases x2"; $T --filter "H=100 " --repeat 2 --threads 16 | tail -6
