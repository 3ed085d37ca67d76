// What fuzzing `impact query` as an attacker found (issue 16, item 7), one test per class:
// - nesting: an id of arrays 100,000 deep and a minkowski 15,000 deep overflowed the stack, a
//   10 MB line of `[` took 5 s and 800 MB, minkowski depth cost memory quadratically. Now a
//   nesting past docs/limits.md's limits (JSON 64, minkowski 16) and a line past 32 MiB answer
//   invalid_input naming the field or the line, before any deep tree is built;
// - invalid JSON accepted: `1e999e5` and `1e400-5` in an id were answered with the id echoed as a
//   string; duplicate keys silently took the last value. Now ungrammatical numbers make the line
//   invalid JSON (id null), a grammatical number that overflows a double is "not finite" for its
//   field (and an id holding one cannot be echoed), and a duplicate key is named;
// - OBJ paths that are not OBJ files (/etc/passwd, a directory, /dev/null) answered ok with 0
//   triangles and /dev/zero ran out of memory; `2.0` was taken as an index (OBJ and JSON);
// - quadratic costs: a hull of 100,000 sphere points took 16–38 s (a scan of every kept face per
//   triangle); a carve reaching 4,096 rooms added 8 million portals (9–31 s, 3 GB).
// Each test asserts the answer; none depends on the machine's speed.
#include "json_line.hpp"
#include "parse.hpp"
#include "protocol.hpp"

#include <impact/level.hpp>
#include <impact/mesh.hpp>
#include <impact/shapes.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>

#include <unistd.h>

namespace {

using nlohmann::json;
using impact::cli::answer_line;

json ask(const std::string& line) { return json::parse(answer_line(line)); }

const std::string kTail = R"(,"query":"distance","a":{"type":"sphere","radius":1},"b":{"type":"sphere","radius":1},"pose_b":{"position":[4,0,0]}})";

/// Asserts invalid_input, an error starting with `field`, and the echoed id.
void expect_invalid(const std::string& line, const std::string& field, const json& id) {
  const json a = ask(line);
  EXPECT_EQ(a.value("status", ""), "invalid_input") << line.substr(0, 200) << " -> " << a.dump().substr(0, 300);
  EXPECT_EQ(a["id"], id) << a.dump().substr(0, 300);
  const std::string err = a.value("error", "");
  EXPECT_EQ(err.rfind(field, 0), 0u) << "error '" << err.substr(0, 300) << "' should name '" << field << "'";
}

std::string nested_arrays(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string minkowski_chain(int depth) {
  std::string s = R"({"type":"sphere","radius":1})";
  for (int i = 0; i < depth; ++i) s = R"({"type":"minkowski","a":)" + s + R"(,"b":{"type":"point"}})";
  return s;
}

TEST(InputLimits, DeepNestingIsRefusedNamingTheField) {
  // The reported crash: an id of arrays 100,000 deep.
  expect_invalid(R"({"id":)" + nested_arrays(100000) + kTail, "id", nullptr);
  // The id may nest up to the limit (the line's object is level 1), and is echoed whole.
  const std::string deepest = nested_arrays(impact::cli::kMaxJsonDepth - 1);
  const json ok = ask(R"({"id":)" + deepest + kTail);
  EXPECT_EQ(ok["status"], "separated") << ok.dump();
  EXPECT_EQ(ok["id"], json::parse(deepest));
  expect_invalid(R"({"id":)" + nested_arrays(impact::cli::kMaxJsonDepth) + kTail, "id", nullptr);
  // Past the limit inside a later field: that field is named and the id (read whole) is echoed.
  expect_invalid(R"({"id":"q","query":"distance","a":{"type":"point","x":)" + nested_arrays(100000) + "}}", "a.x", "q");
  // A line of 10 MB of `[`: the line is named.
  expect_invalid(std::string(10u << 20, '['), "line", nullptr);
}

TEST(InputLimits, MinkowskiNestingIsBounded) {
  // 15,000 deep (the reported crash) stops at the JSON limit, 17 at the minkowski limit of 16.
  expect_invalid(R"({"id":"q","query":"distance","a":)" + minkowski_chain(15000) + R"(,"b":{"type":"point"}})", "a.a.a",
                 "q");
  expect_invalid(R"({"id":"q","query":"distance","a":)" + minkowski_chain(17) + R"(,"b":{"type":"point"}})",
                 "a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a: minkowski nested deeper than 16", "q");
  // 16 deep is accepted: a unit sphere plus 16 points at the origin is the unit sphere.
  const json a = ask(R"({"id":"q","query":"distance","a":)" + minkowski_chain(16) +
                     R"(,"b":{"type":"point"},"pose_b":{"position":[9,0,0]}})");
  ASSERT_EQ(a["status"], "separated") << a.dump();
  EXPECT_NEAR(a["distance"].get<double>(), 8.0, 1e-12);
}

TEST(InputLimits, ALineLongerThanTheLimitIsSkippedAndAnswered) {
  const std::size_t limit = impact::cli::kMaxLineBytes;
  expect_invalid(std::string(limit + 1, ' '), "line", nullptr);
  // Through the stream: the long line is answered and the next line is read normally.
  std::stringstream in, out;
  in << R"({"id":1,"x":")" << std::string(limit, 'a') << "\"}\n" << R"({"id":2)" << kTail << "\n";
  ASSERT_EQ(impact::cli::run_query_stream(in, out), 0);
  std::string line;
  std::vector<json> answers;
  while (std::getline(out, line)) answers.push_back(json::parse(line));
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0]["status"], "invalid_input");
  EXPECT_EQ(answers[0]["error"].get<std::string>().rfind("line: longer than", 0), 0u) << answers[0].dump();
  EXPECT_EQ(answers[1]["id"], 2);
  EXPECT_EQ(answers[1]["status"], "separated");
  // The reader keeps at most the limit: a line exactly at it is kept whole.
  std::stringstream exact(std::string(100, 'x') + "\nrest");
  std::string got;
  EXPECT_EQ(impact::cli::read_line(exact, got, 100), impact::cli::LineRead::line);
  EXPECT_EQ(got.size(), 100u);
  EXPECT_EQ(impact::cli::read_line(exact, got, 100), impact::cli::LineRead::line);
  EXPECT_EQ(got, "rest");
  EXPECT_EQ(impact::cli::read_line(exact, got, 100), impact::cli::LineRead::end);
}

TEST(InputLimits, DuplicateKeysAreNamed) {
  // The last "query" used to win silently.
  expect_invalid(R"({"id":"q","query":"ray_cast")" + kTail, "query: duplicate key", "q");
  expect_invalid(R"({"id":"q","query":"distance","a":{"type":"sphere","radius":1,"radius":2},"b":{"type":"point"}})",
                 "a.radius: duplicate key", "q");
  expect_invalid(R"({"id":"q","query":"distance","a":{"type":"hull","points":[[0,0,0],{"x":1,"x":1}]},"b":{"type":"point"}})",
                 "a.points.1.x: duplicate key", "q");
  // Which id to echo is ambiguous: none.
  expect_invalid(R"({"id":"q","id":"r")" + kTail, "id: duplicate key", nullptr);
}

TEST(InputLimits, NumbersFollowTheJsonGrammarAndOverflowIsNotFinite) {
  // Not JSON numbers: the line is not JSON (its id cannot be known).
  for (const std::string bad : {"1e999e5", "1e400-5", "1e5e5", "01", "1.", "-", "+1", ".5", "1e", "0x10"})
    expect_invalid(R"({"id":)" + bad + kTail, "line: not valid JSON", nullptr);
  // Grammatical but beyond a double: the field is "not finite" (protocol: an invalid number).
  expect_invalid(R"({"id":"q","query":"distance","a":{"type":"sphere","radius":1e400},"b":{"type":"point"}})",
                 "a.radius: not finite", "q");
  expect_invalid(R"({"id":"q","query":"distance","a":{"type":"point"},"b":{"type":"point"},"pose_b":{"position":[0,-1e999,0]}})",
                 "pose_b.position.1: not finite", "q");
  const std::string digits(400, '9');  // 400 digits, no exponent
  expect_invalid(R"({"id":"q","query":"distance","a":{"type":"sphere","radius":)" + digits + R"(},"b":{"type":"point"}})",
                 "a.radius: not finite", "q");
  // An id holding such a number cannot be echoed as written.
  expect_invalid(R"({"id":1e400)" + kTail, "id: holds a number that overflows", nullptr);
  expect_invalid(R"({"id":[1,{"k":-1e400}])" + kTail, "id: holds a number that overflows", nullptr);
  // A null next to an overflow stays null, and a string that looks like a marker is a string.
  const json a = ask(R"({"id":[null,"\u0001overflow",null])" + kTail);
  EXPECT_EQ(a["status"], "separated") << a.dump();
  EXPECT_EQ(a["id"], json::parse(R"([null,"\u0001overflow",null])"));
  expect_invalid(R"({"id":"q","query":"distance","a":{"type":"sphere","radius":null},"b":{"type":"point"},"x":1e400})",
                 "a.radius: expected a number", "q");
  // Underflow is a valid number (zero), as in every JSON reader.
  const json u = ask(R"({"id":"u","query":"distance","a":{"type":"sphere","radius":1e-400},"b":{"type":"point"},"pose_b":{"position":[2,0,0]}})");
  ASSERT_EQ(u["status"], "separated") << u.dump();
  EXPECT_NEAR(u["distance"].get<double>(), 2.0, 1e-12);
}

TEST(InputLimits, TheDocumentedLimitsAreTheEnforcedOnes) {
  // docs/limits.md states each limit in the words of its error message.
  const std::filesystem::path doc = std::filesystem::path(__FILE__).parent_path() / "../../../docs/limits.md";
  std::ifstream in(doc);
  ASSERT_TRUE(in) << doc;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const std::string& s :
       {"longer than " + std::to_string(impact::cli::kMaxLineBytes) + " bytes (the line limit)",
        "nested deeper than " + std::to_string(impact::cli::kMaxJsonDepth) + " levels (the JSON nesting limit)",
        "minkowski nested deeper than " + std::to_string(impact::cli::kMaxMinkowskiDepth) +
            " levels (the minkowski nesting limit)",
        "larger than " + std::to_string(impact::kObjMaxFileBytes) + " bytes (the OBJ file limit)",
        "more than " + std::to_string(impact::kLevelMaxRooms) + " rooms"})
    EXPECT_NE(text.find(s), std::string::npos) << "docs/limits.md should say: " << s;
  // And the messages are those the code gives.
  expect_invalid(std::string(impact::cli::kMaxLineBytes + 1, ' '),
                 "line: longer than " + std::to_string(impact::cli::kMaxLineBytes) + " bytes (the line limit)", nullptr);
}

// ---- OBJ paths and indices --------------------------------------------------------------------

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

void expect_obj_refused(const std::string& path, const std::string& why) {
  const json a = ask(R"({"id":"q","query":"define_mesh","name":"m","obj":")" + path + "\"}");
  EXPECT_EQ(a["status"], "invalid_input") << path << " -> " << a.dump();
  const std::string err = a.value("error", "");
  EXPECT_EQ(err.rfind("obj: ", 0), 0u) << err;
  EXPECT_NE(err.find(why), std::string::npos) << path << ": '" << err << "' should say '" << why << "'";
}

TEST(InputLimits, ObjPathsThatAreNotObjMeshesAreRefused) {
  expect_obj_refused(testing::TempDir(), "not a regular file");  // a directory
  expect_obj_refused("/dev/null", "not a regular file");
  expect_obj_refused("/dev/zero", "not a regular file");
  const std::string passwd = temp_file("impact_passwd.obj", "root:x:0:0:root:/root:/bin/bash\n");
  expect_obj_refused(passwd, "line 1: not an OBJ statement");
  // The message never quotes the file (a path may name a file the caller should not read).
  EXPECT_EQ(ask(R"({"id":"q","query":"define_mesh","name":"m","obj":")" + passwd + "\"}")["error"].get<std::string>().find("root:"),
            std::string::npos);
  expect_obj_refused(temp_file("impact_empty.obj", ""), "no faces");
  expect_obj_refused(temp_file("impact_points.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n"), "no faces");
  expect_obj_refused(temp_file("impact_badv.obj", "v 0 0 zero\n"), "line 1: vertex coordinate 3");
  expect_obj_refused(temp_file("impact_infv.obj", "v 0 0 inf\n"), "line 1: vertex coordinate 3");
  expect_obj_refused(temp_file("impact_fwd.obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\n"), "line 3: face vertex index out of range");
  expect_obj_refused(temp_file("impact_zero.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n"), "line 4: face corner 1");
  // Larger than the limit (a sparse file: no disk used).
  const std::string big = testing::TempDir() + "impact_big.obj";
  { std::ofstream(big) << "v 0 0 0\n"; }
  std::filesystem::resize_file(big, impact::kObjMaxFileBytes + 1);
  expect_obj_refused(big, "the OBJ file limit");
  std::remove(big.c_str());
}

TEST(InputLimits, IndicesMustBeWrittenAsIntegers) {
  // OBJ: "2.0" is not an index, nor "2e0"; v/t/n forms with integers are.
  const std::string tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  expect_obj_refused(temp_file("impact_float_index.obj", tri + "f 1 2.0 3\n"), "line 4: face corner 2 is not an integer");
  expect_obj_refused(temp_file("impact_exp_index.obj", tri + "f 1 2 3e0\n"), "line 4: face corner 3 is not an integer");
  expect_obj_refused(temp_file("impact_slash_index.obj", tri + "vt 0 0\nf 1/1.5 2/1 3/1\n"), "line 5: face corner 1");
  const json ok = ask(R"({"id":"q","query":"define_mesh","name":"m","obj":")" +
                      temp_file("impact_forms.obj", "# comment\no thing\n" + tri + "vt 0 0\nvn 0 0 1\ns off\nf 1/1/1 2//1 -1/1\n") +
                      "\"}");
  EXPECT_EQ(ok["status"], "ok") << ok.dump();
  EXPECT_EQ(ok["triangles"], 1);
  // JSON: the same rule for triangles, portal rooms and room indices.
  for (const std::string bad : {"2.0", "2e0", "2.5", "\"2\"", "-1"}) {
    const json a = ask(R"({"id":"q","query":"define_mesh","name":"m","mesh":{"vertices":[[0,0,0],[1,0,0],[0,1,0]],"triangles":[[0,1,)" +
                       bad + "]]}}");
    EXPECT_EQ(a["status"], "invalid_input") << bad;
    EXPECT_EQ(a.value("error", "").rfind("mesh.triangles.0.2", 0), 0u) << a.dump();
  }
  const std::string room = R"({"mesh":{"vertices":[[0,0,0],[1,0,0],[0,1,0]],"triangles":[[0,1,2]]},"cell":{"min":[0,0,0],"max":[1,1,1]}})";
  expect_invalid(R"({"id":"q","query":"define_level","name":"L","rooms":[)" + room + "," + room +
                     R"(],"portals":[{"rooms":[0,1.0],"corners":[[1,0,0],[1,1,0],[1,1,1],[1,0,1]]}]})",
                 "portals.0.rooms.1", "q");
  expect_invalid(R"({"id":"q","query":"define_level","name":"L","rooms":[)" + room + R"(],"leaf_size":4.0})", "leaf_size", "q");
}

TEST(InputLimits, ObjIsCheckedAsTinyobjloaderReadsIt) {
  // tinyobjloader parses OBJ files; the pre-scan refuses what it would read silently wrong, and
  // splits lines and tokens as it does.
  const std::string tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  expect_obj_refused(temp_file("impact_garbage_number.obj", "v 0 0 1.5abc\n"), "line 1: vertex coordinate 3");
  expect_obj_refused(temp_file("impact_vw.obj", tri + "vw 0 0 0.25\nf 1 2 3\n"), "line 4: not an OBJ statement");
  expect_obj_refused(temp_file("impact_big_tex.obj", tri + "vt 0 0\nf 1/1 2/1 3/99999999999\n"), "line 5: face corner 3");
  expect_obj_refused(temp_file("impact_short_face.obj", tri + "f 1 2\n"), "line 4: a face needs at least 3 corners");
  // A number from_chars reads as finite but tinyobjloader as nan (0 * 5^450) or inf.
  expect_obj_refused(temp_file("impact_nan_read.obj", "v 0 0 0\nv 1 0 0e450\nv 0 1 0\nf 1 2 3\n"), "line 2: vertex");
  expect_obj_refused(temp_file("impact_inf_read.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0." + std::string(200, '0') + "1e450\nf 1 2 3\n"),
                     "line 3: vertex");
  // Comments after a statement, CR and CRLF line ends, tabs: read.
  for (const std::string& text : {tri + "f 1 2 3 # a comment\n", std::string("v 0 0 0\rv 1 0 0\rv 0 1 0\rf 1 2 3\r"),
                                  std::string("v 0 0 0\r\nv\t1 0 0\r\nv 0 1 0 # c\r\nf\t1 2 -1\r\n")}) {
    const json ok = ask(R"({"id":"q","query":"define_mesh","name":"m","obj":")" + temp_file("impact_tiny_ok.obj", text) + "\"}");
    EXPECT_EQ(ok["status"], "ok") << ok.dump();
    EXPECT_EQ(ok["triangles"], 1);
  }
  // Line numbers count a lone CR as tinyobjloader does.
  expect_obj_refused(temp_file("impact_cr_lines.obj", "v 0 0 0\rv 1 0 0\rbad\r"), "line 3: not an OBJ statement");
}

// ---- Costs that were quadratic ------------------------------------------------------------------

TEST(InputLimits, HullOfAHundredThousandSpherePointsIsExact) {
  // Fibonacci points on the unit sphere: every one is a hull vertex. (Measured: 16 s before, 0.9 s
  // now for the whole `impact query` line, parse and distance included.)
  const int n = 100000;
  std::vector<impact::Vec3<double>> pts;
  const double golden = M_PI * (3 - std::sqrt(5.0));
  for (int i = 0; i < n; ++i) {
    const double z = 1 - 2 * (i + 0.5) / n, r = std::sqrt(1 - z * z);
    pts.emplace_back(r * std::cos(golden * i), r * std::sin(golden * i), z);
  }
  const auto built = impact::Hull<double>::build(pts);
  ASSERT_TRUE(built.ok()) << built.error;
  const impact::Hull<double>& h = built.hull;
  EXPECT_EQ(h.dimension, 3);
  EXPECT_EQ(h.vertices.size(), static_cast<std::size_t>(n));
  // A closed triangulated surface of n vertices has 2n − 4 triangles; no two of these points'
  // triangles are coplanar, so every one is a face, and Euler's 3n − 6 edges, each listed twice.
  EXPECT_EQ(h.faces.size(), static_cast<std::size_t>(2 * n - 4));
  EXPECT_EQ(h.neighbors.size(), static_cast<std::size_t>(2 * (3 * n - 6)));
  // Support in random directions equals the brute-force maximum over the points.
  std::mt19937_64 rng(16);
  std::normal_distribution<double> g;
  for (int k = 0; k < 200; ++k) {
    const impact::Vec3<double> d(g(rng), g(rng), g(rng));
    double best = -1e300;
    for (const auto& p : pts) best = std::max(best, d.dot(p));
    EXPECT_NEAR(d.dot(h.support(d)), best, 1e-12 * d.norm()) << k;
  }
  // Every point lies inside (or on) sampled face planes.
  for (std::size_t f = 0; f < h.faces.size(); f += 997)
    for (const auto& p : pts) ASSERT_LE(h.faces[f].normal.dot(p) - h.faces[f].offset, 1e-12) << f;
}

/// A 16×16×16 grid of unit rooms (4,096), each with a floor quad at z + 0.1 spanning its cell.
impact::Level<double> grid_of_rooms(int n) {
  using V = impact::Vec3<double>;
  impact::Level<double> L;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        impact::Room<double> r;
        const double z = k + 0.1;
        r.mesh.vertices = {V(i, j, z), V(i + 1, j, z), V(i + 1, j + 1, z), V(i, j + 1, z)};
        r.mesh.triangles = {{0, 1, 2}, {0, 2, 3}};
        r.cell_lo = V(i, j, k);
        r.cell_hi = V(i + 1, j + 1, k + 1);
        L.rooms.push_back(std::move(r));
      }
  EXPECT_EQ(impact::build_level(L), "");
  return L;
}

TEST(InputLimits, ACarveReachingEveryRoomAddsOnePortal) {
  using V = impact::Vec3<double>;
  const int n = 16;
  impact::Level<double> L = grid_of_rooms(n);
  ASSERT_EQ(L.rooms.size(), impact::kLevelMaxRooms);
  // A blast at the centre reaching every floor: all 4,096 rooms lose theirs and are joined.
  const impact::CarveReport rep = impact::carve(L, V(8, 8, 8.1), 20.0);
  ASSERT_EQ(rep.error, "");
  EXPECT_EQ(rep.rooms.size(), L.rooms.size());
  EXPECT_EQ(rep.portals_added, 1);
  ASSERT_EQ(L.portals.size(), 1u);  // not 4096·4095/2
  ASSERT_EQ(rep.joined.size(), L.rooms.size());
  for (std::uint32_t r = 0; r < L.rooms.size(); ++r) {
    EXPECT_EQ(rep.joined[r], r);
    ASSERT_EQ(L.rooms[r].portals.size(), 1u);
    EXPECT_TRUE(L.rooms[r].mesh.triangles.empty());
  }
  // A ray from a corner room toward the hole enters the portal and so every room; nothing is left
  // to hit.
  const auto h = impact::level_ray_cast(L, impact::Ray<double>{V(0.5, 0.5, 0.5), V(7.5, 7.5, 7.5)});
  EXPECT_EQ(h.hit.status, impact::Status::miss);
  EXPECT_EQ(h.rooms_visited, static_cast<int>(L.rooms.size()));
}

TEST(InputLimits, ACarveJoinsExactlyTheRoomsItsHoleReaches) {
  using V = impact::Vec3<double>;
  impact::Level<double> L = grid_of_rooms(8);
  // Blast at the floor of room (3, 3, 3), radius 0.4: it removes that floor's two triangles only
  // (the neighbours' floors are 0.5 away, those below and above 1), and the hole — out to the
  // floor's farthest corner, √(0.5² + 0.5²) — reaches the cells of the 3×3 rooms of its layer and
  // of the 5 rooms below whose cells are that close (the 4 diagonal ones are √0.51 away).
  const impact::CarveReport rep = impact::carve(L, V(3.5, 3.5, 3.1), 0.4);
  ASSERT_EQ(rep.error, "");
  ASSERT_EQ(rep.rooms.size(), 1u);
  EXPECT_EQ(rep.rooms[0], static_cast<std::uint32_t>((3 * 8 + 3) * 8 + 3));
  EXPECT_EQ(rep.removed[0], 2u);
  std::vector<std::uint32_t> expect;
  for (std::uint32_t r = 0; r < L.rooms.size(); ++r) {
    const V q = V(3.5, 3.5, 3.1).cwiseMax(L.rooms[r].cell_lo).cwiseMin(L.rooms[r].cell_hi);
    if ((q - V(3.5, 3.5, 3.1)).norm() <= std::sqrt(0.5)) expect.push_back(r);
  }
  EXPECT_EQ(expect.size(), 14u);
  EXPECT_EQ(rep.joined, expect);
  ASSERT_EQ(L.portals.size(), 1u);
  EXPECT_EQ(L.portals[0].joined, expect);
  // A ray down through the hole now reaches the floor of the room below.
  const auto h = impact::level_ray_cast(L, impact::Ray<double>{V(3.5, 3.5, 3.9), V(0, 0, -2)});
  ASSERT_EQ(h.hit.status, impact::Status::hit);
  EXPECT_EQ(h.room, static_cast<std::uint32_t>((3 * 8 + 3) * 8 + 2));
  EXPECT_NEAR(h.hit.lambda, (3.9 - 2.1) / 2, 1e-15);
}

}  // namespace
