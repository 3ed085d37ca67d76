// Protocol tests of the world queries of `impact query` (../shared/query-protocol.md "Worlds"):
// answers' fields, every invalid line answered invalid_input naming the field, and a world left
// exactly as it was by any invalid line (the next valid step answers as on an untouched twin).
#include "protocol.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace {

using nlohmann::json;

json ask(const std::string& line) { return json::parse(impact::cli::answer_line(line)); }

void expect_invalid(const std::string& line, const std::string& field) {
  const json a = ask(line);
  EXPECT_EQ(a.value("status", ""), "invalid_input") << line << " -> " << a.dump();
  EXPECT_EQ(a["id"], "q") << a.dump();
  const std::string err = a.value("error", "");
  EXPECT_EQ(err.rfind(field, 0), 0u) << "error '" << err << "' should name '" << field << "' for " << line;
}

const std::string kBodies =
    R"([{"body":"ground","mesh":{"vertices":[[-5,-5,0],[5,-5,0],[5,5,0],[-5,5,0]],"triangles":[[0,1,2],[0,2,3]]}},)"
    R"({"body":"box","shape":{"type":"box","half_extents":[0.5,0.5,0.5]},"pose":{"position":[0,0,2]}},)"
    R"({"body":"pair","compound":[{"shape":{"type":"sphere","radius":0.5},"pose":{"position":[-1,0,0]}},)"
    R"({"shape":{"type":"sphere","radius":0.5},"pose":{"position":[1,0,0]}}],"pose":{"position":[3,0,2]}}])";

std::string define(const std::string& name, const std::string& precision = "double") {
  return R"({"id":"q","query":"define_world","precision":")" + precision + R"(","name":")" + name +
         R"(","bodies":)" + kBodies + "}";
}

/// A step that moves the box down and the pair toward it, from the stored poses.
std::string step(const std::string& name) {
  return R"({"id":"s","query":"world_step","world":")" + name +
         R"(","motions":{"box":{"linear_velocity":[0,0,-3],"angular_velocity":[0,0,1]},"pair":{"linear_velocity":[-2,0,-1],"angular_velocity":[0,3,0]}}})";
}

TEST(WorldProtocol, DefineStepAndEditAnswerEveryField) {
  json a = ask(define("w1"));
  EXPECT_EQ(a["status"], "ok");
  EXPECT_EQ(a["bodies"], 3);
  a = ask(step("w1"));
  ASSERT_EQ(a["status"], "ok") << a.dump();
  ASSERT_TRUE(a["pairs_tested"].is_number_unsigned());
  ASSERT_FALSE(a["events"].empty());
  for (const json& e : a["events"]) {
    EXPECT_LT(e["a"].get<std::string>(), e["b"].get<std::string>());
    if (e["a"] == "pair" || e["b"] == "pair") {
      EXPECT_TRUE(e.contains(e["a"] == "pair" ? "part_a" : "part_b")) << e;
    }
    if (e["b"] == "ground") {
      EXPECT_TRUE(e.contains("triangle")) << e;
    }
    if (e["status"] == "hit") {
      EXPECT_TRUE(e.contains("normal") && e.contains("point_a") && e.contains("point_b"));
    }
  }
  a = ask(R"({"id":"e","query":"world_edit","world":"w1","remove":["box"],"add":[{"body":"box","shape":{"type":"sphere","radius":1}}]})");
  EXPECT_EQ(a["status"], "ok");
  EXPECT_EQ(a["bodies"], 3);
  // A world of meshes only is valid; its steps have no events.
  a = ask(R"({"id":"m","query":"define_world","name":"meshes","bodies":[{"body":"a","mesh":{"vertices":[[0,0,0],[1,0,0],[0,1,0]],"triangles":[[0,1,2]]}},{"body":"b","mesh":{"vertices":[[0,0,0],[1,0,0],[0,1,0]],"triangles":[[0,1,2]]},"pose":{"position":[0,0,0.5]}}]})");
  EXPECT_EQ(a["status"], "ok");
  a = ask(R"({"id":"m","query":"world_step","world":"meshes","motions":{"b":{"linear_velocity":[0,0,-1],"angular_velocity":[0,0,0]}}})");
  EXPECT_EQ(a["events"], json::array());
}

TEST(WorldProtocol, MeshBodiesTakeADefinedMeshByName) {
  ask(R"({"query":"define_mesh","name":"tile","mesh":{"vertices":[[-1,-1,0],[1,-1,0],[1,1,0],[-1,1,0]],"triangles":[[0,1,2],[0,2,3]]}})");
  json a = ask(R"({"id":"t","query":"define_world","name":"tiles","bodies":[{"body":"t","mesh":{"ref":"tile"}},{"body":"s","shape":{"type":"sphere","radius":0.5},"pose":{"position":[0.5,-0.5,2]}}]})");
  ASSERT_EQ(a["status"], "ok") << a.dump();
  a = ask(R"({"id":"t","query":"world_step","world":"tiles","motions":{"s":{"linear_velocity":[0,0,-3],"angular_velocity":[0,0,0]}}})");
  ASSERT_EQ(a["events"].size(), 1u) << a.dump();
  EXPECT_EQ(a["events"][0]["a"], "s");
  EXPECT_EQ(a["events"][0]["triangle"], 0);
  EXPECT_NEAR(a["events"][0]["toi"].get<double>(), 0.5, 1e-6);
  EXPECT_EQ(a["events"][0]["normal"], json({0.0, 0.0, -1.0}));
}

TEST(WorldProtocol, InvalidLinesNameTheFieldAndChangeNothing) {
  ASSERT_EQ(ask(define("w2"))["status"], "ok");
  ASSERT_EQ(ask(define("twin"))["status"], "ok");
  ASSERT_EQ(ask(define("wf", "float"))["status"], "ok");
  expect_invalid(R"({"id":"q","query":"world_step","world":"nope","motions":{}})", "world");
  expect_invalid(R"({"id":"q","query":"world_edit","world":"nope"})", "world");
  expect_invalid(R"({"id":"q","query":"world_step","world":"w2","motions":{"ghost":{"linear_velocity":[0,0,0],"angular_velocity":[0,0,0]}}})", "motions.ghost");
  expect_invalid(R"({"id":"q","query":"world_step","world":"w2","motions":{"box":{"linear_velocity":[0,0,1e400],"angular_velocity":[0,0,0]}}})", "motions.box.linear_velocity.2");
  expect_invalid(R"({"id":"q","query":"world_step","world":"w2","motions":{"box":{"linear_velocity":[0,0,1],"angular_vel":[0,0,0]}}})", "motions.box");
  expect_invalid(R"({"id":"q","query":"world_step","world":"w2","motions":{"box":{"pose":{"rotation":[2,0,0,0]},"linear_velocity":[0,0,1],"angular_velocity":[0,0,0]}}})", "motions.box.pose.rotation");
  expect_invalid(R"({"id":"q","query":"world_step","world":"w2","motions":{},"report":"all"})", "report");
  expect_invalid(R"({"id":"q","query":"world_step","world":"w2","motions":{},"target_distance":-1})", "target_distance");
  expect_invalid(R"({"id":"q","query":"world_step","world":"w2","motions":{},"tolerance":0})", "tolerance");
  expect_invalid(R"({"id":"q","query":"world_step","world":"w2","motions":[]})", "motions");
  expect_invalid(R"({"id":"q","query":"world_step","world":"w2","motions":{},"reprot":"pairs"})", "reprot");
  expect_invalid(R"({"id":"q","query":"world_step","world":"w2","precision":"float","motions":{}})", "precision");
  expect_invalid(R"({"id":"q","query":"world_step","world":"wf","precision":"double","motions":{}})", "precision");
  expect_invalid(R"({"id":"q","query":"world_edit","world":"w2","remove":["box","box"]})", "remove.1");
  expect_invalid(R"({"id":"q","query":"world_edit","world":"w2","remove":["zz"],"add":[{"body":"n","shape":{"type":"point"}}]})", "remove.0");
  expect_invalid(R"({"id":"q","query":"world_edit","world":"w2","add":[{"body":"box","shape":{"type":"point"}}]})", "add.0.body");
  expect_invalid(R"({"id":"q","query":"world_edit","world":"w2","add":[{"body":"n","shape":{"type":"point"}},{"body":"n","shape":{"type":"point"}}]})", "add.1.body");
  expect_invalid(R"({"id":"q","query":"world_edit","world":"w2","add":[{"body":"","shape":{"type":"point"}}]})", "add.0.body");
  expect_invalid(R"({"id":"q","query":"world_edit","world":"w2","add":[{"body":7,"shape":{"type":"point"}}]})", "add.0.body");
  expect_invalid(R"({"id":"q","query":"world_edit","world":"w2","add":[{"body":"n"}]})", "add.0");
  expect_invalid(R"({"id":"q","query":"world_edit","world":"w2","add":[{"body":"n","shape":{"type":"point"},"compound":[{"shape":{"type":"point"}}]}]})", "add.0");
  expect_invalid(R"({"id":"q","query":"world_edit","world":"w2","add":[{"body":"n","compound":[]}]})", "add.0.compound");
  expect_invalid(R"({"id":"q","query":"world_edit","world":"w2","add":[{"body":"n","compound":[{"shape":{"type":"sphere","radius":-1}}]}]})", "add.0.compound.0.shape.radius");
  expect_invalid(R"({"id":"q","query":"world_edit","world":"w2","add":[{"body":"n","mesh":{"ref":"no-such-mesh"}}]})", "add.0.mesh.ref");
  expect_invalid(R"({"id":"q","query":"world_edit","world":"w2","add":[{"body":"n","mesh":{"vertices":[[0,0,0]],"triangles":[[0,0,1]]}}]})", "add.0.mesh.triangles.0.2");
  expect_invalid(R"({"id":"q","query":"world_edit","world":"w2","add":[{"body":"n","shape":{"type":"point"},"mask":4294967296}]})", "add.0.mask");
  expect_invalid(R"({"id":"q","query":"world_edit","world":"w2","add":[{"body":"n","shape":{"type":"point"},"category":"1"}]})", "add.0.category");
  expect_invalid(R"({"id":"q","query":"world_edit","world":"w2","add":{"body":"n"}})", "add");
  // An invalid define_world leaves the world of that name as it was.
  expect_invalid(R"({"id":"q","query":"define_world","name":"w2","bodies":[{"body":"x","shape":{"type":"point"}},{"body":"x","shape":{"type":"point"}}]})", "bodies.1.body");
  expect_invalid(R"({"id":"q","query":"define_world","name":"w2","bodies":{}})", "bodies");
  // Every invalid line above left w2 as its twin: two steps answer the same.
  for (int k = 0; k < 2; ++k) {
    json a = ask(step("w2")), b = ask(step("twin"));
    EXPECT_EQ(a, b);
    EXPECT_FALSE(a["events"].empty());
  }
}

}  // namespace
