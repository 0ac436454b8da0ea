"""The API contract check: Schemathesis against the real server.

Starts `regard serve` (no workers, request limits off, a fresh data folder, a free loopback
port read back from its "listening" line), creates a user and a few of each kind of item
(see `hooks.py`), then runs every Schemathesis check on every operation of /api/v1 with a fixed
seed and a bounded number of examples. Exits with Schemathesis' status.

Usage: python scripts/contract/run.py REGARD_BIN [schemathesis options...]
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
PASSWORD = "Contract-check-2026"
EMAIL = "contract@example.com"


def main() -> int:
    binary, extra = sys.argv[1], sys.argv[2:]
    data_dir = tempfile.mkdtemp(prefix="regard-contract-")
    # Never the developer's whole shell: a REGARD_* variable there would change what is checked.
    env = {k: os.environ[k] for k in ("PATH", "HOME", "TMPDIR", "LANG") if k in os.environ}
    env.update(
        REGARD_DATA_DIR=data_dir,
        REGARD_BIND="127.0.0.1:0",
        REGARD_NO_WORKER="true",
        REGARD_RATE_LIMIT_UPLOADS="0",
        REGARD_RATE_LIMIT_ASSISTANT="0",
        REGARD_RATE_LIMIT_SIGN_IN="0",
        # Limits against abuse would answer a long generated run's valid requests 429 or 409.
        REGARD_RATE_LIMIT_INVITATIONS="0",
        REGARD_RATE_LIMIT_INVITATIONS_PER_ADDRESS="0",
        REGARD_RATE_LIMIT_MENTIONS="0",
        REGARD_RATE_LIMIT_SHARED="0",
        REGARD_RATE_LIMIT_SHARED_PER_LINK="0",
        REGARD_MAX_WORKSPACES_PER_USER="0",
        NO_COLOR="1",
        RUST_LOG="warn,regard::startup=info",
    )
    subprocess.run(
        [binary, "admin", "create-user", "--email", EMAIL],
        input=PASSWORD + "\n", text=True, env=env, check=True, capture_output=True,
    )
    server = subprocess.Popen(
        [binary, "serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        base = None
        for line in server.stdout:
            found = re.search(r"listening.*?address\S*?(127\.0\.0\.1:\d+)", line)
            if found:
                base = f"http://{found.group(1)}"
                break
        if base is None:
            print("the server exited before it listened", file=sys.stderr)
            return 1
        # Keep reading the server's output so that it never blocks on a full pipe.
        import threading

        threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
        request = urllib.request.Request(
            f"{base}/auth/v1/token?grant_type=password",
            data=json.dumps({"email": EMAIL, "password": PASSWORD}).encode(),
            headers={"content-type": "application/json"},
        )
        token = json.load(urllib.request.urlopen(request))["access_token"]
        hooks_env = dict(os.environ)
        hooks_env.update(
            REGARD_CONTRACT_URL=f"{base}/api/v1",
            REGARD_CONTRACT_TOKEN=token,
            SCHEMATHESIS_HOOKS="hooks",
            PYTHONPATH=str(HERE),
        )
        command = [
            str(Path(sys.executable).parent / "schemathesis"),
            "--config-file", str(HERE / "schemathesis.toml"),
            "run", f"{base}/api/v1/openapi.json",
            *extra,
        ]
        # Run from the temporary folder: what Schemathesis keeps between runs (failures to
        # replay) never lands in the repository, and no earlier run changes this one.
        return subprocess.run(command, env=hooks_env, cwd=data_dir).returncode
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
