// impact — impact.hpp: the whole API in one include. Shapes and poses (shapes.hpp, math.hpp),
// statuses and tolerances, distance and intersection (query.hpp), ray and shape casts (cast.hpp),
// time of impact under rotation (toi.hpp), triangle meshes (mesh.hpp), levels of rooms and
// portals (level.hpp), worlds of many moving bodies (world.hpp), and many queries at once on
// every core (batch.hpp). The algorithms behind them live in src/ and are not installed.
#pragma once

#include <impact/batch.hpp>
#include <impact/cast.hpp>
#include <impact/level.hpp>
#include <impact/math.hpp>
#include <impact/mesh.hpp>
#include <impact/query.hpp>
#include <impact/shapes.hpp>
#include <impact/status.hpp>
#include <impact/tolerances.hpp>
#include <impact/toi.hpp>
#include <impact/world.hpp>
