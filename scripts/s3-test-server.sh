#!/usr/bin/env bash
# A throwaway S3-protocol server on loopback for the storage tests (moto in server mode).
#
#   eval "$(scripts/s3-test-server.sh start)"   # installs moto if needed, starts it, prints exports
#   cargo test -p regard --test storage         # now also runs the suite against S3
#   scripts/s3-test-server.sh stop
#
# `start` prints shell `export` lines (REGARD_TEST_S3, REGARD_TEST_S3_BUCKET, AWS_*) on stdout and
# everything else on stderr, so it is safe to eval. moto is installed once into a virtual
# environment under ${XDG_CACHE_HOME:-~/.cache}/regard/moto-venv (CI machines start bare; later
# runs reuse it). Nothing listens beyond 127.0.0.1.
set -euo pipefail

cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/regard"
venv="$cache_dir/moto-venv"
state_dir="${REGARD_S3_STATE_DIR:-${TMPDIR:-/tmp}/regard-s3-test-server-$(id -u)}"
pid_file="$state_dir/pid"
bucket="${REGARD_TEST_S3_BUCKET:-regard-test}"
moto_version="${REGARD_MOTO_VERSION:-5.1.*}"

log() { printf 's3-test-server: %s\n' "$*" >&2; }

install_moto() {
  # The marker is written last, so an interrupted install is redone rather than half used.
  if [ -f "$venv/.regard-installed" ]; then
    return
  fi
  log "installing moto[server] $moto_version into $venv (once)"
  mkdir -p "$cache_dir"
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$moto_version" >&2
  touch "$venv/.regard-installed"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

print_env() {
  local port="$1"
  cat <<EOF
export REGARD_TEST_S3=http://127.0.0.1:$port
export REGARD_TEST_S3_BUCKET=$bucket
export AWS_ACCESS_KEY_ID=regard-test
export AWS_SECRET_ACCESS_KEY=regard-test
export AWS_REGION=us-east-1
EOF
}

start() {
  if [ -f "$pid_file" ] && kill -0 "$(cat "$pid_file")" 2>/dev/null; then
    log "already running (pid $(cat "$pid_file"))"
    print_env "$(cat "$state_dir/port")"
    return
  fi
  install_moto
  mkdir -p "$state_dir"
  local port
  port="$(free_port)"
  # setsid: the server outlives the shell that started it and gets its own process group,
  # so `stop` can end exactly this server and nothing else.
  setsid "$venv/bin/moto_server" -H 127.0.0.1 -p "$port" >"$state_dir/log" 2>&1 </dev/null &
  echo $! >"$pid_file"
  echo "$port" >"$state_dir/port"
  # Wait until it answers (up to 30 s) rather than sleeping a fixed time.
  local i
  for i in $(seq 1 300); do
    if curl -fsS -o /dev/null "http://127.0.0.1:$port/moto-api/" 2>/dev/null; then
      break
    fi
    if ! kill -0 "$(cat "$pid_file")" 2>/dev/null; then
      log "moto_server exited; its log:"
      cat "$state_dir/log" >&2
      exit 1
    fi
    sleep 0.1
  done
  # moto does not check signatures by default, so a plain PUT creates the test bucket.
  curl -fsS -o /dev/null -X PUT "http://127.0.0.1:$port/$bucket"
  log "listening on http://127.0.0.1:$port (bucket $bucket, pid $(cat "$pid_file"))"
  print_env "$port"
}

stop() {
  if [ -f "$pid_file" ]; then
    local pid
    pid="$(cat "$pid_file")"
    # The server was started with setsid, so its process group id is its pid.
    kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
    rm -f "$pid_file" "$state_dir/port"
    log "stopped (pid $pid)"
  else
    log "not running"
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  env) print_env "$(cat "$state_dir/port")" ;;
  install) install_moto ;;
  *)
    echo "usage: $0 start|stop|env|install" >&2
    exit 2
    ;;
esac
