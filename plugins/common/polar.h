/* Polar decomposition and rotations of 3x3 matrices (row-major), free of
 * the host: the shape-matching plugins (shape_matching, virtual_material)
 * find a rotation in a fitted linear transform the same way. */
#ifndef MS_PLUGINS_COMMON_POLAR_H
#define MS_PLUGINS_COMMON_POLAR_H

/* det A. */
double msc_det3(const double *A);
/* Inverse of A into Ai; 0 when singular (|det| <= tol) or not finite. */
int msc_inverse3(const double *A, double *Ai, double tol);
/* R of a unit quaternion (w, x, y, z). */
void msc_quat_matrix(const double *q, double *R);
/* The unit quaternion of a rotation matrix R. */
void msc_matrix_quat(const double *R, double *q);
/* The rotation R of the polar decomposition A = R S.  Newton's iteration
 * X <- (X + X^-T) / 2 when A is well conditioned with det A > 0,
 * converged to round-off; otherwise the iteration of Mueller et al. 2016
 * on the quaternion q (in: a warm start, out: the rotation found), which
 * also serves singular and inverted A. */
void msc_polar(const double *A, double *R, double *q);

#endif
