/* Coupling iterations (coupling.iterations; doc/sync.md section 6).  The
 * synchronisation sums what every system did to a meta-particle as if the
 * others did nothing: one Jacobi pass of a partitioned coupling.  Iterating
 * hands each system the others' effect as a change of the meta-particle's
 * start velocity (an impulse at the start of the step: the same for an
 * explicit and a backward-Euler integrator) and integrates the step again,
 * until every system's end velocity agrees with the synchronised one.
 *
 * The unknown x is that change of start velocity, per entry (meta-
 * particle, system); one pass maps it to x~ = x + r, r_e = V_k - v^e.  The
 * update is interface quasi-Newton with least squares (IQN-ILS, Degroote
 * et al. 2009, as preCICE has it): the differences of r and of x~ over the
 * step's passes give an approximate inverse Jacobian, so stiff partners,
 * on which plain Jacobi grows, converge; the first pass is relaxed. */
#ifndef MS_CORE_ITERATE_H
#define MS_CORE_ITERATE_H

#include <stddef.h>
#include <stdint.h>

#include "metas.h"

struct ms__iqn {
  size_t n, cap_n;         /* unknowns this step: 3 per taking-part entry */
  uint32_t cols, max_cols, cap_cols; /* history, newest first */
  uint32_t passes;         /* updates made this step */
  double *r, *xt, *rp, *xtp; /* n: residual and x~, now and before */
  double *V, *W;           /* cols x n: differences of r and of x~ */
  double *Q, *R, *c;       /* least-squares workspace */
  uint8_t *part;           /* per meta-particle: takes part (fixed at the
                              step's start: the unknowns keep their places
                              even if a later pass constrains a result) */
  size_t cap_meta;
};

void ms__iqn_free(struct ms__iqn *Q);

/* Start a step's iterations over M's entries (history of at most
 * max_cols passes): the meta-particles that take part are those of
 * several systems that none constrained in the first pass.  MS_ENOMEM or
 * MS_OK. */
int ms__iqn_start(struct ms__iqn *Q, const struct ms__metaset *M,
                  uint32_t max_cols);

/* The residual of the pass just synchronised (and, for led meta-particles,
 * answered): r_e = V_k - v^e for every entry of a taking-part meta (as
 * ms__iqn_start fixed them) that does not lead it.  Returns |r| (2-norm over all entries); *scale is the
 * 2-norm of the velocity changes V_k - v_k, with |g dt| per meta-particle
 * as a floor.  Marks in sys_touched[s] (nsys bytes, zeroed by the caller)
 * every system holding an entry of a taking-part meta-particle. */
double ms__iqn_residual(struct ms__iqn *Q, const struct ms__metaset *M,
                        const double *gd, uint8_t *sys_touched,
                        double *scale);

/* The next start-velocity changes M->eext from the residual just measured:
 * omega0 r on the step's first update, then quasi-Newton. */
void ms__iqn_update(struct ms__iqn *Q, struct ms__metaset *M, double omega0);

#endif
