# Plugin `mass_spring` — its module, tests, benchmark and scenes.

# The solver code as a convenience library: linked by the module, the
# tests and the benchmark (plugins/mass_spring/mass_spring.h).
noinst_LTLIBRARIES += plugins/mass_spring/libmassspring.la
plugins_mass_spring_libmassspring_la_SOURCES = \
	plugins/mass_spring/mass_spring.h \
	plugins/mass_spring/model.c \
	plugins/mass_spring/cloth.c \
	plugins/mass_spring/softbody.c \
	plugins/mass_spring/springs.c \
	plugins/mass_spring/strain.c \
	plugins/mass_spring/integrate.c
plugins_mass_spring_libmassspring_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS) \
	$(CHOLMOD_CFLAGS)
plugins_mass_spring_libmassspring_la_CFLAGS = $(MS_PLUGIN_CFLAGS)
plugins_mass_spring_libmassspring_la_LIBADD = \
	plugins/common/libmsimplicit.la -lm

plugin_LTLIBRARIES += plugins/mass_spring.la
plugins_mass_spring_la_SOURCES = \
	plugins/mass_spring/plugin.c \
	plugins/mass_spring/config.c
plugins_mass_spring_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS) $(CHOLMOD_CFLAGS)
plugins_mass_spring_la_CFLAGS = $(MS_PLUGIN_CFLAGS)
plugins_mass_spring_la_LDFLAGS = $(MS_PLUGIN_LDFLAGS)
plugins_mass_spring_la_LIBADD = plugins/mass_spring/libmassspring.la -lm
dist_man7_MANS += plugins/mass_spring/mergesplit-mass_spring.7

# ---- benchmark (make bench) --------------------------------------------
EXTRA_PROGRAMS += tests/bench/bench-mass-spring
MS_BENCHES += tests/bench/bench-mass-spring
tests_bench_bench_mass_spring_SOURCES = tests/bench/bench_mass_spring.c
tests_bench_bench_mass_spring_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE \
	$(CHOLMOD_CFLAGS)
tests_bench_bench_mass_spring_LDADD = plugins/mass_spring/libmassspring.la \
	core/libmscore.la $(LIBCONFIG_LIBS) $(CHOLMOD_LIBS) -lm
tests_bench_bench_mass_spring_LDFLAGS = $(OPENMP_CFLAGS)

# ---- tests (Check, TAP) ------------------------------------------------
check_PROGRAMS += tests/mass_spring/run-mass_spring
tests_mass_spring_run_mass_spring_SOURCES = tests/runner.c \
	tests/mass_spring/suites.h tests/mass_spring/mstest.h \
	tests/mass_spring/mstest.c tests/mass_spring/test_analytic.c \
	tests/mass_spring/test_conservation.c tests/mass_spring/test_metas.c \
	tests/mass_spring/test_solver.c tests/mass_spring/test_config.c \
	tests/mass_spring/test_scenes.c tests/mass_spring/test_strain.c
tests_mass_spring_run_mass_spring_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE \
	-I$(srcdir)/tests/mass_spring \
	$(CHECK_CFLAGS) $(LIBCONFIG_CFLAGS) $(CHOLMOD_CFLAGS)
tests_mass_spring_run_mass_spring_LDADD = tests/scenes/libsimtest.la \
	plugins/mass_spring/libmassspring.la core/libmscore.la \
	$(CHECK_LIBS) $(LIBCONFIG_LIBS) $(CHOLMOD_LIBS) -lm
tests_mass_spring_run_mass_spring_LDFLAGS = $(OPENMP_CFLAGS)
TESTS += tests/mass_spring/run-mass_spring
EXTRA_DIST += tests/mass_spring/data plugins/mass_spring/README.md
AM_TESTS_ENVIRONMENT += \
	MS_MASS_SPRING_DATA='$(abs_top_srcdir)/tests/mass_spring/data'; \
	export MS_MASS_SPRING_DATA;

# ---- scenes ------------------------------------------------------------
dist_configs_DATA += configs/cloth_swing.cfg configs/soft_trampoline.cfg
