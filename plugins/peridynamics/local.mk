# Plugin `peridynamics` — its module, tests, benchmark and scenes.

# The solver code as a convenience library: linked by the module, the
# tests and the benchmark (plugins/peridynamics/peridynamics.h).
noinst_LTLIBRARIES += plugins/peridynamics/libperidynamics.la
plugins_peridynamics_libperidynamics_la_SOURCES = \
	plugins/peridynamics/peridynamics.h \
	plugins/peridynamics/material.c \
	plugins/peridynamics/model.c \
	plugins/peridynamics/law.c \
	plugins/peridynamics/fracture.c \
	plugins/peridynamics/step.c
plugins_peridynamics_libperidynamics_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS) \
	-D_POSIX_C_SOURCE=200809L $(CHOLMOD_CFLAGS)
plugins_peridynamics_libperidynamics_la_CFLAGS = $(MS_PLUGIN_CFLAGS)
plugins_peridynamics_libperidynamics_la_LIBADD = \
	plugins/common/libmsimplicit.la -lm

plugin_LTLIBRARIES += plugins/peridynamics.la
plugins_peridynamics_la_SOURCES = \
	plugins/peridynamics/plugin.c \
	plugins/peridynamics/config.c
plugins_peridynamics_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS) $(CHOLMOD_CFLAGS)
plugins_peridynamics_la_CFLAGS = $(MS_PLUGIN_CFLAGS)
plugins_peridynamics_la_LDFLAGS = $(MS_PLUGIN_LDFLAGS)
plugins_peridynamics_la_LIBADD = plugins/peridynamics/libperidynamics.la -lm
dist_man7_MANS += plugins/peridynamics/mergesplit-peridynamics.7

EXTRA_DIST += plugins/peridynamics/README.md

# ---- benchmark (make bench) --------------------------------------------------
EXTRA_PROGRAMS += tests/bench/bench-peridynamics
MS_BENCHES += tests/bench/bench-peridynamics
tests_bench_bench_peridynamics_SOURCES = tests/bench/bench_peridynamics.c
tests_bench_bench_peridynamics_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE \
	$(CHOLMOD_CFLAGS)
tests_bench_bench_peridynamics_LDADD = \
	plugins/peridynamics/libperidynamics.la $(CHOLMOD_LIBS) -lm
tests_bench_bench_peridynamics_LDFLAGS = $(OPENMP_CFLAGS)

# ---- tests (Check, TAP) ----------------------------------------------------
check_PROGRAMS += tests/peridynamics/run-peridynamics
tests_peridynamics_run_peridynamics_SOURCES = tests/runner.c \
	tests/peridynamics/suites.h tests/peridynamics/pdtest.h \
	tests/peridynamics/pdtest.c tests/peridynamics/test_material.c \
	tests/peridynamics/test_bonds.c tests/peridynamics/test_bar.c \
	tests/peridynamics/test_block.c tests/peridynamics/test_config.c \
	tests/peridynamics/test_rewind.c tests/peridynamics/test_scenes.c
tests_peridynamics_run_peridynamics_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE \
	-I$(srcdir)/tests/peridynamics \
	$(CHECK_CFLAGS) $(LIBCONFIG_CFLAGS) $(CHOLMOD_CFLAGS)
tests_peridynamics_run_peridynamics_LDADD = tests/scenes/libsimtest.la \
	plugins/peridynamics/libperidynamics.la core/libmscore.la \
	$(CHECK_LIBS) $(LIBCONFIG_LIBS) $(CHOLMOD_LIBS) -lm
tests_peridynamics_run_peridynamics_LDFLAGS = $(OPENMP_CFLAGS)
TESTS += tests/peridynamics/run-peridynamics

# ---- scenes ----------------------------------------------------------------
