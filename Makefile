# Regard: the two commands a new user needs.
#   make run   builds the web app and the server, then starts Regard on http://localhost:8080
#   make test  runs every check and test (Rust, web unit tests, auth-js compatibility, browser)

.PHONY: run test web build api clean

run: web
	cargo run --release -p regard -- serve

web:
	cd web && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && npm run build

build: web
	cargo build --release -p regard

test:
	bash scripts/test.sh

# After a change to an /api/v1 handler or body type: the checked-in OpenAPI document and the web
# app's types generated from it (the test command fails while either is stale).
api:
	cargo run -q -p regard -- openapi > web/src/api/openapi.json
	cd web && npm run gen:api

clean:
	cargo clean
	rm -rf web/dist web/node_modules
