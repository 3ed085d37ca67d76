// Protocol tests of the mesh queries of `impact query` (../shared/query-protocol.md "Triangle
// meshes"): stored meshes, answers' fields, and every invalid input answered invalid_input with
// the offending field's path.
#include "protocol.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <string>

namespace {

using nlohmann::json;

json ask(const std::string& line) { return json::parse(impact::cli::answer_line(line)); }

const std::string kQuad =
    R"({"vertices":[[-1,-1,0],[1,-1,0],[1,1,0],[-1,1,0]],"triangles":[[0,1,2],[0,2,3]]})";

void expect_invalid(const std::string& line, const std::string& field) {
  const json a = ask(line);
  EXPECT_EQ(a.value("status", ""), "invalid_input") << line << " -> " << a.dump();
  EXPECT_EQ(a["id"], "q") << a.dump();
  const std::string err = a.value("error", "");
  EXPECT_EQ(err.rfind(field, 0), 0u) << "error '" << err << "' should name '" << field << "' for " << line;
}

TEST(MeshProtocol, DefineThenQueryByNameAnswersEveryField) {
  json a = ask(R"({"id":"d","query":"define_mesh","name":"quad","mesh":)" + kQuad + "}");
  EXPECT_EQ(a["status"], "ok");
  EXPECT_EQ(a["triangles"], 2);
  a = ask(R"({"id":1,"query":"mesh_ray_cast","mesh":{"ref":"quad"},"origin":[0.5,0.25,2],"direction":[0,0,-1],"max_lambda":5})");
  ASSERT_EQ(a["status"], "hit") << a.dump();
  EXPECT_DOUBLE_EQ(a["lambda"].get<double>(), 2.0);
  EXPECT_EQ(a["normal"], json({0.0, 0.0, 1.0}));
  EXPECT_EQ(a["triangle"], 0);
  a = ask(R"({"id":2,"query":"mesh_sphere_cast","precision":"float","mesh":{"ref":"quad"},"center":[0,0,2],"radius":0.5,"path":[0,0,-3],"buffer":0.3})");
  ASSERT_EQ(a["status"], "hit") << a.dump();
  EXPECT_NEAR(a["toi"].get<double>(), 0.4, 1e-6);  // (1.5 − 0.3) / 3
  EXPECT_EQ(a["feature"], "face");
  a = ask(R"({"id":3,"query":"mesh_shape_cast","mesh":{"ref":"quad"},"shape":{"type":"box","half_extents":[0.1,0.1,0.1]},"pose":{"position":[0,0,1]},"velocity":[0,0,-2]})");
  ASSERT_EQ(a["status"], "hit") << a.dump();
  EXPECT_NEAR(a["toi"].get<double>(), 0.45, 1e-6);
  EXPECT_FALSE(a.contains("feature"));
  a = ask(R"({"id":4,"query":"mesh_ray_cast","mesh":{"ref":"quad"},"origin":[0,0,-2],"direction":[0,0,1],"max_lambda":5})");
  EXPECT_EQ(a["status"], "miss");
  EXPECT_FALSE(a.contains("lambda"));
  a = ask(R"({"id":5,"query":"mesh_ray_cast","mesh":{"ref":"quad"},"origin":[0,0,-2],"direction":[0,0,1],"max_lambda":5,"back_faces":"collide"})");
  EXPECT_EQ(a["status"], "hit");
  // Redefining replaces.
  ask(R"({"query":"define_mesh","name":"quad","mesh":{"vertices":[[0,0,0],[1,0,0],[0,1,0]],"triangles":[[0,1,2]]}})");
  a = ask(R"({"id":6,"query":"mesh_ray_cast","mesh":{"ref":"quad"},"origin":[-0.5,-0.5,2],"direction":[0,0,-1],"max_lambda":5})");
  EXPECT_EQ(a["status"], "miss");
}

TEST(MeshProtocol, ASphereCollectionAnswersItsEarliestSphere) {
  const json a = ask(R"({"id":7,"query":"mesh_spheres_cast","mesh":)" + kQuad +
                     R"(,"spheres":[{"center":[0,0,3],"radius":0.5},{"center":[0.5,0,2],"radius":0.25}],"path":[0,0,-4]})");
  ASSERT_EQ(a["status"], "hit") << a.dump();
  EXPECT_EQ(a["sphere"], 1);
  EXPECT_NEAR(a["toi"].get<double>(), 1.75 / 4, 1e-12);  // the lower sphere: 2 − 0.25 over 4
  expect_invalid(R"({"id":"q","query":"mesh_spheres_cast","mesh":)" + kQuad +
                     R"(,"spheres":[{"center":[0,0,3],"radius":-1}],"path":[0,0,-4]})",
                 "spheres.0.radius");
  expect_invalid(R"({"id":"q","query":"mesh_spheres_cast","mesh":)" + kQuad + R"(,"spheres":[],"path":[0,0,-4]})",
                 "spheres");
}

TEST(MeshProtocol, DefinesFromAnObjFile) {
  const std::string path = testing::TempDir() + "impact_mesh_protocol_test.obj";
  {
    std::ofstream f(path);
    f << "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nf 1 2 3 4\n";
  }
  json a = ask(R"({"id":"d","query":"define_mesh","name":"objquad","obj":")" + path + "\"}");
  EXPECT_EQ(a["status"], "ok") << a.dump();
  EXPECT_EQ(a["triangles"], 2);
  std::remove(path.c_str());
  expect_invalid(R"({"id":"q","query":"define_mesh","name":"x","obj":")" + path + "\"}", "obj");
}

TEST(MeshProtocol, InvalidInputsNameTheirField) {
  const std::string ray = R"(,"origin":[0,0,1],"direction":[0,0,-1]})";
  expect_invalid(R"({"id":"q","query":"define_mesh","mesh":)" + kQuad + "}", "name");
  expect_invalid(R"({"id":"q","query":"define_mesh","name":"a"})", "mesh");
  expect_invalid(R"({"id":"q","query":"define_mesh","name":"a","mesh":)" + kQuad + R"(,"obj":"x.obj"})", "mesh");
  expect_invalid(R"({"id":"q","query":"define_mesh","name":"a","mesh":{"vertices":[[0,0,0]],"triangles":[[0,0,1]]}})",
                 "mesh.triangles.0.2");
  expect_invalid(R"({"id":"q","query":"define_mesh","name":"a","mesh":{"vertices":[[0,0,0]],"triangles":[[0,0,-1]]}})",
                 "mesh.triangles.0.2");
  expect_invalid(R"({"id":"q","query":"define_mesh","name":"a","mesh":{"vertices":[[0,0,0]],"triangles":[[0,0.5,0]]}})",
                 "mesh.triangles.0.1");
  expect_invalid(R"({"id":"q","query":"define_mesh","name":"a","mesh":{"vertices":[[0,0,"x"]],"triangles":[]}})",
                 "mesh.vertices.0.2");
  expect_invalid(R"({"id":"q","query":"define_mesh","name":"a","mesh":{"vertices":[[0,0,1e400]],"triangles":[]}})",
                 "mesh.vertices.0.2");
  expect_invalid(R"({"id":"q","query":"define_mesh","name":"a","mesh":{"vertices":[],"triangles":[],"extra":1}})",
                 "mesh.extra");
  expect_invalid(R"({"id":"q","query":"define_mesh","name":"a","mesh":{"vertices":[[0,0]],"triangles":[]}})",
                 "mesh.vertices.0");
  expect_invalid(R"({"id":"q","query":"mesh_ray_cast","mesh":{"ref":"never_defined"})" + ray, "mesh.ref");
  expect_invalid(R"({"id":"q","query":"mesh_ray_cast","mesh":{"ref":"x","vertices":[]})" + ray, "mesh.vertices");
  expect_invalid(R"({"id":"q","query":"mesh_ray_cast","mesh":)" + kQuad + R"(,"origin":[0,0],"direction":[0,0,-1]})",
                 "origin");
  expect_invalid(R"({"id":"q","query":"mesh_ray_cast","mesh":)" + kQuad + R"(,"origin":[0,0,1],"direction":[0,0,-1],"max_lambda":-1})",
                 "max_lambda");
  expect_invalid(R"({"id":"q","query":"mesh_ray_cast","mesh":)" + kQuad + R"(,"origin":[0,0,1],"direction":[0,0,-1],"back_faces":"both"})",
                 "back_faces");
  expect_invalid(R"({"id":"q","query":"mesh_ray_cast","mesh":)" + kQuad + R"(,"origin":[0,0,1],"direction":[0,0,-1],"radius":1})",
                 "radius");
  expect_invalid(R"({"id":"q","query":"mesh_sphere_cast","mesh":)" + kQuad + R"(,"center":[0,0,1],"radius":-1,"path":[0,0,-1]})",
                 "radius");
  expect_invalid(R"({"id":"q","query":"mesh_sphere_cast","mesh":)" + kQuad + R"(,"center":[0,0,1],"radius":1,"path":[0,0,-1],"buffer":-0.1})",
                 "buffer");
  expect_invalid(R"({"id":"q","query":"mesh_sphere_cast","mesh":)" + kQuad + R"(,"center":[0,0,1],"radius":1})", "path");
  expect_invalid(R"({"id":"q","query":"mesh_shape_cast","mesh":)" + kQuad + R"(,"shape":{"type":"blob"},"velocity":[0,0,-1]})",
                 "shape.type");
  expect_invalid(R"({"id":"q","query":"mesh_shape_cast","mesh":)" + kQuad + R"(,"shape":{"type":"sphere","radius":1},"pose":{"rotation":[2,0,0,0]},"velocity":[0,0,-1]})",
                 "pose.rotation");
  expect_invalid(R"({"id":"q","query":"mesh_shape_cast","mesh":)" + kQuad + R"(,"shape":{"type":"sphere","radius":1},"velocity":[0,0,-1],"target_distance":-1})",
                 "target_distance");
}

/// Two unit rooms side by side (x ∈ [0,1] and [1,2]), each a floor facing up, joined by a portal
/// at x = 1; then a carve.
TEST(LevelProtocol, DefineCastCarve) {
  const std::string room0 = R"({"mesh":{"vertices":[[0,0,0],[1,0,0],[1,1,0],[0,1,0],[1,0,0],[1,1,0],[1,1,1],[1,0,1]],"triangles":[[0,1,2],[0,2,3],[4,5,6],[4,6,7]]},"cell":{"min":[0,0,0],"max":[1,1,1]}})";
  const std::string room1 = R"({"mesh":{"vertices":[[1,0,0],[2,0,0],[2,1,0],[1,1,0]],"triangles":[[0,1,2],[0,2,3]]},"cell":{"min":[1,0,0],"max":[2,1,1]}})";
  json a = ask(R"({"id":"d","query":"define_level","name":"L","rooms":[)" + room0 + "," + room1 +
               R"(],"portals":[{"rooms":[0,1],"corners":[[1,0,0],[1,1,0],[1,1,1],[1,0,1]]}]})");
  ASSERT_EQ(a["status"], "ok") << a.dump();
  EXPECT_EQ(a["rooms"], 2);
  EXPECT_EQ(a["triangles"], 6);
  // From room 0 down through the portal onto room 1's floor: the wall x = 1 of room 0 faces +x,
  // so a ray going +x crosses it back to front (ignored).
  a = ask(R"({"id":1,"query":"level_ray_cast","level":"L","origin":[0.5,0.5,0.5],"direction":[1,0,-0.4],"max_lambda":2})");
  ASSERT_EQ(a["status"], "hit") << a.dump();
  EXPECT_EQ(a["room"], 1);
  EXPECT_NEAR(a["lambda"].get<double>(), 1.25, 1e-12);
  EXPECT_EQ(a["rooms_visited"], 2);
  a = ask(R"({"id":2,"query":"level_sphere_cast","level":"L","center":[1.5,0.2,0.5],"radius":0.1,"path":[0,0,-1]})");
  ASSERT_EQ(a["status"], "hit") << a.dump();
  EXPECT_NEAR(a["toi"].get<double>(), 0.4, 1e-12);
  EXPECT_EQ(a["feature"], "face");
  a = ask(R"({"id":3,"query":"carve","level":"L","center":[1.5,0.2,0],"radius":0.1})");
  ASSERT_EQ(a["status"], "ok") << a.dump();
  EXPECT_EQ(a["rooms"], json({1}));
  EXPECT_EQ(a["removed"], json({1}));
  a = ask(R"({"id":4,"query":"level_sphere_cast","precision":"float","level":"L","center":[1.5,0.2,0.5],"radius":0.1,"path":[0,0,-1]})");
  EXPECT_EQ(a["status"], "miss") << a.dump();
  expect_invalid(R"({"id":"q","query":"level_ray_cast","level":"nope","origin":[0,0,0],"direction":[1,0,0]})", "level");
  expect_invalid(R"({"id":"q","query":"level_ray_cast","level":"L","origin":[0,0,0],"direction":[1,0,0],"room":7})", "room");
  expect_invalid(R"({"id":"q","query":"carve","level":"L","center":[0,0,0],"radius":-1})", "radius");
  expect_invalid(R"({"id":"q","query":"define_level","name":"M","rooms":[)" + room0 + R"(],"portals":[{"rooms":[0,3],"corners":[[1,0,0],[1,1,0],[1,1,1],[1,0,1]]}]})",
                 "portals.0.rooms.1");
  expect_invalid(R"({"id":"q","query":"define_level","name":"M","rooms":[{"mesh":{"vertices":[],"triangles":[]}}]})",
                 "rooms.0.cell");
  expect_invalid(R"({"id":"q","query":"define_level","name":"M","rooms":[]})", "rooms");
  expect_invalid(R"({"id":"q","query":"define_level","name":"M","rooms":[)" + room0 + R"(],"max_depth":100})", "max_depth");
}

}  // namespace
