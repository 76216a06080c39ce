#!/usr/bin/env bash
# The checks that need a CUDA device, in one run, most important first, each under its own time limit so that one
# slow step cannot take the others' time: the CUDA cases of the test suite (the audit of CUDA modules in evaluation
# mode included), `rnnaudit check --device cuda` on the five seed papers, a short training run with and without
# bfloat16 autocast, and the benchmarks whose aims are stated on a GPU. Logs go to $OUT (default gpu-out/), one file
# per step; a summary line per step goes to stdout.
#
#     bash benchmarks/gpu_checks.sh            # on a machine with a CUDA device, rnnaudit installed
#     ONLY="linalg tests check" bash benchmarks/gpu_checks.sh   # only these steps
#     DEV=cpu SCALE=0.2 bash benchmarks/gpu_checks.sh   # the same commands on the CPU, shortened: tries the script
set -u
OUT=${OUT:-gpu-out}
DEV=${DEV:-cuda}
SCALE=${SCALE:-1}
PY=${PY:-python3}
export PYTHONUNBUFFERED=1
mkdir -p "$OUT"
limit() { "$PY" -c "import sys; print(max(5, int(float(sys.argv[1]) * float(sys.argv[2]))))" "$1" "$SCALE"; }
step() {  # step NAME SECONDS COMMAND...: runs COMMAND under a limit, its output in $OUT/NAME.log
    local name=$1 seconds
    [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]] && return 0
    seconds=$(limit "$2")
    shift 2
    local t0=$SECONDS
    timeout -k 5 "$seconds" "$@" > "$OUT/$name.log" 2>&1
    local rc=$?
    echo "== $name: rc $rc in $((SECONDS - t0)) s (limit $seconds s)"
    tail -n "${TAIL:-6}" "$OUT/$name.log"
}

"$PY" -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(),
      torch.cuda.get_device_name() if torch.cuda.is_available() else '-', 'threads', torch.get_num_threads())"
TAIL=40 step linalg 40 "$PY" benchmarks/cuda_linalg_check.py
step tests 110 "$PY" -m pytest -q -p no:cacheprovider -n 8 -k "cuda or gpu" tests
TAIL=4 step check 130 rnnaudit check --quick --device "$DEV" --paper sgornn spectral_rnn nc_gru srnn enrnn \
    --out /tmp/gpu-check
cp /tmp/gpu-check/results.json "$OUT/check_results.json" 2>/dev/null  # the report's other files stay behind
TRAIN="rnnaudit train --preset sgornn-addition --device $DEV --T 1000 --steps 100 --record-every 50 \
    --checkpoint-every 100 --overwrite"
AMP=$([ "$DEV" = cuda ] && echo --amp)
TAIL=4 step train 70 bash -c "$TRAIN --out /tmp/run-f32 && echo float32: \$SECONDS s && $TRAIN --out /tmp/run-amp $AMP \
    && echo autocast: \$SECONDS s in all"
TAIL=12 step bench_spectral 60 "$PY" benchmarks/bench_spectral.py --device "$DEV" --sizes 1024 --T 1000 --batch 64 \
    --repeats 2 --methods wy dense
TAIL=20 step bench_cells 60 "$PY" benchmarks/bench_cells.py --device "$DEV" --sizes 128 1024 --T 1000 --batch 64 \
    --repeats 2 --cells GRU LSTM
TAIL=10 step bench_heatmap 60 "$PY" benchmarks/bench_heatmap.py --speed --T 300 1000 --device "$DEV"
TAIL=20 step bench_jacobian 60 "$PY" benchmarks/bench_jacobian.py --quick --grid --repeats 2 --device "$DEV"
