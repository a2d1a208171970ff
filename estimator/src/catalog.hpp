// The indexed tables behind a Catalog. Private to estimator/.
#pragma once

#include <string_view>

#include "fomcast/estimate.hpp"
#include "tables.hpp"

namespace fomcast::est {

// The platform's tables indexed for prediction (built on first use, then cached in the
// catalog); nullptr when the platform has no kernel table.
const PlatformTables* tables_of(const Catalog&, std::string_view platform);
// The platform's measured all-reduce group (collectives.cpp); nullptr when it has none.
const TableGroup* allreduce_group(const Catalog&, const Platform&);

}  // namespace fomcast::est
