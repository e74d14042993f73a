#!/usr/bin/env bash
# The SRU scan kernels alone, under Nsight Compute: for each shape and each
# scan choice (PRNN_SRU_TILE), every prnn_sru_forward_* / prnn_sru_backward_*
# launch of one training step (2 layers), its duration and the DRAM
# throughput as a fraction of the device's peak. Issue #14's "fraction of
# memory bandwidth". ncu flushes the caches before each profiled launch
# (--cache-control all), so U comes from DRAM as in a cold pass.
#   bench/sru-scan-profile.sh PRNN_BENCH [hidden,batch,dtype ...]
# Environment: SRU_TILES (";"-separated PRNN_SRU_TILE values; "" = the
# planner's own choice: tuning DB or heuristic, labelled "planner"), OUT
# (where the CSVs go, removed once read).
set -u
bench=${1:?prnn-bench}; shift
shapes=("${@:-1024,32,float}")
IFS=';' read -r -a tiles <<< "${SRU_TILES:-}"
[ ${#tiles[@]} -eq 0 ] && tiles=("")
out=${OUT:-/tmp}
mkdir -p "$out"
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
# where the warps wait (per active warp, %): memory results, memory queue,
# store drain, fixed latency, math pipe
stalls=long_scoreboard,lg_throttle,drain,wait,short_scoreboard,math_pipe_throttle
for s in ${stalls//,/ }; do metrics+=,smsp__warp_issue_stalled_${s}_per_warp_active.pct; done
n=0
for shape in "${shapes[@]}"; do
    IFS=, read -r H B dt <<< "$shape"
    for tile in "${tiles[@]}"; do
        n=$((n + 1))
        csv=$out/sru-scan-$n.csv  # removed once read: the caller keeps the summary
        # one warm-up step's 4 scan launches skipped, the next step's 4 profiled
        PRNN_SRU_TILE="$tile" ncu --clock-control none --cache-control all \
            -k regex:'prnn_sru_(forward|backward)' --launch-skip 4 --launch-count 4 \
            --metrics "$metrics" --csv --page raw --print-units base \
            "$bench" --modes sru --layers 2 --bidirectional --batch "$B" --seq 128 \
            --hidden "$H" --dtype "$dt" --training --no-cudnn --repeats 1 --warmup 1 \
            >"$csv" 2>"$out/sru-scan-$n.err" || { echo "ncu failed: $shape $tile"; tail -3 "$out/sru-scan-$n.err"; continue; }
        python3 - "$csv" "H=$H B=$B $dt ${tile:-planner}" <<'PY'
import csv, sys
num = lambda s: float(s.replace(",", ""))  # ncu groups thousands with commas
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if l.startswith('"'))]
for r in rows:
    if not r.get("Kernel Name", "").startswith("prnn_sru"):
        continue
    t = num(r["gpu__time_duration.sum"])  # ns (--print-units base)
    moved = num(r["dram__bytes_read.sum"]) + num(r["dram__bytes_write.sum"])
    stalls = " ".join(f"{k.split('stalled_')[1].split('_per_warp')[0]}={num(v):.0f}"
                      for k, v in r.items() if "stalled" in k)
    print(f"{sys.argv[2]:<40} {r['Kernel Name']:<17} {t/1e3:7.1f} us  dram"
          f" {num(r['dram__throughput.avg.pct_of_peak_sustained_elapsed']):5.1f} %"
          f" {moved/1e6:6.1f} MB {moved/t:5.0f} GB/s  regs {r['launch__registers_per_thread']}"
          f"  warps {num(r['sm__warps_active.avg.pct_of_peak_sustained_active']):4.1f} %  {stalls}")
PY
        rm -f "$csv" "$out/sru-scan-$n.err"
    done
done
