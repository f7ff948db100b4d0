# Plugin `flip` — its module, tests, benchmark and scenes.
#
# The solver lives in a convenience library shared by the module, the
# tests (which check the grid operations directly) and the benchmark.
noinst_LTLIBRARIES += plugins/flip/libflip.la
plugins_flip_libflip_la_SOURCES = plugins/flip/flip.h \
	plugins/flip/grid.c plugins/flip/bins.c \
	plugins/flip/transfer.c plugins/flip/advect.c \
	plugins/flip/poisson.c plugins/flip/pcg.c \
	plugins/flip/cholmod.c plugins/flip/sim.c plugins/flip/heat.c \
	plugins/flip/energy.c plugins/flip/buoyancy.c \
	plugins/flip/surface.c
plugins_flip_libflip_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS) $(CHOLMOD_CFLAGS)
plugins_flip_libflip_la_CFLAGS = $(MS_PLUGIN_CFLAGS)
plugins_flip_libflip_la_LIBADD = $(CHOLMOD_LIBS) -lm

plugin_LTLIBRARIES += plugins/flip.la
plugins_flip_la_SOURCES = plugins/flip/plugin.c \
	plugins/flip/config.c
plugins_flip_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS) $(CHOLMOD_CFLAGS)
plugins_flip_la_CFLAGS = $(MS_PLUGIN_CFLAGS)
plugins_flip_la_LDFLAGS = $(MS_PLUGIN_LDFLAGS)
plugins_flip_la_LIBADD = plugins/flip/libflip.la $(CHOLMOD_LIBS) -lm
dist_man7_MANS += plugins/flip/mergesplit-flip.7

# ---- tests ------------------------------------------------------------------
check_PROGRAMS += tests/flip/run-flip
tests_flip_run_flip_SOURCES = tests/runner.c tests/flip/suites.h \
	tests/flip/flip_fixture.c tests/flip/flip_fixture.h \
	tests/flip/test_flip_transfer.c tests/flip/test_flip_pressure.c \
	tests/flip/test_flip_scenes.c tests/flip/test_flip_config.c \
	tests/flip/test_flip_advect.c tests/flip/test_flip_heat.c \
	tests/flip/test_flip_phases.c
tests_flip_run_flip_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE -I$(srcdir)/tests/flip \
	-I$(top_srcdir)/plugins/flip $(CHECK_CFLAGS) $(LIBCONFIG_CFLAGS)
tests_flip_run_flip_LDADD = plugins/flip/libflip.la \
	tests/scenes/libsimtest.la core/libmscore.la \
	$(CHECK_LIBS) $(LIBCONFIG_LIBS) $(CHOLMOD_LIBS) -lm
tests_flip_run_flip_LDFLAGS = $(OPENMP_CFLAGS)
TESTS += tests/flip/run-flip

# ---- benchmark --------------------------------------------------------------
EXTRA_PROGRAMS += tests/bench/bench-flip
MS_BENCHES += tests/bench/bench-flip
tests_bench_bench_flip_SOURCES = tests/bench/bench_flip.c
tests_bench_bench_flip_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugins/flip
tests_bench_bench_flip_LDADD = plugins/flip/libflip.la $(CHOLMOD_LIBS) -lm
tests_bench_bench_flip_LDFLAGS = $(OPENMP_CFLAGS)

EXTRA_DIST += plugins/flip/README.md

# ---- scenes -----------------------------------------------------------------
dist_configs_DATA += configs/flip_dam_break.cfg

# ---- scenes -----------------------------------------------------------------
# Gao et al. 2018's two-phase scenes (one flip system, several densities).
gao2018flipdir = $(configsdir)/gao2018
dist_gao2018flip_DATA = configs/gao2018/oil_rises.cfg \
	configs/gao2018/oil_drop.cfg configs/gao2018/oil_blob_dam_break.cfg
