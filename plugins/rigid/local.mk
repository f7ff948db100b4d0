# Plugin `rigid` — its module, tests and scenes.

# The body's mechanics, host-independent: linked by the module and its
# tests.
noinst_LTLIBRARIES += plugins/rigid/librigid.la
plugins_rigid_librigid_la_SOURCES = plugins/rigid/rigid.h plugins/rigid/body.c
plugins_rigid_librigid_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS)
plugins_rigid_librigid_la_CFLAGS = $(MS_PLUGIN_CFLAGS)

plugin_LTLIBRARIES += plugins/rigid.la
plugins_rigid_la_SOURCES = plugins/rigid/plugin.c plugins/rigid/config.c \
	plugins/rigid/contact.c plugins/rigid/solve.c plugins/rigid/walls.c
plugins_rigid_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS)
plugins_rigid_la_CFLAGS = $(MS_PLUGIN_CFLAGS)
plugins_rigid_la_LDFLAGS = $(MS_PLUGIN_LDFLAGS)
plugins_rigid_la_LIBADD = plugins/rigid/librigid.la \
	plugins/common/libmsbodies.la -lm

EXTRA_DIST += plugins/rigid/README.md
dist_man7_MANS += plugins/rigid/mergesplit-rigid.7

# ---- tests (Check, TAP) ----------------------------------------------------
check_PROGRAMS += tests/rigid/run-rigid
tests_rigid_run_rigid_SOURCES = tests/runner.c tests/rigid/suites.h \
	tests/rigid/test_body.c tests/rigid/test_scenes.c \
	tests/rigid/test_cloth.c tests/rigid/test_heat.c
tests_rigid_run_rigid_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE \
	-I$(srcdir)/tests/rigid $(CHECK_CFLAGS) $(LIBCONFIG_CFLAGS)
tests_rigid_run_rigid_LDADD = plugins/rigid/librigid.la \
	tests/scenes/libsimtest.la core/libmscore.la $(CHECK_LIBS) \
	$(LIBCONFIG_LIBS) -lm
tests_rigid_run_rigid_LDFLAGS = $(OPENMP_CFLAGS)
TESTS += tests/rigid/run-rigid

# ---- scenes ----------------------------------------------------------------
rigiddir = $(configsdir)/rigid
dist_rigid_DATA = configs/rigid/box_on_cloth.cfg \
	configs/rigid/heavy_box_on_cloth.cfg \
	configs/rigid/sphere_on_cloth.cfg configs/rigid/stack_on_slab.cfg \
	configs/rigid/ball_through_wall.cfg configs/rigid/dominoes.cfg \
	configs/rigid/box_in_sph.cfg configs/rigid/box_in_flip.cfg
