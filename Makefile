# The two commands of the README, and what they stand on.
#   make run    install what is missing, build, run the main job, show it
#   make check  install what is missing, build, run every test
# CMake + Ninja do the real build; this file only sequences it.

BUILD      ?= build
ASAN_BUILD ?= build-asan
PERFBOT    := $(BUILD)/perfbot
# make run: a short scaling sweep of the tests kernel test robot reports
# name most, until the job runner exists.
RUN_TESTS  ?= futex1 getppid1 malloc2 context_switch1
RUN_OPTS   ?= --sweep -w 1 -d 3

.PHONY: all deps build build-asan run check check-unit clean

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja

$(ASAN_BUILD)/build.ninja:
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPERFBOT_SANITIZE=ON

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

build-asan: deps $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)

run: build
	@for t in $(RUN_TESTS); do \
		echo "== perfbot bench $$t $(RUN_OPTS)"; \
		$(PERFBOT) bench $$t $(RUN_OPTS) || exit $$?; \
		echo; \
	done

# Unit tests under ASan+UBSan, then everything on the optimised build.
check: build build-asan
	cd $(ASAN_BUILD) && ctest --output-on-failure -L unit
	cd $(BUILD) && ctest --output-on-failure -j2

check-unit: build
	cd $(BUILD) && ctest --output-on-failure -L unit

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
