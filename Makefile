# Trails: `make demo` runs the default example, `make test` runs the test suite.
# Both install the Debian packages they need first (scripts/install-deps, idempotent).
BUILD ?= build
JOBS ?= 2
TRAILS := $(BUILD)/trails
# The OpenMM 8 build of the OpenMM engine's tests (scripts/test-openmm8, docs/engines.md).
OPENMM8_BUILD ?= build-openmm8
# Configured only, file by file (no unity units), for clang-tidy's compile commands.
LINT_BUILD ?= build-lint
# ccache shares objects between the two build folders (and between checkouts): paths below the
# checkout are hashed relative to it, and the build folder is not hashed.
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_NOHASHDIR ?= 1

.PHONY: deps deps-debian deps-demo bench-deps configure build build-trails install test test-openmm8 lint lint-format lint-tidy demo demo-mb bench clean

# Debian's packages, then .venv/ with OpenMM 8 from PyPI (scripts/install-venv;
# TRAILS_OPENMM_CUDA=12 adds its CUDA platform, about 350 MB).
deps: deps-debian
	@bash scripts/install-venv

# Trails-MD's own model code (deeptime, mlcolvar) in .venv for bench/trailsmd_models.py only
# (docs/performance.md); not needed by the build or the tests.
bench-deps: deps
	@bash scripts/install-venv --bench

# Debian's packages only: all that the build, the tests and the demos need (the venv's OpenMM 8
# serves the second OpenMM build of `make test`).
deps-debian:
	@bash scripts/install-deps

# The part of them that `make demo` needs (no test programs, services, Chromium or clang).
deps-demo:
	@bash scripts/install-deps --demo

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

configure: $(BUILD)/build.ninja

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

# Only what the demos run: the `trails` command (its libraries), not the tests and benches that
# `make build` and `make test` add (docs/quickstart.md; tests/scripts/first_contact.sh).
build-trails: deps-demo configure
	cmake --build $(BUILD) -j $(JOBS) --target trails

# The Python reader (docs/python.md) where /usr/bin/python3 finds it; PREFIX via
# `cmake -DCMAKE_INSTALL_PREFIX=...` at configure time (default /usr/local).
install: build
	cmake --install $(BUILD)

# The tests with clang-tidy beside them, then the OpenMM engine's tests against OpenMM 8. The tests
# leave about half of the CPU idle (they wait on walkers, queues and signals); clang-tidy (the slow
# half of the lint: about 17 minutes of 2 cores, seconds for the files its cache found clean
# before) takes it at nice 19, and its report follows the tests' (docs/architecture.md, "Lint").
# The sub-make is named through a variable: GNU make runs a line that names $(MAKE) even under
# `make -n`, and this one also runs the tests.
TIDY_MAKE = $(MAKE) --no-print-directory
test: build lint-format
	@nice -n 19 $(TIDY_MAKE) lint-tidy > $(BUILD)/lint-tidy.log 2>&1 & tidy=$$!; \
	  (cd $(BUILD) && ctest --output-on-failure -j $(JOBS)); tests=$$?; \
	  wait $$tidy; lint=$$?; cat $(BUILD)/lint-tidy.log; \
	  [ $$tests -eq 0 ] || echo "make test: the tests failed" >&2; \
	  [ $$lint -eq 0 ] || echo "make test: clang-tidy failed" >&2; \
	  [ $$tests -eq 0 ] && [ $$lint -eq 0 ]
	@$(MAKE) --no-print-directory test-openmm8

test-openmm8: deps
	bash scripts/test-openmm8 $(OPENMM8_BUILD) $(JOBS)

# Lint (docs/architecture.md, "Lint"): clang-format must leave every C++ file unchanged, and
# clang-tidy (.clang-tidy) must report no finding over src/ and apps/ (every enabled check is an
# error). Uses the compile commands of build-lint/ (configured without unity units, so each file is
# its own translation unit); JOBS files at a time.
LINT_FILES = $(shell git ls-files 'src/*.cpp' 'src/*.h' 'apps/*.cpp' 'apps/*.h' 'tests/*.cpp' \
             'tests/*.h' 'bench/*.cpp' 'bench/*.h')
# clang cannot parse OpenMM 7.7's headers with libstdc++ 12 (std::vector members of incomplete
# types, which GCC accepts), so engines/openmm (the one library that includes OpenMM) is tidied
# with the compile commands of the OpenMM 8 build. The learned module's files that include
# libtorch 1.13 are left out (its c10::IValue containers fail the same way).
TORCH_FILES = $(wildcard src/trails/learned/*_training.cpp src/trails/learned/torch*.cpp)
OPENMM_TIDY_FILES = $(filter src/trails/engines/openmm/%.cpp,$(LINT_FILES))
TIDY_FILES = $(filter-out $(OPENMM_TIDY_FILES) $(TORCH_FILES),$(filter src/%.cpp apps/%.cpp,$(LINT_FILES)))

lint: lint-format lint-tidy

lint-format: deps
	@echo "lint: clang-format over $(words $(LINT_FILES)) files"
	@clang-format --dry-run -Werror $(LINT_FILES)

lint-tidy: deps configure
	@echo "lint: clang-tidy over $(words $(TIDY_FILES)) files, $(JOBS) at a time"
	@cmake -S . -B $(LINT_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=OFF \
	  > /dev/null
	@bash scripts/lint-tidy $(LINT_BUILD) $(JOBS) $(TIDY_FILES)
	@bash scripts/test-openmm8 $(OPENMM8_BUILD) $(JOBS) configure
	@echo "lint: clang-tidy over $(words $(OPENMM_TIDY_FILES)) files of engines/openmm against OpenMM 8"
	@bash scripts/lint-tidy $(OPENMM8_BUILD) $(JOBS) $(OPENMM_TIDY_FILES)

demo: build-trails
	bash examples/alanine-dipeptide/run-demo.sh $(TRAILS)

demo-mb: build-trails
	bash examples/muller-brown/run-demo.sh $(TRAILS)

bench: build
	bash bench/run-overhead.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(OPENMM8_BUILD) $(LINT_BUILD)
