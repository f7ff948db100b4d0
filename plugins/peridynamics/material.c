/* Material formulas of bond-based peridynamics (Silling & Askari 2005). */
#include <math.h>

#include "peridynamics.h"

static const double pd_pi = 3.14159265358979323846;

double pd_bulk_modulus(double young, double poisson) {
  return young / (3.0 * (1.0 - 2.0 * poisson));
}

/* Matches the strain energy density of an isotropic continuum under
 * uniform dilatation: W = c pi delta^4 s^2 / 4 = 9 K s^2 / 2. */
double pd_micromodulus(double bulk, double horizon) {
  double d2 = horizon * horizon;
  return 18.0 * bulk / (pd_pi * d2 * d2);
}

/* The work to break every bond across a unit crack surface equals G0. */
double pd_critical_stretch(double fracture_energy, double bulk,
                           double horizon) {
  return sqrt(5.0 * fracture_energy / (9.0 * bulk * horizon));
}
