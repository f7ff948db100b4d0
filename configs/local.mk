# Scene files, installed as examples.
configsdir = $(pkgdatadir)/configs
dist_configs_DATA = \
	configs/default.cfg configs/two_balls.cfg
