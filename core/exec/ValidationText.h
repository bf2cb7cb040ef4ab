// Internal to core/exec: the number, tolerance and device-list texts that validation's messages and its
// report (ValidationOutput.cpp) share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/exec/Validation.h"

namespace shardx::exec {

/// `1.5e-05`: three significant digits; `inf`.
std::string valNumber(double v);
/// `exact` or `ABS + REL*max|x|`.
std::string valToleranceText(const Tolerance& t);
/// `[0, 3, 5]`.
std::string valDevicesText(const std::vector<int64_t>& ids);

} // namespace shardx::exec
