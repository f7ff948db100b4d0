# Plugin `virtual_material` — its module and tests.

# A neighbourhood's lattice math, host-independent: linked by the module
# and its tests.
noinst_LTLIBRARIES += plugins/virtual_material/libvirtual_material.la
plugins_virtual_material_libvirtual_material_la_SOURCES = \
	plugins/virtual_material/virtual_material.h \
	plugins/virtual_material/lattice.c
plugins_virtual_material_libvirtual_material_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS)
plugins_virtual_material_libvirtual_material_la_CFLAGS = $(MS_PLUGIN_CFLAGS)
plugins_virtual_material_libvirtual_material_la_LIBADD = \
	plugins/common/libmspolar.la

plugin_LTLIBRARIES += plugins/virtual_material.la
plugins_virtual_material_la_SOURCES = plugins/virtual_material/plugin.c \
	plugins/virtual_material/config.c plugins/virtual_material/fluid.c
plugins_virtual_material_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS)
plugins_virtual_material_la_CFLAGS = $(MS_PLUGIN_CFLAGS)
plugins_virtual_material_la_LDFLAGS = $(MS_PLUGIN_LDFLAGS)
plugins_virtual_material_la_LIBADD = \
	plugins/virtual_material/libvirtual_material.la \
	plugins/common/libmsbodies.la -lm

EXTRA_DIST += plugins/virtual_material/README.md
dist_man7_MANS += plugins/virtual_material/mergesplit-virtual_material.7

# ---- tests (Check, TAP) ----------------------------------------------------
check_PROGRAMS += tests/virtual_material/run-virtual-material
tests_virtual_material_run_virtual_material_SOURCES = tests/runner.c \
	tests/virtual_material/suites.h tests/virtual_material/test_lattice.c \
	tests/virtual_material/test_bodies.c tests/virtual_material/test_fracture.c
tests_virtual_material_run_virtual_material_CPPFLAGS = $(AM_CPPFLAGS) \
	-D_GNU_SOURCE -I$(srcdir)/tests/virtual_material -I$(srcdir)/sdk/include \
	$(CHECK_CFLAGS) $(LIBCONFIG_CFLAGS)
tests_virtual_material_run_virtual_material_LDADD = \
	plugins/virtual_material/libvirtual_material.la tests/scenes/libsimtest.la \
	core/libmscore.la $(CHECK_LIBS) $(LIBCONFIG_LIBS) -lm
tests_virtual_material_run_virtual_material_LDFLAGS = $(OPENMP_CFLAGS)
TESTS += tests/virtual_material/run-virtual-material

# ---- scenes ----------------------------------------------------------------
# Wicke et al. 2007's scenes (those the plugin can run so far).
wicke2007dir = $(configsdir)/wicke2007
dist_wicke2007_DATA = configs/wicke2007/dice.cfg configs/wicke2007/on_cloth.cfg \
	configs/wicke2007/on_slab.cfg configs/wicke2007/melting_body.cfg \
	configs/wicke2007/freezing_rod.cfg configs/wicke2007/fracture.cfg
