# polluxsim: build, test, benchmark, lint.
# The Go build cache (GOCACHE) is kept between targets, so after the first
# cold build (about two minutes on two cores, mostly Apache Arrow) the
# others are quick.

GO      ?= go
BIN     ?= bin/polluxsim
PKGS    := ./...
FUZZTIME ?= 10s

.PHONY: all build test bench lint fuzz run clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/polluxsim

# The README's test command: vet, formatting, then every test.
test: lint
	$(GO) test -count=1 $(PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# The main job: one Pollux run on the embedded default workload and profiles.
run: build
	$(BIN) run --out out/run

clean:
	rm -rf bin out
