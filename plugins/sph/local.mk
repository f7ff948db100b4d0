# Plugin `sph` — its module, tests, benchmark and scenes.

# The solver, host-independent: linked by the module, its tests and its
# benchmark.
noinst_LTLIBRARIES += plugins/sph/libsphsolver.la
plugins_sph_libsphsolver_la_SOURCES = plugins/sph/kernel.c \
	plugins/sph/solver.c plugins/sph/sph.h \
	plugins/sph/density.c plugins/sph/forces.c plugins/sph/advance.c \
	plugins/sph/boundary.c plugins/sph/reorder.c plugins/sph/wsum.c \
	plugins/sph/heat.c plugins/sph/energy.c plugins/sph/others.c
plugins_sph_libsphsolver_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS)
# sqrt without errno: the pair loops stay free of branches
plugins_sph_libsphsolver_la_CFLAGS = $(MS_PLUGIN_CFLAGS) -fno-math-errno

plugin_LTLIBRARIES += plugins/sph.la
plugins_sph_la_SOURCES = plugins/sph/plugin.c \
	plugins/sph/config.c
plugins_sph_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS)
plugins_sph_la_CFLAGS = $(MS_PLUGIN_CFLAGS)
plugins_sph_la_LDFLAGS = $(MS_PLUGIN_LDFLAGS)
plugins_sph_la_LIBADD = plugins/sph/libsphsolver.la -lm
dist_man7_MANS += plugins/sph/mergesplit-sph.7

# Tests: kernels (unit) and scenes, one Check runner, TAP on stdout.
check_PROGRAMS += tests/sph/run-sph
tests_sph_run_sph_SOURCES = tests/runner.c tests/sph/suites.h \
	tests/sph/test_kernel.c tests/sph/test_solver.c \
	tests/sph/test_config.c tests/sph/test_fluid.c tests/sph/test_heat.c
tests_sph_run_sph_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE -I$(srcdir)/tests/sph \
	$(CHECK_CFLAGS) \
	$(LIBCONFIG_CFLAGS)
tests_sph_run_sph_LDADD = plugins/sph/libsphsolver.la \
	tests/scenes/libsimtest.la core/libmscore.la $(CHECK_LIBS) \
	$(LIBCONFIG_LIBS) -lm
tests_sph_run_sph_LDFLAGS = $(OPENMP_CFLAGS)
TESTS += tests/sph/run-sph

# Benchmark: dam break, ms per step per pass, 1 vs 2 threads.
EXTRA_PROGRAMS += tests/bench/bench-sph
MS_BENCHES += tests/bench/bench-sph
tests_bench_bench_sph_SOURCES = tests/bench/bench_sph.c
tests_bench_bench_sph_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE
tests_bench_bench_sph_LDADD = plugins/sph/libsphsolver.la core/libmscore.la \
	$(LIBCONFIG_LIBS) -lm
tests_bench_bench_sph_LDFLAGS = $(OPENMP_CFLAGS)

# Scenes.
dist_configs_DATA += configs/sph_dam_break.cfg
EXTRA_DIST += plugins/sph/README.md
