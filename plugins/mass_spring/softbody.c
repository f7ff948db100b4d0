/* Soft bodies: particles sampled in a shape, a spring to every neighbour
 * within the spring radius (rest length: the initial distance). */
#include <math.h>

#include "mass_spring.h"

int mss_soft_springs(struct mss_model *M, const uint32_t *offset,
                     const uint32_t *index, double k, double damping) {
  for (size_t i = 0; i < M->n; i++)
    for (uint32_t q = offset[i]; q < offset[i + 1]; q++) {
      uint32_t j = index[q];
      if (j <= i) continue; /* each pair once */
      const double *a = M->x + 3 * i, *b = M->x + 3 * (size_t)j;
      double l = sqrt((b[0] - a[0]) * (b[0] - a[0]) +
                      (b[1] - a[1]) * (b[1] - a[1]) +
                      (b[2] - a[2]) * (b[2] - a[2]));
      if (mss_spring_add(&M->springs, (uint32_t)i, j, k, damping, l))
        return MS_ENOMEM;
    }
  return MS_OK;
}
