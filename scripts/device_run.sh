#!/bin/bash
# One call on the lent GPU machine (the `device` tool; docs/microbench.md, "First run on a
# GPU"): the cuda bench backend, then the shipped models' training steps timed and two of them
# profiled (scripts/measure_training_steps.py). Run from the repository root with OUT set and
# .gpu/ carried: fomcast and fomcast_cuda.so built here, and the shared libraries the device
# image may lack (libsimdjson.so.14, libsqlite3.so.0).
set -u
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
date
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version,power.limit --format=csv
python3 -c "import torch;print(torch.__version__, torch.version.cuda, torch.backends.cudnn.version());print(torch.cuda.get_device_properties(0))"
# The CUDA 13 libraries the module links: the toolkit's, else PyTorch's wheels'.
libs=$(find /usr/local/cuda*/lib* /opt/torch/.venv -name 'libcublas.so.13*' -o -name 'libcudnn.so.9*' \
  -o -name 'libcudart.so.13*' 2>/dev/null | xargs -r -n1 dirname | sort -u | tr '\n' ':')
export LD_LIBRARY_PATH="$PWD/.gpu:${libs}${LD_LIBRARY_PATH:-}"
chmod +x .gpu/fomcast
FOMCAST_CUDA_MODULE=$PWD/.gpu/fomcast_cuda.so timeout 100 .gpu/fomcast --db /tmp/g.db bench --platform H200_here \
  --backend cuda --max-seconds 45 --ceiling-seconds 2 --json >"$OUT/bench.json"
echo "bench rc=$?"
timeout 20 .gpu/fomcast --db /tmp/g.db platforms | grep -i 'platform\|_here'
PYTHONUNBUFFERED=1 timeout 140 python3 scripts/measure_training_steps.py "$OUT" --budget-s 100
echo "steps rc=$?"
date
