#!/usr/bin/env bash
# Runs the official auth client's own test suite (supabase/auth-js, its `test/` folder with jest)
# against `regard serve`, as issue 15 measures it. The suite stays outside the repository:
#
#   scripts/auth-js-suite.sh PATH_TO_AUTH_JS [REGARD_BINARY]
#
# PATH_TO_AUTH_JS is a checkout of github.com/supabase/auth-js (measured at commit 25c6b42). Its
# docker-compose file stands up four GoTrue services; here four `regard serve` processes stand in
# for them, each with its own data folder, behind a tiny loopback proxy on the suite's port that
# maps `/` to `/auth/v1/`:
#   9999  sign-up on, e-mail confirmation on (auto-confirm off), phone sign-in on
#   9998  sign-up on, auto-confirm (the main client), phone sign-in with SMS auto-confirm,
#         anonymous sign-ins on
#   9997  sign-up off
#   9996  sign-up on, auto-confirm, tokens signed with an ES256 key (`regard keys generate`)
# with the suite's JWT secret, sign-in/sign-up rate limits off (it signs up about 60 users
# from one address), and redirects allowed to every localhost port (GoTrue compares host names
# only; Regard compares origins, so the suite's `redirectTo` to a sibling port needs the
# allow-list). The four share one issuer, as the nodes of one deployment do (a session made on
# one is used on another), and take the suite's admin tokens, which have no `exp`. The suite's
# services have no working SMS provider (Twilio without
# credentials, or none), so here every SMS goes to a gateway that refuses connections.
# Prints jest's summary; the exit status is jest's.
set -euo pipefail
suite=${1:?usage: scripts/auth-js-suite.sh PATH_TO_AUTH_JS [REGARD_BINARY]}
suite=$(cd "$suite" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${2:-$root/target/debug/regard}
[ -x "$bin" ] || { echo "no regard binary at $bin (cargo build -p regard)" >&2; exit 2; }
command -v node >/dev/null || { echo "node is needed" >&2; exit 2; }

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The suite's dependencies (once per checkout).
[ -d "$suite/node_modules" ] || (cd "$suite" && npm ci --no-audit --no-fund --loglevel=error)
[ -d "$suite/test/node_modules" ] || npm --prefix "$suite/test" ci --no-audit --no-fund --loglevel=error

secret='37c304f8-51aa-419a-a1af-06154e63707a'
# Waits until the server on an internal port answers its health check.
healthy() {
  for _ in $(seq 1 100); do
    if node -e "require('http').get('http://127.0.0.1:$1/healthz',r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"; then
      return 0
    fi
    sleep 0.2
  done
  echo "the server on port $1 did not start; its log:" >&2
  cat "$work/$(($1 - 10000)).log" >&2
  exit 2
}
# The suite's four GoTrue services share one database, as they do in its docker-compose file
# (a user signed up on one is administered through another): one SQLite file here.
shared_db="sqlite://$work/shared.db?mode=rwc"
start() { # public port, internal port, extra env...
  local public=$1 internal=$2
  shift 2
  mkdir -p "$work/$public"
  env REGARD_BIND="127.0.0.1:$internal" REGARD_DATA_DIR="$work/$public" \
    REGARD_SITE_URL="http://localhost:$public" REGARD_JWT_SECRET="$secret" \
    REGARD_DATABASE_URL="$shared_db" \
    REGARD_RATE_LIMIT_SIGN_IN=0 REGARD_RATE_LIMIT_SIGN_UP=0 REGARD_RATE_LIMIT_EMAIL=0 \
    REGARD_MAIL_MAX_FREQUENCY=0 REGARD_WEB_DIR="$work/no-web" \
    REGARD_RATE_LIMIT_SMS_PER_NUMBER=0 REGARD_RATE_LIMIT_SMS_PER_IP=0 \
    REGARD_RATE_LIMIT_SMS_SENT=0 REGARD_RATE_LIMIT_REAUTHENTICATION=0 \
    REGARD_PASSWORD_CHANGE_NEEDS_CURRENT=false \
    REGARD_REDIRECT_ALLOW_LIST='http://localhost:*/**' \
    REGARD_JWT_ISSUER=http://localhost/auth/v1 REGARD_ADMIN_TOKENS_WITHOUT_EXP=true "$@" \
    "$bin" serve >"$work/$public.log" 2>&1 &
  pids+=($!)
}
# Port 9 (discard) on loopback refuses connections: SMS sending fails, as in the suite.
no_sms=(REGARD_SMS_WEBHOOK_URL=http://127.0.0.1:9/sms)
start 9999 19999 REGARD_MAILER_AUTOCONFIRM=false REGARD_PHONE_SIGN_IN=true "${no_sms[@]}"
# The first one creates the shared database (its migrations) before the others open it.
healthy 19999
start 9998 19998 REGARD_MAILER_AUTOCONFIRM=true REGARD_PHONE_SIGN_IN=true \
  REGARD_SMS_AUTOCONFIRM=true REGARD_ANONYMOUS_SIGN_IN=true "${no_sms[@]}"
start 9997 19997 REGARD_DISABLE_SIGNUP=true REGARD_MAILER_AUTOCONFIRM=false
start 9996 19996 REGARD_MAILER_AUTOCONFIRM=true REGARD_PHONE_SIGN_IN=true \
  REGARD_SMS_AUTOCONFIRM=true "${no_sms[@]}" REGARD_JWT_KEYS="[$("$bin" keys generate)]"
for port in 19998 19997 19996; do healthy "$port"; done

# The proxies: localhost:<public>/<path> → 127.0.0.1:<internal>/auth/v1/<path>.
cat >"$work/proxy.mjs" <<'EOF'
import http from 'node:http';
for (const port of [9999, 9998, 9997, 9996]) {
  http
    .createServer((req, res) => {
      const upstream = http.request(
        { host: '127.0.0.1', port: port + 10000, path: `/auth/v1${req.url}`, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      req.pipe(upstream);
    })
    .listen(port, 'localhost');
}
EOF
node "$work/proxy.mjs" &
pids+=($!)


cd "$suite/test"
set +e
npx jest --runInBand --coverage=false --verbose >"$work/jest.log" 2>&1
status=$?
set -e
grep -E '^(Tests|Test Suites):' "$work/jest.log" || tail -20 "$work/jest.log"
# The failing tests' names, for the record.
grep -E '^\s+✕' "$work/jest.log" || true
exit "$status"
