/* sub/util.h - a registered header in a subfolder (registered as "sub/util.h"). */
#pragma once

__device__ static inline float add_offset(float v, float offset)
{
	return v + offset;
}
