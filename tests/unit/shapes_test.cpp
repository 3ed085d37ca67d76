// Certifies the shape utilities in float and double: validate() accepts good shapes and poses
// and names the offending field of bad ones; bounding_radius() bounds every point of a shape
// (checked on dense samples) and is attained by the primitives; convert_shape() keeps the type
// and the geometry up to the target's rounding; shape_name() gives the protocol names.
#include "oracles.hpp"
#include "scenes.hpp"

#include <impact/query.hpp>

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>

namespace {

using namespace impact;
using oracle::Body;
using oracle::Kind;
using oracle::V;

template <class S>
class Shapes : public testing::Test {};
using Scalars = testing::Types<float, double>;
TYPED_TEST_SUITE(Shapes, Scalars);

TYPED_TEST(Shapes, ValidateAcceptsEveryRandomShapeAndPose) {
  using S = TypeParam;
  scenes::Rng rng(scenes::seed_of(std::string("validate good ") + scenes::scalar_name<S>()));
  for (Kind k : scenes::kAllKinds)
    for (int i = 0; i < 20; ++i) EXPECT_EQ(validate(scenes::random_shape<S>(k, rng).shape), "") << oracle::kind_name(k);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(validate(scenes::make_pose<S>(rng.in_cube(10), rng.rotation())), "");
  EXPECT_EQ(validate(Shape<S>(Sphere<S>{S(0)})), "") << "a zero radius is a point";
  EXPECT_EQ(validate(Shape<S>(Box<S>{Vec3<S>(0, 0, 0)})), "") << "zero half extents are allowed";
}

TYPED_TEST(Shapes, ValidateNamesTheOffendingField) {
  using S = TypeParam;
  const S nan = std::numeric_limits<S>::quiet_NaN(), inf = std::numeric_limits<S>::infinity();
  const S huge = S(2) * Tolerances<S>::max_magnitude;
  const auto ball = std::make_shared<const Shape<S>>(Sphere<S>{S(1)});
  const auto bad_ball = std::make_shared<const Shape<S>>(Sphere<S>{S(-1)});
  Pose<S> tilted;
  tilted.rotation = Quat<S>(S(0.9), 0, 0, 0);
  struct Bad {
    Shape<S> shape;
    std::string error_prefix;
  };
  const Bad bad[] = {
      {Sphere<S>{S(-1)}, "radius: negative"},
      {Sphere<S>{nan}, "radius: not finite"},
      {Sphere<S>{inf}, "radius: not finite"},
      {Sphere<S>{huge}, "radius: out of range"},
      {Box<S>{Vec3<S>(1, 1, -1)}, "half_extents.2: negative"},
      {Box<S>{Vec3<S>(nan, 1, 1)}, "half_extents.0: not finite"},
      {Box<S>{Vec3<S>(1, nan, 1)}, "half_extents.1: not finite"},
      {Capsule<S>{S(1), S(-1)}, "half_height: negative"},
      {Cylinder<S>{S(-1), S(1)}, "radius: negative"},
      {Cone<S>{S(1), nan}, "half_height: not finite"},
      {Segment<S>{Vec3<S>(0, 0, 0), Vec3<S>(0, 0, nan)}, "b.2: not finite"},
      {Segment<S>{Vec3<S>(0, huge, 0), Vec3<S>(0, 0, 0)}, "a.1: out of range"},
      {Triangle<S>{Vec3<S>(0, 0, 0), Vec3<S>(1, 0, 0), Vec3<S>(0, inf, 0)}, "c.1: not finite"},
      {Hull<S>{}, "points: empty hull"},
      {MinkowskiShape<S>{nullptr, ball}, "a: missing"},
      {MinkowskiShape<S>{ball, bad_ball}, "b.radius: negative"},
      {TransformedShape<S>{bad_ball, Pose<S>{}}, "shape.radius: negative"},
      {TransformedShape<S>{ball, tilted}, "pose.rotation: norm"},
  };
  for (const Bad& b : bad) {
    const std::string e = validate(b.shape);
    EXPECT_EQ(e.rfind(b.error_prefix, 0), 0u) << scenes::describe(b.shape) << ": got \"" << e << "\", expected \""
                                              << b.error_prefix << "...\"";
  }
  Hull<S> unbuilt;
  unbuilt.vertices = {Vec3<S>(0, 0, 0)};
  EXPECT_EQ(validate(Shape<S>(unbuilt)).rfind("points: hull not built", 0), 0u);

  Pose<S> p;
  p.position = Vec3<S>(0, 0, nan);
  EXPECT_EQ(validate(p), "position.2: not finite");
  p.position = Vec3<S>(-huge, 0, 0);
  EXPECT_EQ(validate(p), "position.0: out of range");
  p.position.setZero();
  p.rotation = Quat<S>(nan, 0, 0, 0);
  EXPECT_EQ(validate(p), "rotation.0: not finite") << "the protocol indexes the quaternion w first";
  p.rotation = Quat<S>(1, 0, nan, 0);
  EXPECT_EQ(validate(p), "rotation.2: not finite");
  p.rotation = Quat<S>(S(1.01), 0, 0, 0);
  EXPECT_EQ(validate(p).rfind("rotation: norm", 0), 0u) << validate(p);
  p.rotation = Quat<S>(S(1) + S(0.25) * Tolerances<S>::unit_quaternion, 0, 0, 0);
  EXPECT_EQ(validate(p), "") << "norms within unit_quaternion of 1 are accepted";
}

/// bounding_radius(s) ≥ |x| for every point x of s (checked on dense samples and on the support
/// points of many directions), and for primitives the bound is attained: it is within sampling
/// resolution of the largest sampled |x| (samples include corners, rims and apexes).
TYPED_TEST(Shapes, BoundingRadiusBoundsEveryPointAndIsTightForPrimitives) {
  using S = TypeParam;
  scenes::Rng rng(scenes::seed_of(std::string("bounding radius ") + scenes::scalar_name<S>()));
  const double eps = 16 * double(std::numeric_limits<S>::epsilon());
  for (Kind k : scenes::kAllKinds) {
    for (int i = 0; i < 20; ++i) {
      const auto rs = scenes::random_shape<S>(k, rng);
      const Body body = oracle::make_body(rs.shape, Pose<S>::identity(), rs.hull_local);
      const double r = bounding_radius(rs.shape);
      double largest = 0;
      for (const V& x : oracle::surface_samples(body, 4000, [&] { return rng.unit(); }, [&] { return rng.uniform(); }))
        largest = std::max(largest, x.norm());
      for (int j = 0; j < 200; ++j) largest = std::max(largest, support(rs.shape, Vec3<S>(rng.unit().cast<S>())).template cast<double>().norm());
      EXPECT_LE(largest, r * (1 + eps) + eps) << scenes::describe(rs.shape);
      if (k != Kind::rounded_box) {  // a sum's bound is the sum of its parts' bounds: not tight
        // Sampling misses the farthest point of a ball by at most its angular spacing (a few
        // degrees with ~1000 samples per ball): 1% of r.
        EXPECT_GE(largest, r * 0.99 - eps) << scenes::describe(rs.shape) << ": bound not attained";
      }
    }
  }
}

TYPED_TEST(Shapes, ConvertShapeKeepsTheTypeAndTheGeometry) {
  using S = TypeParam;
  using T = std::conditional_t<std::is_same_v<S, float>, double, float>;
  scenes::Rng rng(scenes::seed_of(std::string("convert ") + scenes::scalar_name<S>()));
  const double eps_t = 8 * double(std::numeric_limits<float>::epsilon());  // the float side rounds
  for (Kind k : scenes::kAllKinds) {
    for (int i = 0; i < 10; ++i) {
      const Shape<S> s = scenes::random_shape<S>(k, rng).shape;
      const Shape<T> t = convert_shape<T>(s);
      EXPECT_EQ(s.index(), t.index()) << scenes::describe(s);
      EXPECT_STREQ(shape_name(s), shape_name(t));
      EXPECT_EQ(validate(t), "");
      const Shape<S> back = convert_shape<S>(t);
      for (int j = 0; j < 50; ++j) {
        const V d = rng.unit();
        const double hs = d.dot(support(s, Vec3<S>(d.cast<S>())).template cast<double>());
        const double ht = d.dot(support(t, Vec3<T>(d.cast<T>())).template cast<double>());
        const double hb = d.dot(support(back, Vec3<S>(d.cast<S>())).template cast<double>());
        EXPECT_NEAR(hs, ht, eps_t * 4) << scenes::describe(s);
        EXPECT_NEAR(hs, hb, eps_t * 4) << scenes::describe(s);
      }
      if (const auto* h = std::get_if<Hull<S>>(&s.variant())) {
        const auto& ht = std::get<Hull<T>>(t.variant());
        EXPECT_EQ(h->vertices.size(), ht.vertices.size());
        EXPECT_EQ(h->neighbors, ht.neighbors);
        EXPECT_EQ(h->faces.size(), ht.faces.size());
        EXPECT_EQ(h->dimension, ht.dimension);
      }
    }
  }
  // Nested composites convert all the way down.
  const auto box = std::make_shared<const Shape<S>>(Box<S>{Vec3<S>(1, 2, 3)});
  const Shape<S> nested = TransformedShape<S>{
      std::make_shared<const Shape<S>>(MinkowskiShape<S>{box, std::make_shared<const Shape<S>>(Sphere<S>{S(0.5)})}),
      scenes::make_pose<S>(V(1, 2, 3), Eigen::Quaterniond(Eigen::AngleAxisd(0.3, V::UnitY())))};
  const Shape<T> nt = convert_shape<T>(nested);
  for (int j = 0; j < 50; ++j) {
    const V d = rng.unit();
    EXPECT_NEAR(d.dot(support(nested, Vec3<S>(d.cast<S>())).template cast<double>()),
                d.dot(support(nt, Vec3<T>(d.cast<T>())).template cast<double>()), 1e-5);
  }
}

TYPED_TEST(Shapes, ShapeNamesAreTheProtocolNames) {
  using S = TypeParam;
  const auto ball = std::make_shared<const Shape<S>>(Sphere<S>{S(1)});
  EXPECT_STREQ(shape_name(Shape<S>(Point<S>{})), "point");
  EXPECT_STREQ(shape_name(Shape<S>(Sphere<S>{})), "sphere");
  EXPECT_STREQ(shape_name(Shape<S>(Box<S>{})), "box");
  EXPECT_STREQ(shape_name(Shape<S>(Capsule<S>{})), "capsule");
  EXPECT_STREQ(shape_name(Shape<S>(Cylinder<S>{})), "cylinder");
  EXPECT_STREQ(shape_name(Shape<S>(Cone<S>{})), "cone");
  EXPECT_STREQ(shape_name(Shape<S>(Segment<S>{})), "segment");
  EXPECT_STREQ(shape_name(Shape<S>(Triangle<S>{})), "triangle");
  EXPECT_STREQ(shape_name(Shape<S>(Hull<S>{})), "hull");
  EXPECT_STREQ(shape_name(Shape<S>(MinkowskiShape<S>{ball, ball})), "minkowski");
  EXPECT_STREQ(shape_name(Shape<S>(TransformedShape<S>{ball, Pose<S>{}})), "transformed");
}

}  // namespace
