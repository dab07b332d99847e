#!/usr/bin/env bash
# The Python package (crates/bias-py): builds its wheel with maturin, installs it into a fresh
# virtual environment and runs its pytest suite. Run from the repository root after
# scripts/setup.sh and `cargo test` (the tests compare with target/debug/bias).
#
# The fresh environment gets torch, pandas and pytest from the project's .venv through a .pth
# file rather than a second download of PyTorch (4.6 GB): the wheel itself is installed with
# pip, as a user would, and imported from the fresh environment's site-packages.
set -euo pipefail
VENV=.venv
PY="$VENV/bin/python"
"$PY" -m pip install --quiet --disable-pip-version-check -r scripts/requirements-python.txt
rm -rf target/wheels target/py-venv
"$VENV/bin/maturin" build --quiet -m crates/bias-py/Cargo.toml --profile dev \
  --auditwheel skip -o target/wheels
"$PY" -m venv --without-pip target/py-venv
fresh=$(target/py-venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
project=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$project" > "$fresh/bias-project-venv.pth"
# pip of the project's venv installs into the fresh one (--python; pip >= 22.3).
"$PY" -m pip --python target/py-venv/bin/python install --quiet --disable-pip-version-check \
  --no-deps target/wheels/bias_lm-*.whl
cd target/py-venv && BIAS_ROOT="$OLDPWD" ./bin/python -m pytest -q -p no:cacheprovider \
  "$OLDPWD/crates/bias-py/tests"
