/* sph.h — real solid harmonics ℛ, 𝒮 and derivative maps, in double (_d) and float (_f). */
#ifndef VX_SPH_H
#define VX_SPH_H
#include <math.h>
#include "hd.h"
#define VX_DOUBLE_INST
#include "real_t.h"
#include "sph_t.h"
#undef VX_DOUBLE_INST
#define VX_FLOAT_INST
#include "real_t.h"
#include "sph_t.h"
#undef VX_FLOAT_INST
#endif
