// SPDX-License-Identifier: MIT
// The public header used from C++ (-Wall -Wextra -pedantic via warning_level).
#include <ptsim/ptsim.h>
#include <cstring>

int main()
{
	return std::strlen(ptsim_version()) > 0 ? 0 : 1;
}
