# Shipped solver plugins: libtool modules installed in $(plugindir).
# A plugin includes only <mergesplit/...>.
MS_PLUGIN_CPPFLAGS = -I$(top_srcdir)/sdk/include \
	-DPACKAGE_VERSION='"$(PACKAGE_VERSION)"'
MS_PLUGIN_CFLAGS = $(AM_CFLAGS) $(MS_VISIBILITY_CFLAGS)
MS_PLUGIN_LDFLAGS = -module -avoid-version -no-undefined -shared \
	$(OPENMP_CFLAGS)


# One fragment per plugin: module, its tests, its benchmark, its scenes.
include plugins/common/local.mk
include plugins/particles/local.mk
include plugins/mass_spring/local.mk
include plugins/peridynamics/local.mk
include plugins/sph/local.mk
include plugins/flip/local.mk
include plugins/rigid/local.mk
include plugins/shape_matching/local.mk
include plugins/virtual_material/local.mk

# libtool's .la files are of no use for dlopen()ed modules; without them
# libtool's uninstall no longer knows the .so files, so remove those too.
install-data-hook: remove-plugin-la
remove-plugin-la:
	-rm -f $(DESTDIR)$(plugindir)/*.la
uninstall-hook:
	-rm -f $(plugin_LTLIBRARIES:plugins/%.la=$(DESTDIR)$(plugindir)/%.so)
.PHONY: remove-plugin-la
