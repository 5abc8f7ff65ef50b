# The libFuzzer targets and their CTest tests (label `fuzz`), included by
# CMakeLists.txt when PERFBOT_FUZZ is on.  tests/fuzz/README.md says how
# they are run; run.sh is the one place that knows libFuzzer's flags.

set(FUZZ_DIR ${CMAKE_SOURCE_DIR}/tests/fuzz)

# name, source, and a definition that picks what the source fuzzes
set(FUZZ_TARGETS
	"job|fuzz_job.c|"
	"import_lkp|fuzz_import.c|IMPORT_FN=import_lkp_matrix"
	"import_csv|fuzz_import.c|IMPORT_FN=import_csv"
	"parse_kv|fuzz_parser.c|PARSE_KIND=\"kv\""
	"parse_json|fuzz_parser.c|PARSE_KIND=\"json\""
	"parse_gbench|fuzz_parser.c|PARSE_KIND=\"gbench\""
	"parse_hyperfine|fuzz_parser.c|PARSE_KIND=\"hyperfine\""
	"parse_time|fuzz_parser.c|PARSE_KIND=\"time\""
	"store|fuzz_store.c|"
	"bisect_log|fuzz_bisect_log.c|"
	"registry|fuzz_registry.c|")

add_custom_target(fuzz-targets)
foreach(entry ${FUZZ_TARGETS})
	string(REPLACE "|" ";" parts "${entry}")
	list(GET parts 0 name)
	list(GET parts 1 src)
	list(GET parts 2 def)
	add_executable(fuzz_${name} ${FUZZ_DIR}/${src})
	target_link_libraries(fuzz_${name} PRIVATE perfbot_core)
	target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
	if(def)
		target_compile_definitions(fuzz_${name} PRIVATE ${def})
	endif()
	add_dependencies(fuzz-targets fuzz_${name})

	set(work ${CMAKE_BINARY_DIR}/fuzz/${name})
	# every corpus file once: the regression inputs, crashes fixed once
	add_test(NAME fuzz/${name}/corpus COMMAND bash ${FUZZ_DIR}/run.sh corpus
		$<TARGET_FILE:fuzz_${name}> ${FUZZ_DIR}/corpus/${name} ${work})
	# then new inputs for FUZZ_SECONDS (environment; 20 by default)
	add_test(NAME fuzz/${name}/run COMMAND bash ${FUZZ_DIR}/run.sh check
		$<TARGET_FILE:fuzz_${name}> ${FUZZ_DIR}/corpus/${name} ${work})
	# fuzzing takes both cores' worth of attention: alone, so that it
	# neither slows nor is slowed by anything timing-sensitive
	set_tests_properties(fuzz/${name}/corpus fuzz/${name}/run PROPERTIES
		LABELS fuzz RUN_SERIAL TRUE TIMEOUT 900)
endforeach()

# Writes the store target's seeds (make-store-seeds.sh), with the store API.
add_executable(make_store_seed ${FUZZ_DIR}/make_store_seed.c)
target_link_libraries(make_store_seed PRIVATE perfbot_core)
target_link_options(make_store_seed PRIVATE -fsanitize=address,undefined)
add_dependencies(fuzz-targets make_store_seed)
