# The two commands of the README, and what they stand on.
#   make run    install what is missing, build, run the main job, show it
#   make check  install what is missing, build, run every test
# CMake + Ninja do the real build; this file only sequences it.

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
# seconds of fuzzing per libFuzzer target: in check, and in make fuzz
FUZZ_SECONDS ?= 20
FUZZ_LONG_SECONDS ?= 300
FUZZ_TARGETS = job import_lkp import_csv parse_kv parse_json parse_gbench \
	       parse_hyperfine parse_time store bisect_log
PERFBOT    := $(BUILD)/perfbot
# make run: perfbot's main job -- jobs/smoke.yaml into the default store
# (about a minute), then what is stored for it.
RUN_JOB    ?= jobs/smoke.yaml

.PHONY: all deps build build-asan build-fuzz run check check-unit check-fuzz fuzz clean

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

$(FUZZ_BUILD)/build.ninja:
	cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_C_COMPILER=clang \
		-DCMAKE_BUILD_TYPE=Debug -DPERFBOT_FUZZ=ON

# only the fuzz targets: the rest of that tree is never run
build-fuzz: deps $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD) fuzz-targets

run: build
	$(PERFBOT) run $(RUN_JOB)
	@echo
	$(PERFBOT) results --testcase will-it-scale --commit "$$(uname -r)"

# Unit tests under ASan+UBSan, then everything on the optimised build,
# then the fuzz targets, one at a time after the timing-sensitive e2e
# tests (tests/fuzz/README.md).
check: build build-asan build-fuzz
	cd $(ASAN_BUILD) && ctest --output-on-failure -L unit
	cd $(BUILD) && ctest --output-on-failure -j2
	$(MAKE) --no-print-directory check-fuzz

check-fuzz: build-fuzz
	cd $(FUZZ_BUILD) && FUZZ_SECONDS=$(FUZZ_SECONDS) ctest --output-on-failure -L fuzz

# Longer fuzzing for developers: new inputs kept, minimised, in
# $(FUZZ_BUILD)/fuzz/<target>/corpus (never in the source tree).
fuzz: build-fuzz
	@failed=; for t in $(FUZZ_TARGETS); do \
		echo "== fuzz_$$t: $(FUZZ_LONG_SECONDS) s"; \
		FUZZ_SECONDS=$(FUZZ_LONG_SECONDS) bash tests/fuzz/run.sh fuzz \
			$(FUZZ_BUILD)/fuzz_$$t tests/fuzz/corpus/$$t \
			$(FUZZ_BUILD)/fuzz/$$t || failed="$$failed $$t"; \
	done; \
	[ -z "$$failed" ] || { echo "perfbot: fuzz targets failed:$$failed" >&2; exit 1; }

check-unit: build
	cd $(BUILD) && ctest --output-on-failure -L unit

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
