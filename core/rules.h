/* The paper's two rules for a pair of particles (Sec. 5, Eqs. 21-22), one
 * home each.  Every user asks these: the classification of candidate
 * pairs and stage 2 (step.c), the impulses on pairs left out of size-
 * limited meta-particles (contacts.c) and the baselines (baselines.c). */
#ifndef MS_CORE_RULES_H
#define MS_CORE_RULES_H

/* Rule 1 (Eq. 21): two particles d2 = |x_j - x_i|^2 apart, of radii r_i
 * and r_j, touch: |x_j - x_i| < r_i + r_j (strictly: resting exactly at
 * the distance is not a contact). */
static inline int ms__rule_contact(double d2, double ri, double rj) {
  double t = ri + rj;
  return d2 < t * t;
}

/* Rule 2 (Eq. 22): a pair approaches when the normal component of its
 * relative motion, vn = n . (v_j - v_i) with n along x_j - x_i (any
 * positive length), is below -tol.  tol >= 0 absorbs rounding; 0 for the
 * paper's rule.  A pair at vn == 0 neither approaches nor separates; the
 * other side of the rule, separating, is vn > tol.
 *
 * MS__RULE_TWO_SWAPPED exchanges the two sides: only the test program
 * tests/rules/run-rule-swap defines it, to show that every user of the
 * rule follows this one place. */
#ifndef MS__RULE_TWO_SWAPPED
static inline int ms__rule_approaching(double vn, double tol) {
  return vn < -tol;
}
static inline int ms__rule_separating(double vn, double tol) {
  return vn > tol;
}
#else
static inline int ms__rule_approaching(double vn, double tol) {
  return vn > tol;
}
static inline int ms__rule_separating(double vn, double tol) {
  return vn < -tol;
}
#endif

#endif
