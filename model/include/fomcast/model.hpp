// fomcast's vocabulary: operations with shapes, workloads, platforms, kernel timing
// tables and studies. Plain values only; every other folder speaks in these types. One
// header per concept; this one includes them all.
//
// Units are in the names: `_s` seconds, `_us` microseconds, `_bytes`, `_flop_per_s`.
#pragma once

#include "fomcast/json_forms.hpp"
#include "fomcast/kernel_table.hpp"
#include "fomcast/op.hpp"
#include "fomcast/platform.hpp"
#include "fomcast/precision.hpp"
#include "fomcast/progress.hpp"
#include "fomcast/study.hpp"
#include "fomcast/workload.hpp"
