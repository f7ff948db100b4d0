# Tests: every test program prints TAP; one line per test case.
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
TEST_LOG_DRIVER = $(LOG_DRIVER)
AM_TESTS_ENVIRONMENT = \
	CK_FORK=no; export CK_FORK; \
	MERGESPLIT_PLUGIN_PATH='$(abs_top_builddir)/plugins/.libs'; \
	export MERGESPLIT_PLUGIN_PATH; \
	MS_FIXTURES='$(abs_top_builddir)/tests/fixtures/.libs'; export MS_FIXTURES; \
	MS_DATA='$(abs_top_srcdir)/tests/data'; export MS_DATA; \
	MS_CONFIGS='$(abs_top_srcdir)/configs'; export MS_CONFIGS; \
	MS_CLI='$(abs_top_builddir)/core/cli/mergesplit'; export MS_CLI; \
	PYTHON3='$(PYTHON3)'; export PYTHON3;

# ---- fixture plugins: one source, one module per defect ------------------
FIXTURE_LDFLAGS = -module -avoid-version -no-undefined -shared -rpath /nowhere
FIXTURE_CPPFLAGS = -I$(top_srcdir)/sdk/include
FIXTURE_CFLAGS = $(MS_CFLAGS) $(MS_VISIBILITY_CFLAGS)
check_LTLIBRARIES += tests/fixtures/good.la tests/fixtures/bad_major.la \
	tests/fixtures/bad_minor.la tests/fixtures/bad_size.la \
	tests/fixtures/no_entry.la tests/fixtures/null_fn.la \
	tests/fixtures/bad_id.la tests/fixtures/empty.la \
	tests/fixtures/nan_solver.la tests/fixtures/bad_view.la
tests_fixtures_good_la_SOURCES = tests/fixtures/fixture_plugin.c
tests_fixtures_good_la_CPPFLAGS = $(FIXTURE_CPPFLAGS) -DDEFECT=GOOD -DFIXTURE_ID='"fixture_good"'
tests_fixtures_good_la_CFLAGS = $(FIXTURE_CFLAGS)
tests_fixtures_good_la_LDFLAGS = $(FIXTURE_LDFLAGS)
tests_fixtures_bad_major_la_SOURCES = tests/fixtures/fixture_plugin.c
tests_fixtures_bad_major_la_CPPFLAGS = $(FIXTURE_CPPFLAGS) -DDEFECT=MAJOR -DFIXTURE_ID='"fixture_major"'
tests_fixtures_bad_major_la_CFLAGS = $(FIXTURE_CFLAGS)
tests_fixtures_bad_major_la_LDFLAGS = $(FIXTURE_LDFLAGS)
tests_fixtures_bad_minor_la_SOURCES = tests/fixtures/fixture_plugin.c
tests_fixtures_bad_minor_la_CPPFLAGS = $(FIXTURE_CPPFLAGS) -DDEFECT=MINOR -DFIXTURE_ID='"fixture_minor"'
tests_fixtures_bad_minor_la_CFLAGS = $(FIXTURE_CFLAGS)
tests_fixtures_bad_minor_la_LDFLAGS = $(FIXTURE_LDFLAGS)
tests_fixtures_bad_size_la_SOURCES = tests/fixtures/fixture_plugin.c
tests_fixtures_bad_size_la_CPPFLAGS = $(FIXTURE_CPPFLAGS) -DDEFECT=SIZE -DFIXTURE_ID='"fixture_size"'
tests_fixtures_bad_size_la_CFLAGS = $(FIXTURE_CFLAGS)
tests_fixtures_bad_size_la_LDFLAGS = $(FIXTURE_LDFLAGS)
tests_fixtures_no_entry_la_SOURCES = tests/fixtures/fixture_plugin.c
tests_fixtures_no_entry_la_CPPFLAGS = $(FIXTURE_CPPFLAGS) -DDEFECT=NOENTRY -DFIXTURE_ID='"fixture_noentry"'
tests_fixtures_no_entry_la_CFLAGS = $(FIXTURE_CFLAGS)
tests_fixtures_no_entry_la_LDFLAGS = $(FIXTURE_LDFLAGS)
tests_fixtures_null_fn_la_SOURCES = tests/fixtures/fixture_plugin.c
tests_fixtures_null_fn_la_CPPFLAGS = $(FIXTURE_CPPFLAGS) -DDEFECT=NULLFN -DFIXTURE_ID='"fixture_nullfn"'
tests_fixtures_null_fn_la_CFLAGS = $(FIXTURE_CFLAGS)
tests_fixtures_null_fn_la_LDFLAGS = $(FIXTURE_LDFLAGS)
tests_fixtures_bad_id_la_SOURCES = tests/fixtures/fixture_plugin.c
tests_fixtures_bad_id_la_CPPFLAGS = $(FIXTURE_CPPFLAGS) -DDEFECT=BADID -DFIXTURE_ID='"unused"'
tests_fixtures_bad_id_la_CFLAGS = $(FIXTURE_CFLAGS)
tests_fixtures_bad_id_la_LDFLAGS = $(FIXTURE_LDFLAGS)
tests_fixtures_empty_la_SOURCES = tests/fixtures/fixture_plugin.c
tests_fixtures_empty_la_CPPFLAGS = $(FIXTURE_CPPFLAGS) -DDEFECT=EMPTY -DFIXTURE_ID='"fixture_empty"'
tests_fixtures_empty_la_CFLAGS = $(FIXTURE_CFLAGS)
tests_fixtures_empty_la_LDFLAGS = $(FIXTURE_LDFLAGS)
tests_fixtures_nan_solver_la_SOURCES = tests/fixtures/fixture_plugin.c
tests_fixtures_nan_solver_la_CPPFLAGS = $(FIXTURE_CPPFLAGS) -DDEFECT=NAN_ -DFIXTURE_ID='"fixture_nan"'
tests_fixtures_nan_solver_la_CFLAGS = $(FIXTURE_CFLAGS)
tests_fixtures_nan_solver_la_LDFLAGS = $(FIXTURE_LDFLAGS)
tests_fixtures_bad_view_la_SOURCES = tests/fixtures/fixture_plugin.c
tests_fixtures_bad_view_la_CPPFLAGS = $(FIXTURE_CPPFLAGS) -DDEFECT=BADVIEW -DFIXTURE_ID='"fixture_badview"'
tests_fixtures_bad_view_la_CFLAGS = $(FIXTURE_CFLAGS)
tests_fixtures_bad_view_la_LDFLAGS = $(FIXTURE_LDFLAGS)

# ---- unit tests (Check) ------------------------------------------------------
check_PROGRAMS += tests/unit/run-unit
tests_unit_run_unit_SOURCES = tests/unit/runner.c tests/unit/test_list.h \
	tests/unit/testutil.h tests/unit/test_split.c tests/unit/test_sync.c \
	tests/unit/test_rng.c tests/unit/test_detect.c tests/unit/test_group.c \
	tests/unit/test_shapes.c tests/unit/test_settings.c \
	tests/unit/test_loader.c
tests_unit_run_unit_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE $(CHECK_CFLAGS) $(LIBCONFIG_CFLAGS)
tests_unit_run_unit_LDADD = core/libmscore.la $(CHECK_LIBS) $(LIBCONFIG_LIBS)
tests_unit_run_unit_LDFLAGS = $(OPENMP_CFLAGS)
TESTS += tests/unit/run-unit
EXTRA_DIST += tests/data

# ---- benchmarks: programs that print figures; listed in MS_BENCHES (and EXTRA_PROGRAMS), built by `make bench` --------
MS_BENCHES =
bench: $(MS_BENCHES)
.PHONY: bench

# ---- scene tests (Check), on the shared helpers in tests/scenes/simtest.* ---
noinst_LTLIBRARIES += tests/scenes/libsimtest.la
tests_scenes_libsimtest_la_SOURCES = tests/scenes/simtest.c tests/scenes/simtest.h
tests_scenes_libsimtest_la_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE $(CHECK_CFLAGS) $(LIBCONFIG_CFLAGS)
check_PROGRAMS += tests/scenes/run-scenes
tests_scenes_run_scenes_SOURCES = tests/scenes/runner.c tests/scenes/scene_list.h \
	tests/scenes/test_core_scenes.c tests/scenes/test_baselines.c
tests_scenes_run_scenes_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE $(CHECK_CFLAGS) $(LIBCONFIG_CFLAGS)
tests_scenes_run_scenes_LDADD = tests/scenes/libsimtest.la core/libmscore.la \
	$(CHECK_LIBS) $(LIBCONFIG_LIBS)
tests_scenes_run_scenes_LDFLAGS = $(OPENMP_CFLAGS)
TESTS += tests/scenes/run-scenes

# ---- command-line tests (TAP shell script) -----------------------------------
TESTS += tests/cli.test
EXTRA_DIST += tests/cli.test

# ---- core benchmarks ------------------------------------------------------------
EXTRA_PROGRAMS += tests/bench/bench-detect tests/bench/bench-mergesplit
MS_BENCHES += tests/bench/bench-detect tests/bench/bench-mergesplit
CLEANFILES += $(MS_BENCHES)
tests_bench_bench_detect_SOURCES = tests/bench/bench_detect.c
tests_bench_bench_detect_LDADD = core/libmscore.la $(LIBCONFIG_LIBS)
tests_bench_bench_detect_LDFLAGS = $(OPENMP_CFLAGS)
tests_bench_bench_mergesplit_SOURCES = tests/bench/bench_mergesplit.c
tests_bench_bench_mergesplit_LDADD = core/libmscore.la $(LIBCONFIG_LIBS)
tests_bench_bench_mergesplit_LDFLAGS = $(OPENMP_CFLAGS)
