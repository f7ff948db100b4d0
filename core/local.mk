# The coupling core: a convenience library (also linked by the tests), the
# shared library libmergesplit and the mergesplit command.
#
# libmergesplit's libtool version (current:revision:age) follows the
# library's own API; it is independent of the plugin ABI (plugin.h).
MS_LT_VERSION = 0:0:0

noinst_LTLIBRARIES += core/libmscore.la
core_libmscore_la_SOURCES = \
	core/afile.c core/afile.h \
	core/baselines.c core/baselines.h \
	core/blas.c \
	core/checkpoint.c core/checkpoint.h \
	core/conformance.c core/conformance.h core/conformance_checks.c \
	core/conformance_coupled.c \
	core/frame_output.c core/frame_output.h \
	core/hash.c core/hash.h \
	core/settings.c core/settings.h \
	core/detect.c core/detect.h \
	core/error.c core/error.h \
	core/file_writer.c core/file_writer.h \
	core/grid.c \
	core/group.c core/group.h \
	core/handover.c core/handover.h \
	core/host.c core/host.h \
	core/loader.c core/loader.h \
	core/merge.c core/merge.h \
	core/metrics.c core/metrics.h core/energy.c core/energy.h \
	core/metas.c core/metas.h \
	core/contacts.c core/contacts.h \
	core/neighbors.c core/neighbors.h \
	core/output.c core/output.h core/output_copy.c core/output_ply.c \
	core/output_vtp.c core/writers.c \
	core/pairlist.c \
	core/parallel.h \
	core/preview.c core/preview.h \
	core/render.c core/render.h \
	core/render_dir.c \
	core/render_png.c core/render_png.h \
	core/report.c core/report.h \
	core/rng.c core/rng.h \
	core/scene.c core/scene.h \
	core/shapes.c core/shapes.h \
	core/sim.c core/sim.h \
	core/split.c core/split.h \
	core/status.c \
	core/step.c core/step.h \
	core/sync.c core/sync.h \
	core/iterate.c core/iterate.h \
	core/couple.c core/couple.h \
	core/rules.h \
	core/system.c core/system.h core/systems.c \
	core/timing.h \
	core/vec3.h \
	core/version.c \
	core/vtp_read.c core/vtp_read.h \
	core/xalloc.h
core_libmscore_la_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE -DMS_BUILDING_CORE \
	-DMS_PLUGINDIR='"$(plugindir)"' $(LIBCONFIG_CFLAGS) $(CAIRO_CFLAGS)
core_libmscore_la_CFLAGS = $(AM_CFLAGS) $(MS_VISIBILITY_CFLAGS) -pthread
core_libmscore_la_LIBADD = $(LIBCONFIG_LIBS) $(CAIRO_LIBS)

lib_LTLIBRARIES += core/libmergesplit.la
# All objects come from the convenience library (libtool links it whole).
core_libmergesplit_la_SOURCES =
nodist_EXTRA_core_libmergesplit_la_SOURCES = core/dummy.c
core_libmergesplit_la_CPPFLAGS = $(core_libmscore_la_CPPFLAGS)
core_libmergesplit_la_CFLAGS = $(core_libmscore_la_CFLAGS)
core_libmergesplit_la_LIBADD = core/libmscore.la $(LIBCONFIG_LIBS) $(CAIRO_LIBS)
core_libmergesplit_la_LDFLAGS = -version-info $(MS_LT_VERSION) -no-undefined \
	$(OPENMP_CFLAGS)

bin_PROGRAMS += core/cli/mergesplit
core_cli_mergesplit_SOURCES = core/cli/main.c core/cli/cli.h \
	core/cli/progress.c core/cli/progress.h \
	core/cli/render.c core/cli/run.c core/cli/conformance.c \
	core/cli/compare.c
core_cli_mergesplit_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE
core_cli_mergesplit_LDADD = core/libmergesplit.la
core_cli_mergesplit_LDFLAGS = $(OPENMP_CFLAGS)

# Manual pages: the command and the scene-file format.
dist_man_MANS = core/cli/mergesplit.1 core/cli/mergesplit.cfg.5
