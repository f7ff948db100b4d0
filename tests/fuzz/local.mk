# `make fuzz`: libFuzzer over the scene loader and over the checkpoint
# reader (`make fuzz-scene`, `make fuzz-checkpoint`), with ASan and UBSan.
# Needs clang and libomp-dev (Debian: apt-get install clang libomp-dev).
# The core's sources, and for the checkpoint reader every shipped plugin,
# are compiled again with clang's coverage instrumentation; nothing here
# is part of the build or of `make check`.
FUZZ_CC = clang
FUZZ_RUNS = 1000000
FUZZ_SANITIZE = address,undefined -fno-sanitize-recover=all
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,$(FUZZ_SANITIZE)
FUZZ_SRCS = $(filter %.c,$(core_libmscore_la_SOURCES))
FUZZ_LIBFUZZER = -runs=$(FUZZ_RUNS) -print_final_stats=1 \
	-artifact_prefix=tests/fuzz/
FUZZ_ENV = LSAN_OPTIONS=suppressions=$(abs_top_srcdir)/tests/lsan.supp
# A harness: `$(FUZZ_BUILD) [flags] -o $@ HARNESS.c $(FUZZ_CORE)`.
FUZZ_HAVE_CC = command -v $(FUZZ_CC) >/dev/null || { echo "make fuzz \
	needs $(FUZZ_CC) (apt-get install clang libomp-dev)"; exit 1; }
FUZZ_BUILD = $(FUZZ_CC) $(FUZZ_FLAGS) $(core_libmscore_la_CPPFLAGS) \
	-I$(top_srcdir)/core $(OPENMP_CFLAGS) -pthread
FUZZ_CORE = $(FUZZ_SRCS:%=$(top_srcdir)/%) $(LIBCONFIG_LIBS) $(CAIRO_LIBS) \
	-lm -ldl
EXTRA_DIST += tests/fuzz/fuzz_scene.c tests/fuzz/fuzz_checkpoint.c \
	tests/lsan.supp

tests/fuzz/fuzz_scene: $(top_srcdir)/tests/fuzz/fuzz_scene.c \
		$(FUZZ_SRCS:%=$(top_srcdir)/%)
	@$(FUZZ_HAVE_CC)
	$(AM_V_CC)$(MKDIR_P) tests/fuzz && $(FUZZ_BUILD) -o $@ \
	  $(top_srcdir)/tests/fuzz/fuzz_scene.c $(FUZZ_CORE)

# The corpus starts from every scene of configs/ and tests/data/; what the
# fuzzer finds stays in tests/fuzz/corpus for the next run.  A crash
# leaves its input as tests/fuzz/crash-* and fails the target.
fuzz: fuzz-scene fuzz-checkpoint
fuzz-scene: tests/fuzz/fuzz_scene
	$(MKDIR_P) tests/fuzz/corpus
	find $(top_srcdir)/configs $(top_srcdir)/tests/data -name '*.cfg' \
	  -exec cp {} tests/fuzz/corpus/ \;
	$(FUZZ_ENV) tests/fuzz/fuzz_scene $(FUZZ_LIBFUZZER) -max_len=8192 \
	  tests/fuzz/corpus

# The checkpoint reader.  Its plugins are built again with the same
# instrumentation (one shared object per solver, with the helpers of
# plugins/common it may use), so their load() is fuzzed too; the harness
# loads only these.  Its corpus starts from a checkpoint of each of its
# scenes, written by the harness itself (MS_FUZZ_WRITE_SEEDS).
FUZZ_PLUGINS = particles mass_spring peridynamics sph flip rigid \
	shape_matching virtual_material
fuzz_particles = $(plugins_particles_la_SOURCES)
fuzz_mass_spring = $(plugins_mass_spring_la_SOURCES) \
	$(plugins_mass_spring_libmassspring_la_SOURCES)
fuzz_peridynamics = $(plugins_peridynamics_la_SOURCES) \
	$(plugins_peridynamics_libperidynamics_la_SOURCES)
fuzz_sph = $(plugins_sph_la_SOURCES) $(plugins_sph_libsphsolver_la_SOURCES)
fuzz_flip = $(plugins_flip_la_SOURCES) $(plugins_flip_libflip_la_SOURCES)
fuzz_rigid = $(plugins_rigid_la_SOURCES) $(plugins_rigid_librigid_la_SOURCES)
fuzz_shape_matching = $(plugins_shape_matching_la_SOURCES) \
	$(plugins_shape_matching_libshape_matching_la_SOURCES)
fuzz_virtual_material = $(plugins_virtual_material_la_SOURCES) \
	$(plugins_virtual_material_libvirtual_material_la_SOURCES)
FUZZ_PLUGIN_COMMON = $(plugins_common_libmsimplicit_la_SOURCES) \
	$(plugins_common_libmsbodies_la_SOURCES) \
	$(plugins_common_libmspolar_la_SOURCES)
FUZZ_PLUGIN_DIR = $(abs_builddir)/tests/fuzz/plugins

tests/fuzz/plugins/.built: $(plugin_LTLIBRARIES)
	@$(FUZZ_HAVE_CC)
	$(MKDIR_P) tests/fuzz/plugins
	$(foreach p,$(FUZZ_PLUGINS),$(FUZZ_CC) -Wno-pass-failed \
	  -g -O1 -fsanitize=fuzzer-no-link,$(FUZZ_SANITIZE) -shared -fPIC \
	  $(MS_VISIBILITY_CFLAGS) $(MS_PLUGIN_CPPFLAGS) $(CHOLMOD_CFLAGS) \
	  -D_GNU_SOURCE $(OPENMP_CFLAGS) -o tests/fuzz/plugins/$(p).so \
	  $(addprefix $(top_srcdir)/,$(filter %.c,$(fuzz_$(p)) \
	    $(FUZZ_PLUGIN_COMMON))) $(CHOLMOD_LIBS) -lm && ) touch $@

tests/fuzz/fuzz_checkpoint: $(top_srcdir)/tests/fuzz/fuzz_checkpoint.c \
		$(FUZZ_SRCS:%=$(top_srcdir)/%)
	@$(FUZZ_HAVE_CC)
	$(AM_V_CC)$(MKDIR_P) tests/fuzz && $(FUZZ_BUILD) \
	  -DMS_FUZZ_CONFIGS='"$(abs_top_srcdir)/configs"' \
	  -DMS_FUZZ_PLUGINS='"$(FUZZ_PLUGIN_DIR)"' -o $@ \
	  $(top_srcdir)/tests/fuzz/fuzz_checkpoint.c $(FUZZ_CORE)

fuzz-checkpoint: tests/fuzz/fuzz_checkpoint tests/fuzz/plugins/.built
	rm -rf tests/fuzz/seeds && $(MKDIR_P) tests/fuzz/seeds \
	  tests/fuzz/corpus-checkpoint
	$(FUZZ_ENV) MS_FUZZ_WRITE_SEEDS=tests/fuzz/seeds tests/fuzz/fuzz_checkpoint
	cp tests/fuzz/seeds/* tests/fuzz/corpus-checkpoint/
	$(FUZZ_ENV) tests/fuzz/fuzz_checkpoint $(FUZZ_LIBFUZZER) -timeout=10 \
	  -max_len=1000000 -rss_limit_mb=4096 tests/fuzz/corpus-checkpoint
.PHONY: fuzz fuzz-scene fuzz-checkpoint
CLEANFILES += tests/fuzz/fuzz_scene tests/fuzz/fuzz_checkpoint
clean-local: clean-fuzz
clean-fuzz:
	-rm -rf tests/fuzz/plugins tests/fuzz/seeds
.PHONY: clean-fuzz
