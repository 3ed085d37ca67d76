// Protocol tests for `impact query` (../shared/query-protocol.md): every error rule answers
// invalid_input with the offending field's path and the id echoed, a bad line never stops the
// stream, and valid distance queries answer with the protocol's fields and closed-form values.
#include "protocol.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>
#include <string>

namespace {

using nlohmann::json;

json ask(const std::string& line) { return json::parse(impact::cli::answer_line(line)); }

const std::string kSphere = R"({"type":"sphere","radius":1})";
const std::string kBox = R"({"type":"box","half_extents":[1,1,1]})";

std::string distance_line(const std::string& a, const std::string& b, const std::string& extra = "",
                          const std::string& pose_b = R"({"position":[4,0,0]})") {
  return R"({"id":"q","query":"distance","a":)" + a + R"(,"pose_a":{},"b":)" + b + R"(,"pose_b":)" + pose_b + extra +
         "}";
}

/// Asserts an invalid_input answer whose error starts with `field` and which echoes `id`.
void expect_invalid(const std::string& line, const std::string& field, const json& id = "q") {
  const json a = ask(line);
  EXPECT_EQ(a.value("status", ""), "invalid_input") << line << " -> " << a.dump();
  EXPECT_EQ(a["id"], id) << a.dump();
  const std::string err = a.value("error", "");
  EXPECT_EQ(err.rfind(field, 0), 0u) << "error '" << err << "' should name '" << field << "' for " << line;
}

TEST(Protocol, ValidDistanceHasEveryFieldAndTheClosedFormValue) {
  const json a = ask(distance_line(kSphere, kBox));
  ASSERT_EQ(a["status"], "separated") << a.dump();
  EXPECT_EQ(a["id"], "q");
  EXPECT_NEAR(a["distance"].get<double>(), 2.0, 1e-12);  // sphere at 0 (r 1), box face at x = 3
  EXPECT_NEAR(a["point_a"][0].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(a["point_b"][0].get<double>(), 3.0, 1e-12);
  EXPECT_NEAR(a["normal"][0].get<double>(), 1.0, 1e-12);
  EXPECT_TRUE(a["iterations"].is_number_integer());
}

TEST(Protocol, ZeroComponentsAreWrittenWithoutASign) {
  // A sphere left of a box along −x: the normal is (−1, 0, 0) exactly, and its zero components
  // come out of the rotation as −0.0; the answer writes them 0.0 (issue 17), in both precisions.
  for (const char* precision : {"double", "float"}) {
    const std::string line = impact::cli::answer_line(
        std::string(R"({"query":"distance","a":{"type":"sphere","radius":1},"b":{"type":"box","half_extents":[1,1,1]},)") +
        R"("pose_b":{"position":[-3,0,0]},"precision":")" + precision + R"("})");
    EXPECT_EQ(line.find("-0.0"), std::string::npos) << line;
    const json j = json::parse(line);
    EXPECT_EQ(j["normal"][0].get<double>(), -1.0) << line;
    EXPECT_FALSE(std::signbit(j["normal"][1].get<double>())) << line;
    EXPECT_FALSE(std::signbit(j["normal"][2].get<double>())) << line;
  }
}

TEST(Protocol, FloatPrecisionComputesInFloat) {
  const json a = ask(distance_line(kSphere, kBox, R"(,"precision":"float")"));
  ASSERT_EQ(a["status"], "separated") << a.dump();
  EXPECT_NEAR(a["distance"].get<double>(), 2.0, 1e-5);
}

TEST(Protocol, IntersectingAnswersZeroDistance) {
  const json a = ask(distance_line(kSphere, kBox, "", R"({"position":[1.5,0,0]})"));
  EXPECT_EQ(a["status"], "intersecting") << a.dump();
  EXPECT_EQ(a["distance"].get<double>(), 0.0);
}

TEST(Protocol, PoseFieldsAreOptionalAndRotationIsWFirst) {
  // A box turned 90° about z by the quaternion [cos 45°, 0, 0, sin 45°]: its x extent becomes 2.
  const std::string b = R"({"type":"box","half_extents":[1,2,1]})";
  const double h = std::sqrt(0.5);
  const std::string pose = R"({"position":[5,0,0],"rotation":[)" + std::to_string(h) + ",0,0," + std::to_string(h) + "]}";
  const json a = ask(distance_line(kSphere, b, "", pose));
  EXPECT_NEAR(a["distance"].get<double>(), 5.0 - 2.0 - 1.0, 1e-6) << a.dump();
}

TEST(Protocol, IdIsEchoedVerbatimWhateverItsType) {
  for (const std::string id : {R"(7)", R"("x")", R"([1,{"k":null}])", R"(null)", R"({"a":1})"}) {
    const std::string line = R"({"id":)" + id + R"(,"query":"distance","a":)" + kSphere + R"(,"b":)" + kBox +
                             R"(,"pose_b":{"position":[4,0,0]}})";
    EXPECT_EQ(ask(line)["id"], json::parse(id));
  }
}

TEST(Protocol, MalformedLinesAnswerInvalidInputWithNullId) {
  for (const std::string line : {"", "not json", R"({"id":1,"query":"distance")", "[1,2,3]", "42",
                                 R"({"id":2} trailing)", R"({'id':'x'})"}) {
    const json a = ask(line);
    EXPECT_EQ(a["status"], "invalid_input") << line;
    EXPECT_TRUE(a["id"].is_null()) << line;
    EXPECT_FALSE(a.value("error", "").empty());
  }
}

TEST(Protocol, OverflowingNumbersAreNonFiniteAndKeepTheId) {
  expect_invalid(distance_line(R"({"type":"sphere","radius":1e400})", kBox), "a.radius");
  expect_invalid(distance_line(kSphere, kBox, "", R"({"position":[-1e999,0,0]})"), "pose_b.position.0");
  expect_invalid(distance_line(R"({"type":"hull","points":[[0,0,0],[1,0,0],[0,1,1e400]]})", kBox), "a.points.2.2");
}

TEST(Protocol, UnknownThingsAreErrors) {
  expect_invalid(R"({"id":"q","query":"penetration"})", "query");
  expect_invalid(distance_line(R"({"type":"torus","radius":1})", kBox), "a.type");
  expect_invalid(distance_line(R"({"type":"Sphere","radius":1})", kBox), "a.type");
  expect_invalid(distance_line(kSphere, kBox, R"(,"max_lambda":1)"), "max_lambda");
  expect_invalid(distance_line(R"({"type":"box","half_extents":[1,1,1],"radius":1})", kBox), "a.radius");
  expect_invalid(distance_line(kSphere, kBox, "", R"({"position":[4,0,0],"orientation":[1,0,0,0]})"),
                 "pose_b.orientation");
  expect_invalid(distance_line(kSphere, kBox, R"(,"precision":"half")"), "precision");
}

TEST(Protocol, MissingFieldsAreNamed) {
  expect_invalid(R"({"id":"q","query":"distance","a":)" + kSphere + "}", "b");
  expect_invalid(R"({"id":"q","a":)" + kSphere + "}", "query");
  expect_invalid(distance_line(R"({"type":"sphere"})", kBox), "a.radius");
  expect_invalid(distance_line(R"({"type":"box"})", kBox), "a.half_extents");
  expect_invalid(distance_line(R"({"radius":1})", kBox), "a.type");
  expect_invalid(distance_line(R"({"type":"triangle","a":[0,0,0],"b":[1,0,0]})", kBox), "a.c");
}

TEST(Protocol, WrongTypesAndShapesOfValues) {
  expect_invalid(distance_line(R"({"type":"sphere","radius":"1"})", kBox), "a.radius");
  expect_invalid(distance_line(R"({"type":"box","half_extents":[1,1]})", kBox), "a.half_extents");
  expect_invalid(distance_line(R"({"type":"box","half_extents":[1,1,1,1]})", kBox), "a.half_extents");
  expect_invalid(distance_line(R"({"type":"box","half_extents":[1,true,1]})", kBox), "a.half_extents.1");
  expect_invalid(distance_line(kSphere, kBox, "", "[4,0,0]"), "pose_b");
  expect_invalid(distance_line(R"({"type":"hull","points":[]})", kBox), "a.points");
  expect_invalid(distance_line(kSphere, kBox, "", R"({"position":[1e13,0,0]})"), "pose_b.position.0");
}

TEST(Protocol, NegativeSizesAreErrorsAtAnyDepth) {
  expect_invalid(distance_line(R"({"type":"sphere","radius":-1})", kBox), "a.radius");
  expect_invalid(distance_line(R"({"type":"box","half_extents":[1,-0.5,1]})", kBox), "a.half_extents.1");
  expect_invalid(distance_line(R"({"type":"capsule","radius":0.5,"half_height":-1})", kBox), "a.half_height");
  expect_invalid(distance_line(R"({"type":"cylinder","radius":-0.1,"half_height":1})", kBox), "a.radius");
  expect_invalid(distance_line(R"({"type":"cone","radius":1,"half_height":-0.1})", kBox), "a.half_height");
  expect_invalid(
      distance_line(kBox, R"({"type":"minkowski","a":{"type":"box","half_extents":[1,1,1]},"b":{"type":"sphere","radius":-0.2}})"),
      "b.b.radius");
}

TEST(Protocol, ZeroSizesAreValid) {
  const json a = ask(distance_line(R"({"type":"box","half_extents":[1,0,1]})", R"({"type":"sphere","radius":0})"));
  EXPECT_EQ(a["status"], "separated") << a.dump();
  EXPECT_NEAR(a["distance"].get<double>(), 3.0, 1e-12);
}

TEST(Protocol, QuaternionsMustBeUnitWithinOneMillionth) {
  for (const std::string q : {"[1,0,0,0.01]", "[0.99999,0,0,0]", "[0,0,0,0]", "[2,0,0,0]", "[0.5,0.5,0.5,0.4]"})
    expect_invalid(distance_line(kSphere, kBox, "", R"({"position":[4,0,0],"rotation":)" + q + "}"), "pose_b.rotation");
  expect_invalid(distance_line(kSphere, kBox, "", R"({"position":[4,0,0],"rotation":[1,0,0]})"), "pose_b.rotation");
  // Off by less than 1e-6: accepted (and normalised).
  const json a = ask(distance_line(kSphere, kBox, "", R"({"position":[4,0,0],"rotation":[1.0000004,0,0,0]})"));
  EXPECT_EQ(a["status"], "separated") << a.dump();
}

TEST(Protocol, LaterQueriesAreValidatedBeforeBeingDeclaredUnimplemented) {
  // Bad fields of ray_cast, shape_cast and time_of_impact are named like distance's.
  expect_invalid(R"({"id":"q","query":"ray_cast","shape":)" + kSphere + R"(,"origin":[0,0],"direction":[1,0,0]})",
                 "origin");
  expect_invalid(R"({"id":"q","query":"ray_cast","shape":)" + kSphere + R"(,"origin":[0,0,0]})", "direction");
  expect_invalid(R"({"id":"q","query":"shape_cast","a":)" + kSphere + R"(,"velocity_a":[0,0,0],"b":)" + kBox +
                     R"(,"velocity_b":[1,0,0],"method":"gjk"})",
                 "method");
  expect_invalid(R"({"id":"q","query":"shape_cast","a":)" + kSphere + R"(,"velocty_a":[0,0,0],"b":)" + kBox +
                     R"(,"velocity_b":[1,0,0]})",
                 "velocity_a");
  expect_invalid(R"({"id":"q","query":"time_of_impact","a":)" + kSphere +
                     R"(,"motion_a":{"linear_velocity":[0,0,0],"angular_velocity":[0,0,1e400]},"b":)" + kBox +
                     R"(,"motion_b":{"linear_velocity":[0,0,0],"angular_velocity":[0,0,0]}})",
                 "motion_a.angular_velocity.2");
  expect_invalid(R"({"id":"q","query":"time_of_impact","a":)" + kSphere +
                     R"(,"motion_a":{"linear_velocity":[0,0,0],"angular_velocity":[0,0,0],"spin":1},"b":)" + kBox +
                     R"(,"motion_b":{"linear_velocity":[0,0,0],"angular_velocity":[0,0,0]}})",
                 "motion_a.spin");
}

TEST(Protocol, StreamAnswersEveryLineInOrderAndGoesOnAfterBadOnes) {
  std::stringstream in, out;
  in << distance_line(kSphere, kBox) << "\n"
     << "garbage\n"
     << "\n"
     << R"({"id":"last","query":"distance","a":)" << kSphere << R"(,"b":)" << kSphere
     << R"(,"pose_b":{"position":[0,3,0]}})" << "\r\n";
  ASSERT_EQ(impact::cli::run_query_stream(in, out), 0);
  std::string line;
  std::vector<json> answers;
  while (std::getline(out, line)) answers.push_back(json::parse(line));
  ASSERT_EQ(answers.size(), 4u);
  EXPECT_EQ(answers[0]["status"], "separated");
  EXPECT_EQ(answers[1]["status"], "invalid_input");
  EXPECT_EQ(answers[2]["status"], "invalid_input");
  EXPECT_EQ(answers[3]["id"], "last");
  EXPECT_NEAR(answers[3]["distance"].get<double>(), 1.0, 1e-12);
}

}  // namespace
