// The pieces of `trails report`'s page: HTML escaping, RFC 4648 base64 (its test vectors),
// tables and figures escaping what they are given, and the picture captions (known names,
// a generic caption for others, page order). The page itself is tested in a browser
// (tests/scripts/html_report.sh).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trails/report/html/html_page.h"
#include "trails/report/html/run_report.h"
#include "trails/report/html/run_report_sections.h"

namespace trails::report {
namespace {

TEST(HtmlPage, EscapesEveryMarkupCharacter) {
  EXPECT_EQ(html::escape(R"(a<b>&"c"'d')"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
  EXPECT_EQ(html::escape("plain text, 1.5 kJ/mol"), "plain text, 1.5 kJ/mol");
  EXPECT_EQ(html::escape("&amp;"), "&amp;amp;");
}

TEST(HtmlPage, Base64MatchesRfc4648) {
  const std::vector<std::pair<std::string, std::string>> vectors = {{"", ""},
                                                                    {"f", "Zg=="},
                                                                    {"fo", "Zm8="},
                                                                    {"foo", "Zm9v"},
                                                                    {"foob", "Zm9vYg=="},
                                                                    {"fooba", "Zm9vYmE="},
                                                                    {"foobar", "Zm9vYmFy"}};
  for (const auto& [in, out] : vectors) EXPECT_EQ(html::base64(in), out) << in;
  // Bytes above 127 and NUL: the alphabet's last characters.
  EXPECT_EQ(html::base64(std::string("\xff\xfe\x00", 3)), "//4A");
  EXPECT_EQ(html::data_uri("image/png", "foo"), "data:image/png;base64,Zm9v");
}

TEST(HtmlPage, TablesAndFiguresEscapeWhatTheyAreGiven) {
  EXPECT_EQ(html::table({"a<"}, {{"<b>", "&"}}),
            "<table>\n<thead><tr><th>a&lt;</th></tr>\n</thead>\n<tbody>\n"
            "<tr><td>&lt;b&gt;</td><td>&amp;</td></tr>\n</tbody>\n</table>\n");
  EXPECT_EQ(html::key_values({{"k\"", "v'"}}),
            "<table class=\"kv\">\n<tbody>\n<tr><th>k&quot;</th><td>v&#39;</td></tr>\n"
            "</tbody>\n</table>\n");
  EXPECT_EQ(html::figure("foo", "x\".png", "T<", "C&"),
            "<figure>\n<img src=\"data:image/png;base64,Zm9v\" alt=\"x&quot;.png\">\n"
            "<figcaption><b>T&lt;</b> C&amp;</figcaption>\n</figure>\n");
  EXPECT_EQ(html::pre("<x>"), "<pre>&lt;x&gt;</pre>\n");
  EXPECT_EQ(html::details("s<", "<p>x</p>", true),
            "<details open><summary>s&lt;</summary>\n<p>x</p></details>\n");
  const std::string page = html::page("run <1>", "<p>body</p>\n");
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_NE(page.find("<title>run &lt;1&gt;</title>"), std::string::npos);
  EXPECT_NE(page.find("<h1>run &lt;1&gt;</h1>\n<p>body</p>\n</body>"), std::string::npos);
}

TEST(RunReport, CaptionsKnownAndUnknownPictures) {
  EXPECT_EQ(picture_caption("coverage.png").title, "Coverage");
  EXPECT_EQ(picture_caption("its.png").title, "Implied timescales of the latest MSM build");
  EXPECT_EQ(picture_caption("convergence_report.png").title, "MSM convergence report");
  EXPECT_EQ(picture_caption("flux_convergence.png").title, "Weighted-ensemble flux and MFPT");
  const auto other = picture_caption("something_new.png");
  EXPECT_EQ(other.title, "something_new.png");
  EXPECT_NE(other.caption.find("no description"), std::string::npos);
}

TEST(RunReport, PicturesInTableOrderThenByName) {
  std::vector<detail::DrawnFile> pictures = {{"trails plot", "zz.png", ""},
                                             {"trails analyze", "convergence_report.png", ""},
                                             {"trails plot", "aa.png", ""},
                                             {"trails plot", "its.png", ""},
                                             {"trails plot", "coverage.png", ""}};
  detail::sort_pictures(pictures);
  std::vector<std::string> names;
  for (const auto& p : pictures) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"coverage.png", "its.png", "convergence_report.png",
                                             "aa.png", "zz.png"}));
}

// The engine row names the run's real system for every engine kind: never the built-in
// potential's name (always in the stored configuration) for a molecular engine.
TEST(RunReport, EngineRowDescribesTheRunsOwnSystem) {
  using nlohmann::json;
  const json builtin_engine = {{"md_engine", "builtin"},
                               {"potential", "double_well"},
                               {"integrator", "langevin"},
                               {"kT", 1.0}};
  const json point = {{"engine", "builtin"},
                      {"molecular", false},
                      {"spatial_dim", 1},
                      {"dt", 0.001},
                      {"time_unit", "reduced"}};
  EXPECT_EQ(detail::engine_description({{"engine", point}}, {{"engine", builtin_engine}}),
            "builtin (potential double_well, langevin dynamics at kT 1 (reduced units); a point "
            "of the 1-D CV space, dt 0.001 reduced units)");

  // What every molecular run stores: the built-in keys with their defaults beside its own.
  json engine = {{"potential", "muller_brown"},
                 {"kT", 1.0},
                 {"temperature", 310.0},
                 {"pressure", 1.0},
                 {"npt", false}};
  const json molecular = {{"molecular", true}, {"n_atoms", 22},       {"dt", 0.002},
                          {"time_unit", "ps"}, {"length_unit", "nm"}, {"periodic", false}};
  const json placement = json::array({{{"where", {{"platform", "CPU"}}}}});
  const auto describe = [&](const std::string& kind, json eng, const json& system) {
    eng.update(engine);
    json status = {{"engine", molecular}, {"placement", placement}};
    status["engine"]["engine"] = kind;
    return detail::engine_description(status, {{"engine", eng}, {"system", system}});
  };
  const std::string openmm = describe(
      "openmm", {{"md_engine", "openmm"}, {"platform_name", "CUDA"}, {"precision", "mixed"}},
      {{"conf_file", "/in/ala2.pdb"}, {"forcefield", {"amber14-all.xml", "implicit/gbn2.xml"}}});
  EXPECT_EQ(openmm,
            "openmm (conf_file /in/ala2.pdb, force field amber14-all.xml + implicit/gbn2.xml; "
            "platform CUDA requested (mixed precision), ran on CPU; 310 K, NVT; 22 atoms, dt "
            "0.002 ps, lengths in nm)");
  engine["npt"] = true;
  const std::string gromacs =
      describe("gromacs", {{"md_engine", "gromacs"}, {"gromacs_executable", "gmx"}},
               {{"conf_file", "/in/conf.gro"},
                {"top_file", "/in/topol.top"},
                {"system_file", "/in/md.mdp"}});
  EXPECT_EQ(gromacs,
            "gromacs (conf_file /in/conf.gro, top_file /in/topol.top, system_file /in/md.mdp; the "
            "system_file MDP template; program gmx; 310 K, NPT at 1 atm; 22 atoms, dt 0.002 ps, "
            "lengths in nm)");
  engine["npt"] = false;
  const std::string amber = describe(
      "amber",
      {{"md_engine", "amber"}, {"amber_executable", "sander"}, {"amber_input_file", nullptr}},
      {{"conf_file", "/in/ala2.rst7"}, {"top_file", "/in/ala2.prmtop"}});
  EXPECT_EQ(amber,
            "amber (conf_file /in/ala2.rst7, top_file /in/ala2.prmtop; Trails' mdin; program "
            "sander; 310 K, NVT; 22 atoms, dt 0.002 ps, lengths in nm)");
  const std::string command =
      describe("command", {{"md_engine", "command"}, {"command", {"python3", "md.py", "--fast"}}},
               {{"conf_file", "/in/ala2.pdb"}});
  EXPECT_EQ(command,
            "command (program 'python3 md.py --fast'; conf_file /in/ala2.pdb; 310 K, NVT; 22 "
            "atoms, dt 0.002 ps, lengths in nm)");
  for (const auto& row : {openmm, gromacs, amber, command}) {
    EXPECT_EQ(row.find("muller_brown"), std::string::npos) << row;
    EXPECT_EQ(row.find("potential"), std::string::npos) << row;
  }
}

}  // namespace
}  // namespace trails::report
