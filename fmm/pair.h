/* pair.h — regularized Biot–Savart pair kernels (near field and direct sum), double and float. */
#ifndef VX_PAIR_H
#define VX_PAIR_H
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "hd.h"
#define VX_DOUBLE_INST
#include "real_t.h"
#include "pair_t.h"
#undef VX_DOUBLE_INST
#define VX_FLOAT_INST
#include "real_t.h"
#include "pair_t.h"
#undef VX_FLOAT_INST
#endif
