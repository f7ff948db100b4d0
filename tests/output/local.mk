# Output, previews, progress, checkpoints: tests and the output benchmark.
check_PROGRAMS += tests/output/write-views
tests_output_write_views_SOURCES = tests/output/write_views.c
tests_output_write_views_LDADD = core/libmscore.la $(LIBCONFIG_LIBS)
tests_output_write_views_LDFLAGS = $(OPENMP_CFLAGS)

TESTS += tests/output/frames.test
EXTRA_DIST += tests/output/frames.test tests/output/frames.py \
	tests/output/types_check.py tests/output/outcheck.py \
	tests/output/touching.cfg
TESTS += tests/output/resume.test
EXTRA_DIST += tests/output/resume.test tests/output/resume.cfg \
	tests/output/complete.py
TESTS += tests/output/preview.test
EXTRA_DIST += tests/output/preview.test tests/output/png_check.py
TESTS += tests/output/progress.test
EXTRA_DIST += tests/output/progress.test
TESTS += tests/output/manpages.test
EXTRA_DIST += tests/output/manpages.test

# ---- benchmark: the cost of one big frame (make bench) -------------------
EXTRA_PROGRAMS += tests/output/bench-output
MS_BENCHES += tests/output/bench-output
tests_output_bench_output_SOURCES = tests/output/bench_output.c
tests_output_bench_output_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE $(LIBCONFIG_CFLAGS)
tests_output_bench_output_LDADD = core/libmscore.la $(LIBCONFIG_LIBS)
tests_output_bench_output_LDFLAGS = $(OPENMP_CFLAGS)
