// The headers most tests include, precompiled once and reused by every test executable of a kind
// (tests/CMakeLists.txt): parsing them was about three quarters of a test's compile time.
#pragma once

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/io/MlirPrinter.h"
#include "core/io/MlirReader.h"
#include "core/ir/Module.h"
#include "core/passes/PassRegistry.h"
#include "core/session/Session.h"
