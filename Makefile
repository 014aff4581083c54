# Signal Desk: the commands a newcomer needs. `make run` starts the product, `make test` runs
# every test (Rust on SQLite and, with TEST_DATABASE_URL, PostgreSQL; web unit tests; browser
# tests against the real binary; the fault-injection harness).

CARGO ?= cargo
NPM ?= npm
WEB := web
# Where cargo puts the debug binaries (CARGO_TARGET_DIR when set).
DEBUG_DIR := $(or $(CARGO_TARGET_DIR),$(CURDIR)/target)/debug

.PHONY: run web web-deps build test test-rust test-web test-e2e faults fuzz fuzz-api fuzz-targets openapi lint fmt bench bench-history load clean

run: web
	$(CARGO) build --release -p signaldesk-server
	./target/release/signaldesk serve

web-deps:
	cd $(WEB) && $(NPM) ci --no-audit --no-fund

web: web-deps
	cd $(WEB) && $(NPM) run build

build: web
	$(CARGO) build --release -p signaldesk-server

# Each part in turn, stopping at the first failure, with its time (so a CI log shows where
# the minutes go).
TEST_PARTS := lint test-rust test-web test-e2e faults fuzz
test: web-deps
	@for part in $(TEST_PARTS); do \
		start=$$(date +%s); \
		$(MAKE) --no-print-directory -o web-deps $$part || exit 1; \
		echo "== make $$part: $$(( $$(date +%s) - start )) s"; \
	done

lint: web-deps
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	python3 -m openapi_spec_validator $(WEB)/openapi.json
	cd $(WEB) && $(NPM) run api:check && $(NPM) run typecheck && $(NPM) run lint

# The API contract: web/openapi.json from the server's routes, then the web app's types from
# it. Run after changing a route or a view; the server's tests and `make lint` fail when stale.
openapi:
	$(CARGO) run -q -p signaldesk-server -- openapi > $(WEB)/openapi.json
	cd $(WEB) && $(NPM) run api:types

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
# (it mounts a tmpfs); about 10 minutes for both databases.
faults:
	$(CARGO) build -p signaldesk-server -p signaldesk-faults
	$(DEBUG_DIR)/signaldesk-faults --bin $(DEBUG_DIR)/signaldesk

# Hostile input, bounded in time: schemathesis with every check against the live debug binary
# (tools/fuzz-api.sh, FUZZ_API_SECONDS, default 120) and the cargo-fuzz targets (fuzz-targets).
fuzz: fuzz-api fuzz-targets

fuzz-api:
	$(CARGO) build -p signaldesk-server
	tools/fuzz-api.sh $(DEBUG_DIR)/signaldesk

# Every cargo-fuzz target in fuzz/ for FUZZ_SECONDS each (nightly toolchain and cargo-fuzz;
# docs/security.md, "Fuzzing"). Starts from the committed seeds in fuzz/corpus/<target>/ and
# grows fuzz/grown-corpus/<target>/; fails on the first crash, whose input libFuzzer writes to
# fuzz/artifacts/<target>/. The first build takes about 5.5 minutes on 2 cores.
FUZZ_SECONDS ?= 20

fuzz-targets:
	cd fuzz && targets="$$($(CARGO) +nightly fuzz list)" && test -n "$$targets" && \
	for target in $$targets; do \
		mkdir -p grown-corpus/$$target && \
		$(CARGO) +nightly fuzz run $$target grown-corpus/$$target corpus/$$target -- \
			-max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 || exit 1; \
	done

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

# The load test (docs/benchmarks.md, "Many users"): 1,000 simulated users (login, live
# websocket, settings polled every 5 s, dashboard and statistics) for 30 s of ramp and 60 s
# measured, then 10,000 idle authenticated websockets held for 30 s, against the release
# server: one instance on SQLite and, with TEST_DATABASE_URL, one and two instances on a fresh
# PostgreSQL database (dropped afterwards). About 10 minutes; never in `make test`.
LOAD_SETUPS := sqlite:1 $(if $(TEST_DATABASE_URL),postgres:1 postgres:2)
load:
	$(CARGO) build --release -p signaldesk-server -p signaldesk-load
	for setup in $(LOAD_SETUPS); do \
		for scenario in users sockets; do \
			$(RELEASE_DIR)/signaldesk-load --bin $(RELEASE_DIR)/signaldesk --scenario $$scenario \
				--database $${setup%:*} --instances $${setup#*:} --duration $$( [ $$scenario = users ] && echo 60 || echo 30 ) \
				|| exit 1; \
		done; \
	done

clean:
	$(CARGO) clean
	rm -rf $(WEB)/dist $(WEB)/node_modules
