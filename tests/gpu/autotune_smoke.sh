#!/usr/bin/env bash
# prnn-autotune end to end on one small shape and both passes: it must tune
# the forward and the backward-data key, write a valid database entry for
# each, and on a second run skip both (resumable); then SRU's scan (2
# layers, bidirectional: both scan kinds), one entry with the scan's fields,
# which a plan then uses. Exit 77
# (meson: SKIP) only when the tool reports PRNN_STATUS_NO_DEVICE or cannot
# load NVRTC or cuBLASLt; any other failure with a GPU present is a failure.
#   autotune_smoke.sh PATH-TO-prnn-autotune
set -u
tool=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/prnn-autotune-smoke.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export PRNN_CACHE_DIR=$dir/cache
args=(--modes gru --hidden 96 --batch 3 --dtype float --candidates 4 --seq 16 --repeats 2
      --pass forward,backward-data --output "$dir/db.json")

"$tool" "${args[@]}" > "$dir/first.log" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q "PRNN_STATUS_NO_DEVICE" "$dir/first.log"; then
    echo "SKIP: no GPU"; cat "$dir/first.log"; exit 77
fi
if [ $rc -ne 0 ] && grep -q "cannot load the \(NVRTC\|cuBLASLt\) library" "$dir/first.log"; then
    echo "SKIP: a GPU, but no NVRTC or cuBLASLt"; cat "$dir/first.log"; exit 77
fi
cat "$dir/first.log"
[ $rc -eq 0 ] || { echo "FAIL: prnn-autotune exited $rc"; exit 1; }
grep -q "^2 tuned, 0 already in the database, 0 failed" "$dir/first.log" ||
    { echo "FAIL: the two keys were not tuned"; exit 1; }
python3 - "$dir/db.json" <<'PY' || { echo "FAIL: the database is not what was tuned"; exit 1; }
import json, sys
db = json.load(open(sys.argv[1]))
assert db["schema_version"] == 1, db
entries = db["entries"]
assert len(entries) == 2, entries
for e in entries:
    assert (e["mode"], e["dtype"], e["hidden"], e["batch"], e["directions"]) == ("gru", "float", 96, 3, 1), e
    assert e["us_per_step"] > 0 and e["config"]["blocks"] >= 1, e
# forward entries carry no "pass" (absent means forward); backward ones do
assert sorted(e.get("pass", "forward") for e in entries) == ["backward-data", "forward"], entries
PY

"$tool" "${args[@]}" > "$dir/second.log" 2>&1 || { cat "$dir/second.log"; echo "FAIL: second run"; exit 1; }
grep -q "^0 tuned, 2 already in the database, 0 failed" "$dir/second.log" ||
    { cat "$dir/second.log"; echo "FAIL: the second run did not skip the stored keys"; exit 1; }

sru=(--modes sru --hidden 96 --batch 3 --dtype float --directions 2 --layers 2 --candidates 6
     --seq 16 --repeats 2 --pass forward,backward-data --output "$dir/sru.json")
"$tool" "${sru[@]}" > "$dir/sru.log" 2>&1
rc=$?
cat "$dir/sru.log"
[ $rc -eq 0 ] || { echo "FAIL: prnn-autotune --modes sru exited $rc"; exit 1; }
# the backward-data key is skipped: one configuration serves both scans
grep -q "^1 tuned, 1 already in the database, 0 failed" "$dir/sru.log" ||
    { echo "FAIL: the SRU key was not tuned"; exit 1; }
python3 - "$dir/sru.json" <<'PY' || { echo "FAIL: the SRU entry is not what was tuned"; exit 1; }
import json, sys
(e,) = json.load(open(sys.argv[1]))["entries"]
assert (e["mode"], e["hidden"], e["batch"], e["directions"]) == ("sru", 96, 3, 2), e
assert "pass" not in e and sorted(e["config"]) == ["steps_in_flight", "threads", "units_per_thread"], e
assert e["us_per_step"] > 0, e
PY
# a plan of that shape takes its scan configuration from the entry
bench=$(dirname "$tool")/../bench/prnn-bench
PRNN_TUNING_DB="$dir/sru.json" "$bench" --modes sru --hidden 96 --batch 3 --seq 16 --layers 2 \
    --bidirectional --dtype float --no-cudnn --repeats 1 --csv "$dir/bench.csv" > "$dir/bench.log" 2>&1 ||
    { cat "$dir/bench.log"; echo "FAIL: prnn-bench with the SRU entry"; exit 1; }
python3 - "$dir/sru.json" "$dir/bench.csv" <<'PY' || { echo "FAIL: the plan did not use the SRU entry"; exit 1; }
import csv, json, sys
(e,) = json.load(open(sys.argv[1]))["entries"]
(row,) = list(csv.DictReader(open(sys.argv[2])))
want = "sru-scan " + " ".join(f"{k}={e['config'][k]}" for k in ("threads", "units_per_thread", "steps_in_flight"))
assert row["prnn_config_source"] == "user-db" and row["prnn_config"] == want, (row["prnn_config_source"], row["prnn_config"], want)
PY
echo "PASS"
