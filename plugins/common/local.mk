# Helpers shared by several shipped plugins (a libtool convenience library).
# libmsimplicit: node mapping of particles and meta-particles, node-space
# 3x3-block assembly, the linearised implicit step, CHOLMOD with symbolic
# reuse and a matrix-free PCG (plugins/common/implicit.h).
noinst_LTLIBRARIES += plugins/common/libmsimplicit.la
plugins_common_libmsimplicit_la_SOURCES = \
	plugins/common/implicit.h \
	plugins/common/grow.h \
	plugins/common/solver_impl.h \
	plugins/common/cholmod_serial.h \
	plugins/common/nodes.c \
	plugins/common/topology.c \
	plugins/common/solver.c \
	plugins/common/solver_state.c \
	plugins/common/cholmod_backend.c \
	plugins/common/pcg.c
plugins_common_libmsimplicit_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS) \
	-D_POSIX_C_SOURCE=200809L $(CHOLMOD_CFLAGS)
plugins_common_libmsimplicit_la_CFLAGS = $(MS_PLUGIN_CFLAGS)
plugins_common_libmsimplicit_la_LIBADD = $(CHOLMOD_LIBS) -lm

# libmsbodies: the keys of a body sampled from a shape, read alike by the
# solid plugins (plugins/common/bodies.h).
noinst_LTLIBRARIES += plugins/common/libmsbodies.la
plugins_common_libmsbodies_la_SOURCES = plugins/common/bodies.h \
	plugins/common/bodies.c
plugins_common_libmsbodies_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS)
plugins_common_libmsbodies_la_CFLAGS = $(MS_PLUGIN_CFLAGS)

# libmspolar: polar decomposition and rotations of 3x3 matrices, for the
# plugins that match shapes (plugins/common/polar.h).
noinst_LTLIBRARIES += plugins/common/libmspolar.la
plugins_common_libmspolar_la_SOURCES = plugins/common/polar.h \
	plugins/common/polar.c
plugins_common_libmspolar_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS)
plugins_common_libmspolar_la_CFLAGS = $(MS_PLUGIN_CFLAGS)
plugins_common_libmspolar_la_LIBADD = -lm

# heat.h: the heat keys every plugin of the tree reads alike, and the
# arrays of one whose particles carry heat without conducting (header only).
EXTRA_DIST += plugins/common/heat.h
# give_back.h: an energy limit's give-back from the motion about each
# body's mean velocity (sph, virtual_material).
EXTRA_DIST += plugins/common/give_back.h
