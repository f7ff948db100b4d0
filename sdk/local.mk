# The plugin SDK: public headers and the pkg-config files, one for plugin
# authors (headers only), one for programs that link the core library.
mergesplitincludedir = $(includedir)/mergesplit
mergesplitinclude_HEADERS = \
	sdk/include/mergesplit/core.h \
	sdk/include/mergesplit/host.h \
	sdk/include/mergesplit/plugin.h \
	sdk/include/mergesplit/plugin_util.h \
	sdk/include/mergesplit/status.h \
	sdk/include/mergesplit/view.h

pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = sdk/mergesplit-plugin.pc sdk/mergesplit.pc
EXTRA_DIST += sdk/mergesplit-plugin.pc.in sdk/mergesplit.pc.in

# The example third-party plugin: shipped as documentation (the -dev
# package), built standalone with pkg-config (see sdk/example/Makefile).
exampledir = $(docdir)/example
dist_example_DATA = sdk/example/dust.c sdk/example/Makefile sdk/example/dust.cfg

# The plugin author guide; the core library's guide.
dist_man7_MANS = sdk/mergesplit-plugin.7
dist_man3_MANS = sdk/libmergesplit.3
