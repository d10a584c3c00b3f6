// The selection language on the alanine dipeptide (ACE 1-6, ALA 7-16, NME 17-22 by bynum) and
// its error messages.
#include "trails/structure/selection.h"

#include <gtest/gtest.h>

#include <vector>

#include "python_ref.h"
#include "trails/core/error.h"
#include "trails/structure/pdb.h"

namespace trails::structure {
namespace {

using V = std::vector<int>;

class SelectionTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    topology_ = new Topology(read_pdb(testing::data_dir() / "alanine-dipeptide.pdb").topology);
  }
  static void TearDownTestSuite() { delete topology_; }
  static V sel(std::string_view e) { return select(*topology_, e); }
  static std::string error_of(std::string_view e) {
    try {
      select(*topology_, e);
    } catch (const core::InputError& err) {
      return err.what();
    }
    return "no error";
  }
  static Topology* topology_;
};
Topology* SelectionTest::topology_ = nullptr;

V range(int lo, int hi) {
  V v;
  for (int i = lo; i <= hi; ++i) v.push_back(i);
  return v;
}

TEST_F(SelectionTest, KeywordsWithoutValues) {
  EXPECT_EQ(sel("all"), range(0, 21));
  EXPECT_EQ(sel("none"), V{});
  EXPECT_EQ(sel("protein"), range(0, 21));  // ACE and NME count as protein, as in MDAnalysis
  EXPECT_EQ(sel("backbone"), (V{4, 5, 6, 8, 14, 15, 16}));
  EXPECT_EQ(sel("heavy"), (V{1, 4, 5, 6, 8, 10, 14, 15, 16, 18}));
}

TEST_F(SelectionTest, StringFieldsAndGlobs) {
  EXPECT_EQ(sel("name CA"), V{8});
  EXPECT_EQ(sel("name CA CB"), (V{8, 10}));
  EXPECT_EQ(sel("name H*"), (V{0, 2, 3, 7, 9, 11, 12, 13, 17, 19, 20, 21}));
  EXPECT_EQ(sel("name HH3?"), (V{0, 2, 3, 19, 20, 21}));
  EXPECT_EQ(sel("name HB[12]"), (V{11, 12}));
  EXPECT_EQ(sel("name HB[!12]"), V{13});
  EXPECT_EQ(sel("name *3"), (V{1, 3, 13, 18, 21}));
  EXPECT_EQ(sel("resname ALA"), range(6, 15));
  EXPECT_EQ(sel("resname A*"), range(0, 15));
  EXPECT_EQ(sel("type O"), (V{5, 15}));
  EXPECT_EQ(sel("element N"), (V{6, 16}));
  EXPECT_EQ(sel("segid A"), range(0, 21));  // no segids in the file: the chain stands in
  EXPECT_EQ(sel("chainid A"), range(0, 21));
  EXPECT_EQ(sel("chainID B"), V{});
  EXPECT_EQ(sel("name ca"), V{});  // case-sensitive, as MDAnalysis
}

TEST_F(SelectionTest, NumbersAndRanges) {
  EXPECT_EQ(sel("resid 2"), range(6, 15));
  EXPECT_EQ(sel("resnum 1 3"), (V{0, 1, 2, 3, 4, 5, 16, 17, 18, 19, 20, 21}));
  EXPECT_EQ(sel("resid 2-3"), range(6, 21));
  EXPECT_EQ(sel("resid 2:3"), range(6, 21));
  EXPECT_EQ(sel("resid 1 to 2"), range(0, 15));
  EXPECT_EQ(sel("resid 1 - 1"), range(0, 5));
  EXPECT_EQ(sel("index 0"), V{0});
  EXPECT_EQ(sel("index 0-2 20:21"), (V{0, 1, 2, 20, 21}));
  EXPECT_EQ(sel("bynum 1-3"), (V{0, 1, 2}));
  EXPECT_EQ(sel("bynum 22"), V{21});
  EXPECT_EQ(sel("index -5--1"), V{});
  EXPECT_EQ(sel("index 100"), V{});
}

TEST_F(SelectionTest, OperatorsGroupLikeMDAnalysis) {
  EXPECT_EQ(sel("protein and not name H*"), sel("heavy"));
  EXPECT_EQ(sel("not resname ALA"), (V{0, 1, 2, 3, 4, 5, 16, 17, 18, 19, 20, 21}));
  // `and` and `or` share one precedence, left to right: (name CA or name N) and resid 2.
  EXPECT_EQ(sel("name CA or name N and resid 2"), (V{6, 8}));
  EXPECT_EQ(sel("name CA or (name N and resid 2)"), (V{6, 8}));
  EXPECT_EQ(sel("name N and resid 3 or name CA"), (V{8, 16}));
  EXPECT_EQ(sel("resid 3 and (name N or name CA)"), V{16});
  EXPECT_EQ(sel("not not name CA"), V{8});
  EXPECT_EQ(sel("not name H* and resid 2"), (V{6, 8, 10, 14, 15}));
  EXPECT_EQ(sel("((name CA))"), V{8});
  EXPECT_EQ(sel("(name CA)or(name CB)"), (V{8, 10}));
  EXPECT_EQ(sel("  name   CA  "), V{8});
}

TEST_F(SelectionTest, ErrorsPointAtTheBadToken) {
  const std::string e = error_of("resnmae ALA");
  EXPECT_NE(e.find("unknown keyword 'resnmae' at column 1; did you mean 'resname'?"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("\n  resnmae ALA\n  ^"), std::string::npos) << e;

  const std::string e2 = error_of("name CA and resnmae ALA");
  EXPECT_NE(e2.find("at column 13"), std::string::npos) << e2;
  EXPECT_NE(e2.find("\n              ^"), std::string::npos) << e2;

  EXPECT_NE(error_of("name").find("'name' needs at least one value"), std::string::npos);
  EXPECT_NE(error_of("name CA and").find("selection ends after 'and'"), std::string::npos);
  EXPECT_NE(error_of("and name CA").find("'and' needs a selection on its left"), std::string::npos);
  EXPECT_NE(error_of("(name CA").find("'(' is never closed at column 1"), std::string::npos);
  EXPECT_NE(error_of("name CA)").find("unmatched ')' at column 8"), std::string::npos);
  EXPECT_NE(error_of("name CA resname ALA").find("unexpected 'resname'"), std::string::npos);
  EXPECT_NE(error_of("resid 1-x").find("bad value '1-x' for 'resid'"), std::string::npos);
  EXPECT_NE(error_of("resid to 3").find("range separator 'to' needs a number on each side"),
            std::string::npos);
  EXPECT_NE(error_of("around 5 name CA").find("MDAnalysis keyword that Trails does not support"),
            std::string::npos);
  EXPECT_NE(error_of("").find("the selection is empty"), std::string::npos);
  EXPECT_NE(
      error_of("xyzzy").find("unknown keyword 'xyzzy' at column 1; selections start with one of"),
      std::string::npos);
}

TEST_F(SelectionTest, NonemptyNamesTheCaller) {
  EXPECT_EQ(select_nonempty(*topology_, "name CA", "system.feature_selection"), V{8});
  try {
    select_nonempty(*topology_, "resname LYS", "system.feature_selection");
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_STREQ(e.what(),
                 "system.feature_selection: the atom selection \"resname LYS\" matches no atom "
                 "of the 22-atom topology");
  }
}

}  // namespace
}  // namespace trails::structure
