# The two commands of the README, and what they stand on.
#   make run    install what is missing, build, run the main job, show it
#   make check  install what is missing, build, run every test
# CMake + Ninja do the real build; this file only sequences it.

BUILD      ?= build
ASAN_BUILD ?= build-asan
PERFBOT    := $(BUILD)/perfbot
# make run: perfbot's main job -- jobs/smoke.yaml into the default store
# (about a minute), then what is stored for it.
RUN_JOB    ?= jobs/smoke.yaml

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
	$(PERFBOT) run $(RUN_JOB)
	@echo
	$(PERFBOT) results --testcase will-it-scale --commit "$$(uname -r)"

# Unit tests under ASan+UBSan, then everything on the optimised build.
check: build build-asan
	cd $(ASAN_BUILD) && ctest --output-on-failure -L unit
	cd $(BUILD) && ctest --output-on-failure -j2

check-unit: build
	cd $(BUILD) && ctest --output-on-failure -L unit

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
