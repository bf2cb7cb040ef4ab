// GraphLayout: placeholder.
#include "core/layout/GraphLayout.h"
