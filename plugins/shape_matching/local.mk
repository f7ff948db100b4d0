# Plugin `shape_matching` — its module, tests and scenes.

# The math of a cluster, host-independent: linked by the module and its
# tests.
noinst_LTLIBRARIES += plugins/shape_matching/libshape_matching.la
plugins_shape_matching_libshape_matching_la_SOURCES = plugins/shape_matching/shape_matching.h \
	plugins/shape_matching/match.c
plugins_shape_matching_libshape_matching_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS)
plugins_shape_matching_libshape_matching_la_CFLAGS = $(MS_PLUGIN_CFLAGS)
plugins_shape_matching_libshape_matching_la_LIBADD = \
	plugins/common/libmspolar.la

plugin_LTLIBRARIES += plugins/shape_matching.la
plugins_shape_matching_la_SOURCES = plugins/shape_matching/plugin.c \
	plugins/shape_matching/config.c plugins/shape_matching/step.c \
	plugins/shape_matching/couple.c plugins/shape_matching/walls.c \
	plugins/shape_matching/melt.c \
	plugins/shape_matching/pieces.c
plugins_shape_matching_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS)
plugins_shape_matching_la_CFLAGS = $(MS_PLUGIN_CFLAGS)
plugins_shape_matching_la_LDFLAGS = $(MS_PLUGIN_LDFLAGS)
plugins_shape_matching_la_LIBADD = plugins/shape_matching/libshape_matching.la \
	plugins/common/libmsbodies.la -lm

EXTRA_DIST += plugins/shape_matching/README.md
dist_man7_MANS += plugins/shape_matching/mergesplit-shape_matching.7

# ---- tests (Check, TAP) ----------------------------------------------------
check_PROGRAMS += tests/shape_matching/run-shape-matching
tests_shape_matching_run_shape_matching_SOURCES = tests/runner.c \
	tests/shape_matching/suites.h tests/shape_matching/test_match.c \
	tests/shape_matching/test_scenes.c tests/shape_matching/test_heat.c \
	tests/shape_matching/test_melt.c
tests_shape_matching_run_shape_matching_CPPFLAGS = $(AM_CPPFLAGS) \
	-D_GNU_SOURCE -I$(srcdir)/tests/shape_matching -I$(srcdir)/sdk/include \
	$(CHECK_CFLAGS) $(LIBCONFIG_CFLAGS)
tests_shape_matching_run_shape_matching_LDADD = \
	plugins/shape_matching/libshape_matching.la tests/scenes/libsimtest.la \
	core/libmscore.la $(CHECK_LIBS) $(LIBCONFIG_LIBS) -lm
tests_shape_matching_run_shape_matching_LDFLAGS = $(OPENMP_CFLAGS)
TESTS += tests/shape_matching/run-shape-matching

# ---- scenes ----------------------------------------------------------------
# Gao et al. 2018's scenes with the solids of this plugin.
gao2018dir = $(configsdir)/gao2018
dist_gao2018_DATA = configs/gao2018/soft_bodies_drop.cfg \
	configs/gao2018/rigid_into_flip.cfg configs/gao2018/soft_into_flip.cfg \
	configs/gao2018/rigid_into_sph.cfg configs/gao2018/soft_into_sph.cfg \
	configs/gao2018/body_on_cloth.cfg configs/gao2018/ice_melts.cfg
