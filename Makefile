# polluxsim: build, test, benchmark, lint.
# The Go build cache (GOCACHE) is kept between targets, so after the first
# cold build (minutes: 4 min of CPU, mostly Apache Arrow; see README) the
# others are quick.

GO      ?= go
BIN     ?= bin/polluxsim
PKGS    := ./...
FUZZTIME ?= 10s
FUZZMINTIME ?= 200x

.PHONY: all build test bench lint fuzz run clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/polluxsim

# The README's test command: vet, formatting, then every test.
# TESTTIMEOUT replaces go test's default 10-minute limit per package
# binary, which cmd/polluxsim/app (its CLI tests run the binary hundreds
# of times) passed on a busy two-core machine: 11 min there against
# 2.5 min idle. 45 min is four times the loaded figure and still ends a
# hung test well inside CI's 90-minute limit.
TESTTIMEOUT ?= 45m
test: lint
	$(GO) test -count=1 -timeout $(TESTTIMEOUT) $(PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# Every fuzz target of every package, one after another (Go fuzzes one
# target per invocation), each for FUZZTIME: `make fuzz FUZZTIME=1m`, or
# a count of executions, `FUZZTIME=20000x`, which CI uses: Go 1.26's fuzz
# coordinator can fail a duration-bound run with a spurious "context
# deadline exceeded" when the time runs out (golang/go#75804, fixed in 1.27).
# Targets are found by name (func FuzzX in *_test.go), so new ones join.
# FUZZMINTIME bounds the minimisation of each new input (Go's default, a
# minute, stalls the whole run while it lasts).
fuzz:
	@set -e; for dir in $$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do \
	  for t in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$dir/*_test.go); do \
	    echo "== $$dir $$t ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) $$dir; \
	  done; \
	done

# The main job: one Pollux run on the embedded default workload and profiles.
run: build
	$(BIN) run --out out/run

clean:
	rm -rf bin out
