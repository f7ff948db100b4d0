# Plugin `peridynamics` — its module, tests, benchmark and scenes.

# The solver code as a convenience library: linked by the module, the
# tests and the benchmark (plugins/peridynamics/pd.h).
noinst_LTLIBRARIES += plugins/peridynamics/libperidynamics.la
plugins_peridynamics_libperidynamics_la_SOURCES = \
	plugins/peridynamics/pd.h \
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

EXTRA_DIST += plugins/peridynamics/README.md
