# Scene files, installed as examples.
configsdir = $(pkgdatadir)/configs
dist_configs_DATA = \
	configs/default.cfg configs/two_balls.cfg configs/knot_on_cloth.cfg

# Mesh files scenes fill shapes from (shape type "mesh"); made by
# tests/data/meshes/make_meshes.py.
meshesdir = $(configsdir)/meshes
dist_meshes_DATA = configs/meshes/knot.obj

# The paper's experiments (README: "Reproducing the paper"); the *.systems
# files are included by several scenes.
paperdir = $(configsdir)/paper
dist_paper_DATA = \
	configs/paper/fig03_ball_on_cloth_low.cfg \
	configs/paper/fig03_ball_on_cloth_high.cfg \
	configs/paper/column_on_cloth.systems \
	configs/paper/fig04_column_on_cloth.cfg \
	configs/paper/fig05_brittle_wall.cfg \
	configs/paper/fig07_mass_ratio_1.cfg \
	configs/paper/fig07_mass_ratio_10.cfg \
	configs/paper/fig07_mass_ratio_100.cfg \
	configs/paper/fig08_cloth_tori.cfg \
	configs/paper/fig08_dam_break_wall.cfg \
	configs/paper/fig08_bowl_into_water.cfg \
	configs/paper/fig09_flip_cloth.cfg \
	configs/paper/fig09_flip_wall.cfg \
	configs/paper/fig10a_alpha0_beta0.cfg \
	configs/paper/fig10b_alpha1_beta0.cfg \
	configs/paper/fig10c_alpha1_beta1.cfg \
	configs/paper/block_on_cloth.systems \
	configs/paper/fig11_nmin_nmax_unlimited.cfg \
	configs/paper/fig11_nmin_nmax_32_64.cfg \
	configs/paper/fig11_nmin_nmax_16_32.cfg \
	configs/paper/fig11_nmin_nmax_8_16.cfg \
	configs/paper/fig11_nmin_nmax_8_64.cfg \
	configs/paper/fig11_nmin_nmax_4_8.cfg \
	configs/paper/fig07_mass_ratio.sweep \
	configs/paper/fig10_alpha_beta.sweep \
	configs/paper/fig11_limits.sweep

# Heat between systems and from the scene (doc/heat.md).
heatdir = $(configsdir)/heat
dist_heat_DATA = configs/heat/hot_box_in_water.cfg

# Coupled runs in zero gravity with nothing in reach: what they show is
# whether the coupling conserves momentum (doc/sync.md).
zerogdir = $(configsdir)/zero_g
dist_zerog_DATA = \
	configs/zero_g/ball_into_cloth.cfg \
	configs/zero_g/blob_into_block.cfg \
	configs/zero_g/grains_cloth_ball.cfg

# A run over MPI ranks (doc/distributed.md, section 5): scenes of the
# `particles` solver whose frames are the same bits on any rank count.
distributeddir = $(configsdir)/distributed
dist_distributed_DATA = \
	configs/distributed/dust_ball.cfg \
	configs/distributed/grains.cfg
