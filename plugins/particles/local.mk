# Plugin `particles`: free spherical particles (the reference plugin).
plugin_LTLIBRARIES += plugins/particles.la
plugins_particles_la_SOURCES = plugins/particles/plugin.c \
	plugins/particles/config.c plugins/particles/particles.h
plugins_particles_la_CPPFLAGS = $(MS_PLUGIN_CPPFLAGS)
plugins_particles_la_CFLAGS = $(MS_PLUGIN_CFLAGS)
plugins_particles_la_LDFLAGS = $(MS_PLUGIN_LDFLAGS)
plugins_particles_la_LIBADD = -lm
dist_man7_MANS += plugins/particles/mergesplit-particles.7
