#!/usr/bin/env bash
# The Python package (crates/bias-py): installs it into a fresh virtual environment with the
# README's command (pip, which builds the wheel with maturin) and runs its pytest suite. Run
# from the repository root after scripts/setup.sh and `cargo test` (the tests compare with
# target/debug/bias).
#
# The fresh environment gets torch, pandas and pytest from the project's .venv through a .pth
# file rather than a second download of PyTorch (4.6 GB): the package itself is installed with
# pip, as a user would, and imported from the fresh environment's site-packages.
set -euo pipefail
VENV=.venv
PY="$VENV/bin/python"
"$PY" -m pip install --quiet --disable-pip-version-check -r scripts/requirements-python.txt
rm -rf target/wheels target/py-venv
"$PY" -m venv --without-pip target/py-venv
fresh=$(target/py-venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
project=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$project" > "$fresh/bias-project-venv.pth"
# The README's install command, as a user runs it in an activated environment that holds
# PyTorch 2.11 and maturin: `LIBTORCH_USE_PYTORCH=1 pip install --no-build-isolation
# ./crates/bias-py` (pip of the project's venv installs into the fresh one: --python, pip >= 22.3).
# Two differences, for time only: the dev profile (MATURIN_PEP517_ARGS), and a target folder of
# its own, since LIBTORCH_USE_PYTORCH rebuilds torch-sys and would invalidate target/debug.
VIRTUAL_ENV="$PWD/target/py-venv" PATH="$PWD/target/py-venv/bin:$PWD/$VENV/bin:$PATH" \
  LIBTORCH_USE_PYTORCH=1 MATURIN_PEP517_ARGS="--profile dev" CARGO_TARGET_DIR="$PWD/target/pip-build" \
  "$PY" -m pip --python target/py-venv/bin/python install --quiet --disable-pip-version-check \
  --no-build-isolation --no-deps ./crates/bias-py
cd target/py-venv && BIAS_ROOT="$OLDPWD" ./bin/python -m pytest -q -p no:cacheprovider \
  "$OLDPWD/crates/bias-py/tests"
