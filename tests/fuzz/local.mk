# `make fuzz`: libFuzzer over the scene loader, with ASan and UBSan.
# Needs clang (Debian: apt-get install clang).  The core's sources are
# compiled again with clang's coverage instrumentation; nothing here is
# part of the build or of `make check`.
FUZZ_CC = clang
FUZZ_RUNS = 1000000
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all
FUZZ_SRCS = $(filter %.c,$(core_libmscore_la_SOURCES))
EXTRA_DIST += tests/fuzz/fuzz_scene.c tests/lsan.supp

tests/fuzz/fuzz_scene: $(top_srcdir)/tests/fuzz/fuzz_scene.c \
		$(FUZZ_SRCS:%=$(top_srcdir)/%)
	@command -v $(FUZZ_CC) >/dev/null || { \
	  echo "make fuzz needs $(FUZZ_CC) (apt-get install clang)"; exit 1; }
	$(AM_V_CC)$(MKDIR_P) tests/fuzz && \
	$(FUZZ_CC) $(FUZZ_FLAGS) $(core_libmscore_la_CPPFLAGS) \
	  -I$(top_srcdir)/core $(OPENMP_CFLAGS) -pthread -o $@ \
	  $(top_srcdir)/tests/fuzz/fuzz_scene.c $(FUZZ_SRCS:%=$(top_srcdir)/%) \
	  $(LIBCONFIG_LIBS) $(CAIRO_LIBS) -lm -ldl

# The corpus starts from every scene of configs/ and tests/data/; what the
# fuzzer finds stays in tests/fuzz/corpus for the next run.  A crash
# leaves its input as tests/fuzz/crash-* and fails the target.
fuzz: tests/fuzz/fuzz_scene
	$(MKDIR_P) tests/fuzz/corpus
	find $(top_srcdir)/configs $(top_srcdir)/tests/data -name '*.cfg' \
	  -exec cp {} tests/fuzz/corpus/ \;
	LSAN_OPTIONS=suppressions=$(abs_top_srcdir)/tests/lsan.supp \
	  tests/fuzz/fuzz_scene -runs=$(FUZZ_RUNS) -max_len=8192 \
	  -print_final_stats=1 -artifact_prefix=tests/fuzz/ tests/fuzz/corpus
.PHONY: fuzz
CLEANFILES += tests/fuzz/fuzz_scene
