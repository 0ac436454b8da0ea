#!/usr/bin/env bash
# Every check and test of the project, in the order a failure is cheapest to find.
# Installs what the tests need when it is missing (npm packages, Debian's chromium, poppler's
# pdftotext and pdfinfo, which read the PDF reports back, and Schemathesis in a Python virtual
# environment).
# REGARD_TEST_DATABASE_URL=postgres://... also runs the Rust API and process suites against
# PostgreSQL (the first Rust pass stays on SQLite); with REGARD_TEST_S3 as well, that pass also
# runs the multi-node test (API nodes without workers beside a `regard worker`).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
stage_name=""
stage_start=$started
stages=""
# Starts a stage; the time of each finished stage is kept for the summary at the end.
step() {
  local now
  now=$(date +%s)
  if [ -n "$stage_name" ]; then
    stages+=$(printf '%6ss  %s' "$(( now - stage_start ))" "$stage_name")$'\n'
  fi
  stage_name="$*"
  stage_start=$now
  printf '\n==> %s (%ss)\n' "$*" "$(( now - started ))"
}

step "Installing what the tests need"
if ! command -v chromium >/dev/null 2>&1 || ! command -v pdftotext >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core poppler-utils >/dev/null
  else
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core poppler-utils >/dev/null
  fi
fi
# The web app's packages, installed again only when the lock file changed since the last install
# (`npm ci` wipes node_modules first: about 200 MB rewritten on every run).
lock_sha=$(sha256sum web/package-lock.json | cut -d' ' -f1)
if [ "$(cat web/node_modules/.regard-lock-sha256 2>/dev/null)" != "$lock_sha" ]; then
  (cd web && npm ci --no-audit --no-fund --loglevel=error)
  echo "$lock_sha" > web/node_modules/.regard-lock-sha256
fi
# REGARD_TEST_S3 set to an http(s) URL uses that S3 server; set to anything else (CI sets 1), the
# storage and API suites run against a local S3-protocol server started here.
case "${REGARD_TEST_S3:-}" in
  "" | http://* | https://*) ;;
  *)
    eval "$(scripts/s3-test-server.sh start)"
    trap 'scripts/s3-test-server.sh stop' EXIT
    ;;
esac

step "Rust formatting, and the test build with clippy's lints"
cargo fmt --all --check
# Clippy lints our crates while the test build compiles them, rather than in a `cargo clippy`
# pass of its own: that pass type-checks every dependency again (check-mode artifacts are not
# the test build's), which took 300 to 390 s of a cold run on the 2-core machine. This is what
# `cargo clippy` itself does: clippy-driver as the workspace's compiler wrapper (our crates only;
# the dependencies are built by plain rustc), given its arguments in CLIPPY_ARGS, each followed
# by `__CLIPPY_HACKERY__`. Exported, so that every cargo command below finds the same
# fingerprints and rebuilds nothing. The targets are those of `cargo clippy --all-targets`
# (libraries and binaries, plain and under test, integration tests, examples), and the
# PostgreSQL-only schema test (`test = false`, so not among them); the examples are compiled
# (as test harnesses, which `cargo test --examples` makes of them), not run.
command -v clippy-driver >/dev/null || { echo "clippy is missing: rustup component add clippy" >&2; exit 1; }
export RUSTC_WORKSPACE_WRAPPER=clippy-driver
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
cargo test --workspace --locked --lib --bins --tests --examples --test schema --no-run

step "Rust tests (SQLite${REGARD_TEST_S3:+, S3 storage suite})"
# Without the PostgreSQL URL, so this pass really runs on SQLite (the suites switch on it).
# Unit, binary and integration tests only (the examples are benchmarks, run by hand), all built
# above; the crates have no documentation tests, whose pass would type-check every crate again
# under rustdoc.
env -u REGARD_TEST_DATABASE_URL cargo test --workspace --locked --lib --bins --tests

if [ -n "${REGARD_TEST_DATABASE_URL:-}" ]; then
  step "Rust API, process and schema tests on PostgreSQL${REGARD_TEST_S3:+ and S3}"
  cargo test -p regard --locked --test api --test processes --test schema
fi

step "API contract (Schemathesis against the real binary), beside the web app's checks"
# Every check on every /api/v1 operation, a fixed seed and a bounded number of examples, so that
# the document cannot drift from the server (scripts/contract/). Schemathesis lives in a virtual
# environment in the user's cache (as the S3 test server does), installed once per version, so
# that a clean clone does not install it again.
SCHEMATHESIS_VERSION=4.32.5
venv="${XDG_CACHE_HOME:-$HOME/.cache}/regard/schemathesis-$SCHEMATHESIS_VERSION"
if [ "$("$venv/bin/schemathesis" --version 2>/dev/null | grep -o '[0-9.]*$')" != "$SCHEMATHESIS_VERSION" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi
test -x target/debug/regard
# The contract run (one Python process and one server, about one core) and the web app's checks
# (the type check and the lints, one core each in turn) share nothing, so they run side by side
# on the two cores: 171 s instead of 124 + 147 s one after the other (2-core AMD EPYC). The
# contract's output is kept in a file and printed after the web's, so that neither interleaves
# with the other; both are waited for, and either failing fails the stage. `bundle` is the
# build without its type check, which `typecheck` has just done.
contract_log=$(mktemp)
"$venv/bin/python" scripts/contract/run.py target/debug/regard \
  --checks all --max-examples 10 --seed 1 --no-color --generation-database none \
  >"$contract_log" 2>&1 &
contract_pid=$!
web_status=0
(cd web && npm run typecheck && npm run lint && npm run check:i18n && npm run check:api && npm test && npm run bundle) ||
  web_status=$?
contract_status=0
wait "$contract_pid" || contract_status=$?
printf '\n--- API contract (Schemathesis) ---\n'
cat "$contract_log"
rm -f "$contract_log"
if [ "$web_status" -ne 0 ] || [ "$contract_status" -ne 0 ]; then
  echo "web checks: exit $web_status; API contract: exit $contract_status" >&2
  exit 1
fi

step "auth-js compatibility and browser tests against the real binary"
# `cargo test` above built target/debug/regard for the CLI tests; a separate `cargo build` would
# resolve features without the dev-dependencies and recompile half the dependency tree.
test -x target/debug/regard
REGARD_BIN="$PWD/target/debug/regard" REGARD_WEB_DIR="$PWD/web/dist" \
  node --test --test-concurrency=1 web/e2e/

step "All tests passed"
printf '\nTime per stage:\n%s%6ss  in all\n' "$stages" "$(( $(date +%s) - started ))"
