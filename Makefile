# Signal Desk: the commands a newcomer needs. `make run` starts the product, `make test` runs
# every test (Rust on SQLite and, with TEST_DATABASE_URL, PostgreSQL; web unit tests; browser
# tests against the real binary; the fault-injection harness).

CARGO ?= cargo
NPM ?= npm
WEB := web
# Where cargo puts the debug binaries (CARGO_TARGET_DIR when set).
DEBUG_DIR := $(or $(CARGO_TARGET_DIR),$(CURDIR)/target)/debug

.PHONY: run web web-deps build test test-rust test-web test-e2e faults lint fmt bench bench-history clean

run: web
	$(CARGO) build --release -p signaldesk-server
	./target/release/signaldesk serve

web-deps:
	cd $(WEB) && $(NPM) ci --no-audit --no-fund

web: web-deps
	cd $(WEB) && $(NPM) run build

build: web
	$(CARGO) build --release -p signaldesk-server

test: lint test-rust test-web test-e2e faults

lint: web-deps
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	cd $(WEB) && $(NPM) run typecheck && $(NPM) run lint

test-rust:
	$(CARGO) test --workspace

test-web: web-deps
	cd $(WEB) && $(NPM) test

# Browser tests drive the debug binary; the e2e script builds the app into web/dist first.
test-e2e: web-deps
	$(CARGO) build -p signaldesk-server
	cd $(WEB) && SIGNALDESK_BIN=$(CURDIR)/target/debug/signaldesk $(NPM) run e2e

# SIGKILLs and a database outage against the debug binary, each followed by `signaldesk audit`
# (docs/reliability.md, "Faults"); PostgreSQL too when TEST_DATABASE_URL is set. Needs root
# (it mounts a tmpfs); about 5 minutes for both databases.
faults:
	$(CARGO) build -p signaldesk-server -p signaldesk-faults
	$(DEBUG_DIR)/signaldesk-faults --bin $(DEBUG_DIR)/signaldesk

fmt:
	$(CARGO) fmt --all

bench:
	$(CARGO) bench --workspace

# The long-history load test (docs/benchmarks.md, "A long history"): 100,000 and 1,000,000
# closed trades imported with `signaldesk history import` into a fresh SQLite file and, with
# TEST_DATABASE_URL, a fresh PostgreSQL database (dropped afterwards), then p50/p95 of the
# statistics and dashboard GETs against the release server. About 10 minutes; never in `make test`.
RELEASE_DIR := $(or $(CARGO_TARGET_DIR),$(CURDIR)/target)/release
, := ,
BENCH_DATABASES := $(if $(TEST_DATABASE_URL),sqlite$(,)postgres,sqlite)
bench-history:
	$(CARGO) build --release -p signaldesk-server -p signaldesk-history-bench
	for n in 100000 1000000; do \
		$(RELEASE_DIR)/signaldesk-history-bench --bin $(RELEASE_DIR)/signaldesk \
			--trades $$n --database $(BENCH_DATABASES) || exit 1; \
	done

clean:
	$(CARGO) clean
	rm -rf $(WEB)/dist $(WEB)/node_modules
