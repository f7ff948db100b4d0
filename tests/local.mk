# Tests: every test program prints TAP; one line per test case.
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
TEST_LOG_DRIVER = $(LOG_DRIVER)
AM_TESTS_ENVIRONMENT = \
	CK_FORK=no; export CK_FORK; \
	MERGESPLIT_PLUGIN_PATH='$(abs_top_builddir)/plugins/.libs'; \
	export MERGESPLIT_PLUGIN_PATH; \
	MS_FIXTURES='$(abs_top_builddir)/tests/fixtures/.libs'; export MS_FIXTURES; \
	MS_PLUGIN_AND_FIXTURES='$(abs_top_builddir)/plugins/.libs:$(abs_top_builddir)/tests/fixtures/.libs'; \
	export MS_PLUGIN_AND_FIXTURES; \
	MS_DATA='$(abs_top_srcdir)/tests/data'; export MS_DATA; \
	MS_CONFIGS='$(abs_top_srcdir)/configs'; export MS_CONFIGS; \
	MS_CLI='$(abs_top_builddir)/core/cli/mergesplit'; export MS_CLI; \
	PYTHON3='$(PYTHON3)'; export PYTHON3; \
	MAKE='$(MAKE)'; export MAKE; \
	MS_BUILDDIR='$(abs_top_builddir)'; export MS_BUILDDIR; \
	MS_HAVE_MPI='$(MS_HAVE_MPI)'; MS_MPIRUN='$(MPIRUN)'; \
	MS_HAVE_PYTHON='$(MS_HAVE_PYTHON)'; export MS_HAVE_PYTHON; \
	export MS_HAVE_MPI MS_MPIRUN; \
	$(MS_SANITIZER_ENVIRONMENT)

# ./configure --enable-sanitizers: any report fails its test; the CLI's
# own handlers report a plugin's crash (as they do without sanitizers);
# tests/lsan.supp holds the one leak inside libconfig.
if MS_SANITIZERS
MS_SANITIZER_ENVIRONMENT = \
	ASAN_OPTIONS=abort_on_error=0:allow_user_segv_handler=1:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0:detect_leaks=1; \
	export ASAN_OPTIONS; \
	LSAN_OPTIONS='suppressions=$(abs_top_srcdir)/tests/lsan.supp'; \
	export LSAN_OPTIONS; \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1; export UBSAN_OPTIONS;
endif

# ---- fixture plugins: one source, one module per defect --------------------
# NAME:DEFECT pairs; each becomes tests/fixtures/NAME.la (-> .libs/NAME.so)
# built from fixture_plugin.c with -DDEFECT=DEFECT and solver id fixture_NAME.
MS_FIXTURES = good:GOOD bad_major:MAJOR bad_minor:MINOR bad_size:SIZE \
	no_entry:NOENTRY null_fn:NULLFN bad_id:BADID empty:EMPTY nan:NAN_ \
	badview:BADVIEW leak:LEAK norewind:NOREWIND badsave:BADSAVE \
	loose:LOOSE ownmass:OWNMASS lax:LAX chatty:CHATTY zerodt:ZERODT \
	nolicense:NOLICENSE badenergy:BADENERGY badsurface:BADSURFACE now1:NOW1 now2:NOW2 \
	no_release:NORELEASE heat:HEAT heatless:HEATLESS heatreset:HEATRESET \
	push:PUSH pushnan:PUSHNAN lazy:LAZY lazyfail:LAZYFAIL crash:CRASH exits:EXITS slow:SLOW hang:HANG
# Files that crash, exit or hang while they load live in a directory of
# their own: a probe of each takes up to its time-out (10 s for a hang),
# and only the loader's test scans them.
MS_LOAD_FIXTURES = ctor_abort:CTOR_ABORT ctor_exit:CTOR_EXIT \
	ctor_hang:CTOR_HANG entry_crash:ENTRY_CRASH
MS_FIXTURE_LAS = $(foreach f,$(MS_FIXTURES),tests/fixtures/$(firstword $(subst :, ,$(f))).la)
MS_FIXTURE_LAS += $(foreach f,$(MS_LOAD_FIXTURES),tests/fixtures/loading/$(firstword $(subst :, ,$(f))).la)
# ... and fixtures of their own source: a rigid cluster (ABI 1.1 collective
# response, and the same body as an ABI 1.0 descriptor).
MS_FIXTURE_LAS += tests/fixtures/rigid_cluster.la
# ... and one that hands particles between systems (ABI 1.1 hand-over).
MS_FIXTURE_LAS += tests/fixtures/handover.la
# ... and the example plugin built against the frozen ABI 1.0 headers: a
# 1.0 binary the core must keep loading (tests/fixtures/abi-1.0/README).
MS_FIXTURE_LAS += tests/fixtures/dust_v10.la
check_DATA = $(MS_FIXTURE_LAS)
EXTRA_DIST += tests/fixtures/fixture_plugin.c tests/fixtures/rigid_cluster.c \
	tests/fixtures/handover.c \
	tests/fixtures/abi-1.0
# The fixtures follow the SDK headers they are built against.
MS_SDK_DEPS = $(top_srcdir)/sdk/include/mergesplit/plugin.h \
	$(top_srcdir)/sdk/include/mergesplit/host.h \
	$(top_srcdir)/sdk/include/mergesplit/plugin_util.h \
	$(top_srcdir)/sdk/include/mergesplit/view.h \
	$(top_srcdir)/sdk/include/mergesplit/status.h
MS_FIXTURE_COMPILE = $(LIBTOOL) $(AM_V_lt) --tag=CC --mode=compile $(CC) \
	-I$(top_srcdir)/sdk/include $(MS_CFLAGS) $(MS_VISIBILITY_CFLAGS) $(CFLAGS)
tests/fixtures/%.la: $(top_srcdir)/tests/fixtures/fixture_plugin.c \
		$(MS_SDK_DEPS)
	$(AM_V_CC)$(MKDIR_P) tests/fixtures && \
	$(MS_FIXTURE_COMPILE) -DDEFECT=$(lastword $(subst :, ,$(filter $*:%,$(MS_FIXTURES)))) \
	  -DFIXTURE_ID='"fixture_$*"' -c -o tests/fixtures/$*.lo $< && \
	$(LIBTOOL) $(AM_V_lt) --tag=CC --mode=link $(CC) $(CFLAGS) -module \
	  -avoid-version -shared -no-undefined -rpath /nowhere \
	  -o $@ tests/fixtures/$*.lo -lm
tests/fixtures/loading/%.la: $(top_srcdir)/tests/fixtures/fixture_plugin.c \
		$(MS_SDK_DEPS)
	$(AM_V_CC)$(MKDIR_P) tests/fixtures/loading && \
	$(MS_FIXTURE_COMPILE) -DDEFECT=$(lastword $(subst :, ,$(filter $*:%,$(MS_LOAD_FIXTURES)))) \
	  -DFIXTURE_ID='"fixture_$*"' -c -o tests/fixtures/loading/$*.lo $< && \
	$(LIBTOOL) $(AM_V_lt) --tag=CC --mode=link $(CC) $(CFLAGS) -module \
	  -avoid-version -shared -no-undefined -rpath /nowhere \
	  -o $@ tests/fixtures/loading/$*.lo -lm
tests/fixtures/rigid_cluster.la: $(top_srcdir)/tests/fixtures/rigid_cluster.c \
		$(MS_SDK_DEPS)
	$(AM_V_CC)$(MKDIR_P) tests/fixtures && \
	$(MS_FIXTURE_COMPILE) -c -o tests/fixtures/rigid_cluster.lo $< && \
	$(LIBTOOL) $(AM_V_lt) --tag=CC --mode=link $(CC) $(CFLAGS) -module \
	  -avoid-version -shared -no-undefined -rpath /nowhere \
	  -o $@ tests/fixtures/rigid_cluster.lo -lm
tests/fixtures/handover.la: $(top_srcdir)/tests/fixtures/handover.c \
		$(MS_SDK_DEPS)
	$(AM_V_CC)$(MKDIR_P) tests/fixtures && \
	$(MS_FIXTURE_COMPILE) -c -o tests/fixtures/handover.lo $< && \
	$(LIBTOOL) $(AM_V_lt) --tag=CC --mode=link $(CC) $(CFLAGS) -module \
	  -avoid-version -shared -no-undefined -rpath /nowhere \
	  -o $@ tests/fixtures/handover.lo -lm
tests/fixtures/dust_v10.la: $(top_srcdir)/sdk/example/dust.c \
		$(top_srcdir)/tests/fixtures/abi-1.0/mergesplit/plugin.h
	$(AM_V_CC)$(MKDIR_P) tests/fixtures && \
	$(LIBTOOL) $(AM_V_lt) --tag=CC --mode=compile $(CC) \
	  -I$(top_srcdir)/tests/fixtures/abi-1.0 -I$(top_srcdir)/sdk/include \
	  $(MS_CFLAGS) \
	  $(MS_VISIBILITY_CFLAGS) $(CFLAGS) -c -o tests/fixtures/dust_v10.lo $< && \
	$(LIBTOOL) $(AM_V_lt) --tag=CC --mode=link $(CC) $(CFLAGS) -module \
	  -avoid-version -shared -no-undefined -rpath /nowhere \
	  -o $@ tests/fixtures/dust_v10.lo -lm
clean-local: clean-fixtures
clean-fixtures:
	-rm -rf tests/fixtures/.libs tests/fixtures/*.la tests/fixtures/*.lo \
	  tests/fixtures/loading \
	  tests/fixtures/*.o
.PHONY: clean-fixtures

# ---- unit tests (Check) ------------------------------------------------------
check_PROGRAMS += tests/unit/run-unit
tests_unit_run_unit_SOURCES = tests/runner.c tests/unit/suites.h \
	tests/unit/testutil.h tests/unit/test_split.c tests/unit/test_sync.c \
	tests/unit/test_rng.c tests/unit/test_detect.c tests/unit/test_group.c \
	tests/unit/test_contacts.c tests/unit/test_rules.c \
	tests/unit/test_iterate.c \
	tests/unit/test_shapes.c tests/unit/test_mesh_shapes.c \
	tests/unit/test_settings.c tests/unit/test_overrides.c \
	tests/unit/test_state.c tests/unit/test_control.c \
	tests/unit/test_loader.c tests/unit/test_plugin_util.c
tests_unit_run_unit_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE -I$(srcdir)/tests/unit \
	$(CHECK_CFLAGS) $(LIBCONFIG_CFLAGS)
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
tests_scenes_run_scenes_SOURCES = tests/runner.c tests/scenes/suites.h \
	tests/scenes/test_core_scenes.c tests/scenes/test_baselines.c \
	tests/scenes/test_metrics.c tests/scenes/test_scale.c \
	tests/scenes/test_sync_scenes.c tests/scenes/test_handover.c \
	tests/scenes/test_heat.c tests/scenes/test_push.c \
	tests/scenes/test_frame_shape.c tests/scenes/test_refresh.c
tests_scenes_run_scenes_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE -I$(srcdir)/tests/scenes \
	$(CHECK_CFLAGS) $(LIBCONFIG_CFLAGS)
tests_scenes_run_scenes_LDADD = tests/scenes/libsimtest.la core/libmscore.la \
	$(CHECK_LIBS) $(LIBCONFIG_LIBS)
tests_scenes_run_scenes_LDFLAGS = $(OPENMP_CFLAGS)
TESTS += tests/scenes/run-scenes
check_PROGRAMS += tests/scenes/run-paper
tests_scenes_run_paper_SOURCES = tests/runner.c tests/scenes/suites.h \
	tests/scenes/test_paper.c
tests_scenes_run_paper_CPPFLAGS = $(tests_scenes_run_scenes_CPPFLAGS) \
	-DMS_RUN_SUITES=MS_PAPER_SUITES
tests_scenes_run_paper_LDADD = $(tests_scenes_run_scenes_LDADD)
tests_scenes_run_paper_LDFLAGS = $(OPENMP_CFLAGS)
TESTS += tests/scenes/run-paper

# The test list, for scripts (.ci/run's sanitizer stage).
print-tests:
	@echo $(TESTS)
.PHONY: print-tests

# ---- a run over MPI ranks (doc/distributed.md, section 5) -------------------
if MS_WITH_MPI
check_PROGRAMS += tests/dist/dist-run
tests_dist_dist_run_SOURCES = tests/dist/dist_run.c
tests_dist_dist_run_CPPFLAGS = $(AM_CPPFLAGS) $(MPI_CFLAGS)
tests_dist_dist_run_LDADD = core/libmscore.la $(MPI_LIBS) $(LIBCONFIG_LIBS)
tests_dist_dist_run_LDFLAGS = $(OPENMP_CFLAGS)
endif
EXTRA_DIST += tests/dist/dist_run.c

# ---- command-line tests (TAP shell scripts) ----------------------------------
TESTS += tests/cli.test tests/sdk.test tests/layers.test tests/sweep.test \
	tests/python.test tests/distributed.test
EXTRA_DIST += tests/cli.test tests/sdk.test tests/layers.test tests/sweep.test \
  tests/python.test tests/python/test_mergesplit.py tests/distributed.test \
  tests/bench/distributed_model.py tests/bench/python_overhead.py \
  tests/bench/gao2018_scenes.py tests/bench/resume_kill.py \
  tests/bench/paper_table.py \
  tests/bench/energy_scenes.py tests/bench/same_frames.py \
  tests/bench/rigid_scenes.py tests/bench/detect_vs.py \
  tests/bench/dam_break_convergence.py \
  tests/bench/dam_break_frames.cfg

# ---- core benchmarks ------------------------------------------------------------
EXTRA_PROGRAMS += tests/bench/bench-detect tests/bench/bench-mergesplit \
	tests/bench/bench-step
MS_BENCHES += tests/bench/bench-detect tests/bench/bench-mergesplit \
	tests/bench/bench-step
CLEANFILES += $(MS_BENCHES)
tests_bench_bench_detect_SOURCES = tests/bench/bench_detect.c
tests_bench_bench_detect_LDADD = core/libmscore.la $(LIBCONFIG_LIBS)
tests_bench_bench_detect_LDFLAGS = $(OPENMP_CFLAGS)
tests_bench_bench_mergesplit_SOURCES = tests/bench/bench_mergesplit.c
tests_bench_bench_mergesplit_LDADD = core/libmscore.la $(LIBCONFIG_LIBS)
tests_bench_bench_mergesplit_LDFLAGS = $(OPENMP_CFLAGS)
tests_bench_bench_step_SOURCES = tests/bench/bench_step.c
tests_bench_bench_step_LDADD = core/libmscore.la $(LIBCONFIG_LIBS)
tests_bench_bench_step_LDFLAGS = $(OPENMP_CFLAGS)

# ---- Rule 2 swapped in one place (core/coupling/coupling.h): every user follows
check_PROGRAMS += tests/rules/run-rule-swap
tests_rules_run_rule_swap_SOURCES = tests/runner.c tests/rules/suites.h \
	tests/rules/test_rule_swap.c core/step/step.c core/coupling/contacts.c \
	core/coupling/baselines.c
tests_rules_run_rule_swap_CPPFLAGS = $(core_libmscore_la_CPPFLAGS) \
	-DMS__RULE_TWO_SWAPPED -I$(srcdir)/tests/rules $(CHECK_CFLAGS)
tests_rules_run_rule_swap_LDADD = tests/scenes/libsimtest.la core/libmscore.la \
	$(CHECK_LIBS) $(LIBCONFIG_LIBS) -lm
tests_rules_run_rule_swap_LDFLAGS = $(OPENMP_CFLAGS)
TESTS += tests/rules/run-rule-swap

# ---- the conformance kit, on shipped plugins and broken fixtures --------------
check_PROGRAMS += tests/scenes/run-conformance
tests_scenes_run_conformance_SOURCES = tests/runner.c tests/scenes/suites.h \
	tests/scenes/test_conformance.c
tests_scenes_run_conformance_CPPFLAGS = $(tests_scenes_run_scenes_CPPFLAGS) \
	-DMS_RUN_SUITES=MS_CONFORMANCE_SUITES
tests_scenes_run_conformance_LDADD = $(tests_scenes_run_scenes_LDADD)
tests_scenes_run_conformance_LDFLAGS = $(OPENMP_CFLAGS)
TESTS += tests/scenes/run-conformance
include tests/output/local.mk
include tests/fuzz/local.mk
