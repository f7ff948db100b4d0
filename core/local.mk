# The coupling core: a convenience library (also linked by the tests), the
# shared library libmergesplit and the mergesplit command.
#
# libmergesplit's libtool version (current:revision:age) follows the
# library's own API; it is independent of the plugin ABI (plugin.h).
MS_LT_VERSION = 0:0:0

noinst_LTLIBRARIES += core/libmscore.la
# One folder a layer, each with its one internal header; a layer includes
# only its own header and the headers of the layers listed before it.
core_libmscore_la_SOURCES = \
	core/base/base.h core/base/error.c core/base/rng.c core/base/status.c \
	core/base/plugin_call.c \
	core/base/version.c core/base/blas.c core/base/hash.c \
	core/base/view_field.c \
	core/detection/detection.h core/detection/detect.c \
	core/detection/grid.c core/detection/pairlist.c \
	core/detection/neighbors.c \
	core/io/io.h core/io/afile.c core/io/file_writer.c core/io/output.c \
	core/io/output_copy.c core/io/output_obj.c core/io/output_ply.c \
	core/io/output_vtp.c core/io/surface.c core/io/writers.c \
	core/io/vtp_read.c \
	core/scene/scene.h core/scene/scene.c core/scene/settings.c \
	core/scene/shapes.c core/scene/mesh.c core/scene/mesh_sample.c \
	core/scene/loader.c \
	core/coupling/coupling.h core/coupling/group.c core/coupling/metas.c \
	core/coupling/merge.c core/coupling/split.c core/coupling/sync.c \
	core/coupling/iterate.c core/coupling/contacts.c \
	core/coupling/baselines.c \
	core/step/step.h core/step/system.c core/step/metrics.c \
	core/step/step.c core/step/couple.c core/step/handover.c \
	core/step/heat.c core/step/domain.c \
	core/preview/preview.h core/preview/preview.c core/preview/render.c \
	core/preview/render_dir.c core/preview/render_png.c \
	core/preview/plot.c core/preview/plot_draw.c core/preview/study.c \
	core/run/run.h core/run/sim.c core/run/host.c core/run/systems.c \
	core/run/energy.c core/run/report.c core/run/frame_output.c \
	core/run/checkpoint.c core/run/state.c \
	core/conformance/conformance.h core/conformance/conformance.c \
	core/conformance/conformance_checks.c \
	core/conformance/conformance_coupled.c
core_libmscore_la_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE -DMS_BUILDING_CORE \
	-DMS_PLUGINDIR='"$(plugindir)"' $(LIBCONFIG_CFLAGS) $(CAIRO_CFLAGS) \
	$(ASSIMP_CFLAGS) $(JSONC_CFLAGS) $(ZLIB_CFLAGS)
core_libmscore_la_CFLAGS = $(AM_CFLAGS) $(MS_VISIBILITY_CFLAGS) -pthread
core_libmscore_la_LIBADD = $(LIBCONFIG_LIBS) $(CAIRO_LIBS) $(ASSIMP_LIBS) \
	$(JSONC_LIBS) $(ZLIB_LIBS)

lib_LTLIBRARIES += core/libmergesplit.la
# All objects come from the convenience library (libtool links it whole).
core_libmergesplit_la_SOURCES =
nodist_EXTRA_core_libmergesplit_la_SOURCES = core/dummy.c
core_libmergesplit_la_CPPFLAGS = $(core_libmscore_la_CPPFLAGS)
core_libmergesplit_la_CFLAGS = $(core_libmscore_la_CFLAGS)
core_libmergesplit_la_LIBADD = core/libmscore.la $(LIBCONFIG_LIBS) $(CAIRO_LIBS) \
	$(ASSIMP_LIBS) $(JSONC_LIBS) $(ZLIB_LIBS)
# Only the public API (MS_API, ms_*) is exported: not the OpenMP runtime's
# named locks the compiler makes global (debian/libmergesplit0.symbols
# lists the exports; tests/sdk.test checks all three agree).
core_libmergesplit_la_LDFLAGS = -version-info $(MS_LT_VERSION) -no-undefined \
	-export-symbols-regex '^ms_[a-z]' $(OPENMP_CFLAGS)

bin_PROGRAMS += core/cli/mergesplit
core_cli_mergesplit_SOURCES = core/cli/main.c core/cli/cli.h \
	core/cli/progress.c \
	core/cli/render.c core/cli/plot.c core/cli/run.c core/cli/conformance.c \
	core/cli/compare.c core/cli/sweep.c core/cli/sweep_mpi.c
core_cli_mergesplit_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE
core_cli_mergesplit_LDADD = core/libmergesplit.la
if MS_WITH_MPI
core_cli_mergesplit_CPPFLAGS += -DMS_WITH_MPI $(MPI_CFLAGS)
core_cli_mergesplit_LDADD += $(MPI_LIBS)
endif
core_cli_mergesplit_LDFLAGS = $(OPENMP_CFLAGS)

# Manual pages: the command and the scene-file format.
dist_man_MANS = core/cli/mergesplit.1 core/cli/mergesplit.cfg.5
