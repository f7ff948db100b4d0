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
TESTS += tests/output/resume_solvers.test
EXTRA_DIST += tests/output/resume_solvers.test tests/bench/resume_kill.py
TESTS += tests/output/preview.test
EXTRA_DIST += tests/output/preview.test tests/output/png_check.py
TESTS += tests/output/progress.test
EXTRA_DIST += tests/output/progress.test
TESTS += tests/output/manpages.test
EXTRA_DIST += tests/output/manpages.test
TESTS += tests/output/compress.test
EXTRA_DIST += tests/output/compress.test
TESTS += tests/output/surface.test
EXTRA_DIST += tests/output/surface.test
TESTS += tests/output/plot.test
EXTRA_DIST += tests/output/plot.test tests/output/plot_check.py

# ---- benchmark: the cost of one big frame (make bench) -------------------
EXTRA_PROGRAMS += tests/output/bench-output
MS_BENCHES += tests/output/bench-output
tests_output_bench_output_SOURCES = tests/output/bench_output.c
tests_output_bench_output_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE $(LIBCONFIG_CFLAGS)
tests_output_bench_output_LDADD = core/libmscore.la $(LIBCONFIG_LIBS)
tests_output_bench_output_LDFLAGS = $(OPENMP_CFLAGS)

# ---- unit tests (Check): checksum, atomic files, writers, colours, camera --
check_PROGRAMS += tests/output/run-output-unit
tests_output_run_output_unit_SOURCES = tests/runner.c tests/output/suites.h \
	tests/output/test_output_unit.c tests/output/test_surface.c
tests_output_run_output_unit_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE \
	-I$(srcdir)/tests/output $(CHECK_CFLAGS)
tests_output_run_output_unit_LDADD = core/libmscore.la $(CHECK_LIBS) $(LIBCONFIG_LIBS) -lm
tests_output_run_output_unit_LDFLAGS = $(OPENMP_CFLAGS)
TESTS += tests/output/run-output-unit

# ---- a frame format added by one new file and one row of the table --------
# The row goes into a copy of core/io/writers.c; the program's table then takes
# the place of the library's.
check_PROGRAMS += tests/output/run-toy-format
nodist_tests_output_run_toy_format_SOURCES = tests/output/writers_toy.c
tests_output_run_toy_format_SOURCES = tests/runner.c tests/output/suites.h \
	tests/output/test_toy_format.c tests/output/writer_toy.c
tests_output_run_toy_format_CPPFLAGS = $(tests_output_run_output_unit_CPPFLAGS) \
	-I$(srcdir)/core/io -DMS_RUN_SUITES=MS_TOY_FORMAT_SUITES
tests_output_run_toy_format_LDADD = $(tests_output_run_output_unit_LDADD)
tests_output_run_toy_format_LDFLAGS = $(OPENMP_CFLAGS)
TESTS += tests/output/run-toy-format
CLEANFILES += tests/output/writers_toy.c
tests/output/writers_toy.c: $(srcdir)/core/io/writers.c
	$(AM_V_GEN)$(MKDIR_P) tests/output && \
	sed 's/^#define MS__WRITERS(X) .*$$/& X(toy)/' $(srcdir)/core/io/writers.c > $@

# A solver without save()/load() (tests/output/.libs/nosave.so).
check_LTLIBRARIES += tests/output/nosave.la
tests_output_nosave_la_SOURCES = tests/output/nosave_plugin.c
tests_output_nosave_la_CPPFLAGS = -I$(top_srcdir)/sdk/include
tests_output_nosave_la_CFLAGS = $(MS_CFLAGS) $(MS_VISIBILITY_CFLAGS)
tests_output_nosave_la_LDFLAGS = -module -avoid-version -no-undefined -shared \
	-rpath /nowhere
