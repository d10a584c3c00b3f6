# Trails: `make demo` runs the default example, `make test` runs the test suite.
# Both install the Debian packages they need first (scripts/install-deps, idempotent).
BUILD ?= build
JOBS ?= 2
TRAILS := $(BUILD)/trails

.PHONY: deps configure build test demo demo-mb bench clean

deps:
	@bash scripts/install-deps

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

configure: $(BUILD)/build.ninja

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

demo: build
	bash examples/alanine-dipeptide/run-demo.sh $(TRAILS)

demo-mb: build
	bash examples/muller-brown/run-demo.sh $(TRAILS)

bench: build
	bash bench/run-overhead.sh $(BUILD)

clean:
	rm -rf $(BUILD)
